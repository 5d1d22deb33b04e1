// The knowledge graph (docs/api.md#knowledge-graph): the caller's agent's entities, one entity with
// its claims, relations and memories, and a Dreaming pass, which rewrites the derived graph and so
// needs the owner's admin token (guard.ts, docs/security.md).
import { GRAPH_API } from "../../contracts/graph";
import type { DaemonContext } from "../context";
import { callerFrom } from "../caller";
import { routes, serve } from "../serve";

export function graphRoutes(ctx: DaemonContext) {
  const { graph } = ctx;
  return routes(
    serve(GRAPH_API.entities, async ({ query, request }) => ({
      entities: await graph.entities(callerFrom(request, query.agent_id).agentId, query.query, query.limit),
    })),
    serve(GRAPH_API.entity, ({ params, query, request }) => graph.entity(callerFrom(request, query.agent_id).agentId, params.id ?? "")),
    serve(GRAPH_API.dream, async ({ body, request }) => {
      // A pass that asks the llm may outlast the HTTP idle timeout (as the bridge's calls may): the
      // llm's own timeout bounds it. (Bun does not reap a request with a body yet, so no test shows it.)
      ctx.setIdleTimeout?.(request, 0);
      return { dream: await graph.dream(callerFrom(request, body.agentId).agentId, { dryRun: body.dryRun ?? false, trigger: "request", apply: body.apply }) };
    }),
  );
}
