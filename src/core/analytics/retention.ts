// Retention (docs/api.md#analytics): raw invocation rows older than analytics.retentionDays go, from the store
// and from the in-memory columns, at start and hourly. The store deletes in small chunks, each its own
// short transaction with a turn of the event loop between, so pruning a backlog never holds the write
// lock (or the daemon) for long. Daily rollups are kept, so "no call in 30 days" stays answerable.
import type { InvocationStore } from "./store";
import { yieldToLoop } from "../event-loop";
import { type InvocationColumns } from "./columns";
import { DAY_MS } from "../../contracts/analytics";
import type { Logger } from "../../logger";

export interface RetentionOptions {
  /** 0 keeps everything. */
  retentionDays: number;
  log: Pick<Logger, "info" | "error">;
  chunkRows?: number;
  intervalMs?: number;
}

export class Retention {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly store: InvocationStore,
    private readonly columns: InvocationColumns,
    private readonly options: RetentionOptions,
  ) {}

  /** Rows created before this are pruned; -Infinity when everything is kept. */
  cutoffMs(now = Date.now()): number {
    return this.options.retentionDays === 0 ? -Infinity : now - this.options.retentionDays * DAY_MS;
  }

  start(): void {
    if (this.options.retentionDays === 0 || this.timer) return;
    void this.prune();
    this.timer = setInterval(() => void this.prune(), this.options.intervalMs ?? 3_600_000);
    this.timer.unref?.();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Prunes now (joining a prune already running); resolves to the number of raw rows deleted. */
  prune(now = Date.now()): Promise<number> {
    this.running ??= this.pruneOnce(this.cutoffMs(now)).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pruneOnce(cutoffMs: number): Promise<number> {
    if (cutoffMs === -Infinity) return 0;
    this.columns.prune(cutoffMs);
    const chunkRows = this.options.chunkRows ?? 5000;
    const cutoff = new Date(cutoffMs).toISOString();
    let deleted = 0;
    try {
      while (!this.stopped) {
        const changes = await this.store.pruneBefore(cutoff, chunkRows);
        deleted += changes;
        if (changes < chunkRows) break;
        await yieldToLoop();
      }
    } catch (err) {
      this.options.log.error(`analytics: pruning invocations older than ${cutoff} failed: ${(err as Error).message}`);
    }
    if (deleted > 0) this.options.log.info(`analytics: pruned ${deleted} invocations older than ${cutoff}`);
    return deleted;
  }
}
