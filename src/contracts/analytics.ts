// Contracts of invocation tracking and analytics (docs/api.md#analytics): the query of GET /api/mcp/analytics,
// the header that tags a Signet tool call's request, the reports of POST /api/mcp/invocations, and
// the answers.
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { boolString, intString, TimestampSchema } from "./memory";

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
export const AnalyticsQuerySchema = z.object(queryFields).strict().refine(ordered, orderedIssue);

/** GET /api/mcp/analytics/:server: the server is the path's. */
export const ServerAnalyticsQuerySchema = z.object(queryFields).omit({ server: true }).strict().refine(ordered, orderedIssue);
export type ServerAnalyticsQuery = z.output<typeof ServerAnalyticsQuerySchema>;

export const ServerNameParamSchema = name;

/** The query as a client sends it. */
export interface AnalyticsQueryParams {
  agent_id?: string;
  server?: string;
  source?: InvocationSource;
  since?: string;
  until?: string;
  limit?: number | string;
}

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

/** POST /api/mcp/invocations: calls to Signet's own tools that never reached the daemon otherwise, in batches. */
export const InvocationReportRequestSchema = z
  .object({ invocations: z.array(InvocationReportSchema).max(MAX_REPORT_BATCH, `at most ${MAX_REPORT_BATCH} per batch`) })
  .strict();
export type InvocationReportRequest = z.input<typeof InvocationReportRequestSchema>;

export interface InvocationReportResponse {
  /** How many rows will be recorded (none of an agent's calls when analytics.trackAgentCalls is off). */
  accepted: number;
}

export interface ServerUsage {
  server: string;
  calls: number;
  failures: number;
  p50: number;
  p95: number;
}

export interface ToolUsage {
  server: string;
  tool: string;
  calls: number;
  successCount: number;
  failureCount: number;
  p50: number;
  p95: number;
}

export interface AgentUsage {
  agentId: string;
  calls: number;
  failures: number;
}

export interface TimelinePoint {
  /** YYYY-MM-DD, UTC. */
  day: string;
  server: string;
  calls: number;
  failures: number;
}

export interface AnalyticsResponse {
  totalCalls: number;
  successCount: number;
  failureCount: number;
  /** failures / calls; 0 when there are no calls. */
  failureRate: number;
  /** Nearest-rank percentiles in ms; null when there are no calls. */
  latency: { p50: number | null; p95: number | null };
  /** By calls, most first, then by name; at most `limit`. */
  topServers: ServerUsage[];
  /** At most `limit`, except per server, where every tool is listed. */
  topTools: ToolUsage[];
  /** At most `limit`. */
  agents: AgentUsage[];
  /**
   * Per day and listed server, by day then server: the last 7 UTC days (today included, within
   * since/until) zero-filled, plus older days that have calls.
   */
  timeline: TimelinePoint[];
}

/** GET /api/mcp/alerts looks at the last this many hours unless `hours` says otherwise. */
const ALERT_DEFAULT_HOURS = 24;
const ALERT_MAX_HOURS = 24 * 30;

/** GET /api/mcp/alerts query parameters. */
export const AlertsQuerySchema = z
  .object({ hours: intString(1, ALERT_MAX_HOURS).default(ALERT_DEFAULT_HOURS), agent_id: AgentIdSchema.optional() })
  .strict();
export interface AlertsQueryParams {
  hours?: number | string;
  agent_id?: string;
}

/** A threshold of analytics.alerts that the p95 latency of its server (or tool) is over in the window. */
export interface LatencyAlert {
  server: string;
  /** Absent when the threshold is the whole server's. */
  tool?: string;
  /** Nearest-rank p95 over the window, ms. */
  p95: number;
  threshold: number;
  calls: number;
}

export interface AlertsResponse {
  window: { since: string; until: string; hours: number };
  /** Breaches now, worst first (p95 / threshold). */
  alerts: LatencyAlert[];
}

/** GET /api/mcp/unused looks back this many days unless `days` says otherwise. */
const UNUSED_DEFAULT_DAYS = 30;
const MAX_DAYS = 3650;

/** GET /api/mcp/unused query parameters. */
export const UnusedQuerySchema = z
  .object({
    days: intString(1, MAX_DAYS).default(UNUSED_DEFAULT_DAYS),
    /** false: only tool lists the daemon already holds (no server is started); what `signet mcp list` asks. */
    start: boolString.default(true),
    /** How long to wait for each server to start and list its tools. */
    timeout_ms: intString(100, 60_000).optional(),
  })
  .strict();
export interface UnusedQueryParams {
  days?: number | string;
  start?: boolean | "true" | "false";
  timeout_ms?: number | string;
}

/**
 * Per installed server: `listed` (its tool list is known, `unused` is meaningful), `unavailable`
 * (it could not start or list its tools: `error` says why), `disabled`, or `not_listed` (start=false
 * and the daemon holds no tool list for it).
 */
type UnusedStatus = "listed" | "unavailable" | "disabled" | "not_listed";

interface UnusedTool {
  tool: string;
  /** The newest call ever recorded (the daily rollups outlive raw rows), or null: never called. */
  lastCalledAt: string | null;
}

export interface UnusedServer {
  server: string;
  status: UnusedStatus;
  error?: string;
  /** How many tools the server lists (0 unless status is `listed`). */
  tools: number;
  /** Listed tools with no call in the window, by name. */
  unused: UnusedTool[];
}

export interface UnusedResponse {
  days: number;
  /** The first UTC day of the window (YYYY-MM-DD): calls on or after it count as use. */
  since: string;
  servers: UnusedServer[];
}

/** GET /api/sessions/:key/tools query parameters. */
export const SessionToolsQuerySchema = z
  .object({ since: TimestampSchema.optional(), until: TimestampSchema.optional() })
  .strict()
  .refine(ordered, orderedIssue);
export interface SessionToolsQueryParams {
  since?: string;
  until?: string;
}

export interface SessionToolUsage {
  server: string;
  tool: string;
  calls: number;
  failures: number;
  p50: number;
  p95: number;
}

export interface SessionToolsResponse {
  sessionKey: string;
  agentId: string;
  totalCalls: number;
  failures: number;
  /** By calls, most first, then by server and tool. */
  tools: SessionToolUsage[];
}

/** GET /api/mcp/features query parameters. */
export const FeaturesQuerySchema = z.object({ agent_id: AgentIdSchema.optional(), server: name.optional() }).strict();
export interface FeaturesQueryParams {
  agent_id?: string;
  server?: string;
}

/** Usage of one server or tool as the scorer sees it. */
export interface UsageFeatures {
  /** Calls over the last 7 UTC days (today included) divided by 7. */
  callsPerDay7: number;
  /** Calls over the last 30 UTC days (today included) divided by 30. */
  callsPerDay30: number;
  /** Whole days since the newest call ever recorded; null when never called. */
  daysSinceLastCall: number | null;
  lastCallAt: string | null;
  /** Successful / all calls over the last 30 days; null without calls. */
  successRate: number | null;
}

export interface ServerFeatures extends UsageFeatures {
  server: string;
  tools: (UsageFeatures & { tool: string })[];
}

export interface FeaturesResponse {
  /** The UTC day the windows end on (today). */
  day: string;
  /** By server name; each server's tools by name. */
  servers: ServerFeatures[];
}
