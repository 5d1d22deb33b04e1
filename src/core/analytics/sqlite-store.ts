// Invocations in the daemon's SQLite file (mcp_invocations and mcp_invocation_daily, migrations 003-004).
import type { Database } from "bun:sqlite";
import type { QueuedInvocation } from "./types";
import type { InvocationStore, Rollup, StoredRow, ToolTotals } from "./store";

export class SqliteInvocationStore implements InvocationStore {
  constructor(private readonly db: Database) {}

  async idRange(): Promise<{ first: number | null; last: number }> {
    const row = this.db.query<{ first: number | null; last: number | null }, []>("SELECT MIN(id) AS first, MAX(id) AS last FROM mcp_invocations").get();
    return { first: row?.first ?? null, last: row?.last ?? 0 };
  }

  async rowsAfter(afterId: number, upToId: number, limit: number): Promise<StoredRow[]> {
    // SQLite turns the time into epoch ms (either stored format) and the source into its index, so
    // no per-row string is made for them.
    return this.db
      .query<unknown, [number, number, number]>(
        `SELECT id, server, tool, agent_id, CASE source WHEN 'cli' THEN 0 WHEN 'agent' THEN 1 ELSE 2 END, latency_ms, success,
                unixepoch(created_at, 'subsec') * 1000
           FROM mcp_invocations WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`,
      )
      .values(afterId, upToId, limit) as StoredRow[];
  }

  async write(batch: readonly QueuedInvocation[], rollups: readonly Rollup[]): Promise<number[]> {
    const insert = this.db.query(
      `INSERT INTO mcp_invocations (server, tool, agent_id, source, latency_ms, success, error_text, created_at, session_key, client)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const upsert = this.db.query(
      `INSERT INTO mcp_invocation_daily (day, server, tool, agent_id, source, calls, failures, latency_ms_total, last_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (day, server, tool, agent_id, source) DO UPDATE SET
         calls = calls + excluded.calls, failures = failures + excluded.failures,
         latency_ms_total = latency_ms_total + excluded.latency_ms_total, last_at = max(last_at, excluded.last_at)`,
    );
    return this.db
      .transaction(() => {
        const ids = batch.map(
          (r) =>
            Number(insert.run(r.server, r.tool, r.agentId, r.source, r.latencyMs, r.success ? 1 : 0, r.errorText, r.createdAt, r.sessionKey, r.client).lastInsertRowid),
        );
        for (const u of rollups) {
          const r = u.row;
          upsert.run(r.createdAt.slice(0, 10), r.server, r.tool, r.agentId, r.source, u.calls, u.failures, u.latencyTotal, u.lastAt);
        }
        return ids;
      })
      .immediate();
  }

  async pruneBefore(cutoff: string, limit: number): Promise<number> {
    return this.db
      .query("DELETE FROM mcp_invocations WHERE id IN (SELECT id FROM mcp_invocations WHERE created_at < ? ORDER BY created_at LIMIT ?)")
      .run(cutoff, limit).changes;
  }

  async toolTotals(q: { from7: string; from30: string; until: string; agentId: string | null; server: string | null }): Promise<ToolTotals[]> {
    return this.db
      .query<ToolTotals, [string, string, string, string | null, string | null]>(
        `SELECT server, tool,
           SUM(CASE WHEN day >= ?1 THEN calls ELSE 0 END) AS calls7,
           SUM(CASE WHEN day >= ?2 THEN calls ELSE 0 END) AS calls30,
           SUM(CASE WHEN day >= ?2 THEN failures ELSE 0 END) AS failures30,
           MAX(last_at) AS last_at
         FROM mcp_invocation_daily
         WHERE day <= ?3 AND (?4 IS NULL OR agent_id = ?4) AND (?5 IS NULL OR server = ?5)
         GROUP BY server, tool ORDER BY server, tool`,
      )
      .all(q.from7, q.from30, q.until, q.agentId, q.server);
  }

  async lastCalls(server: string, since: string): Promise<{ tool: string; last_at: string; recent: number }[]> {
    return this.db
      .query<{ tool: string; last_at: string; recent: number }, [string, string]>(
        `SELECT tool, MAX(last_at) AS last_at, MAX(day >= ?2) AS recent FROM mcp_invocation_daily WHERE server = ?1 GROUP BY tool`,
      )
      .all(server, since);
  }

  async sessionCalls(agentId: string, sessionKeys: string[], since: string | null, until: string | null): Promise<{ server: string; tool: string; latency_ms: number; success: number }[]> {
    return this.db
      .query<{ server: string; tool: string; latency_ms: number; success: number }, (string | null)[]>(
        `SELECT server, tool, latency_ms, success FROM mcp_invocations
         WHERE agent_id = ? AND session_key IN (${sessionKeys.map(() => "?").join(", ")})
           AND (? IS NULL OR created_at >= ?) AND (? IS NULL OR created_at <= ?)`,
      )
      .all(agentId, ...sessionKeys, since, since, until, until);
  }
}
