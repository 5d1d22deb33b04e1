// The daemon's HTTP app: one Elysia plugin per area, one body parser and one error mapper for all,
// behind the one request guard (src/server/guard.ts, docs/security.md).
import { Elysia } from "elysia";
import { SignetError } from "../contracts/errors";
import { ROUTES } from "../contracts/routes";
import { readJsonBody, routable, tooLarge } from "./body";
import type { DaemonContext } from "./context";
import { createGuard, type Handler } from "./guard";
import { carryPrincipal } from "./principal";
import { recordingOwnToolCalls } from "./own-tool-calls";
import { errorResponse, toErrorResponse } from "./http-errors";
import { agentRoutes } from "./routes/agents";
import { analyticsRoutes } from "./routes/analytics";
import { healthRoutes } from "./routes/health";
import { bridgeRoutes } from "./routes/bridge";
import { codeRoutes } from "./routes/code";
import { dashboardRoutes } from "./routes/dashboard";
import { embedRoutes } from "./routes/embed";
import { graphRoutes } from "./routes/graph";
import { mcpRoutes } from "./routes/mcp";
import { memoryRoutes } from "./routes/memory";
import { recallRoutes } from "./routes/recall";
import { secretRoutes } from "./routes/secrets";
import { sourceRoutes } from "./routes/sources";
import { tokenRoutes } from "./routes/tokens";
import { sessionRoutes } from "./routes/sessions";
import { sessionRemovalRoutes } from "./routes/session-removal";
import { transferRoutes } from "./routes/transfer";
import { isMcpPath, requestPath } from "./request-path";

/** The daemon's request handler: the guard, then the routes. */
export function createHandler(ctx: DaemonContext): Handler {
  const limit = ctx.config.daemon.maxBodyBytes;
  const guard = createGuard({
    port: () => ctx.port,
    bind: ctx.config.daemon.bind,
    allowedHosts: ctx.config.daemon.allowedHosts,
    allowedOrigins: ctx.config.daemon.allowedOrigins,
    credentials: ctx.credentials,
    mode: ctx.config.auth.mode,
    peerAddress: (request) => ctx.peerAddress?.(request) ?? null,
    checkToken: (token) => ctx.tokens.check(token),
    rateLimiter: ctx.rateLimits,
    log: ctx.log,
  });
  // MCP tool handlers call the API in process, through the guard like any other caller, acting for
  // the principal of the /mcp request that runs them (src/server/principal.ts).
  // Requests a Signet tool call makes are recorded as that call when answered (src/server/own-tool-calls.ts).
  const handle = guard(recordingOwnToolCalls(ctx, (request) => app.handle(carryPrincipal(request, routable(request)))));
  const app = (
    new Elysia()
      .onRequest(({ request }) => {
        const declared = Number(request.headers.get("content-length") ?? "0");
        // /mcp answers its own 413 as a JSON-RPC error.
        if (declared > limit && !isMcpPath(requestPath(request.url))) return errorResponse("too_large", tooLarge(limit).message);
      })
      // /mcp reads its own body (same limit) and hands it to the MCP transport: null leaves it unread.
      .onParse(({ request }) => (isMcpPath(requestPath(request.url)) ? null : readJsonBody(request, limit)))
      .onError(({ code, error, request }) => {
        const path = new URL(request.url).pathname;
        if (code === "NOT_FOUND") return errorResponse("not_found", `no route ${request.method} ${path}`);
        // Elysia wraps whatever the parser threw; our own errors (413, bad JSON) keep their code.
        const cause = code === "PARSE" ? (error as Error).cause : error;
        if (code === "PARSE" && !(cause instanceof SignetError)) {
          return errorResponse("invalid_input", "request body could not be parsed as JSON");
        }
        return toErrorResponse(cause, request.method, path, ctx.log);
      })
      .use(healthRoutes(ctx))
      .use(dashboardRoutes())
      .use(memoryRoutes(ctx))
      .use(recallRoutes(ctx))
      .use(sessionRoutes(ctx))
      .use(sessionRemovalRoutes(ctx))
      .use(agentRoutes(ctx))
      .use(analyticsRoutes(ctx))
      .use(bridgeRoutes(ctx))
      .use(transferRoutes(ctx))
      .use(secretRoutes(ctx))
      .use(tokenRoutes(ctx))
      .use(codeRoutes(ctx))
      .use(sourceRoutes(ctx))
      .use(embedRoutes(ctx))
      .use(graphRoutes(ctx))
      .use(mcpRoutes(ctx, { handle }))
  );
  return storeStillThere(ctx, handle);
}

/**
 * While the SQLite file the store opened is still the one its path names (db/store-file.ts). Once it
 * is deleted or replaced, nothing written would survive the next start, and what is read is not what
 * the path holds: every request but /health (which says the store is not ok) is a 503 saying what
 * happened and what to do, and the log says it once.
 */
function storeStillThere(ctx: DaemonContext, handle: Handler): Handler {
  const lost = ctx.stores.lost;
  if (!lost) return handle;
  let logged = false;
  return async (request) => {
    const problem = lost();
    if (problem === null || requestPath(request.url).replace(/\/$/, "") === ROUTES.health.health.path) return handle(request);
    if (!logged) {
      logged = true;
      ctx.log.error(`${problem}: requests are refused until the daemon is restarted`);
    }
    return errorResponse("unavailable", `${problem}; restart the daemon (signet daemon restart) to serve the file the path names`);
  };
}
