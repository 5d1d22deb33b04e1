// The daemon's HTTP app: one Elysia plugin per area, one body parser and one error mapper for all.
import { Elysia } from "elysia";
import { SignetError } from "../core/errors";
import { readJsonBody, tooLarge } from "./body";
import type { DaemonContext } from "./context";
import { errorResponse, toErrorResponse } from "./http-errors";
import { healthRoutes } from "./routes/health";
import { memoryRoutes } from "./routes/memory";
import { recallRoutes } from "./routes/recall";

export function createApp(ctx: DaemonContext) {
  const limit = ctx.config.daemon.maxBodyBytes;
  return (
    new Elysia()
      .onRequest(({ request }) => {
        const declared = Number(request.headers.get("content-length") ?? "0");
        if (declared > limit) return errorResponse("too_large", tooLarge(limit).message);
      })
      .onParse(({ request }) => readJsonBody(request, limit))
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
  );
}
