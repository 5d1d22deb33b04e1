// Lifecycle hooks, sessions and memory feedback (docs/api.md#sessions-and-hooks): parse with the
// shared contracts, call the sessions service.
import { HOOK_EVENTS, type HookEvent } from "../../contracts/hook-events";
import { Elysia } from "elysia";
import { invalidInput } from "../../contracts/errors";
import { parseInput } from "../../contracts/parse";
import { BypassRequestSchema, FeedbackRequestSchema, HookRequestSchema, SessionKeySchema, SessionListQuerySchema, SessionSearchRequestSchema } from "../../contracts/session";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";

function sessionKeyParam(params: { key?: string | null }): string {
  const parsed = SessionKeySchema.safeParse(params.key ?? "");
  if (!parsed.success) throw invalidInput("invalid session key in the path: 1-500 characters");
  return parsed.data;
}

export function sessionRoutes(ctx: DaemonContext) {
  const { sessions } = ctx;
  const app = new Elysia()
    .get("/api/sessions", ({ query, request }) => {
      const q = parseInput(SessionListQuerySchema, query, "session list query");
      return sessions.list(callerFrom(request, q.agent_id), q);
    })
    .post("/api/sessions/search", ({ body, request }) => {
      const req = parseInput(SessionSearchRequestSchema, body, "session search request");
      return sessions.search(callerFrom(request, req.agentId), req);
    })
    .get("/api/sessions/:key", ({ params, request }) => sessions.get(callerFrom(request), sessionKeyParam(params)))
    .post("/api/sessions/:key/bypass", ({ params, body, request }) => {
      const key = sessionKeyParam(params);
      const req = parseInput(BypassRequestSchema, body, "bypass request");
      return sessions.bypass(callerFrom(request), key, req.enabled);
    })
    .post("/api/memory/feedback", ({ body, request }) => {
      const req = parseInput(FeedbackRequestSchema, body, "feedback request");
      return sessions.feedback(callerFrom(request, req.agentId), req);
    });
  for (const event of HOOK_EVENTS) {
    app.post(`/api/hooks/${event}`, ({ body, request }) => {
      const req = parseInput(HookRequestSchema, body, `${event} hook request`);
      return sessions.hook(event as HookEvent, callerFrom(request, req.agentId), req);
    });
  }
  return app;
}
