// DELETE /api/sessions/:key (docs/api.md#delete-apisessionskey-admin-token): removes a session and what
// was recorded under its key, whichever agent holds it. The guard lets only the owner's admin token
// through (credentialFor in guard.ts); `signet doctor` uses it to remove its dry-run sessions.
import { Elysia } from "elysia";
import { notFound } from "../../contracts/errors";
import { parseInput } from "../../contracts/parse";
import { SessionKeySchema } from "../../contracts/session";
import { removeSession } from "../../core/sessions/removal";
import type { DaemonContext } from "../context";

export function sessionRemovalRoutes(ctx: DaemonContext) {
  return new Elysia().delete("/api/sessions/:key", ({ params }) => {
    const key = parseInput(SessionKeySchema, params.key, "session key in the path");
    const removed = removeSession(ctx.db, key);
    if (!removed) throw notFound(`session ${key}`);
    return removed;
  });
}
