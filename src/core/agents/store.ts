// The SQL of cross-agent presence (agent_presence, migration 005) and messages (agent_messages and
// agent_message_acks, migration 010; agent_message_deliveries, 011). Every read of messages is
// scoped to one reading agent here, so no caller above can forget the scope.
import type { Database } from "bun:sqlite";
import type { AgentMessage, DeliveryStatus, MessageType, PresenceEntry } from "../../contracts/agents";

interface PresenceRow {
  session_key: string;
  agent_id: string;
  harness: string;
  project: string | null;
  started_at: string;
  last_seen_at: string;
}

interface MessageRow {
  id: number;
  created_at: string;
  type: MessageType;
  content: string;
  from_agent_id: string;
  from_session_key: string | null;
  to_agent_id: string | null;
  to_session_key: string | null;
  broadcast: number;
  via: "local" | "acp";
  delivery_status: DeliveryStatus;
  delivery_error: string | null;
  acp_base_url: string | null;
  acp_target_agent_name: string | null;
  acp_run_id: string | null;
  acked: number;
}

export interface NewMessage {
  at: string;
  type: MessageType;
  content: string;
  fromAgentId: string;
  fromSessionKey: string | null;
  toAgentId: string | null;
  toSessionKey: string | null;
  broadcast: boolean;
  via: "local" | "acp";
  status: DeliveryStatus;
  acpBaseUrl: string | null;
  acpTargetAgentName: string | null;
}

/** What one agent reads: its received messages, optionally broadcasts and its own sent ones. */
export interface MessageScope {
  agentId: string;
  /** Only messages to this session, or to the agent without a session, or broadcast. */
  sessionKey?: string;
  includeBroadcast: boolean;
  includeSent: boolean;
  unread?: boolean;
  since?: string;
  afterId?: number;
  limit: number;
}

function toPresence(r: PresenceRow): PresenceEntry {
  return { agentId: r.agent_id, sessionKey: r.session_key, harness: r.harness, project: r.project, startedAt: r.started_at, lastSeenAt: r.last_seen_at };
}

function toMessage(r: MessageRow): AgentMessage {
  return {
    id: r.id,
    createdAt: r.created_at,
    type: r.type,
    content: r.content,
    fromAgentId: r.from_agent_id,
    fromSessionKey: r.from_session_key,
    toAgentId: r.to_agent_id,
    toSessionKey: r.to_session_key,
    broadcast: r.broadcast === 1,
    via: r.via,
    deliveryStatus: r.delivery_status,
    deliveryError: r.delivery_error,
    acpBaseUrl: r.acp_base_url,
    acpTargetAgentName: r.acp_target_agent_name,
    acpRunId: r.acp_run_id,
    acked: r.acked === 1,
  };
}

export class AgentStore {
  constructor(private readonly db: Database) {}

  // ---- presence ----

  upsertPresence(e: { sessionKey: string; agentId: string; harness: string; project: string | null; at: string }): PresenceEntry {
    this.db
      .query(
        `INSERT INTO agent_presence (session_key, agent_id, harness, project, started_at, last_seen_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)
         ON CONFLICT(session_key) DO UPDATE SET harness = excluded.harness, project = COALESCE(excluded.project, project),
           last_seen_at = excluded.last_seen_at`,
      )
      .run(e.sessionKey, e.agentId, e.harness, e.project, e.at);
    return toPresence(this.db.query<PresenceRow, [string]>("SELECT * FROM agent_presence WHERE session_key = ?").get(e.sessionKey)!);
  }

  removePresence(sessionKey: string, agentId: string): boolean {
    return this.db.query("DELETE FROM agent_presence WHERE session_key = ? AND agent_id = ?").run(sessionKey, agentId).changes > 0;
  }

  /** Forgets entries not seen since `cutoff`. */
  expirePresence(cutoff: string): void {
    this.db.query("DELETE FROM agent_presence WHERE last_seen_at < ?").run(cutoff);
  }

  listPresence(o: { excludeAgentId?: string; excludeSessionKey?: string; project?: string; limit: number }): PresenceEntry[] {
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

  // ---- messages ----

  insertMessage(m: NewMessage): number {
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

  /** The newest message's id (0 when there is none): where a stream without Last-Event-ID starts. */
  latestId(): number {
    return this.db.query<{ id: number | null }, []>("SELECT MAX(id) AS id FROM agent_messages").get()?.id ?? 0;
  }

  setDelivery(id: number, status: DeliveryStatus, error: string | null, runId: string | null): void {
    this.db.query("UPDATE agent_messages SET delivery_status = ?, delivery_error = ?, acp_run_id = ? WHERE id = ?").run(status, error, runId, id);
  }

  /** One message as its sender sees it. */
  sent(id: number): AgentMessage {
    return toMessage(this.db.query<MessageRow, [number]>("SELECT *, 0 AS acked FROM agent_messages WHERE id = ?").get(id)!);
  }

  /** The messages `scope.agentId` may read, oldest first. */
  read(scope: MessageScope): AgentMessage[] {
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

  /**
   * Whether the daemon has seen `agentId` act: a session its hooks reported, presence, a message it
   * sent, or a memory of its own (a live one: the partial index on memories covers only those).
   */
  knownAgent(agentId: string): boolean {
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

  /**
   * The messages the prompt hook has yet to give one session of `scope.agentId`, oldest first: sent
   * to the session, to the agent, or broadcast by another agent; not acknowledged, not given to this
   * session yet, and not sent from it. A message to the agent (or a broadcast) reaches the sessions
   * that had started when it first reached one of them: later sessions do not get old news again.
   */
  undelivered(scope: { agentId: string; sessionKey: string; sessionStartedAt: string }, limit: number): AgentMessage[] {
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

  /** Records that `ids` were given to one session of `agentId`. */
  markDelivered(agentId: string, sessionKey: string, ids: number[], at: string): void {
    const insert = this.db.query("INSERT OR IGNORE INTO agent_message_deliveries (message_id, agent_id, session_key, delivered_at) VALUES (?, ?, ?, ?)");
    this.db.transaction(() => {
      for (const id of ids) insert.run(id, agentId, sessionKey, at);
    })();
  }

  /** Acknowledges, for `agentId`, those of `ids` it received; returns them. */
  ack(agentId: string, ids: number[], at: string): number[] {
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
}
