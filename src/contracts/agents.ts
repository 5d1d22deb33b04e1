// Cross-agent presence and messages (docs/api.md#cross-agent): the operations shared by the
// cross-agent routes, the agent_* MCP tools and `signet agents` / `signet message`.
// Bodies are camelCase, query parameters snake_case (SPEC §3).
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { answer } from "./answer";
import { operation } from "./operation";
import { DEFAULT_ACP_TIMEOUT_MS, ROUTES } from "./routes";
import { SessionKeySchema } from "./session";
import { MESSAGE_TYPES } from "./vocabulary";

/** 16 KiB of UTF-8. */
export const MAX_MESSAGE_BYTES = 16 * 1024;
const MAX_ACP_TIMEOUT_MS = 120_000;

const queryBool = z.enum(["true", "false"], "must be true or false").transform((v) => v === "true");
const project = z.string().trim().min(1, "cannot be empty").max(1000, "is longer than 1000 characters");
const harness = z.string().trim().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/i, "must be a harness name such as claude-code, codex or opencode");

// ---- presence ----

/** Who is present now (entries seen within crossAgent.presenceTtlS). */
const PresenceQuerySchema = z
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

/** Registers a session, or refreshes it (a heartbeat). */
const PresenceRequestSchema = z
  .object({
    sessionKey: SessionKeySchema,
    agentId: AgentIdSchema.optional(),
    harness: harness.default("unknown"),
    project: project.optional(),
  })
  .strict();
export type PresenceRequest = z.output<typeof PresenceRequestSchema>;

/** The session leaves. */
const PresenceDeleteQuerySchema = z.object({ session_key: SessionKeySchema, agent_id: AgentIdSchema.optional() }).strict();

const PresenceEntrySchema = answer({
  agentId: z.string(),
  sessionKey: z.string(),
  harness: z.string(),
  project: z.string().nullable(),
  startedAt: z.string(),
  lastSeenAt: z.string(),
});
export type PresenceEntry = z.infer<typeof PresenceEntrySchema>;

const PresenceListResponseSchema = answer({ sessions: z.array(PresenceEntrySchema).describe("Most recently seen first"), count: z.number() });
export type PresenceListResponse = z.infer<typeof PresenceListResponseSchema>;

const PresenceDeleteResponseSchema = answer({
  sessionKey: z.string(),
  removed: z.boolean().describe("False when the caller's agent had no such session present"),
});
export type PresenceDeleteResponse = z.infer<typeof PresenceDeleteResponseSchema>;

// ---- messages ----

const TARGET_FIELDS = ["toAgentId", "toSessionKey", "broadcast"] as const;

/** A message to send. Exactly one target (an agent, a session, or broadcast); via acp may have none. */
const MessageSendSchema = z
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

const DeliveryStatusSchema = z.enum(["delivered", "pending", "failed"]);
export type DeliveryStatus = z.infer<typeof DeliveryStatusSchema>;

const AgentMessageSchema = answer({
  id: z.number().describe("Also the stream's event id: ids only grow"),
  createdAt: z.string(),
  type: z.enum(MESSAGE_TYPES),
  content: z.string(),
  fromAgentId: z.string(),
  fromSessionKey: z.string().nullable(),
  toAgentId: z.string().nullable(),
  toSessionKey: z.string().nullable(),
  broadcast: z.boolean(),
  via: z.enum(["local", "acp"]),
  deliveryStatus: DeliveryStatusSchema,
  deliveryError: z.string().nullable(),
  acpBaseUrl: z.string().nullable(),
  acpTargetAgentName: z.string().nullable(),
  acpRunId: z.string().nullable(),
  acked: z.boolean().describe("Whether the reading agent acknowledged it (always false for the sender's own view)"),
});
export type AgentMessage = z.infer<typeof AgentMessageSchema>;

/** What sending answers: the stored message, and what the daemon noticed. */
const MessageSendResponseSchema = answer({
  ...AgentMessageSchema.shape,
  meta: answer({
    unknownRecipient: z
      .boolean()
      .describe("The target agent never acted on this daemon (no session, presence, sent message or memory): the message waits for it"),
  }),
});
export type MessageSendResponse = z.infer<typeof MessageSendResponseSchema>;

/** The caller's inbox, oldest first. */
const InboxQuerySchema = z
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

const InboxResponseSchema = answer({ items: z.array(AgentMessageSchema).describe("Oldest first"), count: z.number() });
export type InboxResponse = z.infer<typeof InboxResponseSchema>;

/** Acknowledges messages the caller received. */
const AckRequestSchema = z
  .object({
    ids: z.array(z.number().int().min(1, "ids are positive")).min(1, "must name at least one message").max(500, "at most 500 ids at once"),
  })
  .strict();

const AckResponseSchema = answer({
  acked: z.array(z.number()).describe("Ids acknowledged now or before"),
  unknown: z.array(z.number()).describe("Ids that are not messages the caller received (nothing is said about why)"),
});
export type AckResponse = z.infer<typeof AckResponseSchema>;

/** The caller's messages as server-sent events: first those after the last event id, then each as it is stored. */
const StreamQuerySchema = z
  .object({
    agent_id: AgentIdSchema.optional(),
    session_key: SessionKeySchema.optional(),
    include_broadcast: queryBool.default(true),
    /** The same as the Last-Event-ID header, for clients that cannot set it. */
    last_event_id: z.coerce.number("must be a number").int("must be a whole number").min(0, "cannot be negative").optional(),
  })
  .strict();

// Every operation acts as the caller's own agent (an agent token's agent wins); an agent_id naming
// another agent is refused.
export const AGENTS_API = {
  presence: operation(ROUTES.agents.presence, { input: "presence query", query: PresenceQuerySchema, response: PresenceListResponseSchema }),
  heartbeat: operation(ROUTES.agents.heartbeat, { input: "presence request", body: PresenceRequestSchema, response: PresenceEntrySchema }),
  leave: operation(ROUTES.agents.leave, { input: "presence query", query: PresenceDeleteQuerySchema, response: PresenceDeleteResponseSchema }),
  /** Answers 201. An ACP relay may take the message's whole acpTimeoutMs. */
  send: operation(ROUTES.agents.send, { input: "message", body: MessageSendSchema, response: MessageSendResponseSchema }),
  inbox: operation(ROUTES.agents.inbox, { input: "inbox query", query: InboxQuerySchema, response: InboxResponseSchema }),
  ack: operation(ROUTES.agents.ack, { input: "acknowledgement", body: AckRequestSchema, response: AckResponseSchema }),
  /** Server-sent events, one message each (`event: message`, its id as the event id); Last-Event-ID resumes. */
  watch: operation(ROUTES.agents.watch, { input: "stream query", query: StreamQuerySchema, response: AgentMessageSchema }),
};
