// Invocation tracking and analytics (docs/api.md#analytics) as one object: the recorder every surface records
// into, the in-memory columns the queries scan, and retention. The store is the record; the columns
// are loaded from it at start (queries wait for that) and appended after every commit.
import type { AlertsResponse, AnalyticsResponse, FeaturesResponse, InvocationSource, SessionToolsResponse, UnusedResponse } from "../../contracts/analytics";
import { latencyAlerts } from "./alerts";
import { usageFeatures, type FeaturesFilter } from "./features";
import { sessionToolUsage, type SessionUsageFilter } from "./session-usage";
import { unusedTools, type ServerToolSource } from "./unused";
import { InvocationColumns } from "./columns";
import { summarize, type AnalyticsFilter } from "./query";
import { InvocationRecorder } from "./recorder";
import { Retention } from "./retention";
import type { Logger } from "../../logger";
import type { InvocationRecord, InvocationSink } from "./types";
import type { QueuedInvocation } from "./types";
import type { InvocationStore, StoredRow } from "./store";

/**
 * Where the in-memory columns get other daemons' rows on a shared store: a feed of the raw rows from
 * a number on (PostgreSQL's InvocationFeed), which then brings this daemon's own rows too.
 */
export interface InvocationFollower {
  start(from: number): Promise<void>;
  stop(): Promise<void>;
}

export interface AnalyticsConfig {
  retentionDays: number;
  flushMs: number;
  trackAgentCalls: boolean;
  /** p95 latency thresholds in ms, keyed by "server" or "server/tool" (analytics.alerts). */
  alerts?: Record<string, number>;
}

export type { AnalyticsFilter } from "./query";
export type { ServerToolSource } from "./unused";

export class Analytics implements InvocationSink {
  private readonly columns = new InvocationColumns();
  /** Every surface that makes a tool call records into this. */
  readonly recorder: InvocationRecorder;
  private readonly retention: Retention;
  /**
   * Rows above this id are appended by the recorder, so the load must not read them too; null until
   * start() has read it. Rows committed before that are appended at once, and the load skips them.
   */
  private loadUpToId: number | null = null;
  private readonly appendedEarly = new Set<number>();
  /** The feed the columns follow on a shared store, once started. */
  private feed: InvocationFollower | null = null;
  private loaded: Promise<void> = Promise.resolve();
  private state: "new" | "started" | "stopped" = "new";

  constructor(
    private readonly store: InvocationStore,
    private readonly config: AnalyticsConfig,
    private readonly log: Logger,
    /** On a shared store: the feed the columns follow, told each row through `appendStored` (see follow()). */
    private readonly follower?: (appendStored: (row: StoredRow) => void) => InvocationFollower,
  ) {
    this.recorder = new InvocationRecorder(store, {
      flushMs: config.flushMs,
      trackAgentCalls: config.trackAgentCalls,
      log,
      onCommit: (rows, ids) => {
        // Following a feed, the columns take every row from the load and the feed, this daemon's too.
        if (this.follower) return;
        if (this.loadUpToId !== null) return this.appendAbove(this.loadUpToId, rows, ids);
        this.columns.append(rows);
        for (const id of ids) this.appendedEarly.add(id);
      },
    });
    this.retention = new Retention(store, this.columns, { retentionDays: config.retentionDays, log });
  }

  /** Appends the rows of a committed batch whose ids are above `upToId` (the others are the load's). */
  private appendAbove(upToId: number, rows: readonly QueuedInvocation[], ids: readonly number[]): void {
    this.columns.append(ids.every((id) => id > upToId) ? rows : rows.filter((_, i) => ids[i]! > upToId));
  }

  /** Loads the stored rows in the background and starts retention. */
  start(): void {
    if (this.state !== "new") return;
    this.state = "started";
    const began = performance.now();
    this.loaded = (async () => {
      const { first, last } = await this.store.idRange();
      this.loadUpToId = last;
      await this.columns.load(this.store, {
        upToId: last,
        firstId: first,
        skip: this.appendedEarly,
        sinceMs: this.retention.cutoffMs(),
        stopped: () => this.state === "stopped",
      });
      this.appendedEarly.clear();
      if (this.follower && this.state !== "stopped") {
        const feed = this.follower((row) => this.columns.appendStored(row, this.retention.cutoffMs()));
        this.feed = feed;
        await feed.start(last);
      }
    })().then(
        () => {
          const ms = Math.round(performance.now() - began);
          if (this.columns.size > 0) this.log.info(`analytics: ${this.columns.size} invocations loaded in ${ms} ms`);
        },
        (err) => this.log.error(`analytics: loading stored invocations failed: ${(err as Error).message}`),
      );
    this.retention.start();
  }

  /** Resolves once the stored rows are in memory. */
  ready(): Promise<void> {
    return this.loaded;
  }

  record(invocation: InvocationRecord): void {
    this.recorder.record(invocation);
  }

  /** Whether calls from `source` are recorded (analytics.trackAgentCalls). */
  accepts(source: InvocationSource): boolean {
    return this.recorder.accepts(source);
  }

  /** GET /api/mcp/analytics. */
  async summary(filter: AnalyticsFilter, now = Date.now()): Promise<AnalyticsResponse> {
    await this.loaded;
    return summarize(this.columns, filter, { now });
  }

  /** GET /api/mcp/analytics/:server: the same for one server, with every tool. */
  async server(server: string, filter: Omit<AnalyticsFilter, "server">, now = Date.now()): Promise<AnalyticsResponse> {
    await this.loaded;
    return summarize(this.columns, { ...filter, server }, { now, everyTool: true, timelineServer: server });
  }

  /** GET /api/mcp/alerts: thresholds of analytics.alerts breached over the last `hours`. */
  async alerts(query: { hours: number; agentId?: string }, now = Date.now()): Promise<AlertsResponse> {
    await this.loaded;
    const sinceMs = now - query.hours * 3_600_000;
    return {
      window: { since: new Date(sinceMs).toISOString(), until: new Date(now).toISOString(), hours: query.hours },
      alerts: latencyAlerts(this.columns, this.config.alerts ?? {}, { sinceMs, untilMs: now, agentId: query.agentId }),
    };
  }

  /** GET /api/mcp/features, from the daily rollups. */
  features(filter: FeaturesFilter = {}, now = Date.now()): Promise<FeaturesResponse> {
    return usageFeatures(this.store, filter, now);
  }

  /** GET /api/mcp/unused: listed tools with no call in the last `days` UTC days (today included). */
  unused(servers: ServerToolSource[], days: number, now = Date.now()): Promise<UnusedResponse> {
    return unusedTools(this.store, servers, days, now);
  }

  /** GET /api/sessions/:key/tools, from the raw rows in the store (visible within analytics.flushMs). */
  sessionTools(sessionKey: string, filter: SessionUsageFilter): Promise<SessionToolsResponse> {
    return sessionToolUsage(this.store, sessionKey, filter);
  }

  /** Writes what is queued now (normally the timer does, within analytics.flushMs). */
  flush(): Promise<void> {
    return this.recorder.flush();
  }

  /** Applies retention now; resolves to the number of raw rows deleted. */
  prune(now = Date.now()): Promise<number> {
    return this.retention.prune(now);
  }

  /** Rows held in memory and the bytes their columns take. */
  stats(): { rows: number; memoryBytes: number; pending: number } {
    return { rows: this.columns.size, memoryBytes: this.columns.memoryBytes, pending: this.recorder.pending };
  }

  /** Writes what is queued and clears every timer; call before the database closes. */
  async stop(): Promise<void> {
    if (this.state === "stopped") return;
    this.state = "stopped";
    this.retention.stop();
    await this.recorder.stop();
    await this.feed?.stop();
  }
}
