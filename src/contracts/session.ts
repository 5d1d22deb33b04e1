// Sessions, lifecycle hooks and memory feedback (docs/api.md#sessions-and-hooks): the contracts
// shared by the /api/hooks/* and /api/sessions* routes, POST /api/memory/feedback, the MCP tools
// and `signet hook`.
import { z } from "zod";
import { AgentIdSchema } from "./agent";


const MAX_SESSION_KEY_CHARS = 500;
/** The caller's session, on /mcp requests and on the API requests a Signet tool call makes. */
export const SESSION_KEY_HEADER = "x-signet-session-key";
const MAX_PROMPT_CHARS = 100_000;
/** A whole session's transcript as text; the daemon's body cap (`daemon.maxBodyBytes`) applies first. */
const MAX_TRANSCRIPT_CHARS = 4_000_000;
const SEARCH_DEFAULT_LIMIT = 10;
/** Larger limits are clamped, not refused (docs/api.md#session-search). */
const SEARCH_MAX_LIMIT = 20;
const MAX_RATINGS = 200;

export const SessionKeySchema = z.string().trim().min(1, "cannot be empty").max(MAX_SESSION_KEY_CHARS, `is longer than ${MAX_SESSION_KEY_CHARS} characters`);

/** `session:<uuid>` and `<uuid>` name the same session: the prefix is how some harnesses spell a key. */
export function normalizeSessionKey(key: string): string {
  const trimmed = key.trim();
  return /^session:./i.test(trimmed) ? trimmed.slice("session:".length) : trimmed;
}

/**
 * The harness process a session runs in, `<pid>:<start time>` (src/os/harness-process.ts): how
 * signet-mcp, started by the same process, finds its session.
 */
const HarnessProcessSchema = z.string().trim().regex(/^[1-9]\d{0,9}:[\x20-\x7e]{1,64}$/, "must be <pid>:<start time> of the harness process");

export const HookRequestSchema = z
  .object({
    sessionKey: SessionKeySchema,
    /** Which harness reports: claude-code, codex, opencode, ... */
    harness: z.string().trim().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/i, "must be a harness name such as claude-code, codex or opencode"),
    /** Overrides the `x-signet-agent-id` header, like every body that carries an agentId. */
    agentId: AgentIdSchema.optional(),
    /** The project the session works in, usually its working directory. */
    project: z.string().trim().min(1).max(1000).optional(),
    /** A sub-agent's parent; derived from keys `agent:<id>:subagent:<x>` when absent. */
    parentSessionKey: SessionKeySchema.optional(),
    /** user-prompt-submit: the prompt to find memories for. */
    prompt: z.string().max(MAX_PROMPT_CHARS, `is longer than ${MAX_PROMPT_CHARS} characters`).optional(),
    /** session-end (and pre-compaction): the conversation so far, as text. */
    transcript: z.string().max(MAX_TRANSCRIPT_CHARS, `is longer than ${MAX_TRANSCRIPT_CHARS} characters`).optional(),
    /** The harness process the hook ran under; the session keeps the latest one reported. */
    harnessProcess: HarnessProcessSchema.optional(),
  })
  .strict();
export type HookRequest = z.output<typeof HookRequestSchema>;

/** What the hook injects: `context` is empty when there is nothing to add. */
export interface HookContextResponse {
  context: string;
  /** The memories `context` holds, recorded in the session's session_memories. */
  memoryIds: string[];
  /** user-prompt-submit only: the other agents' messages `context` holds, now delivered to this session. */
  messageIds?: number[];
  /** The session's injection window (it grows by one at each compaction-complete). */
  window: number;
  /** session-end only: whether the transcript was stored, and what happens to extraction. */
  transcriptStored?: boolean;
  extraction?: "started" | "skipped";
  /** session-end only: a sentence saying what was done, e.g. that no llm is configured. */
  note?: string;
}
/** Every hook of a bypassed session answers this and does nothing. */
interface HookBypassedResponse {
  bypassed: true;
}
export type HookResponse = HookContextResponse | HookBypassedResponse;

export interface SessionSummary {
  key: string;
  agentId: string;
  harness: string;
  project: string | null;
  parentKey: string | null;
  startedAt: string;
  updatedAt: string;
  endedAt: string | null;
  bypassed: boolean;
  /** The injection window: 0 at start, one more after each compaction. */
  window: number;
  /** Whether a transcript is stored for it. */
  hasTranscript: boolean;
}

/** A memory that reached a session, and how. */
export interface SessionMemory {
  memoryId: string;
  /** `session-start` or `user-prompt-submit` (injected by a hook), or `recall` (surfaced by a search). */
  via: "session-start" | "user-prompt-submit" | "pre-compaction" | "compaction-complete" | "recall";
  window: number;
  at: string;
  /** The last rating given in this session, -1..1, or null. */
  rating: number | null;
}

export interface SessionDetail extends SessionSummary {
  memories: SessionMemory[];
  transcriptChars: number;
}

export const SessionListQuerySchema = z
  .object({
    active: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
    project: z.string().trim().min(1).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    agent_id: AgentIdSchema.optional(),
    /** Only the sessions whose hooks ran under this harness process, the latest first. */
    harness_process: HarnessProcessSchema.optional(),
  })
  .strict();

export interface SessionListResponse {
  sessions: SessionSummary[];
  count: number;
}

export const SessionSearchRequestSchema = z
  .object({
    query: z.string().trim().min(1, "cannot be empty").max(4000, "is longer than 4000 characters"),
    /** Search this session's transcript only. */
    sessionKey: SessionKeySchema.optional(),
    /** The caller's session: a sub-agent's search goes to its parent's transcript. */
    currentSessionKey: SessionKeySchema.optional(),
    agentId: AgentIdSchema.optional(),
    project: z.string().trim().min(1).max(1000).optional(),
    limit: z
      .number()
      .int()
      .min(1, "must be at least 1")
      .default(SEARCH_DEFAULT_LIMIT)
      .transform((n) => Math.min(n, SEARCH_MAX_LIMIT)),
  })
  .strict();
export type SessionSearchRequest = z.output<typeof SessionSearchRequestSchema>;

interface SessionSearchHit {
  sessionKey: string;
  project: string | null;
  updatedAt: string;
  excerpt: string;
  /** 1 for the best hit. */
  rank: number;
}

export interface SessionSearchResponse {
  query: string;
  hits: SessionSearchHit[];
  count: number;
}

export const BypassRequestSchema = z.object({ enabled: z.boolean() }).strict();

export interface BypassResponse {
  key: string;
  bypassed: boolean;
}

export const FeedbackRequestSchema = z
  .object({
    sessionKey: SessionKeySchema,
    agentId: AgentIdSchema.optional(),
    ratings: z
      .record(z.string().trim().min(1).max(200), z.number().min(-1, "must be between -1 and 1").max(1, "must be between -1 and 1"))
      .refine((r) => Object.keys(r).length > 0, "must rate at least one memory")
      .refine((r) => Object.keys(r).length <= MAX_RATINGS, `at most ${MAX_RATINGS} ratings`),
  })
  .strict();
export type FeedbackRequest = z.output<typeof FeedbackRequestSchema>;

export interface FeedbackResponse {
  ok: true;
  /** Ratings submitted. */
  recorded: number;
  /** Ratings of memories that were injected or surfaced in that session, so were kept. */
  accepted: number;
  /** The other ratings, ignored. */
  rejected: number;
  rejectedIds: string[];
  /** Accepted ratings that changed a memory's stored ranking signal. */
  propagated: number;
}
