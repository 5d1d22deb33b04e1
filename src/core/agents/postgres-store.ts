// Cross-agent presence and messages in a PostgreSQL store shared by several daemons. A stored
// message is announced on MESSAGE_CHANNEL in the statement that stores it, so every daemon's streams
// hear it once it commits (postgres-feed.ts); a daemon that was away catches up by id, as a stream's
// Last-Event-ID does.
import type { AgentMessage, DeliveryStatus, PresenceEntry } from "../../contracts/agents";
import { parameters } from "../sql-parameters";
import { MESSAGE_CHANNEL, PostgresMessageFeed } from "./postgres-feed";
import { type AgentStore, type MessageFeed, type MessageRow, type MessageScope, type NewMessage, type PresenceRow, toMessage, toPresence } from "./store";

export class PostgresAgentStore implements AgentStore {
  constructor(private readonly sql: Bun.SQL) {}

  async upsertPresence(e: { sessionKey: string; agentId: string; harness: string; project: string | null; at: string }): Promise<PresenceEntry | null> {
    const [row] = await this.sql<PresenceRow[]>`
      INSERT INTO agent_presence (session_key, agent_id, harness, project, started_at, last_seen_at)
      VALUES (${e.sessionKey}, ${e.agentId}, ${e.harness}, ${e.project}, ${e.at}, ${e.at})
      ON CONFLICT (session_key) DO UPDATE SET harness = excluded.harness, project = COALESCE(excluded.project, agent_presence.project),
        last_seen_at = excluded.last_seen_at
      WHERE agent_presence.agent_id = excluded.agent_id
      RETURNING *`;
    return row ? toPresence(row) : null;
  }

  async touchPresence(sessionKey: string, agentId: string, at: string): Promise<void> {
    await this.sql`UPDATE agent_presence SET last_seen_at = ${at} WHERE session_key = ${sessionKey} AND agent_id = ${agentId}`;
  }

  async removePresence(sessionKey: string, agentId: string): Promise<boolean> {
    const result = await this.sql`DELETE FROM agent_presence WHERE session_key = ${sessionKey} AND agent_id = ${agentId}`;
    return result.count > 0;
  }

  async expirePresence(cutoff: string): Promise<void> {
    await this.sql`DELETE FROM agent_presence WHERE last_seen_at < ${cutoff}`;
  }

  async listPresence(o: { excludeAgentId?: string; excludeSessionKey?: string; project?: string; limit: number }): Promise<PresenceEntry[]> {
    const { values, p } = parameters();
    const where: string[] = [];
    if (o.excludeAgentId !== undefined) where.push(`agent_id <> ${p(o.excludeAgentId)}`);
    if (o.excludeSessionKey !== undefined) where.push(`session_key <> ${p(o.excludeSessionKey)}`);
    if (o.project !== undefined) where.push(`project = ${p(o.project)}`);
    const rows: PresenceRow[] = await this.sql.unsafe(
      `SELECT * FROM agent_presence ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY last_seen_at DESC, session_key LIMIT ${p(o.limit)}`,
      values,
    );
    return rows.map(toPresence);
  }

  async sessionHolder(key: string): Promise<string | null> {
    const [row] = await this.sql<{ agent_id: string }[]>`
      SELECT agent_id FROM (
        SELECT agent_id, 0 AS rank FROM agent_presence WHERE session_key = ${key}
        UNION ALL SELECT agent_id, 1 FROM sessions WHERE key = ${key}) held
      ORDER BY rank LIMIT 1`;
    return row?.agent_id ?? null;
  }

  async heldByAnother(key: string, agentId: string): Promise<boolean> {
    const rows = await this.sql`
      SELECT 1 FROM agent_presence WHERE session_key = ${key} AND agent_id <> ${agentId}
      UNION ALL SELECT 1 FROM sessions WHERE key = ${key} AND agent_id <> ${agentId} LIMIT 1`;
    return rows.length > 0;
  }

  async insertMessage(m: NewMessage): Promise<number> {
    const [row] = await this.sql<{ id: number }[]>`
      WITH stored AS (
        INSERT INTO agent_messages (created_at, type, content, from_agent_id, from_session_key, to_agent_id, to_session_key, broadcast,
          via, delivery_status, acp_base_url, acp_target_agent_name)
        VALUES (${m.at}, ${m.type}, ${m.content}, ${m.fromAgentId}, ${m.fromSessionKey}, ${m.toAgentId}, ${m.toSessionKey},
          ${m.broadcast ? 1 : 0}, ${m.via}, ${m.status}, ${m.acpBaseUrl}, ${m.acpTargetAgentName})
        RETURNING id)
      SELECT id, pg_notify(${MESSAGE_CHANNEL}, id::text) FROM stored`;
    return row!.id;
  }

  async latestId(): Promise<number> {
    const [row] = await this.sql<{ id: number | null }[]>`SELECT MAX(id) AS id FROM agent_messages`;
    return row?.id ?? 0;
  }

  async setDelivery(id: number, status: DeliveryStatus, error: string | null, runId: string | null): Promise<void> {
    await this.sql`UPDATE agent_messages SET delivery_status = ${status}, delivery_error = ${error}, acp_run_id = ${runId} WHERE id = ${id}`;
  }

  async sent(id: number): Promise<AgentMessage> {
    const [row] = await this.sql<MessageRow[]>`SELECT *, 0 AS acked FROM agent_messages WHERE id = ${id}`;
    return toMessage(row!);
  }

  async read(scope: MessageScope): Promise<AgentMessage[]> {
    const { values, p } = parameters();
    const me = p(scope.agentId);
    const session = scope.sessionKey === undefined ? null : p(scope.sessionKey);
    const received = session === null ? `m.to_agent_id = ${me}` : `(m.to_agent_id = ${me} AND (m.to_session_key IS NULL OR m.to_session_key = ${session}))`;
    const reach = [received];
    if (scope.includeBroadcast) reach.push(`(m.broadcast = 1 AND m.from_agent_id <> ${me})`);
    if (scope.includeSent) reach.push(`m.from_agent_id = ${me}`);
    const where = [`(${reach.join(" OR ")})`];
    if (scope.since !== undefined) where.push(`m.created_at >= ${p(scope.since)}`);
    if (scope.afterId !== undefined) where.push(`m.id > ${p(scope.afterId)}`);
    if (scope.throughId !== undefined) where.push(`m.id <= ${p(scope.throughId)}`);
    if (scope.unread) where.push("a.message_id IS NULL");
    const rows: MessageRow[] = await this.sql.unsafe(
      `SELECT * FROM (
         SELECT m.*, CASE WHEN a.message_id IS NULL THEN 0 ELSE 1 END AS acked
         FROM agent_messages m LEFT JOIN agent_message_acks a ON a.message_id = m.id AND a.agent_id = ${me}
         WHERE ${where.join(" AND ")} ORDER BY m.id ${scope.afterId === undefined ? "DESC" : "ASC"} LIMIT ${p(scope.limit)}) page ORDER BY id`,
      values,
    );
    return rows.map(toMessage);
  }

  async knownAgent(agentId: string): Promise<boolean> {
    const rows = await this.sql`
      SELECT 1 FROM sessions WHERE agent_id = ${agentId}
      UNION ALL SELECT 1 FROM agent_presence WHERE agent_id = ${agentId}
      UNION ALL SELECT 1 FROM agent_messages WHERE from_agent_id = ${agentId}
      UNION ALL SELECT 1 FROM memories WHERE agent_id = ${agentId} AND deleted_at IS NULL LIMIT 1`;
    return rows.length > 0;
  }

  async undelivered(scope: { agentId: string; sessionKey: string; sessionStartedAt: string }, limit: number): Promise<AgentMessage[]> {
    const { agentId: me, sessionKey: session, sessionStartedAt: started } = scope;
    const rows = await this.sql<MessageRow[]>`
      SELECT m.*, 0 AS acked FROM agent_messages m
      WHERE ((m.to_agent_id = ${me} AND (m.to_session_key IS NULL OR m.to_session_key = ${session}))
             OR (m.broadcast = 1 AND m.from_agent_id <> ${me}))
        AND m.from_session_key IS DISTINCT FROM ${session}
        AND NOT EXISTS (SELECT 1 FROM agent_message_acks a WHERE a.message_id = m.id AND a.agent_id = ${me})
        AND NOT EXISTS (SELECT 1 FROM agent_message_deliveries d WHERE d.message_id = m.id AND d.agent_id = ${me} AND d.session_key = ${session})
        AND COALESCE((SELECT MIN(d.delivered_at) FROM agent_message_deliveries d WHERE d.message_id = m.id AND d.agent_id = ${me}), ${started}) >= ${started}
      ORDER BY m.id LIMIT ${limit}`;
    return rows.map(toMessage);
  }

  async markDelivered(agentId: string, sessionKey: string, ids: number[], at: string): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql<{ message_id: number }[]>`
      INSERT INTO agent_message_deliveries (message_id, agent_id, session_key, delivered_at)
      SELECT id, ${agentId}, ${sessionKey}, ${at} FROM unnest(${this.sql.array(ids, "INT")}) AS id
      ON CONFLICT DO NOTHING RETURNING message_id`;
    return rows.map((r) => r.message_id);
  }

  async ack(agentId: string, ids: number[], at: string): Promise<number[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    // Only messages the agent received; one statement, so a concurrent ack elsewhere cannot double it.
    const rows = await this.sql<{ id: number }[]>`
      WITH receivable AS (
        SELECT id FROM agent_messages
        WHERE id = ANY(${this.sql.array(unique, "INT")}) AND (to_agent_id = ${agentId} OR (broadcast = 1 AND from_agent_id <> ${agentId}))),
      stored AS (
        INSERT INTO agent_message_acks (message_id, agent_id, acked_at) SELECT id, ${agentId}, ${at} FROM receivable
        ON CONFLICT DO NOTHING)
      SELECT id FROM receivable`;
    const acked = new Set(rows.map((r) => r.id));
    return unique.filter((id) => acked.has(id));
  }

  async followMessages(changed: () => void): Promise<MessageFeed> {
    const feed = new PostgresMessageFeed(this.sql, changed);
    await feed.start(await this.latestId());
    return feed;
  }
}
