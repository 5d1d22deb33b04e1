// Invocations in a PostgreSQL store shared by several daemons. A batch's rows and rollups go in as
// one JSON parameter each (jsonb_to_recordset), so a batch of thousands is one statement, not
// thousands; a rollup adds to what other daemons counted for the same day. A batch notifies
// INVOCATION_CHANNEL when it commits, and every daemon's in-memory columns follow the raw rows by id
// (InvocationFeed), its own included.
import { ChangeFeed, type ChangeFeedOptions } from "../change-feed";
import type { QueuedInvocation } from "./types";
import type { InvocationStore, Rollup, StoredRow, ToolTotals } from "./store";

const INVOCATION_CHANNEL = "signet_invocations";

/** mcp_invocations.id's largest value (INTEGER): the feed reads every row past its cursor. */
const MAX_ID = 2_147_483_647;

/** The raw rows every daemon records, in id order, for the in-memory columns (core/change-feed.ts). */
export class InvocationFeed extends ChangeFeed<StoredRow> {
  constructor(sql: Bun.SQL, options: Omit<ChangeFeedOptions<StoredRow>, "onRow"> & { onRow(row: StoredRow): void }) {
    const store = new PostgresInvocationStore(sql);
    super(
      sql,
      {
        name: "invocation feed",
        channel: INVOCATION_CHANNEL,
        read: async (after, limit) => (await store.rowsAfter(after, MAX_ID, limit)).map((row) => ({ n: row[0], row })),
      },
      options,
    );
  }
}

/** Epoch ms of a stored time, in either stored format (ISO with Z, or SQLite's UTC 'YYYY-MM-DD HH:MM:SS'); null when unreadable. */
function storedTimeMs(text: string): number | null {
  const ms = Date.parse(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/.test(text) ? `${text.replace(" ", "T")}Z` : text);
  return Number.isNaN(ms) ? null : ms;
}

export class PostgresInvocationStore implements InvocationStore {
  constructor(private readonly sql: Bun.SQL) {}

  async idRange(): Promise<{ first: number | null; last: number }> {
    const [row] = await this.sql<{ first: number | null; last: number | null }[]>`SELECT MIN(id) AS first, MAX(id) AS last FROM mcp_invocations`;
    return { first: row?.first ?? null, last: row?.last ?? 0 };
  }

  async rowsAfter(afterId: number, upToId: number, limit: number): Promise<StoredRow[]> {
    // The time is read here, not cast by PostgreSQL, which has no year 0000 (a report may give one).
    const rows = await this.sql<
      { id: number; server: string; tool: string; agent_id: string; source: number; latency_ms: number; success: number; created_at: string }[]
    >`
      SELECT id, server, tool, agent_id, CASE source WHEN 'cli' THEN 0 WHEN 'agent' THEN 1 ELSE 2 END AS source, latency_ms::float8 AS latency_ms,
        success, created_at
      FROM mcp_invocations WHERE id > ${afterId} AND id <= ${upToId} ORDER BY id LIMIT ${limit}`;
    return rows.map((r) => [r.id, r.server, r.tool, r.agent_id, r.source, r.latency_ms, r.success, storedTimeMs(r.created_at)]);
  }

  write(batch: readonly QueuedInvocation[], rollups: readonly Rollup[]): Promise<number[]> {
    const rows = batch.map((r, ord) => ({
      ord,
      server: r.server,
      tool: r.tool,
      agent_id: r.agentId,
      source: r.source,
      latency_ms: r.latencyMs,
      success: r.success ? 1 : 0,
      error_text: r.errorText,
      created_at: r.createdAt,
      session_key: r.sessionKey,
      client: r.client,
    }));
    const days = rollups.map((u) => ({
      day: u.row.createdAt.slice(0, 10),
      server: u.row.server,
      tool: u.row.tool,
      agent_id: u.row.agentId,
      source: u.row.source,
      calls: u.calls,
      failures: u.failures,
      latency_ms_total: u.latencyTotal,
      last_at: u.lastAt,
    }));
    return this.sql.begin(async (tx) => {
      const ids = await tx<{ id: number }[]>`
        INSERT INTO mcp_invocations (server, tool, agent_id, source, latency_ms, success, error_text, created_at, session_key, client)
        SELECT server, tool, agent_id, source, latency_ms, success, error_text, created_at, session_key, client
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) AS r(ord int, server text, tool text, agent_id text, source text,
          latency_ms bigint, success int, error_text text, created_at text, session_key text, client text)
        ORDER BY ord RETURNING id`;
      await tx`
        INSERT INTO mcp_invocation_daily (day, server, tool, agent_id, source, calls, failures, latency_ms_total, last_at)
        SELECT day, server, tool, agent_id, source, calls, failures, latency_ms_total, last_at
        FROM jsonb_to_recordset(${JSON.stringify(days)}::text::jsonb) AS d(day text, server text, tool text, agent_id text, source text,
          calls int, failures int, latency_ms_total bigint, last_at text)
        ON CONFLICT (day, server, tool, agent_id, source) DO UPDATE SET
          calls = mcp_invocation_daily.calls + excluded.calls, failures = mcp_invocation_daily.failures + excluded.failures,
          latency_ms_total = mcp_invocation_daily.latency_ms_total + excluded.latency_ms_total,
          last_at = GREATEST(mcp_invocation_daily.last_at, excluded.last_at)`;
      await tx`SELECT pg_notify(${INVOCATION_CHANNEL}, ${String(ids.length)})`;
      // Identities are handed out in the order the rows went in.
      return ids.map((r) => r.id).sort((a, b) => a - b);
    });
  }

  async pruneBefore(cutoff: string, limit: number): Promise<number> {
    const result = await this.sql`
      DELETE FROM mcp_invocations WHERE id IN (SELECT id FROM mcp_invocations WHERE created_at < ${cutoff} ORDER BY created_at LIMIT ${limit})`;
    return result.count;
  }

  toolTotals(q: { from7: string; from30: string; until: string; agentId: string | null; server: string | null }): Promise<ToolTotals[]> {
    return this.sql`
      SELECT server, tool,
        SUM(CASE WHEN day >= ${q.from7} THEN calls ELSE 0 END)::int AS calls7,
        SUM(CASE WHEN day >= ${q.from30} THEN calls ELSE 0 END)::int AS calls30,
        SUM(CASE WHEN day >= ${q.from30} THEN failures ELSE 0 END)::int AS failures30,
        MAX(last_at) AS last_at
      FROM mcp_invocation_daily
      WHERE day <= ${q.until} AND (${q.agentId}::text IS NULL OR agent_id = ${q.agentId}) AND (${q.server}::text IS NULL OR server = ${q.server})
      GROUP BY server, tool ORDER BY server COLLATE "C", tool COLLATE "C"`;
  }

  lastCalls(server: string, since: string): Promise<{ tool: string; last_at: string; recent: number }[]> {
    return this.sql`
      SELECT tool, MAX(last_at) AS last_at, MAX(CASE WHEN day >= ${since} THEN 1 ELSE 0 END) AS recent
      FROM mcp_invocation_daily WHERE server = ${server} GROUP BY tool`;
  }

  sessionCalls(agentId: string, sessionKeys: string[], since: string | null, until: string | null): Promise<{ server: string; tool: string; latency_ms: number; success: number }[]> {
    return this.sql`
      SELECT server, tool, latency_ms::float8 AS latency_ms, success FROM mcp_invocations
      WHERE agent_id = ${agentId} AND session_key = ANY(${this.sql.array(sessionKeys, "TEXT")}::text[])
        AND (${since}::text IS NULL OR created_at >= ${since}) AND (${until}::text IS NULL OR created_at <= ${until})`;
  }
}
