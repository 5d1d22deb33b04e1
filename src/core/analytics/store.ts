// What invocation analytics needs of a store, and the rows both stores return: the SQLite one
// (sqlite-store.ts) and the PostgreSQL one (postgres-store.ts). The raw rows (mcp_invocations) feed
// the in-memory columns and a session's tool usage; the daily rollups (mcp_invocation_daily) answer
// the scorer features and the unused tools, and outlive retention.
import type { QueuedInvocation } from "./types";

/** id, server, tool, agent_id, source index (cli 0, agent 1, mcp 2), latency_ms, success, created_at in epoch ms (null if unreadable). */
export type StoredRow = [number, string, string, string, number, number, number, number | null];

/** One (day, server, tool, agent, source)'s share of a batch. */
export interface Rollup {
  row: QueuedInvocation;
  calls: number;
  failures: number;
  latencyTotal: number;
  lastAt: string;
}

/** Calls per server and tool over the last 7 and 30 days (days as YYYY-MM-DD), from the rollups. */
export interface ToolTotals {
  server: string;
  tool: string;
  calls7: number;
  calls30: number;
  failures30: number;
  last_at: string;
}

/** Invocations, in whichever store the daemon runs on. */
export interface InvocationStore {
  /** The lowest and the highest stored id (null and 0 when there is none). */
  idRange(): Promise<{ first: number | null; last: number }>;
  /** The rows with `afterId` < id <= `upToId`, by id, at most `limit`. */
  rowsAfter(afterId: number, upToId: number, limit: number): Promise<StoredRow[]>;
  /** The raw rows and their rollups in one transaction; resolves to the rows' ids, in order. */
  write(batch: readonly QueuedInvocation[], rollups: readonly Rollup[]): Promise<number[]>;
  /** Deletes up to `limit` of the oldest rows created before `cutoff`; resolves to how many. */
  pruneBefore(cutoff: string, limit: number): Promise<number>;
  /** Per server and tool: calls since `from7` and `from30`, failures since `from30`, the last call; days up to `until`. */
  toolTotals(q: { from7: string; from30: string; until: string; agentId: string | null; server: string | null }): Promise<ToolTotals[]>;
  /** Per tool of `server`: its last call, and 1 when it was called on or after day `since`. */
  lastCalls(server: string, since: string): Promise<{ tool: string; last_at: string; recent: number }[]>;
  /** `agentId`'s calls under any of `sessionKeys`, between `since` and `until` when given. */
  sessionCalls(agentId: string, sessionKeys: string[], since: string | null, until: string | null): Promise<{ server: string; tool: string; latency_ms: number; success: number }[]>;
}
