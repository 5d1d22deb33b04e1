// Lifecycle hooks, sessions and memory feedback (docs/api.md#sessions-and-hooks): the operations of
// contracts/session.ts, each calling the sessions service.
import { HOOK_EVENTS, type HookEvent } from "../../contracts/hook-events";
import { invalidInput, SignetError } from "../../contracts/errors";
import { HOOKS_API, SessionKeySchema, SESSIONS_API } from "../../contracts/session";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";
import { routes, serve } from "../serve";

function sessionKeyParam(params: { key?: string | null }): string {
  const parsed = SessionKeySchema.safeParse(params.key ?? "");
  if (!parsed.success) throw invalidInput("invalid session key in the path: 1-500 characters");
  return parsed.data;
}

/** An event no hook has is no route at all, as the router says of any path it does not know. */
function hookEvent(params: { event?: string | null }, request: Request): HookEvent {
  const event = params.event ?? "";
  if ((HOOK_EVENTS as readonly string[]).includes(event)) return event as HookEvent;
  throw new SignetError("not_found", `no route ${request.method} ${new URL(request.url).pathname}`);
}

export function sessionRoutes(ctx: DaemonContext) {
  const { sessions } = ctx;
  return routes(
    serve(SESSIONS_API.list, ({ query, request }) => sessions.list(callerFrom(request, query.agent_id), query)),
    serve(SESSIONS_API.search, ({ body, request }) => sessions.search(callerFrom(request, body.agentId), body)),
    serve(SESSIONS_API.get, ({ params, request }) => sessions.get(callerFrom(request), sessionKeyParam(params))),
    serve(SESSIONS_API.bypass, ({ params, body, request }) => sessions.bypass(callerFrom(request), sessionKeyParam(params), body.enabled)),
    serve(SESSIONS_API.feedback, ({ body, request }) => sessions.feedback(callerFrom(request, body.agentId), body)),
    serve(HOOKS_API.fire, ({ params, body, request }) => sessions.hook(hookEvent(params, request), callerFrom(request, body.agentId), body)),
  );
}
