// Sessions, lifecycle hooks and memory feedback (docs/api.md#sessions-and-hooks): their operations
// (HOOKS_API, SESSIONS_API at the end), shared by the routes, the client, the MCP tools and `signet hook`.
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { answer } from "./answer";
import { operation } from "./operation";
import { ROUTES } from "./routes";
import { SessionRemovalResponseSchema } from "./session-removal";
import { sessionKeyProblem } from "./vocabulary";

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

/** A session key: trimmed, 1–500 characters, and nothing sessionKeyProblem refuses. */
export const SessionKeySchema = z
  .string()
  .trim()
  .min(1, "cannot be empty")
  .max(MAX_SESSION_KEY_CHARS, `is longer than ${MAX_SESSION_KEY_CHARS} characters`)
  .superRefine((key, ctx) => {
    const problem = sessionKeyProblem(key);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

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
const HookContextResponseSchema = answer({
  context: z.string(),
  memoryIds: z.array(z.string()).describe("The memories `context` holds, recorded in the session's session_memories"),
  messageIds: z
    .array(z.number())
    .optional()
    .describe("user-prompt-submit only: the other agents' messages `context` holds, now delivered to this session"),
  window: z.number().describe("The session's injection window (it grows by one at each compaction-complete)"),
  transcriptStored: z.boolean().optional().describe("session-end only: whether the transcript was stored"),
  extraction: z.enum(["started", "skipped"]).optional().describe("session-end only: what happens to extraction"),
  note: z.string().optional().describe("session-end only: a sentence saying what was done, e.g. that no llm is configured"),
});
export type HookContextResponse = z.infer<typeof HookContextResponseSchema>;
/** Every hook of a bypassed session answers this and does nothing. */
const HookBypassedResponseSchema = answer({ bypassed: z.literal(true) });
const HookResponseSchema = z.union([HookContextResponseSchema, HookBypassedResponseSchema]);
export type HookResponse = z.infer<typeof HookResponseSchema>;

const SessionSummarySchema = answer({
  key: z.string(),
  agentId: z.string(),
  harness: z.string(),
  project: z.string().nullable(),
  parentKey: z.string().nullable(),
  startedAt: z.string(),
  updatedAt: z.string(),
  endedAt: z.string().nullable(),
  bypassed: z.boolean(),
  window: z.number().describe("The injection window: 0 at start, one more after each compaction"),
  hasTranscript: z.boolean().describe("Whether a transcript is stored for it"),
});
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

/** A memory that reached a session, and how. */
const SessionMemorySchema = answer({
  memoryId: z.string(),
  via: z
    .enum(["session-start", "user-prompt-submit", "pre-compaction", "compaction-complete", "recall"])
    .describe("The hook that injected it, or `recall` (surfaced by a search)"),
  window: z.number(),
  at: z.string(),
  rating: z.number().nullable().describe("The last rating given in this session, -1..1, or null"),
});
export type SessionMemory = z.infer<typeof SessionMemorySchema>;

const SessionDetailSchema = answer({ ...SessionSummarySchema.shape, memories: z.array(SessionMemorySchema), transcriptChars: z.number() });
export type SessionDetail = z.infer<typeof SessionDetailSchema>;

const SessionListQuerySchema = z
  .object({
    active: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
    project: z.string().trim().min(1).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    agent_id: AgentIdSchema.optional(),
    /** Only the sessions whose hooks ran under this harness process, the latest first. */
    harness_process: HarnessProcessSchema.optional(),
  })
  .strict();

const SessionListResponseSchema = answer({ sessions: z.array(SessionSummarySchema), count: z.number() });
export type SessionListResponse = z.infer<typeof SessionListResponseSchema>;

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

const SessionSearchResponseSchema = answer({
  query: z.string(),
  hits: z.array(
    answer({ sessionKey: z.string(), project: z.string().nullable(), updatedAt: z.string(), excerpt: z.string(), rank: z.number().describe("1 for the best hit") }),
  ),
  count: z.number(),
});
export type SessionSearchResponse = z.infer<typeof SessionSearchResponseSchema>;

const BypassRequestSchema = z.object({ enabled: z.boolean() }).strict();

const BypassResponseSchema = answer({ key: z.string(), bypassed: z.boolean() });
export type BypassResponse = z.infer<typeof BypassResponseSchema>;

const FeedbackRequestSchema = z
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

const FeedbackResponseSchema = answer({
  ok: z.literal(true),
  recorded: z.number().describe("Ratings submitted"),
  accepted: z.number().describe("Ratings of memories that were injected or surfaced in that session, so were kept"),
  rejected: z.number().describe("The other ratings, ignored"),
  rejectedIds: z.array(z.string()),
  propagated: z.number().describe("Accepted ratings that also moved the knowledge graph: aspect weights on the memory's entity paths"),
});
export type FeedbackResponse = z.infer<typeof FeedbackResponseSchema>;

/** The lifecycle hooks (docs/api.md#hooks): `:event` is one of HOOK_EVENTS (src/contracts/hook-events.ts). */
export const HOOKS_API = {
  fire: operation(ROUTES.hooks.fire, { input: ":event hook request", body: HookRequestSchema, response: HookResponseSchema }),
};

/** Sessions the hooks reported and memory feedback (docs/api.md#sessions). Keys may be raw or `session:<uuid>`. */
export const SESSIONS_API = {
  list: operation(ROUTES.sessions.list, { input: "session list query", query: SessionListQuerySchema, response: SessionListResponseSchema }),
  get: operation(ROUTES.sessions.get, { response: SessionDetailSchema }),
  search: operation(ROUTES.sessions.search, { input: "session search request", body: SessionSearchRequestSchema, response: SessionSearchResponseSchema }),
  bypass: operation(ROUTES.sessions.bypass, { input: "bypass request", body: BypassRequestSchema, response: BypassResponseSchema }),
  /** Rates memories injected or surfaced in a session (docs/api.md#memory-feedback). */
  feedback: operation(ROUTES.sessions.feedback, { input: "feedback request", body: FeedbackRequestSchema, response: FeedbackResponseSchema }),
  /** Removes a session and what was recorded under its key, whichever agent holds it: the owner's admin token. */
  remove: operation(ROUTES.sessions.remove, { response: SessionRemovalResponseSchema }),
};
