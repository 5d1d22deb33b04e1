// What cross-agent presence and messages need of a store, and the rows both stores return: the
// SQLite one (sqlite-store.ts) and the PostgreSQL one (postgres-store.ts). Every read of messages is
// scoped to one reading agent, so no caller above can forget the scope.
import type { AgentMessage, DeliveryStatus, PresenceEntry } from "../../contracts/agents";
import type { MessageType } from "../../contracts/vocabulary";

export interface PresenceRow {
  session_key: string;
  agent_id: string;
  harness: string;
  project: string | null;
  started_at: string;
  last_seen_at: string;
}

export interface MessageRow {
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
  /** Only messages at or below this id. */
  throughId?: number;
  limit: number;
}

/**
 * How the live streams follow the stored messages. Ids are taken when a message's write takes one,
 * not when it commits: with several daemons writing, a message can appear after one with a higher
 * id. A stream reads only up to `settled`, below which no message can still appear, so it shows each
 * message once, in id order, and its last id is where a reconnection resumes without a gap.
 */
export interface MessageFeed {
  /**
   * Every message at or below it is stored or never will be; null: every stored message is (one
   * writer, whose writes commit in the order they take their ids).
   */
  settled(): number | null;
  /** Reads what was stored now (this daemon just stored a message); `changed` is called when it moves `settled`. */
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

export function toPresence(r: PresenceRow): PresenceEntry {
  return { agentId: r.agent_id, sessionKey: r.session_key, harness: r.harness, project: r.project, startedAt: r.started_at, lastSeenAt: r.last_seen_at };
}

export function toMessage(r: MessageRow): AgentMessage {
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

/** Presence and messages, in whichever store the daemon runs on. */
export interface AgentStore {
  /**
   * Registers session `sessionKey` of `agentId`, or refreshes its entry; null when another agent's
   * entry holds the key (which is left as it was).
   */
  upsertPresence(e: { sessionKey: string; agentId: string; harness: string; project: string | null; at: string }): Promise<PresenceEntry | null>;
  /** A heartbeat: a present session's last sighting moves to `at`. */
  touchPresence(sessionKey: string, agentId: string, at: string): Promise<void>;
  removePresence(sessionKey: string, agentId: string): Promise<boolean>;
  /** Forgets entries not seen since `cutoff`. */
  expirePresence(cutoff: string): Promise<void>;
  listPresence(o: { excludeAgentId?: string; excludeSessionKey?: string; project?: string; limit: number }): Promise<PresenceEntry[]>;
  /** The agent holding session `key` (sessions/holder.ts), or null. */
  sessionHolder(key: string): Promise<string | null>;
  /** Whether an agent other than `agentId` holds session `key`. */
  heldByAnother(key: string, agentId: string): Promise<boolean>;
  insertMessage(m: NewMessage): Promise<number>;
  /** The newest message's id (0 when there is none): where a stream without Last-Event-ID starts. */
  latestId(): Promise<number>;
  setDelivery(id: number, status: DeliveryStatus, error: string | null, runId: string | null): Promise<void>;
  /** One message as its sender sees it. */
  sent(id: number): Promise<AgentMessage>;
  /** The messages `scope.agentId` may read, oldest first. */
  read(scope: MessageScope): Promise<AgentMessage[]>;
  /**
   * Whether the store has seen `agentId` act: a session its hooks reported, presence, a message it
   * sent, or a live memory of its own.
   */
  knownAgent(agentId: string): Promise<boolean>;
  /**
   * The messages the prompt hook has yet to give one session of `scope.agentId`, oldest first: sent
   * to the session, to the agent, or broadcast by another agent; not acknowledged, not given to this
   * session yet, and not sent from it. A message to the agent (or a broadcast) reaches the sessions
   * that had started when it first reached one of them: later sessions do not get old news again.
   */
  undelivered(scope: { agentId: string; sessionKey: string; sessionStartedAt: string }, limit: number): Promise<AgentMessage[]>;
  /** Records that `ids` were given to one session of `agentId`; returns those it had not been given before. */
  markDelivered(agentId: string, sessionKey: string, ids: number[], at: string): Promise<number[]>;
  /** Acknowledges, for `agentId`, those of `ids` it received; returns them. */
  ack(agentId: string, ids: number[], at: string): Promise<number[]>;
  /**
   * Follows the messages every daemon sharing the store stores: calls `changed` whenever the feed's
   * `settled` id moves (none other shares a SQLite file: `settled` is null there, and `refresh`
   * calls `changed`).
   */
  followMessages(changed: () => void): Promise<MessageFeed>;
}
