// Following a shared store's notices (PostgreSQL LISTEN) from a daemon's start. The first listening
// may fail while queries work: the database keeping new connections out for a moment, a connection
// limit reached. The client listens again by itself after a drop, but only once it has listened, so
// a first failure would leave the daemon deaf to other daemons for its whole life, and a start that
// nothing awaits would end the process on the unhandled rejection. The first listening is therefore
// tried again in the background until it takes or the daemon stops, each failure reported.

/** Waits before each new try: growing, then every 30 s. */
const RETRY_MS = [250, 1_000, 5_000, 15_000, 30_000] as const;

export interface ListeningOptions<T> {
  /** Aborted when the daemon stops: no try starts after it. */
  signal: AbortSignal;
  /** Given what a try that took returned, while the daemon runs. */
  keep: (subscription: T) => void;
  /** Ends what a try returned that took only after the abort (a stop while it was set up): nothing else would. */
  end: (subscription: T) => Promise<void>;
  /** Told each failure, with what was being followed and when the next try comes. */
  onError: (message: string) => void;
  /** What is followed, for the message ("token revocations by other daemons"). */
  what: string;
  retryMs?: readonly number[];
}

/**
 * Runs `listen` until a try takes or `signal` aborts. Resolves once the first try has ended (never
 * rejects): a caller that waits for it waits one round trip, never for an outage.
 */
export function listenRetrying<T>(listen: () => Promise<T>, options: ListeningOptions<T>): Promise<void> {
  const retryMs = options.retryMs ?? RETRY_MS;
  const attempt = async (n: number): Promise<boolean> => {
    try {
      const subscription = await listen();
      if (options.signal.aborted) await options.end(subscription);
      else options.keep(subscription);
      return true;
    } catch (err) {
      if (options.signal.aborted) return true;
      const wait = retryMs[Math.min(n, retryMs.length - 1)]!;
      options.onError(`${options.what}: listening on the shared store failed (${(err as Error).message}); trying again in ${wait / 1000} s`);
      return false;
    }
  };
  const retry = async (n: number): Promise<void> => {
    const wait = retryMs[Math.min(n - 1, retryMs.length - 1)]!;
    if (!(await sleepUnlessAborted(wait, options.signal))) return;
    if (!(await attempt(n))) void retry(n + 1);
  };
  return attempt(0).then((took) => {
    if (!took) void retry(1);
  });
}

/** Sleeps `ms`; false when `signal` aborted first (the timer then cleared, so nothing holds the process). */
function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (slept: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", aborted);
      resolve(slept);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener("abort", aborted, { once: true });
  });
}
