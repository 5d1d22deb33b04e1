// POST /api/memory/recall (docs/api.md#recall), and its aggregate mode (docs/api.md#aggregate).
import { RECALL_API } from "../../contracts/recall";
import { AggregateRecall, type AggregatePermissions } from "../../core/recall/aggregate";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";
import { mayDo, principalOf, tokenIdOf } from "../principal";
import { routes, serve } from "../serve";

/**
 * Saving an aggregate is remembering: a caller whose role may not (a readonly token) gets `skipped`.
 * It is a write, too: an API token spends one unit of its rate limit on it (the guard let the recall
 * through as a read), and past the limit gets the answer with `skipped`, nothing saved
 * (docs/security.md#rate-limits).
 */
function permissionsOf(ctx: DaemonContext, request: Request): AggregatePermissions {
  const tokenId = tokenIdOf(principalOf(request));
  return {
    canRemember: mayDo(request, "remember"),
    spendWrite: async () => {
      if (tokenId === null) return null;
      const wait = await ctx.rateLimits.take(tokenId);
      if (wait === 0) return null;
      return `this token is past its rate limit on changes (auth.rateLimit), so the aggregate was not saved: retry in ${wait} s`;
    },
  };
}

export function recallRoutes(ctx: DaemonContext) {
  const aggregates = new AggregateRecall({
    recall: (caller, req, options) => ctx.recall.recall(caller, req, options),
    chat: ctx.llm,
    remember: (caller, req) => ctx.memory.remember(caller, req),
  });
  return routes(
    serve(RECALL_API.recall, ({ body, request }) => {
      const caller = callerFrom(request, body.agentId);
      // Document chunks, never mixed with memories (docs/api.md#recall-with-sourceonly).
      if (body.sourceOnly) return ctx.sources.recall(body);
      return body.aggregate ? aggregates.recall(caller, body, permissionsOf(ctx, request)) : ctx.recall.recall(caller, body);
    }),
  );
}
