// Contracts of invocation tracking and analytics (docs/api.md#analytics): the query of GET /api/mcp/analytics,
// the batch signet-mcp reports to POST /api/mcp/invocations, and the answers.
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { intString, TimestampSchema } from "./memory";

/** Where a tool call came from: the bridge CLI, an agent through mcp_server_call, or Signet's own MCP tools. */
export const INVOCATION_SOURCES = ["cli", "agent", "mcp"] as const;
export type InvocationSource = (typeof INVOCATION_SOURCES)[number];

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

/** POST /api/mcp/invocations: signet-mcp's own tool calls, in batches. */
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
