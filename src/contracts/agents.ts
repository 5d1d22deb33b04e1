// Cross-agent presence and messages (docs/api.md#cross-agent): the contracts shared by the
// /api/cross-agent/* routes, the agent_* MCP tools and `signet agents` / `signet message`.
// Bodies are camelCase, query parameters snake_case (SPEC §3).
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { SessionKeySchema } from "./session";

export const MESSAGE_TYPES = ["assist_request", "decision_update", "info", "question"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** 16 KiB of UTF-8. */
export const MAX_MESSAGE_BYTES = 16 * 1024;
const DEFAULT_ACP_TIMEOUT_MS = 20_000;
const MAX_ACP_TIMEOUT_MS = 120_000;

const queryBool = z.enum(["true", "false"], "must be true or false").transform((v) => v === "true");
const project = z.string().trim().min(1, "cannot be empty").max(1000, "is longer than 1000 characters");
const harness = z.string().trim().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/i, "must be a harness name such as claude-code, codex or opencode");

// ---- presence ----

/** GET /api/cross-agent/presence: who is present now (entries seen within crossAgent.presenceTtlS). */
export const PresenceQuerySchema = z
  .object({
    /** The caller's own agent; another agent's id is refused (an agent speaks only for itself). */
    agent_id: AgentIdSchema.optional(),
    /** The caller's session: never listed as its own peer. */
    session_key: SessionKeySchema.optional(),
    /** Include the caller's own agent's other sessions. */
    include_self: queryBool.default(false),
    project: project.optional(),
    limit: z.coerce.number("must be a number").int("must be a whole number").min(1, "must be at least 1").max(500, "must be at most 500").default(50),
  })
  .strict();
export type PresenceQuery = z.output<typeof PresenceQuerySchema>;

/** POST /api/cross-agent/presence: register a session, or refresh it (a heartbeat). */
export const PresenceRequestSchema = z
  .object({
    sessionKey: SessionKeySchema,
    agentId: AgentIdSchema.optional(),
    harness: harness.default("unknown"),
    project: project.optional(),
  })
  .strict();
export type PresenceRequest = z.output<typeof PresenceRequestSchema>;

/** DELETE /api/cross-agent/presence?session_key=: the session leaves. */
export const PresenceDeleteQuerySchema = z.object({ session_key: SessionKeySchema, agent_id: AgentIdSchema.optional() }).strict();

export interface PresenceEntry {
  agentId: string;
  sessionKey: string;
  harness: string;
  project: string | null;
  startedAt: string;
  lastSeenAt: string;
}

export interface PresenceListResponse {
  sessions: PresenceEntry[];
  count: number;
}

export interface PresenceDeleteResponse {
  sessionKey: string;
  removed: boolean;
}

// ---- messages ----

const TARGET_FIELDS = ["toAgentId", "toSessionKey", "broadcast"] as const;

/** POST /api/cross-agent/messages. Exactly one target (an agent, a session, or broadcast); via acp may have none. */
export const MessageSendSchema = z
  .object({
    content: z
      .string()
      .refine((s) => s.trim().length > 0, "cannot be empty")
      .refine((s) => Buffer.byteLength(s, "utf8") <= MAX_MESSAGE_BYTES, `is larger than ${MAX_MESSAGE_BYTES} bytes (16 KiB)`),
    type: z.enum(MESSAGE_TYPES, `must be one of ${MESSAGE_TYPES.join(", ")}`).default("info"),
    /** The sender: the caller's own agent; another agent's id is refused. */
    fromAgentId: AgentIdSchema.optional(),
    fromSessionKey: SessionKeySchema.optional(),
    toAgentId: AgentIdSchema.optional(),
    toSessionKey: SessionKeySchema.optional(),
    broadcast: z.boolean().optional(),
    via: z.enum(["local", "acp"], "must be local or acp").default("local"),
    acpBaseUrl: z
      .string()
      .trim()
      .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), "must be an http or https URL")
      .optional(),
    acpTargetAgentName: z.string().trim().min(1, "cannot be empty").max(200, "is longer than 200 characters").optional(),
    acpTimeoutMs: z
      .number("must be a number")
      .int("must be a whole number")
      .min(100, "must be at least 100")
      .max(MAX_ACP_TIMEOUT_MS, `must be at most ${MAX_ACP_TIMEOUT_MS}`)
      .optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    const targets = TARGET_FIELDS.filter((f) => (f === "broadcast" ? m.broadcast === true : m[f] !== undefined));
    if (targets.length > 1) {
      ctx.addIssue({ code: "custom", path: [targets[1]!], message: `only one target: ${targets.join(" and ")} were both given; send to an agent, a session, or broadcast` });
    }
    if (m.via === "acp") {
      if (!m.acpBaseUrl) ctx.addIssue({ code: "custom", path: ["acpBaseUrl"], message: "is required when via is acp" });
      if (!m.acpTargetAgentName) ctx.addIssue({ code: "custom", path: ["acpTargetAgentName"], message: "is required when via is acp" });
    } else {
      if (targets.length === 0) {
        ctx.addIssue({ code: "custom", path: ["toAgentId"], message: "a target is required: toAgentId, toSessionKey or broadcast: true" });
      }
      for (const f of ["acpBaseUrl", "acpTargetAgentName", "acpTimeoutMs"] as const) {
        if (m[f] !== undefined) ctx.addIssue({ code: "custom", path: [f], message: "applies only when via is acp" });
      }
    }
  })
  .transform((m) => ({ ...m, acpTimeoutMs: m.via === "acp" ? (m.acpTimeoutMs ?? DEFAULT_ACP_TIMEOUT_MS) : undefined }));
export type MessageSendRequest = z.output<typeof MessageSendSchema>;

export type DeliveryStatus = "delivered" | "pending" | "failed";

export interface AgentMessage {
  /** Also the stream's event id: ids only grow. */
  id: number;
  createdAt: string;
  type: MessageType;
  content: string;
  fromAgentId: string;
  fromSessionKey: string | null;
  toAgentId: string | null;
  toSessionKey: string | null;
  broadcast: boolean;
  via: "local" | "acp";
  deliveryStatus: DeliveryStatus;
  deliveryError: string | null;
  acpBaseUrl: string | null;
  acpTargetAgentName: string | null;
  acpRunId: string | null;
  /** Whether the reading agent acknowledged it (always false for the sender's own view). */
  acked: boolean;
}

/** What POST /api/cross-agent/messages answers: the stored message, and what the daemon noticed. */
export interface MessageSendResponse extends AgentMessage {
  meta: {
    /** The target agent never acted on this daemon (no session, presence, sent message or memory): the message waits for it. */
    unknownRecipient: boolean;
  };
}

/** GET /api/cross-agent/messages: the caller's inbox, oldest first. */
export const InboxQuerySchema = z
  .object({
    /** The caller's own agent; another agent's id is refused. */
    agent_id: AgentIdSchema.optional(),
    /** Only what was sent to this session (of the caller's agent), to the agent as a whole, or broadcast. */
    session_key: SessionKeySchema.optional(),
    since: z
      .string()
      .trim()
      .refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO-8601 timestamp")
      .transform((s) => new Date(s).toISOString())
      .optional(),
    /** Messages with a larger id only (what the stream's Last-Event-ID means). */
    after_id: z.coerce.number("must be a number").int("must be a whole number").min(0, "cannot be negative").optional(),
    include_sent: queryBool.default(false),
    include_broadcast: queryBool.default(true),
    /** Only messages not yet acknowledged. */
    unread: queryBool.default(false),
    limit: z.coerce.number("must be a number").int("must be a whole number").min(1, "must be at least 1").max(500, "must be at most 500").default(50),
  })
  .strict();
export type InboxQuery = z.output<typeof InboxQuerySchema>;

export interface InboxResponse {
  items: AgentMessage[];
  count: number;
}

/** POST /api/cross-agent/messages/ack: acknowledge messages the caller received. */
export const AckRequestSchema = z
  .object({
    ids: z.array(z.number().int().min(1, "ids are positive")).min(1, "must name at least one message").max(500, "at most 500 ids at once"),
  })
  .strict();

export interface AckResponse {
  /** Ids acknowledged now or before. */
  acked: number[];
  /** Ids that are not messages the caller received (nothing is said about why). */
  unknown: number[];
}

/** GET /api/cross-agent/stream: the caller's messages as server-sent events. */
export const StreamQuerySchema = z
  .object({
    agent_id: AgentIdSchema.optional(),
    session_key: SessionKeySchema.optional(),
    include_broadcast: queryBool.default(true),
    /** The same as the Last-Event-ID header, for clients that cannot set it. */
    last_event_id: z.coerce.number("must be a number").int("must be a whole number").min(0, "cannot be negative").optional(),
  })
  .strict();
