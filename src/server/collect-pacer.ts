// Garbage collections paced by the daemon's own work, never by a timer (an idle daemon does nothing).
// Under a bulk load (an import, a harness writing fast, the embedding of its backlog) the engine's
// own pacing let the garbage of the requests and batches pile up: the heap reached ~180 MiB while
// 100,000 memories were remembered, against ~100 MiB once they were in. Collected in full every
// 10,000 memory changes and stored vectors, the load's peak went 289 → 254 MiB, for a pause of some
// tens of milliseconds every few seconds of such a load; an asynchronous collection every 2,000 as
// well (Bun.gc(false): the engine collects beside the requests and the allocator returns what it
// can) took the peak of a 100,000-memory load from 288–312 to 239–240 MiB (226–228 every 1,000, for
// twice the collections; 291–295 with the asynchronous ones alone). Recalls leave garbage of their
// own (each reads a few hundred candidate rows): at 100,000 memories 300 of them grew the daemon by
// ~50 MiB before the engine collected, and an asynchronous collection every 25 recalls keeps that to
// a few MiB (docs/benchmarks.md#daemon-memory).

/** Memory changes and stored vectors between two full collections. */
export const CHANGES_PER_COLLECTION = 10_000;
/** Memory changes and stored vectors between two asynchronous collections. */
export const CHANGES_PER_ASYNC_COLLECTION = 2_000;
/** Recalls (and prompt-time rankings) between two asynchronous collections. */
export const RECALLS_PER_COLLECTION = 25;

/** A collection beside the requests, not inside the one that asks for it, and the allocator's cleanup. */
export const collectAsync = (): void => Bun.gc(false);

/** A function to call with each `n` changes: each time the count passes `every`, `collect` runs. */
export function collectionPacer(every = CHANGES_PER_COLLECTION, collect: () => void = () => Bun.gc(true)): (n?: number) => void {
  let since = 0;
  return (n = 1) => {
    since += n;
    if (since < every) return;
    since = 0;
    collect();
  };
}

/** The daemon's pacing of memory changes and stored vectors: both kinds of collection, each at its count. */
export function changesPacer(): (n?: number) => void {
  const full = collectionPacer(CHANGES_PER_COLLECTION);
  const light = collectionPacer(CHANGES_PER_ASYNC_COLLECTION, collectAsync);
  return (n = 1) => {
    full(n);
    light(n);
  };
}
