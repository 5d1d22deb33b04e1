// The bridge's routes: installed MCP servers and calls to their tools, under /api/marketplace/servers (docs/api.md#bridge).
import { Elysia } from "elysia";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  CALL_STREAM_TYPE,
  CallRequestSchema,
  InstallServerRequestSchema,
  ServerListQuerySchema,
  ServerToolsQuerySchema,
  UpdateServerRequestSchema,
  type CallStreamLine,
  type CallUpdate,
  type ServerListResponse,
  type ServerToolsResponse,
} from "../../contracts/bridge";
import { parseInput } from "../../contracts/parse";
import { invalidInput } from "../../contracts/errors";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";
import { toErrorResponse } from "../http-errors";

function serverName(params: { name?: string | null }): string {
  const name = params.name;
  if (!name || name.length > 64) throw invalidInput("invalid server name in the path");
  return name;
}

/** Whether the caller asked for the call's progress (`Accept: application/x-ndjson`). */
function wantsStream(request: Request): boolean {
  const accepted = (request.headers.get("accept") ?? "").split(",");
  return accepted.some((type) => type.split(";", 1)[0]!.trim().toLowerCase() === CALL_STREAM_TYPE);
}

/**
 * A call answered as NDJSON: its updates as they come, then `{result}` or the error body. The answer
 * starts with the first line, so a call that fails before any news (unknown tool, a server that
 * does not start) is refused with its own status, as without streaming.
 */
function streamed(
  run: (onUpdate: (update: CallUpdate) => void) => Promise<CallToolResult>,
  errorBody: (err: unknown) => Promise<CallStreamLine>,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const encoder = new TextEncoder();
    let out: ReadableStreamDefaultController<Uint8Array> | undefined;
    let open = true;
    const send = (line: CallStreamLine) => {
      if (!out) {
        const body = new ReadableStream<Uint8Array>({
          start: (controller) => void (out = controller),
          // The caller went away; the call still runs to its end and is recorded.
          cancel: () => void (open = false),
        });
        resolve(new Response(body, { headers: { "content-type": CALL_STREAM_TYPE } }));
      }
      if (open) out!.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
    };
    const end = () => open && out!.close();
    run(send).then(
      (result) => {
        send({ result });
        end();
      },
      async (err) => {
        if (!out) return reject(err);
        send(await errorBody(err));
        end();
      },
    );
  });
}

export function bridgeRoutes(ctx: DaemonContext) {
  const { bridge } = ctx;
  return new Elysia()
    .get("/api/marketplace/servers", ({ query }): ServerListResponse => {
      const q = parseInput(ServerListQuerySchema, query, "server list query");
      const running = new Set(bridge.live().map((s) => s.name));
      return { servers: bridge.list(q).map((s) => ({ ...s, running: running.has(s.name) })) };
    })
    .post("/api/marketplace/servers", ({ body, set }) => {
      const req = parseInput(InstallServerRequestSchema, body, "install request");
      set.status = 201;
      return bridge.install(req);
    })
    .get("/api/marketplace/servers/:name", ({ params }) => bridge.registry.get(serverName(params)))
    .patch("/api/marketplace/servers/:name", ({ params, body }) => {
      const name = serverName(params);
      return bridge.update(name, parseInput(UpdateServerRequestSchema, body, "update request"));
    })
    .delete("/api/marketplace/servers/:name", ({ params }) => bridge.remove(serverName(params)))
    .get("/api/marketplace/servers/:name/tools", async ({ params, query, request }): Promise<ServerToolsResponse> => {
      const name = serverName(params);
      const q = parseInput(ServerToolsQuerySchema, query, "tools query");
      // Starting a server may outlast the HTTP idle timeout: the pool's own timeout bounds it.
      ctx.setIdleTimeout?.(request, 0);
      return { server: name, tools: await bridge.tools(name, q.timeout_ms) };
    })
    .post("/api/marketplace/servers/:name/call", async ({ params, body, request }) => {
      const name = serverName(params);
      const req = parseInput(CallRequestSchema, body, "call request");
      const caller = callerFrom(request);
      ctx.setIdleTimeout?.(request, 0);
      if (!wantsStream(request)) return bridge.call(name, req, { agentId: caller.agentId });
      return streamed(
        (onUpdate) => bridge.call(name, req, { agentId: caller.agentId }, onUpdate),
        // The error as the error mapper words it for every other answer, as the last line.
        (err) => toErrorResponse(err, request.method, new URL(request.url).pathname, ctx.log).json(),
      );
    });
}
