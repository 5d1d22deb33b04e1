// Taking over work a daemon sharing the store left undone (it died, or lost the store): every
// `everyMs` the service asks its store for items last written over `afterMs` ago that nobody
// works on, and queues them. The embedding worker, the document chunks' vectors and graph
// extraction each run one; a lone store has nothing to look for.

/** How often to look, and how long after its last write an item counts as left. */
export interface TakeOverTiming {
  /** Default 15 s. */
  everyMs?: number;
  /** Default 30 s: the daemon that took the write had time to do it. */
  afterMs?: number;
}

/**
 * Starts looking: `left(writtenBefore)` finds the items, `take(items)` queues them. A failed look
 * (the store is away) is left to the next one. Returns how to stop looking.
 */
export function watchForLeftovers(
  left: (writtenBefore: string) => Promise<number[]>,
  take: (items: number[]) => void,
  timing: TakeOverTiming = {},
  now: () => number = Date.now,
): () => void {
  const afterMs = timing.afterMs ?? 30_000;
  const timer = setInterval(() => {
    left(new Date(now() - afterMs).toISOString()).then(take, () => undefined);
  }, timing.everyMs ?? 15_000);
  timer.unref?.();
  return () => clearInterval(timer);
}
