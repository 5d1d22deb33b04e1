// Removing a session (docs/api.md#delete-apisessionskey-admin-token) and what was recorded under its
// key, whichever agent holds it. The guard lets only the owner's admin token through (credentialFor
// in guard.ts); `signet doctor` uses it to remove its dry-run sessions.
import { parseInput } from "../../contracts/parse";
import { SessionKeySchema, SESSIONS_API } from "../../contracts/session";
import type { DaemonContext } from "../context";
import { routes, serve } from "../serve";

export function sessionRemovalRoutes(ctx: DaemonContext) {
  return routes(
    serve(SESSIONS_API.remove, ({ params }) => ctx.sessions.remove(parseInput(SessionKeySchema, params.key, "session key in the path"))),
  );
}
