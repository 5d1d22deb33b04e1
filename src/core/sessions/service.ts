// Sessions and lifecycle hooks (docs/api.md#sessions-and-hooks): what each hook injects, what it
// records, bypass, transcript search with sub-agent lineage, and memory feedback. Knows nothing of
// HTTP; the routes and MCP tools reach it through the API.
import type { HookEvent } from "../../contracts/hook-events";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { notFound } from "../../contracts/errors";
import { AGGREGATE_TYPE, RecallRequestSchema } from "../../contracts/recall";
import { normalizeSessionKey, type BypassResponse, type FeedbackRequest, type FeedbackResponse, type HookContextResponse, type HookRequest, type HookResponse, type SessionDetail, type SessionListResponse, type SessionSearchRequest, type SessionSearchResponse } from "../../contracts/session";
import type { SessionRemovalResponse } from "../../contracts/session-removal";
import type { Logger } from "../../logger";
import type { ChatModel } from "../llm/chat";
import type { Caller, MemoryService } from "../memory/service";
import type { RecallService } from "../recall/service";
import { ContextBuilder, clip, memoryLine } from "./context";
import { extractFromTranscript } from "./extraction";
import { chooseInjections } from "./injection";
import { sessionOfAnotherAgent } from "./holder";
import { messagesBlock, PENDING_LIMIT, unreadNote } from "./messages";
import type { AgentStore } from "../agents/store";
import { toSummary, type InjectionVia, type SessionRow, type SessionStore } from "./store";

/** Files in the data directory that say who the agent works for, shown at session start. */
const IDENTITY_FILES = ["AGENTS.md", "USER.md"] as const;
/** No identity file may take more than this share of the session-start budget. */
const IDENTITY_SHARE = 0.3;
const PARENT_SHARE = 0.2;
const PINNED_LIMIT = 50;
const PROJECT_LIMIT = 30;
const GUIDANCE_LIMIT = 20;
/** Memory types that say how to work anywhere: a session starts with the global ones of these. */
const GUIDANCE_TYPES = ["preference", "decision", "rule"] as const;
/** The prompt's length that recall reads (the limit of a recall query). */
const RECALL_QUERY_CHARS = 4000;
/** What pre-compaction carries across: the window's memories, at most this many. */
const CARRY_LIMIT = 20;
/** Prompts appended to an active session's transcript, so it is searchable before it ends. */
const PROMPT_TRANSCRIPT_CHARS = 4000;
/**
 * A store of 100,000 memories takes seconds to load its keyword index at the daemon's start; a prompt
 * waits for it this long at most, then goes without memories (the harness gives up on the hook at 5 s).
 */
const PROMPT_INDEX_WAIT_MS = 1000;
/**
 * Appending rewrites the session's transcript row, so it stops past this size: a long session's
 * prompts would otherwise cost each prompt hook more. Session-end stores the whole transcript.
 */
const PROMPT_TRANSCRIPT_MAX_CHARS = 64_000;
/** A sub-agent key: `agent:<id>:subagent:<x>` (OpenClaw's form). */
const SUBAGENT_KEY = /^(agent:[^:]+:)subagent:./;
/** Every break a model may read as a new line: `\r\n`, `\n`, `\r`, vertical tab, form feed, NEL, the line and paragraph separators. */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/** `text` as a Markdown quote, every line starting `> `, so that none can start a heading of its own. */
function quoteLines(text: string): string {
  return text
    .trim()
    .split(LINE_BREAK)
    .map((line) => `> ${line}`.trimEnd())
    .join("\n");
}

export interface SessionServiceOptions {
  dataDir: string;
  /** `hooks.sessionStartBudgetTokens`. */
  sessionStartBudgetTokens: number;
  /** The configured llm, or undefined: then session-end stores the transcript and extracts nothing. */
  llm: ChatModel | undefined;
  log: Pick<Logger, "info" | "warn" | "error">;
  now?: () => Date;
  /** The knowledge graph: feedback propagates along it, and session start lists its reviews. */
  graph?: SessionGraph;
  /**
   * The daemon's one agent store: sessions' presence, and other agents' messages, which the prompt
   * hook delivers to the session.
   */
  agents: AgentStore;
  /** How long a prompt waits for recall's keyword index while it loads at start (default PROMPT_INDEX_WAIT_MS). */
  promptIndexWaitMs?: number;
}

/** What sessions ask of the knowledge graph (core/graph/service.ts). */
interface SessionGraph {
  /** How many of the memories' signal moves also moved aspect weights on their entity paths. */
  propagate(agentId: string, moves: [string, number][]): Promise<number>;
  dueReviews(agentId: string, limit: number): Promise<{ seq: number; id: string; content: string; type: string; reason: string }[]>;
  reviewsListed(seqs: number[]): Promise<void>;
}

/** How many memories due for review one session start lists. */
const REVIEW_LIMIT = 5;

export class SessionService {
  private readonly now: () => Date;
  /** Background extractions in flight, so stop() can end them and tests can wait for them. */
  private readonly extractions = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  /** Whether the log has said that a prompt went without memories while the keyword index loads. */
  private toldIndexLoading = false;

  constructor(
    private readonly store: SessionStore,
    private readonly memory: MemoryService,
    private readonly recall: RecallService,
    private readonly options: SessionServiceOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  // ---- hooks ----

  /** Every hook acts on the caller's own session: one another agent holds is refused before anything is read. */
  async hook(event: HookEvent, caller: Caller, req: HookRequest): Promise<HookResponse> {
    const key = normalizeSessionKey(req.sessionKey);
    if (await this.options.agents.heldByAnother(key, caller.agentId)) throw sessionOfAnotherAgent(key);
    if ((await this.store.get(key, caller.agentId))?.bypassed === 1) return { bypassed: true };
    switch (event) {
      case "session-start":
        return this.sessionStart(caller, key, req);
      case "user-prompt-submit":
        return this.userPromptSubmit(caller, key, req);
      case "pre-compaction":
        return this.preCompaction(caller, key, req);
      case "compaction-complete":
        return this.compactionComplete(caller, key, req);
      case "session-end":
        return this.sessionEnd(caller, key, req);
    }
  }

  /** The session as this hook reports it, created on first sight (a harness may skip session-start). */
  private async open(caller: Caller, key: string, req: HookRequest, reopen = false): Promise<SessionRow> {
    const parentKey = req.parentSessionKey !== undefined ? normalizeSessionKey(req.parentSessionKey) : null;
    const at = this.now().toISOString();
    const session = await this.store.open(
      { key, agentId: caller.agentId, harness: req.harness, project: req.project ?? null, parentKey, harnessProcess: req.harnessProcess, at },
      reopen,
    );
    if (!session) throw sessionOfAnotherAgent(key);
    return session;
  }

  private async inject(session: SessionRow, via: InjectionVia, context: string, ids: string[]): Promise<HookContextResponse> {
    await this.store.recordInjected(session.key, session.agent_id, session.injection_window, via, ids, this.now().toISOString());
    return { context, memoryIds: ids, window: session.injection_window };
  }

  /** The messages this session has not been given yet. */
  private pendingMessages(session: SessionRow) {
    return this.options.agents.undelivered({ agentId: session.agent_id, sessionKey: session.key, sessionStartedAt: session.started_at }, PENDING_LIMIT);
  }

  /**
   * The block of messages for this prompt, marked delivered to the session as it is made. Two
   * prompts at once may both find a message pending: only the one whose mark stored it shows it.
   */
  private async deliverMessages(session: SessionRow): Promise<{ context: string; ids: number[] }> {
    const pending = await this.pendingMessages(session);
    const block = messagesBlock(pending);
    if (block.ids.length === 0) return block;
    const claimed = new Set(await this.options.agents.markDelivered(session.agent_id, session.key, block.ids, this.now().toISOString()));
    return claimed.size === block.ids.length ? block : messagesBlock(pending.filter((m) => claimed.has(m.id)));
  }

  private async sessionStart(caller: Caller, key: string, req: HookRequest): Promise<HookContextResponse> {
    const session = await this.open(caller, key, req, true);
    await this.options.agents.upsertPresence({ sessionKey: key, agentId: caller.agentId, harness: req.harness, project: session.project, at: this.now().toISOString() });
    const block = new ContextBuilder(this.options.sessionStartBudgetTokens, `# Signet memory (session ${key})`);
    // First, so the budget never squeezes it out: a line, and the messages themselves come with the next prompt.
    const unread = (await this.pendingMessages(session)).length;
    if (unread > 0) block.text("Messages", unreadNote(unread));
    for (const file of IDENTITY_FILES) {
      const text = this.readIdentityFile(file);
      if (text) block.text(file, text, IDENTITY_SHARE);
    }
    const parent = await this.parentOf(session);
    if (parent) block.text(`Parent session ${parent.key}`, await this.parentSummary(parent), PARENT_SHARE);
    const agents = this.memory.readableAgents(caller);
    // Reviews first: a pinned memory that is due is listed as due, with why.
    await this.listReviews(block, caller.agentId);
    block.memories("Pinned memories", await this.store.pinned(agents, PINNED_LIMIT));
    if (session.project) block.memories(`Memories for ${session.project}`, await this.store.ofProject(agents, session.project, PROJECT_LIMIT));
    block.memories("Preferences and decisions for every project", await this.store.globalGuidance(agents, GUIDANCE_TYPES, GUIDANCE_LIMIT));
    return await this.inject(session, "session-start", block.build(), block.ids);
  }

  /** Memories whose reviewAfter has passed, each with why, listed at one session start only. */
  private async listReviews(block: ContextBuilder, agentId: string): Promise<void> {
    const due = (await this.options.graph?.dueReviews(agentId, REVIEW_LIMIT)) ?? [];
    if (due.length === 0) return;
    const shown = block.memories(
      "Due for review (still true? modify or forget them)",
      due.map((r) => ({ id: r.id, type: r.type, content: `[${r.reason}] ${r.content}` })),
    );
    // Listed once: only what this section showed counts as listed.
    await this.options.graph!.reviewsListed(due.filter((r) => shown.includes(r.id)).map((r) => r.seq));
  }

  private async userPromptSubmit(caller: Caller, key: string, req: HookRequest): Promise<HookContextResponse> {
    const session = await this.open(caller, key, req);
    // Each prompt is a presence heartbeat (crossAgent.presenceTtlS, docs/api.md#presence).
    await this.options.agents.touchPresence(key, session.agent_id, this.now().toISOString());
    const messages = await this.deliverMessages(session);
    const memories = await this.promptMemories(caller, session, req.prompt?.trim() ?? "");
    return {
      context: [messages.context, memories.context].filter((c) => c !== "").join("\n\n"),
      memoryIds: memories.memoryIds,
      messageIds: messages.ids,
      window: session.injection_window,
    };
  }

  /** The memories that stand out for the prompt, recorded as injected. */
  private async promptMemories(caller: Caller, session: SessionRow, prompt: string): Promise<HookContextResponse> {
    if (!prompt) return { context: "", memoryIds: [], window: session.injection_window };
    await this.appendToTranscript(session, `user: ${prompt.slice(0, PROMPT_TRANSCRIPT_CHARS)}`);
    if (!(await this.recall.readyWithin(this.options.promptIndexWaitMs ?? PROMPT_INDEX_WAIT_MS))) {
      if (!this.toldIndexLoading) this.options.log.info("a prompt got no memories: recall's keyword index is still loading (the daemon has just started)");
      this.toldIndexLoading = true;
      return { context: "", memoryIds: [], window: session.injection_window };
    }
    // Earlier prompts' memories are not given again. Session start's are: its block lists every
    // project memory, and the few this prompt needs are worth restating next to it.
    const given = await this.store.injectedIn(session.key, session.agent_id, session.injection_window, "session-start");
    // Saved aggregates restate memories; the memories themselves go in (injection.ts decides which).
    const query = prompt.slice(0, RECALL_QUERY_CHARS);
    const ranking = await this.recall.rank(caller, RecallRequestSchema.parse({ query }), AGGREGATE_TYPE);
    const chosen = chooseInjections(ranking, {
      prompt: query,
      project: session.project,
      given,
      similarity: (a, b) => this.recall.similarity(a.row.seq, b.row.seq),
    });
    if (chosen.length === 0) return { context: "", memoryIds: [], window: session.injection_window };
    const lines = chosen.map(({ row }) => memoryLine({ id: row.id, content: row.content, type: row.type }));
    const context = `# Signet: memories relevant to this prompt\n${lines.join("\n")}`;
    return await this.inject(session, "user-prompt-submit", context, chosen.map((c) => c.row.id));
  }

  /** What to carry across: the memories injected in this window, to be kept in the compacted context. */
  private async preCompaction(caller: Caller, key: string, req: HookRequest): Promise<HookContextResponse> {
    const session = await this.open(caller, key, req);
    if (req.transcript?.trim()) await this.store.setTranscript(session.seq, req.transcript);
    const injected = [...(await this.store.injectedIn(key, session.agent_id, session.injection_window))].slice(0, CARRY_LIMIT);
    const carried = await this.store.memoryLines(this.memory.readableAgents(caller), injected);
    const ids = carried.map((m) => m.id);
    await this.store.setCarry(key, session.agent_id, JSON.stringify(ids), this.now().toISOString());
    if (carried.length === 0) return { context: "", memoryIds: [], window: session.injection_window };
    const context = `# Signet: memories to keep across the compaction\n${carried.map(memoryLine).join("\n")}`;
    return await this.inject(session, "pre-compaction", context, ids);
  }

  /** Opens the next injection window, and injects again what pre-compaction carried across. */
  private async compactionComplete(caller: Caller, key: string, req: HookRequest): Promise<HookContextResponse> {
    await this.open(caller, key, req);
    const at = this.now().toISOString();
    await this.store.nextWindow(key, caller.agentId, at);
    const session = (await this.store.get(key, caller.agentId))!;
    const carriedIds = session.carry ? (JSON.parse(session.carry) as string[]) : [];
    // Carried once: a later compaction carries what its own pre-compaction chooses.
    await this.store.setCarry(key, session.agent_id, null, at);
    const carried = await this.store.memoryLines(this.memory.readableAgents(caller), carriedIds);
    if (carried.length === 0) return { context: "", memoryIds: [], window: session.injection_window };
    const context = `# Signet: memories carried across the compaction\n${carried.map(memoryLine).join("\n")}`;
    return await this.inject(session, "compaction-complete", context, carried.map((m) => m.id));
  }

  private async sessionEnd(caller: Caller, key: string, req: HookRequest): Promise<HookContextResponse> {
    const session = await this.open(caller, key, req);
    const transcript = req.transcript?.trim() ? req.transcript : null;
    if (transcript) await this.store.setTranscript(session.seq, transcript);
    await this.store.end(key, session.agent_id, this.now().toISOString());
    await this.options.agents.removePresence(key, session.agent_id);
    const base = { context: "", memoryIds: [], window: session.injection_window, transcriptStored: transcript !== null };
    if (!transcript) {
      return { ...base, extraction: "skipped", note: "no transcript was given, so nothing was stored or extracted" };
    }
    const llm = this.options.llm;
    if (!llm) {
      return {
        ...base,
        extraction: "skipped",
        note: "transcript stored; no memories extracted: no llm is configured (docs/config.md#llm)",
      };
    }
    this.track(this.extract(llm, caller, session, transcript));
    return { ...base, extraction: "started", note: `transcript stored; ${llm.label} is extracting durable memories in the background` };
  }

  private track(task: Promise<void>): void {
    this.extractions.add(task);
    void task.finally(() => this.extractions.delete(task));
  }

  private async extract(llm: ChatModel, caller: Caller, session: SessionRow, transcript: string): Promise<void> {
    try {
      const { summary, memories } = await extractFromTranscript(llm, transcript, this.stopping.signal);
      if (summary) await this.store.setSummary(session.key, session.agent_id, summary);
      const extractor: Caller = { ...caller, actor: "extraction", actorType: "daemon" };
      let stored = 0;
      for (const m of memories) {
        const answer = await this.memory.remember(
          extractor,
          { content: m.content, type: m.type, importance: m.importance, hints: m.hints, sessionKey: session.key, project: session.project ?? undefined },
          "extraction",
        );
        if (!answer.deduped) stored++;
      }
      this.options.log.info(`session ${session.key}: extracted ${stored} new memor${stored === 1 ? "y" : "ies"} with ${llm.label}`);
    } catch (err) {
      // Extraction runs after the answer: a failing llm costs the memories, never the transcript.
      this.options.log.warn(`session ${session.key}: extraction failed: ${(err as Error).message}`);
    }
  }

  /** Resolves when no extraction is running. */
  async idle(): Promise<void> {
    while (this.extractions.size > 0) await Promise.allSettled([...this.extractions]);
  }

  /** Ends running extractions (their llm calls are aborted) and waits for them. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.idle();
  }

  private readIdentityFile(name: string): string | null {
    const path = join(this.options.dataDir, name);
    try {
      return existsSync(path) ? readFileSync(path, "utf8").trim() || null : null;
    } catch {
      return null;
    }
  }

  private async appendToTranscript(session: SessionRow, line: string): Promise<void> {
    const before = await this.store.transcript(session.seq);
    if (before && before.length >= PROMPT_TRANSCRIPT_MAX_CHARS) return;
    await this.store.setTranscript(session.seq, before ? `${before}\n${line}` : line);
  }

  // ---- lineage ----

  /** A sub-agent's parent: the recorded parent key, or for `agent:<id>:subagent:<x>` that agent's main session. */
  private parentOf(session: SessionRow): Promise<SessionRow | null> {
    if (session.parent_key) {
      return this.store.get(session.parent_key, session.agent_id);
    }
    const m = SUBAGENT_KEY.exec(session.key);
    return m ? this.store.latestMainSession(m[1]!, session.agent_id, session.key) : Promise.resolve(null);
  }

  /**
   * What the parent is, then its summary or the end of its transcript, quoted: both are text an llm
   * or the session wrote, and neither may pass for a heading or section of Signet's.
   */
  private async parentSummary(parent: SessionRow): Promise<string> {
    const project = parent.project ? `project ${parent.project.replace(/\s+/g, " ")}, ` : "";
    const about = `${project}started ${parent.started_at}${parent.ended_at ? `, ended ${parent.ended_at}` : ", active"}`;
    if (parent.summary) return `${about}\nSummary:\n${quoteLines(parent.summary)}`;
    const transcript = await this.store.transcript(parent.seq);
    const tail = transcript ? clip(transcript.slice(-1500), 1500) : null;
    return `${about}\n${tail ? `Latest:\n${quoteLines(tail)}\n` : ""}Search its transcript with session_search (current_session_key = your session key).`;
  }

  // ---- sessions ----

  async list(caller: Caller, query: { active?: boolean; project?: string; harness_process?: string; limit: number }): Promise<SessionListResponse> {
    const { harness_process: harnessProcess, ...filter } = query;
    const sessions = (await this.store.list(caller.agentId, { ...filter, harnessProcess })).map(toSummary);
    return { sessions, count: sessions.length };
  }

  async get(caller: Caller, rawKey: string): Promise<SessionDetail> {
    const row = await this.owned(caller, normalizeSessionKey(rawKey));
    return {
      ...toSummary(row),
      memories: await this.store.memoriesOf(row.key, row.agent_id),
      transcriptChars: (await this.store.transcript(row.seq))?.length ?? 0,
    };
  }

  private async owned(caller: Caller, key: string): Promise<SessionRow> {
    const row = await this.store.get(key, caller.agentId);
    // Another agent's session is not this caller's to see: the same answer as no session at all.
    if (!row) throw notFound(`session ${key} of agent ${caller.agentId}`);
    return row;
  }

  /**
   * Bypass on or off; a key no hook reported yet is recorded, so its first hook is already silent.
   * A key another agent holds (present under it, without hooks yet) is not recorded: that would
   * silence its holder's hooks.
   */
  async bypass(caller: Caller, rawKey: string, enabled: boolean): Promise<BypassResponse> {
    const key = normalizeSessionKey(rawKey);
    const at = this.now().toISOString();
    if (!(await this.options.agents.heldByAnother(key, caller.agentId))) await this.store.placeholder(key, caller.agentId, at);
    await this.owned(caller, key);
    await this.store.setBypass(key, caller.agentId, enabled, at);
    return { key, bypassed: enabled };
  }

  async search(caller: Caller, req: SessionSearchRequest): Promise<SessionSearchResponse> {
    const key = await this.searchTarget(caller, req);
    const hits = await this.store.searchTranscripts(req.query, { agentId: caller.agentId, key, project: req.project }, req.limit);
    return {
      query: req.query,
      hits: hits.map((h, i) => ({ sessionKey: h.key, project: h.project, updatedAt: h.updated_at, excerpt: h.excerpt, rank: i + 1 })),
      count: hits.length,
    };
  }

  /** The one transcript to search: the named session, or the current session's parent; else all the agent's. */
  private async searchTarget(caller: Caller, req: SessionSearchRequest): Promise<string | undefined> {
    if (req.sessionKey !== undefined) return normalizeSessionKey(req.sessionKey);
    if (req.currentSessionKey === undefined) return undefined;
    const current = normalizeSessionKey(req.currentSessionKey);
    const row = await this.store.get(current, caller.agentId);
    if (row) return (await this.parentOf(row))?.key;
    const m = SUBAGENT_KEY.exec(current);
    return m ? ((await this.store.latestMainSession(m[1]!, caller.agentId, current))?.key ?? undefined) : undefined;
  }

  /**
   * Removes a session and what was recorded under its key, whichever agent holds it (the owner's
   * operation). Its ratings go with it, from the knowledge graph too: each moved signal moves the
   * aspect weights back as far.
   */
  async remove(rawKey: string): Promise<SessionRemovalResponse> {
    const key = normalizeSessionKey(rawKey);
    const removed = await this.store.remove(key);
    if (!removed) throw notFound(`session ${key}`);
    const graph = this.options.graph;
    if (graph) {
      for (const agentId of new Set(removed.moves.map((m) => m.agentId))) {
        await graph.propagate(agentId, removed.moves.filter((m) => m.agentId === agentId).map((m) => [m.memoryId, m.move]));
      }
    }
    return removed.response;
  }

  // ---- feedback ----

  async feedback(caller: Caller, req: FeedbackRequest): Promise<FeedbackResponse> {
    const key = normalizeSessionKey(req.sessionKey);
    const ratings = Object.entries(req.ratings);
    const { accepted, moves } = await this.store.rate(key, caller.agentId, ratings, this.now().toISOString());
    const rejectedIds = ratings.map(([id]) => id).filter((id) => !accepted.has(id));
    const propagated = (await this.options.graph?.propagate(caller.agentId, moves)) ?? 0;
    return { ok: true, recorded: ratings.length, accepted: accepted.size, rejected: rejectedIds.length, rejectedIds, propagated };
  }
}

