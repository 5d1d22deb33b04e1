// POST /api/memory/recall (docs/api.md#recall), and its aggregate mode (docs/api.md#aggregate).
import { RECALL_API } from "../../contracts/recall";
import { createChatModel } from "../../core/llm/chat";
import { AggregateRecall, type AggregatePermissions } from "../../core/recall/aggregate";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";
import { mayDo } from "../principal";
import { routes, serve } from "../serve";

/** Saving an aggregate is remembering: a caller whose role may not (a readonly token) gets `skipped`. */
function permissionsOf(request: Request): AggregatePermissions {
  return { canRemember: mayDo(request, "remember") };
}

export function recallRoutes(ctx: DaemonContext) {
  const aggregates = new AggregateRecall({
    recall: (caller, req, options) => ctx.recall.recall(caller, req, options),
    chat: createChatModel(ctx.config.llm),
    remember: (caller, req) => ctx.memory.remember(caller, req),
  });
  return routes(
    serve(RECALL_API.recall, ({ body, request }) => {
      const caller = callerFrom(request, body.agentId);
      // Document chunks, never mixed with memories (docs/api.md#recall-with-sourceonly).
      if (body.sourceOnly) return ctx.sources.recall(body);
      return body.aggregate ? aggregates.recall(caller, body, permissionsOf(request)) : ctx.recall.recall(caller, body);
    }),
  );
}
