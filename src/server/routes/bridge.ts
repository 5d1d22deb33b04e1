// The bridge's routes: installed MCP servers and calls to their tools, under /api/marketplace/servers (docs/api.md#bridge).
import { Elysia } from "elysia";
import {
  CallRequestSchema,
  InstallServerRequestSchema,
  ServerListQuerySchema,
  ServerToolsQuerySchema,
  UpdateServerRequestSchema,
  type ServerListResponse,
  type ServerToolsResponse,
} from "../../contracts/bridge";
import { parseInput } from "../../contracts/parse";
import { invalidInput } from "../../contracts/errors";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";

function serverName(params: { name?: string | null }): string {
  const name = params.name;
  if (!name || name.length > 64) throw invalidInput("invalid server name in the path");
  return name;
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
      return bridge.call(name, req, { agentId: caller.agentId });
    });
}
