// POST /api/memory/recall (docs/api.md#recall).
import { Elysia } from "elysia";
import { parseInput } from "../../contracts/parse";
import { RecallRequestSchema } from "../../contracts/recall";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";

export function recallRoutes(ctx: DaemonContext) {
  return new Elysia().post("/api/memory/recall", async ({ body, request }) => {
    const req = parseInput(RecallRequestSchema, body, "recall request");
    return ctx.recall.recall(callerFrom(request, req.agentId), req);
  });
}
