// A full garbage collection after every so many memory changes and stored vectors. Under a bulk load
// (an import, a harness writing fast, the embedding of its backlog) the engine's own pacing let the
// garbage of the requests and batches pile up: the heap reached ~180 MiB while 100,000 memories were
// remembered, against ~100 MiB once they were in. Collected every 10,000, the load's peak went
// 289 → 254 MiB (docs/benchmarks.md#daemon-memory), for a pause of some tens of milliseconds every
// few seconds of such a load, and none otherwise.

/** Memory changes and stored vectors between two collections. */
export const CHANGES_PER_COLLECTION = 10_000;

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
