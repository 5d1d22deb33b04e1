// Cross-agent presence (agent_presence, migration 005) and messages (agent_messages and
// agent_message_acks, migration 010; agent_message_deliveries, 011) in the daemon's SQLite file.
import type { Database } from "bun:sqlite";
import type { AgentMessage, DeliveryStatus, PresenceEntry } from "../../contracts/agents";
import { heldByAnother, sessionHolder } from "../sessions/holder";
import { type AgentStore, type MessageFeed, type MessageRow, type MessageScope, type NewMessage, type PresenceRow, toMessage, toPresence } from "./store";

export class SqliteAgentStore implements AgentStore {
  constructor(private readonly db: Database) {}

  async upsertPresence(e: { sessionKey: string; agentId: string; harness: string; project: string | null; at: string }): Promise<PresenceEntry | null> {
    const row = this.db
      .query<PresenceRow, [string, string, string, string | null, string]>(
        `INSERT INTO agent_presence (session_key, agent_id, harness, project, started_at, last_seen_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)
         ON CONFLICT(session_key) DO UPDATE SET harness = excluded.harness, project = COALESCE(excluded.project, project),
           last_seen_at = excluded.last_seen_at
         WHERE agent_presence.agent_id = excluded.agent_id
         RETURNING *`,
      )
      .get(e.sessionKey, e.agentId, e.harness, e.project, e.at);
    return row ? toPresence(row) : null;
  }

  async touchPresence(sessionKey: string, agentId: string, at: string): Promise<void> {
    this.db.query("UPDATE agent_presence SET last_seen_at = ? WHERE session_key = ? AND agent_id = ?").run(at, sessionKey, agentId);
  }

  async removePresence(sessionKey: string, agentId: string): Promise<boolean> {
    return this.db.query("DELETE FROM agent_presence WHERE session_key = ? AND agent_id = ?").run(sessionKey, agentId).changes > 0;
  }

  async expirePresence(cutoff: string): Promise<void> {
    this.db.query("DELETE FROM agent_presence WHERE last_seen_at < ?").run(cutoff);
  }

  async listPresence(o: { excludeAgentId?: string; excludeSessionKey?: string; project?: string; limit: number }): Promise<PresenceEntry[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (o.excludeAgentId !== undefined) {
      where.push("agent_id != ?");
      params.push(o.excludeAgentId);
    }
    if (o.excludeSessionKey !== undefined) {
      where.push("session_key != ?");
      params.push(o.excludeSessionKey);
    }
    if (o.project !== undefined) {
      where.push("project = ?");
      params.push(o.project);
    }
    params.push(o.limit);
    return this.db
      .query<PresenceRow, (string | number)[]>(
        `SELECT * FROM agent_presence ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY last_seen_at DESC, session_key LIMIT ?`,
      )
      .all(...params)
      .map(toPresence);
  }

  async insertMessage(m: NewMessage): Promise<number> {
    const row = this.db
      .query<{ id: number }, (string | number | null)[]>(
        `INSERT INTO agent_messages (created_at, type, content, from_agent_id, from_session_key, to_agent_id, to_session_key, broadcast,
           via, delivery_status, acp_base_url, acp_target_agent_name)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      )
      .get(
        m.at,
        m.type,
        m.content,
        m.fromAgentId,
        m.fromSessionKey,
        m.toAgentId,
        m.toSessionKey,
        m.broadcast ? 1 : 0,
        m.via,
        m.status,
        m.acpBaseUrl,
        m.acpTargetAgentName,
      )!;
    return row.id;
  }

  async latestId(): Promise<number> {
    return this.db.query<{ id: number | null }, []>("SELECT MAX(id) AS id FROM agent_messages").get()?.id ?? 0;
  }

  async setDelivery(id: number, status: DeliveryStatus, error: string | null, runId: string | null): Promise<void> {
    this.db.query("UPDATE agent_messages SET delivery_status = ?, delivery_error = ?, acp_run_id = ? WHERE id = ?").run(status, error, runId, id);
  }

  async sent(id: number): Promise<AgentMessage> {
    return toMessage(this.db.query<MessageRow, [number]>("SELECT *, 0 AS acked FROM agent_messages WHERE id = ?").get(id)!);
  }

  async read(scope: MessageScope): Promise<AgentMessage[]> {
    const me = scope.agentId;
    const received = scope.sessionKey === undefined ? "m.to_agent_id = $me" : "(m.to_agent_id = $me AND (m.to_session_key IS NULL OR m.to_session_key = $session))";
    const reach = [received];
    // Broadcasts reach every agent but their sender.
    if (scope.includeBroadcast) reach.push("(m.broadcast = 1 AND m.from_agent_id != $me)");
    if (scope.includeSent) reach.push("m.from_agent_id = $me");
    const where = [`(${reach.join(" OR ")})`];
    const params: Record<string, string | number> = { $me: me, $limit: scope.limit };
    if (scope.sessionKey !== undefined) params.$session = scope.sessionKey;
    if (scope.since !== undefined) {
      where.push("m.created_at >= $since");
      params.$since = scope.since;
    }
    if (scope.afterId !== undefined) {
      where.push("m.id > $after");
      params.$after = scope.afterId;
    }
    if (scope.throughId !== undefined) {
      where.push("m.id <= $through");
      params.$through = scope.throughId;
    }
    if (scope.unread) where.push("a.message_id IS NULL");
    // The newest `limit`, or after a cursor the oldest `limit` past it (paging forward, the stream's
    // replay); returned oldest first either way.
    return this.db
      .query<MessageRow, [Record<string, string | number>]>(
        `SELECT * FROM (
           SELECT m.*, CASE WHEN a.message_id IS NULL THEN 0 ELSE 1 END AS acked
           FROM agent_messages m LEFT JOIN agent_message_acks a ON a.message_id = m.id AND a.agent_id = $me
           WHERE ${where.join(" AND ")} ORDER BY m.id ${scope.afterId === undefined ? "DESC" : "ASC"} LIMIT $limit) ORDER BY id`,
      )
      .all(params)
      .map(toMessage);
  }

  async knownAgent(agentId: string): Promise<boolean> {
    return (
      this.db
        .query<{ one: number }, [string]>(
          `SELECT 1 AS one FROM sessions WHERE agent_id = ?1
           UNION ALL SELECT 1 FROM agent_presence WHERE agent_id = ?1
           UNION ALL SELECT 1 FROM agent_messages WHERE from_agent_id = ?1
           UNION ALL SELECT 1 FROM memories WHERE agent_id = ?1 AND deleted_at IS NULL LIMIT 1`,
        )
        .get(agentId) !== null
    );
  }

  async undelivered(scope: { agentId: string; sessionKey: string; sessionStartedAt: string }, limit: number): Promise<AgentMessage[]> {
    return this.db
      .query<MessageRow, [Record<string, string | number>]>(
        `SELECT m.*, 0 AS acked FROM agent_messages m
         WHERE ((m.to_agent_id = $me AND (m.to_session_key IS NULL OR m.to_session_key = $session))
                OR (m.broadcast = 1 AND m.from_agent_id != $me))
           AND m.from_session_key IS NOT $session
           AND NOT EXISTS (SELECT 1 FROM agent_message_acks a WHERE a.message_id = m.id AND a.agent_id = $me)
           AND NOT EXISTS (SELECT 1 FROM agent_message_deliveries d WHERE d.message_id = m.id AND d.agent_id = $me AND d.session_key = $session)
           AND COALESCE((SELECT MIN(d.delivered_at) FROM agent_message_deliveries d WHERE d.message_id = m.id AND d.agent_id = $me), $started) >= $started
         ORDER BY m.id LIMIT $limit`,
      )
      .all({ $me: scope.agentId, $session: scope.sessionKey, $started: scope.sessionStartedAt, $limit: limit })
      .map(toMessage);
  }

  async markDelivered(agentId: string, sessionKey: string, ids: number[], at: string): Promise<number[]> {
    const insert = this.db.query("INSERT OR IGNORE INTO agent_message_deliveries (message_id, agent_id, session_key, delivered_at) VALUES (?, ?, ?, ?)");
    return this.db.transaction(() => ids.filter((id) => insert.run(id, agentId, sessionKey, at).changes > 0))();
  }

  async ack(agentId: string, ids: number[], at: string): Promise<number[]> {
    const receivable = this.db.query<{ id: number }, [number, string, string]>(
      "SELECT id FROM agent_messages WHERE id = ? AND (to_agent_id = ? OR (broadcast = 1 AND from_agent_id != ?))",
    );
    const insert = this.db.query("INSERT OR IGNORE INTO agent_message_acks (message_id, agent_id, acked_at) VALUES (?, ?, ?)");
    const acked: number[] = [];
    this.db.transaction(() => {
      for (const id of new Set(ids)) {
        if (!receivable.get(id, agentId, agentId)) continue;
        insert.run(id, agentId, at);
        acked.push(id);
      }
    })();
    return acked;
  }

  async sessionHolder(key: string): Promise<string | null> {
    return sessionHolder(this.db, key);
  }

  async heldByAnother(key: string, agentId: string): Promise<boolean> {
    return heldByAnother(this.db, key, agentId);
  }

  // One daemon owns a SQLite file: there is no other to hear.
  async followMessages(changed: () => void): Promise<MessageFeed> {
    // One connection writes, each message in its own statement: ids are stored in the order taken.
    return {
      settled: () => null,
      refresh: async () => changed(),
      stop: async () => {},
    };
  }
}
