// Invocation reports and usage analytics (docs/api.md#analytics): signet-mcp reports its own tool calls in
// batches; the analytics routes answer from the in-memory store.
import { Elysia } from "elysia";
import {
  AnalyticsQuerySchema,
  InvocationReportRequestSchema,
  ServerAnalyticsQuerySchema,
  ServerNameParamSchema,
  type InvocationReportResponse,
  type ServerAnalyticsQuery,
} from "../../contracts/analytics";
import { parseInput } from "../../contracts/parse";
import type { AnalyticsFilter } from "../../core/analytics";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";

function filterOf(q: ServerAnalyticsQuery & { server?: string }): AnalyticsFilter {
  return { agentId: q.agent_id, server: q.server, source: q.source, since: q.since, until: q.until, limit: q.limit };
}

export function analyticsRoutes(ctx: DaemonContext) {
  const { analytics } = ctx;
  return new Elysia()
    .post("/api/mcp/invocations", ({ body, request, set }): InvocationReportResponse => {
      const { invocations } = parseInput(InvocationReportRequestSchema, body, "invocation report");
      // Calls to Signet's own tools, by the agent the reporter acts as.
      const { agentId } = callerFrom(request);
      const accepted = analytics.accepts("mcp") ? invocations : [];
      for (const inv of accepted) analytics.record({ ...inv, agentId, source: "mcp" });
      set.status = 202;
      return { accepted: accepted.length };
    })
    .get("/api/mcp/analytics", ({ query }) =>
      analytics.summary(filterOf(parseInput(AnalyticsQuerySchema, query, "analytics query"))),
    )
    .get("/api/mcp/analytics/:server", ({ params, query }) => {
      // An undecodable path segment arrives as null.
      const server = parseInput(ServerNameParamSchema, params.server ?? "", "server name in the path");
      return analytics.server(server, filterOf(parseInput(ServerAnalyticsQuerySchema, query, "analytics query")));
    });
}
