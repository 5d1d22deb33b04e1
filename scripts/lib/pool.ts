// A bounded pool of concurrent clients, each with one request in flight.

/** Runs `total` jobs over `clients` workers, each with one request in flight; returns per-job latency. */
export async function runPool(
  total: number,
  clients: number,
  job: (i: number) => Promise<boolean>,
  onProgress?: (done: number) => void,
): Promise<{ latencies: Float64Array; wallMs: number; errors: number }> {
  const latencies = new Float64Array(total);
  let next = 0;
  let done = 0;
  let errors = 0;
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const t0 = performance.now();
      const ok = await job(i);
      latencies[i] = performance.now() - t0;
      if (!ok) errors++;
      done++;
      onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(clients, total) }, worker));
  return { latencies, wallMs: performance.now() - started, errors };
}

/**
 * `clients` workers that run `job` until stop() is called (background load, e.g. writers while reads
 * are measured): back to back, or, with `ratePerSec`, paced so that all workers together start about
 * that many jobs a second (a worker that falls behind does not burst to catch up). stop() waits for
 * the requests in flight and returns each job's latency.
 */
export function runUntilStopped(
  clients: number,
  job: (i: number) => Promise<boolean>,
  ratePerSec = 0,
): { stop(): Promise<{ latencies: number[]; wallMs: number; errors: number }> } {
  let stopped = false;
  let wakeAll: (() => void)[] = [];
  let next = 0;
  let errors = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const intervalMs = ratePerSec > 0 ? (1000 * clients) / ratePerSec : 0;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeAll = wakeAll.filter((w) => w !== done);
        resolve();
      }
      wakeAll.push(done);
    });
  const worker = async (w: number) => {
    // Staggered starts, so paced workers do not fire in lockstep.
    let due = started + (intervalMs * w) / clients;
    while (!stopped) {
      if (intervalMs > 0) {
        const wait = due - performance.now();
        if (wait > 0) await pause(wait);
        if (stopped) break;
        due = Math.max(due + intervalMs, performance.now());
      }
      const i = next++;
      const t0 = performance.now();
      const ok = await job(i);
      latencies.push(performance.now() - t0);
      if (!ok) errors++;
    }
  };
  const running = Promise.all(Array.from({ length: clients }, (_, w) => worker(w)));
  return {
    async stop() {
      stopped = true;
      for (const wake of [...wakeAll]) wake();
      await running;
      return { latencies, wallMs: performance.now() - started, errors };
    },
  };
}
