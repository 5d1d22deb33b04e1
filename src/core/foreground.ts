// Work on the daemon's one thread that can wait (the knowledge graph's extraction and Dreaming,
// keyword indexing) waits for the writes to pause: while a harness or an import writes fast, every
// millisecond spent on it is a millisecond a write waits for. The work is only postponed, never
// dropped: what extraction has not read is found again at the next start (graph/service.ts start()),
// and a recall indexes what waits before it reads the index (recall/service.ts).

export interface ForegroundOptions {
  /** How long without a write counts as a pause. */
  quietMs?: number;
  /** The longest background work waits: under writes that never pause it still runs a step this often. */
  maxWaitMs?: number;
}

const DEFAULT_QUIET_MS = 100;
// A batch of extraction (100 memories) costs ~12 ms: one each 250 ms keeps pace with a steady
// 400 writes a second and takes ~5% of the thread under a flood.
const DEFAULT_MAX_WAIT_MS = 250;

export class Foreground {
  private last = Number.NEGATIVE_INFINITY;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;

  constructor(options: ForegroundOptions = {}) {
    this.quietMs = options.quietMs ?? DEFAULT_QUIET_MS;
    this.maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  }

  /** A write was taken. */
  touch(): void {
    this.last = performance.now();
  }

  /** Resolves once no write came for quietMs, or after maxWaitMs of waiting, whichever is first. */
  async pause(): Promise<void> {
    const deadline = performance.now() + this.maxWaitMs;
    for (;;) {
      const wait = Math.min(this.last + this.quietMs, deadline) - performance.now();
      if (wait <= 0) return;
      await new Promise<void>((resolve) => setTimeout(resolve, Math.ceil(wait)));
    }
  }
}
