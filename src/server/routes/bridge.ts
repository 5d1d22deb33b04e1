// The bridge's routes (docs/api.md#bridge): the operations of contracts/bridge.ts, installed MCP servers and calls to their tools.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BRIDGE_API, CALL_STREAM_TYPE, type CallStreamLine, type CallUpdate } from "../../contracts/bridge";
import { invalidInput } from "../../contracts/errors";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";
import { toErrorResponse } from "../http-errors";
import { routes, serve } from "../serve";

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
  return routes(
    serve(BRIDGE_API.list, async ({ query }) => {
      const running = new Set(bridge.live().map((s) => s.name));
      return { servers: (await bridge.list(query)).map((s) => ({ ...s, running: running.has(s.name) })) };
    }),
    serve(BRIDGE_API.install, ({ body, set }) => {
      set.status = 201;
      return bridge.install(body);
    }),
    serve(BRIDGE_API.get, ({ params }) => bridge.registry.get(serverName(params))),
    serve(BRIDGE_API.update, ({ params, body }) => bridge.update(serverName(params), body)),
    serve(BRIDGE_API.remove, ({ params }) => bridge.remove(serverName(params))),
    serve(BRIDGE_API.tools, async ({ params, query, request }) => {
      const name = serverName(params);
      // Starting a server may outlast the HTTP idle timeout: the pool's own timeout bounds it.
      ctx.setIdleTimeout?.(request, 0);
      return { server: name, tools: await bridge.tools(name, query.timeout_ms) };
    }),
    serve(BRIDGE_API.call, async ({ params, body, request }) => {
      const name = serverName(params);
      const caller = callerFrom(request);
      ctx.setIdleTimeout?.(request, 0);
      // A caller that goes away (or an MCP client that cancels, whose request is then dropped)
      // cancels the call at the server rather than leaving it to run out its timeout.
      if (!wantsStream(request)) return bridge.call(name, body, { agentId: caller.agentId }, undefined, request.signal);
      return streamed(
        (onUpdate) => bridge.call(name, body, { agentId: caller.agentId }, onUpdate, request.signal),
        // The error as the error mapper words it for every other answer, as the last line.
        (err) => toErrorResponse(err, request.method, new URL(request.url).pathname, ctx.log).json(),
      );
    }),
  );
}
