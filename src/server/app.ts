// The daemon's HTTP app: one Elysia plugin per area, one body parser and one error mapper for all.
import { Elysia } from "elysia";
import { SignetError } from "../core/errors";
import { pathStart, readJsonBody, tooLarge } from "./body";
import type { DaemonContext } from "./context";
import { errorResponse, toErrorResponse } from "./http-errors";
import { analyticsRoutes } from "./routes/analytics";
import { healthRoutes } from "./routes/health";
import { marketplaceRoutes } from "./routes/marketplace";
import { MCP_PATH, mcpRoutes } from "./routes/mcp";
import { memoryRoutes } from "./routes/memory";
import { recallRoutes } from "./routes/recall";

export function createApp(ctx: DaemonContext) {
  const limit = ctx.config.daemon.maxBodyBytes;
  // MCP tool handlers call the API through the app itself: no network hop.
  const handle = (request: Request): Promise<Response> => app.handle(request);
  const app = (
    new Elysia()
      .onRequest(({ request }) => {
        const declared = Number(request.headers.get("content-length") ?? "0");
        // /mcp answers its own 413 as a JSON-RPC error.
        if (declared > limit && !isMcpPath(request.url)) return errorResponse("too_large", tooLarge(limit).message);
      })
      // /mcp reads its own body (same limit) and hands it to the MCP transport: null leaves it unread.
      .onParse(({ request }) => (isMcpPath(request.url) ? null : readJsonBody(request, limit)))
      .onError(({ code, error, request }) => {
        const path = new URL(request.url).pathname;
        if (code === "NOT_FOUND") return errorResponse("not_found", `no route ${request.method} ${path}`);
        // Elysia wraps whatever the parser threw; our own errors (413, bad JSON) keep their code.
        const cause = code === "PARSE" ? (error as Error).cause : error;
        if (code === "PARSE" && !(cause instanceof SignetError)) {
          return errorResponse("invalid_input", "request body could not be parsed as JSON");
        }
        return toErrorResponse(cause, request.method, path);
      })
      .use(healthRoutes(ctx))
      .use(memoryRoutes(ctx))
      .use(recallRoutes(ctx))
      .use(analyticsRoutes(ctx))
      .use(marketplaceRoutes(ctx))
      .use(mcpRoutes(ctx, { handle }))
  );
  return app;
}

function isMcpPath(url: string): boolean {
  const start = pathStart(url);
  if (start === -1) return false;
  const path = url.slice(start).split(/[?#]/, 1)[0];
  // Elysia routes "/mcp/" to the same handler.
  return path === MCP_PATH || path === `${MCP_PATH}/`;
}
