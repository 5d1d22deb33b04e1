// The raw invocation rows within retention, kept in memory as typed-array columns, because SQLite
// needs 0.4–1.5 s to aggregate a million rows and a scan of these takes milliseconds. Names are
// interned to small ids (a tool id stands for its server and tool name), so a row costs 21 bytes.
// The store stays the record: the columns are loaded from it at start and appended after each commit.
import type { InvocationStore, StoredRow } from "./store";
import { yieldToLoop } from "../event-loop";
import type { ColumnRow } from "./types";
import { INVOCATION_SOURCES } from "../../contracts/analytics";

/** Latencies live in a Uint32 column. */
export const MAX_LATENCY_MS = 0xffff_ffff;
/** `flags` holds the source's index in INVOCATION_SOURCES in its low bits and success above them. */
export const SOURCE_MASK = 0b011;
export const SUCCESS_BIT = 0b100;


/** The columns as they are now, for a scan; valid until the next append or prune. */
export interface ColumnView {
  length: number;
  tool: Uint32Array;
  agent: Uint32Array;
  flags: Uint8Array;
  latency: Uint32Array;
  at: Float64Array;
}

export interface LoadOptions {
  /** Rows above this id were committed by this process's recorder and are appended by it. */
  upToId: number;
  /** The lowest stored id, for sizing the columns ahead. */
  firstId?: number | null;
  /** Ids already in the columns (appended before the load knew where to stop). */
  skip?: ReadonlySet<number>;
  /** Rows created before this are outside retention and skipped. */
  sinceMs: number;
  chunkRows?: number;
  /** Checked between chunks: the daemon is stopping and the database may close. */
  stopped?: () => boolean;
}


const INITIAL_CAPACITY = 1024;
const RESERVE_CAP = 1_000_000;

export class InvocationColumns {
  /** Interned names; ids index these arrays. */
  readonly servers: string[] = [];
  readonly toolNames: string[] = [];
  /** The server id of each tool id. */
  readonly toolServer: number[] = [];
  readonly agents: string[] = [];
  private readonly serverIds = new Map<string, number>();
  private readonly toolIds: Map<string, number>[] = [];
  private readonly agentIds = new Map<string, number>();

  private length = 0;
  private tool = new Uint32Array(0);
  private agent = new Uint32Array(0);
  private flags = new Uint8Array(0);
  private latency = new Uint32Array(0);
  private at = new Float64Array(0);
  /** The oldest row's time, so a prune with nothing to do costs nothing. */
  private oldest = Infinity;

  get size(): number {
    return this.length;
  }

  get memoryBytes(): number {
    return this.tool.byteLength + this.agent.byteLength + this.flags.byteLength + this.latency.byteLength + this.at.byteLength;
  }

  view(): ColumnView {
    const { length, tool, agent, flags, latency, at } = this;
    return { length, tool, agent, flags, latency, at };
  }

  serverId(name: string): number | undefined {
    return this.serverIds.get(name);
  }

  agentId(name: string): number | undefined {
    return this.agentIds.get(name);
  }

  append(rows: readonly ColumnRow[]): void {
    this.reserve(rows.length);
    for (const r of rows) {
      const flags = INVOCATION_SOURCES.indexOf(r.source) | (r.success ? SUCCESS_BIT : 0);
      this.push(this.internTool(r.server, r.tool), this.internAgent(r.agentId), flags, r.latencyMs, r.createdMs);
    }
  }

  /** Drops rows created before `cutoffMs`, compacting in place; returns how many went. */
  prune(cutoffMs: number): number {
    if (this.oldest >= cutoffMs) return 0;
    const { tool, agent, flags, latency, at } = this;
    let kept = 0;
    let oldest = Infinity;
    for (let i = 0; i < this.length; i++) {
      const ms = at[i]!;
      if (ms < cutoffMs) continue;
      if (kept !== i) {
        tool[kept] = tool[i]!;
        agent[kept] = agent[i]!;
        flags[kept] = flags[i]!;
        latency[kept] = latency[i]!;
        at[kept] = ms;
      }
      if (ms < oldest) oldest = ms;
      kept++;
    }
    const removed = this.length - kept;
    this.length = kept;
    this.oldest = oldest;
    this.fit();
    return removed;
  }

  /**
   * Loads the rows of `mcp_invocations` up to `upToId` in chunks, yielding to the event loop between
   * chunks so the daemon keeps answering while a large table loads.
   */
  async load(store: InvocationStore, options: LoadOptions): Promise<void> {
    const chunkRows = options.chunkRows ?? 20_000;
    // Retention deletes the oldest rows, which hold the lowest ids, so the id range is a close
    // upper bound on the row count (COUNT(*) would scan the table); fit() trims the rest, and
    // past the cap the columns grow as they fill.
    this.reserve(Math.min(RESERVE_CAP, Math.max(0, options.upToId - (options.firstId ?? 1) + 1)));
    let lastId = 0;
    for (;;) {
      if (options.stopped?.()) return;
      const rows = await store.rowsAfter(lastId, options.upToId, chunkRows);
      this.reserve(rows.length);
      for (const row of rows) if (!options.skip?.has(row[0])) this.appendStored(row, options.sinceMs);
      if (rows.length < chunkRows) break;
      lastId = rows[rows.length - 1]![0];
      await yieldToLoop();
    }
    this.fit();
  }

  /** Appends a row as the store holds it, unless it is older than `sinceMs` or its time unreadable. */
  appendStored([, server, tool, agentId, source, latencyMs, success, epochMs]: StoredRow, sinceMs = -Infinity): void {
    if (epochMs === null) return;
    const ms = Math.round(epochMs);
    if (ms < sinceMs) return;
    this.reserve(1);
    const latency = Math.min(MAX_LATENCY_MS, Math.max(0, latencyMs));
    this.push(this.internTool(server, tool), this.internAgent(agentId), source | (success ? SUCCESS_BIT : 0), latency, ms);
  }

  /** Gives back capacity far beyond the rows held (after a load from an estimate, or a large prune). */
  private fit(): void {
    const slack = Math.max(INITIAL_CAPACITY, Math.ceil(this.length * 1.125));
    if (this.tool.length > slack * 2) this.resize(slack);
  }

  private push(tool: number, agent: number, flags: number, latency: number, ms: number): void {
    const i = this.length++;
    this.tool[i] = tool;
    this.agent[i] = agent;
    this.flags[i] = flags;
    this.latency[i] = latency;
    this.at[i] = ms;
    if (ms < this.oldest) this.oldest = ms;
  }

  private reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.tool.length) return;
    this.resize(Math.max(INITIAL_CAPACITY, needed, Math.ceil(this.tool.length * 1.5)));
  }

  private resize(capacity: number): void {
    const n = this.length;
    const grow = <T extends Uint32Array | Uint8Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old.subarray(0, n));
      return next;
    };
    this.tool = grow(this.tool, (c) => new Uint32Array(c));
    this.agent = grow(this.agent, (c) => new Uint32Array(c));
    this.flags = grow(this.flags, (c) => new Uint8Array(c));
    this.latency = grow(this.latency, (c) => new Uint32Array(c));
    this.at = grow(this.at, (c) => new Float64Array(c));
  }

  private internTool(server: string, tool: string): number {
    let serverId = this.serverIds.get(server);
    if (serverId === undefined) {
      serverId = this.servers.push(server) - 1;
      this.serverIds.set(server, serverId);
      this.toolIds.push(new Map());
    }
    const tools = this.toolIds[serverId]!;
    let toolId = tools.get(tool);
    if (toolId === undefined) {
      toolId = this.toolNames.push(tool) - 1;
      this.toolServer.push(serverId);
      tools.set(tool, toolId);
    }
    return toolId;
  }

  private internAgent(agentId: string): number {
    let id = this.agentIds.get(agentId);
    if (id === undefined) {
      id = this.agents.push(agentId) - 1;
      this.agentIds.set(agentId, id);
    }
    return id;
  }
}
