// The daemon's HTTP app: one Elysia plugin per area, one body parser and one error mapper for all.
import { Elysia } from "elysia";
import { SignetError } from "../core/errors";
import type { DaemonContext } from "./context";
import { errorResponse, toErrorResponse } from "./http-errors";
import { healthRoutes } from "./routes/health";
import { memoryRoutes } from "./routes/memory";

function tooLarge(limit: number): SignetError {
  return new SignetError("too_large", `request body is larger than the ${limit}-byte limit (daemon.maxBodyBytes)`);
}

export function createApp(ctx: DaemonContext) {
  const limit = ctx.config.daemon.maxBodyBytes;
  return (
    new Elysia()
      .onRequest(({ request }) => {
        const declared = Number(request.headers.get("content-length") ?? "0");
        if (declared > limit) return errorResponse("too_large", tooLarge(limit).message);
      })
      // Bodies are JSON whatever the content type says; an empty body is "no body".
      .onParse(async ({ request }) => {
        const bytes = await request.arrayBuffer();
        if (bytes.byteLength > limit) throw tooLarge(limit);
        if (bytes.byteLength === 0) return null;
        const text = new TextDecoder().decode(bytes);
        try {
          return JSON.parse(text) as unknown;
        } catch (err) {
          throw new SignetError("invalid_input", `request body is not valid JSON: ${(err as Error).message}`);
        }
      })
      .onError(({ code, error, request }) => {
        const path = new URL(request.url).pathname;
        if (code === "NOT_FOUND") return errorResponse("not_found", `no route ${request.method} ${path}`);
        if (code === "PARSE") return errorResponse("invalid_input", "request body could not be parsed as JSON");
        return toErrorResponse(error, request.method, path);
      })
      .use(healthRoutes(ctx))
      .use(memoryRoutes(ctx))
  );
}
