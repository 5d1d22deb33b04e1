// Records invocations off the call's path: record() checks and queues in memory and returns; a timer
// writes the queue in batches, each one transaction holding the raw rows and their daily rollups.
// A failed write is logged and retried a few times, then dropped: analytics never fails a call.
import { MAX_LATENCY_MS } from "./columns";
import type { Logger } from "../../logger";
import { type InvocationRecord, type InvocationSink, type QueuedInvocation } from "./types";
import { INVOCATION_SOURCES, type InvocationSource } from "../../contracts/analytics";
import type { InvocationStore, Rollup } from "./store";

const MAX_ERROR_TEXT = 2000;
const MAX_NAME = 256;
/** The times whose ISO form has a four-digit year, as every stored time has: 0000-01-01 up to 10000-01-01 (UTC). */
const FIRST_MS = Date.parse("0000-01-01T00:00:00Z");
const PAST_LAST_MS = Date.UTC(10_000, 0, 1);

export interface RecorderOptions {
  flushMs: number;
  log: Pick<Logger, "warn" | "error">;
  /** analytics.trackAgentCalls: when off, only operators' `cli` calls are recorded. */
  trackAgentCalls?: boolean;
  /** Receives each batch once it is committed, with the rows' ids. */
  onCommit?: (rows: readonly QueuedInvocation[], ids: readonly number[]) => void;
  /** Rows waiting beyond this are dropped (and counted), so memory stays bounded when writes fail. */
  maxQueue?: number;
  /** Rows per transaction, so one write never holds the lock (or the event loop) long. */
  batchRows?: number;
  maxAttempts?: number;
}

const optionalText = (value: unknown, max: number): string | null =>
  typeof value === "string" && value.length > 0 ? value.slice(0, max) : null;

/** The row to store, or why there is none. */
function normalize(inv: InvocationRecord): QueuedInvocation | string {
  const agentId = optionalText(inv.agentId, MAX_NAME);
  if (agentId === null) return "no agent id";
  const server = optionalText(inv.server, MAX_NAME);
  const tool = optionalText(inv.tool, MAX_NAME);
  if (server === null || tool === null) return "no server or tool name";
  if (!INVOCATION_SOURCES.includes(inv.source)) return "unknown source";
  const latency = Number(inv.latencyMs);
  // A time that does not parse, or would not print as a four-digit year, is stamped now.
  const given = inv.createdAt === undefined ? NaN : Date.parse(inv.createdAt);
  const createdMs = given >= FIRST_MS && given < PAST_LAST_MS ? given : Date.now();
  return {
    server,
    tool,
    agentId,
    source: inv.source,
    latencyMs: Number.isFinite(latency) ? Math.min(MAX_LATENCY_MS, Math.max(0, Math.round(latency))) : 0,
    success: inv.success === true,
    errorText: optionalText(inv.errorText, MAX_ERROR_TEXT),
    createdMs,
    createdAt: new Date(createdMs).toISOString(),
    sessionKey: optionalText(inv.sessionKey, MAX_NAME),
    client: optionalText(inv.client, MAX_NAME),
    attempts: 0,
  };
}

/** Sums a batch per (day, server, tool, agent, source): one upsert each instead of one per row. */
function rollups(batch: readonly QueuedInvocation[]): Rollup[] {
  const byKey = new Map<string, Rollup>();
  for (const row of batch) {
    const key = `${row.createdAt.slice(0, 10)}\u0000${row.server}\u0000${row.tool}\u0000${row.agentId}\u0000${row.source}`;
    const r = byKey.get(key);
    if (!r) {
      byKey.set(key, { row, calls: 1, failures: row.success ? 0 : 1, latencyTotal: row.latencyMs, lastAt: row.createdAt });
      continue;
    }
    r.calls++;
    if (!row.success) r.failures++;
    r.latencyTotal += row.latencyMs;
    if (row.createdAt > r.lastAt) r.lastAt = row.createdAt;
  }
  return [...byKey.values()];
}

export class InvocationRecorder implements InvocationSink {
  private queue: QueuedInvocation[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly dropped = new Map<string, number>();
  private stopped = false;
  /** The last write asked for: each waits for the one before it, so batches go one at a time, in order. */
  private writing: Promise<unknown> = Promise.resolve();
  private readonly maxQueue: number;
  private readonly batchRows: number;
  private readonly maxAttempts: number;

  constructor(
    private readonly store: InvocationStore,
    private readonly options: RecorderOptions,
  ) {
    this.maxQueue = options.maxQueue ?? 100_000;
    this.batchRows = options.batchRows ?? 5000;
    this.maxAttempts = options.maxAttempts ?? 5;
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Whether calls from `source` are recorded at all. */
  accepts(source: InvocationSource): boolean {
    return source === "cli" || this.options.trackAgentCalls !== false;
  }

  record(invocation: InvocationRecord): void {
    try {
      if (!this.accepts(invocation.source)) return;
      const row = normalize(invocation);
      if (typeof row === "string") return this.drop(row);
      if (this.stopped) return this.drop("recorded after stop");
      if (this.queue.length >= this.maxQueue) return this.drop("queue full");
      this.queue.push(row);
      this.schedule();
    } catch (err) {
      this.options.log.error(`analytics: could not queue an invocation: ${(err as Error).message}`);
    }
  }

  /** Writes everything queued now (stopping at the first failed batch, which stays queued for a retry). */
  async flush(): Promise<void> {
    this.clearTimer();
    await this.writing;
    while (this.queue.length > 0) if (!(await this.writeBatch())) break;
    this.reportDrops();
    this.schedule();
  }

  /** Writes what is queued and stops the timer; whatever cannot be written now is lost, with a log line. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.flush();
    if (this.queue.length > 0) {
      this.options.log.error(`analytics: ${this.queue.length} invocations could not be written before shutdown and are lost`);
      this.queue = [];
    }
  }

  private schedule(): void {
    if (this.timer || this.stopped || (this.queue.length === 0 && this.dropped.size === 0)) return;
    this.timer = setTimeout(() => void this.tick(), this.options.flushMs);
    // The timer alone never keeps a process alive; stop() writes what is left.
    this.timer.unref?.();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One batch per turn of the event loop while a backlog lasts. */
  private async tick(): Promise<void> {
    this.timer = null;
    const ok = this.queue.length === 0 || (await this.writeBatch());
    this.reportDrops();
    if (ok && this.queue.length > 0 && !this.stopped) {
      this.timer = setTimeout(() => void this.tick(), 0);
      this.timer.unref?.();
    } else {
      this.schedule();
    }
  }

  /** Writes the next batch; false when it failed (and was queued again). One write at a time. */
  private writeBatch(): Promise<boolean> {
    const write = this.writing.then(() => this.writeNext());
    // The next write waits for this one however it ends.
    this.writing = write.catch(() => false);
    return write;
  }

  /** Writes the queue's next batch (when there is one); false when it failed and was queued again. */
  private async writeNext(): Promise<boolean> {
    const batch = this.queue.length <= this.batchRows ? this.queue : this.queue.slice(0, this.batchRows);
    this.queue = batch === this.queue ? [] : this.queue.slice(batch.length);
    if (batch.length === 0) return true;
    let ids: number[];
    try {
      ids = await this.store.write(batch, rollups(batch));
    } catch (err) {
      this.requeue(batch, err);
      return false;
    }
    try {
      this.options.onCommit?.(batch, ids);
    } catch (err) {
      this.options.log.error(`analytics: committed invocations could not be indexed in memory: ${(err as Error).message}`);
    }
    return true;
  }

  private requeue(batch: QueuedInvocation[], err: unknown): void {
    const retry = batch.filter((r) => ++r.attempts < this.maxAttempts);
    const lost = batch.length - retry.length;
    this.queue = retry.concat(this.queue);
    this.options.log.error(
      `analytics: writing ${batch.length} invocations failed (${(err as Error).message}); ` +
        (lost > 0 ? `${lost} dropped after ${this.maxAttempts} attempts, ` : "") +
        `${retry.length} will be retried`,
    );
  }

  private drop(reason: string): void {
    this.dropped.set(reason, (this.dropped.get(reason) ?? 0) + 1);
    if (this.stopped) this.reportDrops();
    else this.schedule();
  }

  /** Drops are logged as counts once per flush, so a misbehaving caller cannot flood the log. */
  private reportDrops(): void {
    if (this.dropped.size === 0) return;
    const parts = [...this.dropped].map(([reason, n]) => `${n} (${reason})`);
    this.dropped.clear();
    this.options.log.warn(`analytics: invocations not recorded: ${parts.join(", ")}`);
  }
}
