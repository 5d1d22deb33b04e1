// Long jobs on the daemon's one thread (loading indexes at start, pruning) run in steps.

/** Lets the event loop answer requests between steps. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Rows per step when an index is loaded at start: small enough that requests keep being answered. */
const LOAD_STEP = 2000;

/**
 * Rows the stepwise loads have taken since the last full collection. The loads at start (the keyword
 * index, the stored vectors) run side by side, each a step at a time: counted together, one
 * collection per two steps' rows of them all bounds their garbage as one per step of each did, with
 * half the collections, each of which marks the whole heap (at 100,000 memories a start took about a
 * fifth less CPU, its peak 8–12 MiB higher: docs/benchmarks.md#daemon-start).
 */
let takenSinceCollection = 0;

/**
 * Hands `take` the rows `page(after, n)` returns (in `seq` order, after the last seq it returned),
 * LOAD_STEP at a time, yielding to the event loop between steps so the daemon answers while a large
 * store loads. The rows taken are garbage once taken: collected as they add up (above), they do not
 * pile up (a load of 100,000 memories otherwise peaks ~100 MB above what the indexes keep); a small
 * store's load needs none. False when `wanted()` turned false first.
 */
export async function readInSteps<R extends { seq: number }>(
  page: (after: number, n: number) => R[] | Promise<R[]>,
  take: (row: R) => void,
  wanted: () => boolean,
): Promise<boolean> {
  let after = 0;
  while (wanted()) {
    if (takenSinceCollection >= 2 * LOAD_STEP) {
      takenSinceCollection = 0;
      Bun.gc(true);
    }
    const rows = await page(after, LOAD_STEP);
    for (const row of rows) take(row);
    takenSinceCollection += rows.length;
    if (rows.length < LOAD_STEP) return true;
    after = rows[rows.length - 1]!.seq;
    await yieldToLoop();
  }
  return false;
}
