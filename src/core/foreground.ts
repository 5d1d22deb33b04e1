// Background work on the daemon's one thread (the knowledge graph's extraction and Dreaming) waits
// for the writes to pause: while a harness or an import writes fast, every millisecond spent
// extracting is a millisecond a write waits for. The work is only postponed, never dropped: what it
// has not read is found again at the next start (graph/service.ts start()).

export interface ForegroundOptions {
  /** How long without a write counts as a pause. */
  quietMs?: number;
  /** The longest background work waits: under writes that never pause it still runs a step this often. */
  maxWaitMs?: number;
  now?: () => number;
}

const DEFAULT_QUIET_MS = 100;
// A batch of extraction (100 memories) costs ~12 ms: one each 250 ms keeps pace with a steady
// 400 writes a second and takes ~5% of the thread under a flood.
const DEFAULT_MAX_WAIT_MS = 250;

export class Foreground {
  private last = Number.NEGATIVE_INFINITY;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(options: ForegroundOptions = {}) {
    this.quietMs = options.quietMs ?? DEFAULT_QUIET_MS;
    this.maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.now = options.now ?? (() => performance.now());
  }

  /** A write was taken. */
  touch(): void {
    this.last = this.now();
  }

  /** Resolves once no write came for quietMs, or after maxWaitMs of waiting, whichever is first. */
  async pause(): Promise<void> {
    const deadline = this.now() + this.maxWaitMs;
    for (;;) {
      const now = this.now();
      const wait = Math.min(this.last + this.quietMs, deadline) - now;
      if (wait <= 0) return;
      await new Promise<void>((resolve) => setTimeout(resolve, Math.ceil(wait)));
    }
  }
}
