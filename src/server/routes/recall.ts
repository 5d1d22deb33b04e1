// POST /api/memory/recall (docs/api.md#recall), and its aggregate mode (docs/api.md#aggregate).
import { Elysia } from "elysia";
import { parseInput } from "../../contracts/parse";
import { RecallRequestSchema } from "../../contracts/recall";
import { createChatModel } from "../../core/llm/chat";
import { AggregateRecall, type AggregatePermissions } from "../../core/recall/aggregate";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";
import { mayDo } from "../principal";

/** Saving an aggregate is remembering: a caller whose role may not (a readonly token) gets `skipped`. */
function permissionsOf(request: Request): AggregatePermissions {
  return { canRemember: mayDo(request, "remember") };
}

export function recallRoutes(ctx: DaemonContext) {
  const aggregates = new AggregateRecall({
    recall: (caller, req, options) => ctx.recall.recall(caller, req, options),
    chat: createChatModel(ctx.config.llm),
    remember: (caller, req) => ctx.writes.run(() => ctx.memory.remember(caller, req)),
  });
  return new Elysia().post("/api/memory/recall", async ({ body, request }) => {
    const req = parseInput(RecallRequestSchema, body, "recall request");
    const caller = callerFrom(request, req.agentId);
    return req.aggregate ? aggregates.recall(caller, req, permissionsOf(request)) : ctx.recall.recall(caller, req);
  });
}
