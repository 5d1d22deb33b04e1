// Long jobs on the daemon's one thread (loading indexes at start, pruning) run in steps.

/** Lets the event loop answer requests between steps. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
