// Invocation reports and usage analytics (docs/api.md#analytics): signet-mcp reports the calls to
// Signet's own tools that made no API request (the daemon records the others as it answers them,
// src/server/own-tool-calls.ts); the analytics routes answer from the in-memory store, the daily
// rollups (features, unused tools) or the raw rows (one session's usage).
import type { z } from "zod";
import { ANALYTICS_API, ServerNameParamSchema } from "../../contracts/analytics";
import { parseInput } from "../../contracts/parse";
import { normalizeSessionKey, SessionKeySchema } from "../../contracts/session";
import type { AnalyticsFilter, ServerToolSource } from "../../core/analytics";
import { ROLE_PERMISSIONS } from "../../contracts/auth";
import { SignetError } from "../../contracts/errors";
import { callerFrom } from "../caller";
import { principalOf } from "../principal";
import type { DaemonContext } from "../context";
import { routes, serve } from "../serve";

function filterOf(q: z.output<typeof ANALYTICS_API.server.query> & { server?: string }): AnalyticsFilter {
  return { agentId: q.agent_id, server: q.server, source: q.source, since: q.since, until: q.until, limit: q.limit };
}

/** How long GET /api/mcp/unused waits for one server to start and list its tools, unless timeout_ms says. */
const UNUSED_LIST_TIMEOUT_MS = 10_000;

export function analyticsRoutes(ctx: DaemonContext) {
  const { analytics, bridge } = ctx;
  const toolSources = async (start: boolean, timeoutMs: number): Promise<ServerToolSource[]> =>
    (await bridge.list()).map((s) => ({
      name: s.name,
      enabled: s.enabled,
      tools: async () => {
        const tools = start ? await bridge.tools(s.name, timeoutMs) : await bridge.knownTools(s.name);
        return tools ? { names: tools.map((t) => t.name) } : { status: "not_listed" as const };
      },
    }));
  return routes(
    serve(ANALYTICS_API.report, ({ body, request, set }) => {
      // Calls to Signet's own tools that never reached the daemon, by the agent the reporter acts as.
      const { agentId } = callerFrom(request);
      const accepted = analytics.accepts("mcp") ? body.invocations : [];
      for (const inv of accepted) analytics.record({ ...inv, agentId, source: "mcp" });
      set.status = 202;
      return { accepted: accepted.length };
    }),
    serve(ANALYTICS_API.summary, ({ query }) => analytics.summary(filterOf(query))),
    serve(ANALYTICS_API.server, ({ params, query }) => {
      // An undecodable path segment arrives as null.
      const server = parseInput(ServerNameParamSchema, params.server ?? "", "server name in the path");
      return analytics.server(server, filterOf(query));
    }),
    serve(ANALYTICS_API.alerts, ({ query }) => analytics.alerts({ hours: query.hours, agentId: query.agent_id })),
    serve(ANALYTICS_API.features, ({ query }) => analytics.features({ agentId: query.agent_id, server: query.server })),
    serve(ANALYTICS_API.unused, async ({ query, request }) => {
      // Starting servers is more than a read: a token needs mcp-call for it, as for listing a server's tools.
      const principal = principalOf(request);
      if (query.start && principal?.kind === "token" && !ROLE_PERMISSIONS[principal.role].has("mcp-call")) {
        throw new SignetError("forbidden", `start=true starts installed MCP servers, which needs the mcp-call permission (role ${principal.role} lacks it): ask with start=false`);
      }
      // Starting servers may outlast the HTTP idle timeout: each one's own timeout bounds it.
      if (query.start) ctx.setIdleTimeout?.(request, 0);
      return analytics.unused(await toolSources(query.start, query.timeout_ms ?? UNUSED_LIST_TIMEOUT_MS), query.days);
    }),
    serve(ANALYTICS_API.sessionTools, ({ params, query, request }) => {
      const key = parseInput(SessionKeySchema, params.key ?? "", "session key in the path");
      // The caller's own agent only; `session:<id>` and `<id>` are one session.
      const { agentId } = callerFrom(request);
      const bare = normalizeSessionKey(key);
      return analytics.sessionTools(bare, { agentId, sessionKeys: [bare, `session:${bare}`], since: query.since, until: query.until });
    }),
  );
}
