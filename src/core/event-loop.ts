// Long jobs on the daemon's one thread (loading indexes at start, pruning) run in steps.

/** Lets the event loop answer requests between steps. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Rows per step when an index is loaded at start: small enough that requests keep being answered. */
const LOAD_STEP = 2000;

/**
 * Hands `take` the rows `page(after, n)` returns (in `seq` order, after the last seq it returned),
 * LOAD_STEP at a time, yielding to the event loop between steps so the daemon answers while a large
 * store loads. The last step's rows are garbage once taken: collected before the next step, they do
 * not pile up (a load of 100,000 memories otherwise peaks ~100 MB above what the indexes keep); a
 * store of one step needs no collection. False when `wanted()` turned false first.
 */
export async function readInSteps<R extends { seq: number }>(
  page: (after: number, n: number) => R[] | Promise<R[]>,
  take: (row: R) => void,
  wanted: () => boolean,
): Promise<boolean> {
  let after = 0;
  while (wanted()) {
    if (after > 0) Bun.gc(true);
    const rows = await page(after, LOAD_STEP);
    for (const row of rows) take(row);
    if (rows.length < LOAD_STEP) return true;
    after = rows[rows.length - 1]!.seq;
    await yieldToLoop();
  }
  return false;
}
