// Invocation tracking and analytics (docs/api.md#analytics): the header that tags a Signet tool
// call's request, the reports signet-mcp sends, the analytics queries and their answers.
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { answer } from "./answer";
import { boolString, intString, TimestampSchema } from "./memory";
import { operation } from "./operation";
import { ROUTES } from "./routes";

/** Where a tool call came from: the bridge CLI, an agent through mcp_server_call, or Signet's own MCP tools. */
export const INVOCATION_SOURCES = ["cli", "agent", "mcp"] as const;
export type InvocationSource = (typeof INVOCATION_SOURCES)[number];

/**
 * Names the Signet MCP tool an API request serves (signet-mcp and /mcp set it on the request a tool
 * call makes): the daemon records the call as it answers the request, so no report can be lost.
 */
export const OWN_TOOL_HEADER = "x-signet-tool";

/** The timeline counts calls by UTC day. */
export const DAY_MS = 86_400_000;

export const ANALYTICS_DEFAULT_LIMIT = 10;
const ANALYTICS_MAX_LIMIT = 100;
const MAX_REPORT_BATCH = 1000;
/** Reported calls may carry their own time, but not one ahead of the daemon's clock by more than this. */
const CLOCK_SKEW_MS = 60_000;

const name = z.string().trim().min(1, "cannot be empty").max(256, "is longer than 256 characters");
const SourceSchema = z.enum(INVOCATION_SOURCES, { error: `must be one of ${INVOCATION_SOURCES.join(", ")}` });

const queryFields = {
  agent_id: AgentIdSchema.optional(),
  server: name.optional(),
  source: SourceSchema.optional(),
  since: TimestampSchema.optional(),
  until: TimestampSchema.optional(),
  /** Top servers, tools and agents shown. */
  limit: intString(1, ANALYTICS_MAX_LIMIT).default(ANALYTICS_DEFAULT_LIMIT),
};
// Both bounds are normalized ISO strings, which order like the times they name.
const ordered = (q: { since?: string; until?: string }) => !(q.since && q.until && q.since > q.until);
const orderedIssue = { message: "must not be after until", path: ["since"] };


/** GET /api/mcp/analytics query parameters (strings, as they arrive). */
const AnalyticsQuerySchema = z.object(queryFields).strict().refine(ordered, orderedIssue);

/** GET /api/mcp/analytics/:server: the server is the path's. */
const ServerAnalyticsQuerySchema = z.object(queryFields).omit({ server: true }).strict().refine(ordered, orderedIssue);

export const ServerNameParamSchema = name;

const InvocationReportSchema = z
  .object({
    server: name.default("signet"),
    tool: name,
    latencyMs: z.number().min(0, "cannot be negative").max(24 * 3600 * 1000, "is more than a day"),
    success: z.boolean(),
    errorText: z.string().max(100_000).optional(),
    createdAt: TimestampSchema.refine((t) => Date.parse(t) <= Date.now() + CLOCK_SKEW_MS, "is in the future").optional(),
    sessionKey: z.string().trim().min(1).max(256).optional(),
  })
  .strict();

/** Calls to Signet's own tools that never reached the daemon otherwise, in batches. */
const InvocationReportRequestSchema = z
  .object({ invocations: z.array(InvocationReportSchema).max(MAX_REPORT_BATCH, `at most ${MAX_REPORT_BATCH} per batch`) })
  .strict();

const InvocationReportResponseSchema = answer({
  accepted: z.number().describe("How many rows will be recorded (none of an agent's calls when analytics.trackAgentCalls is off)"),
});

const latencies = { p50: z.number(), p95: z.number() };

const ServerUsageSchema = answer({ server: z.string(), calls: z.number(), failures: z.number(), ...latencies });

const ToolUsageSchema = answer({
  server: z.string(),
  tool: z.string(),
  calls: z.number(),
  successCount: z.number(),
  failureCount: z.number(),
  ...latencies,
});
export type ToolUsage = z.infer<typeof ToolUsageSchema>;
export type ServerUsage = z.infer<typeof ServerUsageSchema>;

const AgentUsageSchema = answer({ agentId: z.string(), calls: z.number(), failures: z.number() });
export type AgentUsage = z.infer<typeof AgentUsageSchema>;

const TimelinePointSchema = answer({
  day: z.string().describe("YYYY-MM-DD, UTC"),
  server: z.string(),
  calls: z.number(),
  failures: z.number(),
});
export type TimelinePoint = z.infer<typeof TimelinePointSchema>;

const AnalyticsResponseSchema = answer({
  totalCalls: z.number(),
  successCount: z.number(),
  failureCount: z.number(),
  failureRate: z.number().describe("failures / calls; 0 when there are no calls"),
  latency: answer({ p50: z.number().nullable(), p95: z.number().nullable() }).describe("Nearest-rank percentiles in ms; null when there are no calls"),
  topServers: z.array(ServerUsageSchema).describe("By calls, most first, then by name; at most `limit`"),
  topTools: z.array(ToolUsageSchema).describe("At most `limit`, except per server, where every tool is listed"),
  agents: z.array(AgentUsageSchema).describe("At most `limit`"),
  timeline: z
    .array(TimelinePointSchema)
    .describe("Per day and listed server, by day then server: the last 7 UTC days (today included, within since/until) zero-filled, plus older days that have calls"),
});
export type AnalyticsResponse = z.infer<typeof AnalyticsResponseSchema>;

/** GET /api/mcp/alerts looks at the last this many hours unless `hours` says otherwise. */
const ALERT_DEFAULT_HOURS = 24;
const ALERT_MAX_HOURS = 24 * 30;

/** GET /api/mcp/alerts query parameters. */
const AlertsQuerySchema = z
  .object({ hours: intString(1, ALERT_MAX_HOURS).default(ALERT_DEFAULT_HOURS), agent_id: AgentIdSchema.optional() })
  .strict();

/** A threshold of analytics.alerts that the p95 latency of its server (or tool) is over in the window. */
const LatencyAlertSchema = answer({
  server: z.string(),
  tool: z.string().optional().describe("Absent when the threshold is the whole server's"),
  p95: z.number().describe("Nearest-rank p95 over the window, ms"),
  threshold: z.number(),
  calls: z.number(),
});
export type LatencyAlert = z.infer<typeof LatencyAlertSchema>;

const AlertsResponseSchema = answer({
  window: answer({ since: z.string(), until: z.string(), hours: z.number() }),
  alerts: z.array(LatencyAlertSchema).describe("Breaches now, worst first (p95 / threshold)"),
});
export type AlertsResponse = z.infer<typeof AlertsResponseSchema>;

/** GET /api/mcp/unused looks back this many days unless `days` says otherwise. */
const UNUSED_DEFAULT_DAYS = 30;
const MAX_DAYS = 3650;

/** GET /api/mcp/unused query parameters. */
const UnusedQuerySchema = z
  .object({
    days: intString(1, MAX_DAYS).default(UNUSED_DEFAULT_DAYS),
    /** false: only tool lists the daemon already holds (no server is started); what `signet mcp list` asks. */
    start: boolString.default(true),
    /** How long to wait for each server to start and list its tools. */
    timeout_ms: intString(100, 60_000).optional(),
  })
  .strict();

const UnusedServerSchema = answer({
  server: z.string(),
  status: z
    .enum(["listed", "unavailable", "disabled", "not_listed"])
    .describe(
      "listed: its tool list is known, `unused` is meaningful; unavailable: it could not start or list its tools (`error` says why); disabled; not_listed: start=false and the daemon holds no tool list for it",
    ),
  error: z.string().optional(),
  tools: z.number().describe("How many tools the server lists (0 unless status is listed)"),
  unused: z
    .array(
      answer({
        tool: z.string(),
        lastCalledAt: z.string().nullable().describe("The newest call ever recorded (the daily rollups outlive raw rows), or null: never called"),
      }),
    )
    .describe("Listed tools with no call in the window, by name"),
});
export type UnusedServer = z.infer<typeof UnusedServerSchema>;

const UnusedResponseSchema = answer({
  days: z.number(),
  since: z.string().describe("The first UTC day of the window (YYYY-MM-DD): calls on or after it count as use"),
  servers: z.array(UnusedServerSchema),
});
export type UnusedResponse = z.infer<typeof UnusedResponseSchema>;

/** GET /api/sessions/:key/tools query parameters. */
const SessionToolsQuerySchema = z
  .object({ since: TimestampSchema.optional(), until: TimestampSchema.optional() })
  .strict()
  .refine(ordered, orderedIssue);

const SessionToolUsageSchema = answer({ server: z.string(), tool: z.string(), calls: z.number(), failures: z.number(), ...latencies });
export type SessionToolUsage = z.infer<typeof SessionToolUsageSchema>;

const SessionToolsResponseSchema = answer({
  sessionKey: z.string(),
  agentId: z.string(),
  totalCalls: z.number(),
  failures: z.number(),
  tools: z.array(SessionToolUsageSchema).describe("By calls, most first, then by server and tool"),
});
export type SessionToolsResponse = z.infer<typeof SessionToolsResponseSchema>;

/** GET /api/mcp/features query parameters. */
const FeaturesQuerySchema = z.object({ agent_id: AgentIdSchema.optional(), server: name.optional() }).strict();

/** Usage of one server or tool as the scorer sees it. */
const usageFeatures = {
  callsPerDay7: z.number().describe("Calls over the last 7 UTC days (today included) divided by 7"),
  callsPerDay30: z.number().describe("Calls over the last 30 UTC days (today included) divided by 30"),
  daysSinceLastCall: z.number().nullable().describe("Whole days since the newest call ever recorded; null when never called"),
  lastCallAt: z.string().nullable(),
  successRate: z.number().nullable().describe("Successful / all calls over the last 30 days; null without calls"),
};
const UsageFeaturesSchema = answer(usageFeatures);
export type UsageFeatures = z.infer<typeof UsageFeaturesSchema>;

const ServerFeaturesSchema = answer({ server: z.string(), ...usageFeatures, tools: z.array(answer({ tool: z.string(), ...usageFeatures })) });
export type ServerFeatures = z.infer<typeof ServerFeaturesSchema>;

const FeaturesResponseSchema = answer({
  day: z.string().describe("The UTC day the windows end on (today)"),
  servers: z.array(ServerFeaturesSchema).describe("By server name; each server's tools by name"),
});
export type FeaturesResponse = z.infer<typeof FeaturesResponseSchema>;

export const ANALYTICS_API = {
  /** signet-mcp's reports of its own tools' calls: with the owner's instance key. Answers 202. */
  report: operation(ROUTES.analytics.report, { input: "invocation report", body: InvocationReportRequestSchema, response: InvocationReportResponseSchema }),
  summary: operation(ROUTES.analytics.summary, { input: "analytics query", query: AnalyticsQuerySchema, response: AnalyticsResponseSchema }),
  /** One server's usage, with every tool. */
  server: operation(ROUTES.analytics.server, { input: "analytics query", query: ServerAnalyticsQuerySchema, response: AnalyticsResponseSchema }),
  alerts: operation(ROUTES.analytics.alerts, { input: "alerts query", query: AlertsQuerySchema, response: AlertsResponseSchema }),
  features: operation(ROUTES.analytics.features, { input: "features query", query: FeaturesQuerySchema, response: FeaturesResponseSchema }),
  /** start=true (the default) starts installed servers, which a token needs mcp-call for besides (the route checks). */
  unused: operation(ROUTES.analytics.unused, { input: "unused tools query", query: UnusedQuerySchema, response: UnusedResponseSchema }),
  /** The caller's own agent's tool calls in one session. */
  sessionTools: operation(ROUTES.analytics.sessionTools, { input: "session tools query", query: SessionToolsQuerySchema, response: SessionToolsResponseSchema }),
};
