// Cross-agent presence and messages (docs/api.md#cross-agent): who is present, messages to an agent,
// a session or everyone, acknowledgements, the ACP relay, and listeners for the live stream. An
// agent acts only as itself: naming another agent as the reader or the sender is refused.
import type {
  AckResponse,
  AgentMessage,
  InboxQuery,
  InboxResponse,
  MessageSendRequest,
  MessageSendResponse,
  PresenceDeleteResponse,
  PresenceEntry,
  PresenceListResponse,
  PresenceQuery,
  PresenceRequest,
} from "../../contracts/agents";
import { normalizeSessionKey } from "../../contracts/session";
import { SignetError, notFound } from "../../contracts/errors";
import { sessionOfAnotherAgent } from "../sessions/holder";
import { allowedOrigin, relayToAcp } from "./acp";
import type { AgentStore, MessageFeed, MessageScope } from "./store";
import { listenRetrying } from "../listening";

export interface AgentsOptions {
  presenceTtlS: number;
  /** Told when following other daemons' messages fails (it is tried again: listening.ts). */
  onError?: (message: string) => void;
  /** acp.allowedOrigins: the only origins a message may be relayed to. */
  acpAllowedOrigins: string[];
}

/** An open stream: hears that messages were stored, and is closed when the daemon stops. */
interface Listener {
  notify(): void;
  close(): void;
}

/** Refuses an explicit agent id that is not the caller's own. */
export function ownAgent(callerAgentId: string, named: string | undefined, field: string): void {
  if (named !== undefined && named !== callerAgentId) {
    throw new SignetError("forbidden", `${field} ${JSON.stringify(named)} is not your agent (${callerAgentId}): an agent reads and sends only as itself`);
  }
}

/** A page of what a stream shows, and the id it reads on from. */
export interface StreamPage {
  messages: AgentMessage[];
  /** The stream's next cursor: every message at or below it that it may show is in this page or an earlier one. */
  through: number;
}

export class AgentsService {
  private readonly listeners = new Set<Listener>();
  /** Null until started (and without start: every stored message is then taken as settled). */
  private feed: MessageFeed | null = null;
  private starting: Promise<void> | null = null;
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: AgentStore,
    private readonly options: AgentsOptions,
  ) {}

  /**
   * Streams also hear the messages other daemons sharing the store keep (none on SQLite). Resolves
   * after the first try to listen; one that failed is tried again in the background (listening.ts).
   */
  start(): Promise<void> {
    this.starting ??= listenRetrying(() => this.store.followMessages(() => this.notifyAll()), {
      signal: this.stopping.signal,
      keep: (feed) => (this.feed = feed),
      end: (feed) => feed.stop(),
      onError: this.options.onError ?? (() => {}),
      what: "messages kept by other daemons",
    });
    return this.starting;
  }

  // ---- presence ----

  private expire(): Promise<void> {
    return this.store.expirePresence(new Date(Date.now() - this.options.presenceTtlS * 1000).toISOString());
  }

  async presence(agentId: string, q: PresenceQuery): Promise<PresenceListResponse> {
    ownAgent(agentId, q.agent_id, "agent_id");
    await this.expire();
    // The caller's own session is never its peer, include_self or not: include_self adds the
    // agent's other sessions.
    const sessions = await this.store.listPresence({
      excludeAgentId: q.include_self ? undefined : agentId,
      excludeSessionKey: q.session_key === undefined ? undefined : normalizeSessionKey(q.session_key),
      project: q.project,
      limit: q.limit,
    });
    return { sessions, count: sessions.length };
  }

  /** Registers the caller's session or refreshes it; a session another agent holds is refused. */
  async heartbeat(agentId: string, req: PresenceRequest): Promise<PresenceEntry> {
    ownAgent(agentId, req.agentId, "agentId");
    const key = normalizeSessionKey(req.sessionKey);
    if (await this.store.heldByAnother(key, agentId)) throw sessionOfAnotherAgent(key);
    const entry = await this.store.upsertPresence({ sessionKey: key, agentId, harness: req.harness, project: req.project ?? null, at: new Date().toISOString() });
    // Another agent took the key between the check and the write.
    if (!entry) throw sessionOfAnotherAgent(key);
    return entry;
  }

  async leave(agentId: string, sessionKey: string, named?: string): Promise<PresenceDeleteResponse> {
    ownAgent(agentId, named, "agent_id");
    const key = normalizeSessionKey(sessionKey);
    return { sessionKey: key, removed: await this.store.removePresence(key, agentId) };
  }

  // ---- messages ----

  /**
   * Stores the message (durable before anything else happens), tells open streams, and for via acp
   * relays it and records the outcome on the message. A message to an agent the daemon never saw act
   * is stored all the same (it may come later), and `meta.unknownRecipient` says so: usually a typo.
   */
  async send(agentId: string, req: MessageSendRequest): Promise<MessageSendResponse> {
    ownAgent(agentId, req.fromAgentId, "fromAgentId");
    let toAgentId = req.toAgentId ?? null;
    const toSessionKey = req.toSessionKey === undefined ? null : normalizeSessionKey(req.toSessionKey);
    if (toSessionKey !== null) {
      toAgentId = await this.store.sessionHolder(toSessionKey);
      if (toAgentId === null) throw notFound(`toSessionKey: session ${toSessionKey}`);
    }
    if (req.via === "acp" && !allowedOrigin(req.acpBaseUrl!, this.options.acpAllowedOrigins)) {
      throw new SignetError(
        "forbidden",
        `acpBaseUrl: ${new URL(req.acpBaseUrl!).origin} is not in acp.allowedOrigins (or SIGNET_ACP_ALLOWED_ORIGINS); add it there to relay to it`,
      );
    }
    const fromSessionKey = req.fromSessionKey === undefined ? null : normalizeSessionKey(req.fromSessionKey);
    // The sender's own session: another agent's would label the message as that session's, and route
    // a reply to it.
    if (fromSessionKey !== null && (await this.store.heldByAnother(fromSessionKey, agentId))) throw sessionOfAnotherAgent(fromSessionKey, "fromSessionKey");
    const unknownRecipient = req.toAgentId !== undefined && !(await this.store.knownAgent(req.toAgentId));
    const id = await this.store.insertMessage({
      at: new Date().toISOString(),
      type: req.type,
      content: req.content,
      fromAgentId: agentId,
      fromSessionKey,
      toAgentId,
      toSessionKey,
      broadcast: req.broadcast === true,
      via: req.via,
      status: req.via === "acp" ? "pending" : "delivered",
      acpBaseUrl: req.acpBaseUrl ?? null,
      acpTargetAgentName: req.acpTargetAgentName ?? null,
    });
    // Streams read up to the settled id, which the feed moves once it has read this message.
    if (this.feed) void this.feed.refresh();
    else this.notifyAll();
    if (req.via === "acp") {
      const outcome = await relayToAcp({ baseUrl: req.acpBaseUrl!, agentName: req.acpTargetAgentName!, content: req.content, timeoutMs: req.acpTimeoutMs! });
      await this.store.setDelivery(id, outcome.status, outcome.error, outcome.runId);
    }
    return { ...(await this.store.sent(id)), meta: { unknownRecipient } };
  }

  async inbox(agentId: string, q: InboxQuery): Promise<InboxResponse> {
    ownAgent(agentId, q.agent_id, "agent_id");
    const items = await this.store.read({
      agentId,
      sessionKey: q.session_key === undefined ? undefined : normalizeSessionKey(q.session_key),
      includeBroadcast: q.include_broadcast,
      includeSent: q.include_sent,
      unread: q.unread,
      since: q.since,
      afterId: q.after_id,
      limit: q.limit,
    });
    return { items, count: items.length };
  }

  async ack(agentId: string, ids: number[]): Promise<AckResponse> {
    const acked = await this.store.ack(agentId, ids, new Date().toISOString());
    const done = new Set(acked);
    return { acked, unknown: [...new Set(ids)].filter((id) => !done.has(id)) };
  }

  /**
   * What a stream shows after `scope.afterId`: messages to the agent (and its session), and
   * broadcasts if asked, up to the settled id (store.ts, MessageFeed), oldest first.
   */
  async streamPage(scope: Omit<MessageScope, "includeSent" | "limit" | "throughId"> & { afterId: number }, limit = 500): Promise<StreamPage> {
    const settled = this.feed?.settled() ?? null;
    if (settled !== null && settled <= scope.afterId) return { messages: [], through: scope.afterId };
    const messages = await this.store.read({ ...scope, includeSent: false, throughId: settled ?? undefined, limit });
    // A full page may have more after it; otherwise everything up to the settled id was read.
    const through = messages.length === limit || settled === null ? (messages.at(-1)?.id ?? scope.afterId) : settled;
    return { messages, through };
  }

  /** What a stream shows after `scope.afterId` (streamPage's messages). */
  async missed(scope: Omit<MessageScope, "includeSent" | "limit" | "throughId"> & { afterId: number }, limit = 500): Promise<AgentMessage[]> {
    return (await this.streamPage(scope, limit)).messages;
  }

  /** Whether an agent other than `agentId` holds the session `key` (core/sessions/holder.ts). */
  heldByAnother(key: string, agentId: string): Promise<boolean> {
    return this.store.heldByAnother(key, agentId);
  }

  // ---- live stream ----

  /**
   * Where a stream without Last-Event-ID starts: after the newest message, or, while an older one is
   * still being committed, before that one (it is shown when it is stored, with what came after it).
   */
  async latestId(): Promise<number> {
    await this.starting?.catch(() => {});
    const latest = await this.store.latestId();
    if (!this.feed) return latest;
    await this.feed.refresh();
    return Math.min(latest, this.feed.settled() ?? latest);
  }

  /** False once the daemon is stopping: no new stream may open. */
  get accepting(): boolean {
    return !this.closing;
  }

  /** Registers an open stream; null once the daemon is stopping. */
  listen(listener: Listener): (() => void) | null {
    if (this.closing) return null;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notifyAll(): void {
    for (const l of this.listeners) l.notify();
  }

  private get closing(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Ends every open stream and stops hearing other daemons: the daemon is stopping. */
  async closeAll(): Promise<void> {
    this.stopping.abort();
    for (const l of [...this.listeners]) l.close();
    this.listeners.clear();
    await this.feed?.stop();
    this.feed = null;
  }
}
