// Agents' way to the MCP servers installed in Signet (SPEC §6-7): list them, then call their tools.
// Only enabled servers are offered; every call is made, timed and recorded by the daemon.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { SignetClient } from "../client/client";
import type { ToolContext, ToolDef } from "./tools";

async function listServers(a: Record<string, unknown>, client: SignetClient): Promise<CallToolResult> {
  if (typeof a.server === "string") {
    const { server, tools } = await client.bridge.tools(a.server);
    const structured = {
      server,
      tools: tools.map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema })),
    };
    const lines = tools.map((t) => `- ${t.name}${t.description ? `: ${t.description}` : ""}`);
    return {
      content: [
        {
          type: "text",
          text: `${tools.length} tool(s) on "${server}" (call one with mcp_server_call; input schemas in the structured result):\n${lines.join("\n")}`,
        },
      ],
      structuredContent: structured,
    };
  }
  const { servers } = await client.bridge.list({ enabled: true });
  const structured = {
    servers: servers.map((s) => ({ name: s.name, description: s.description ?? "", transport: s.transport.type, running: s.running })),
  };
  const text =
    servers.length === 0
      ? "No MCP servers are installed in Signet (an operator adds them with `signet mcp add`)."
      : `${servers.length} MCP server(s) installed; pass server to see its tools:\n${servers
          .map((s) => `- ${s.name}${s.description ? `: ${s.description}` : ""}`)
          .join("\n")}`;
  return { content: [{ type: "text", text }], structuredContent: structured };
}

async function callServer(a: Record<string, unknown>, client: SignetClient, ctx: ToolContext): Promise<CallToolResult> {
  // The server's answer goes back as it came: its content, structured content and isError.
  return client.bridge.call(String(a.server), {
    tool: String(a.tool),
    arguments: a.arguments ?? {},
    timeoutMs: a.timeout_ms as number | undefined,
    source: "agent",
    sessionKey: ctx.sessionKey,
  });
}

export const BRIDGE_TOOLS: ToolDef[] = [
  {
    name: "mcp_server_list",
    description:
      "List the MCP servers installed in Signet that you may call. Pass `server` to list that server's tools with their input schemas.",
    inputSchema: {
      server: z.string().optional().describe("An installed server's name: list its tools instead of the servers"),
    },
    handler: listServers,
  },
  {
    name: "mcp_server_call",
    description:
      "Call a tool of an MCP server installed in Signet (see mcp_server_list). Returns the tool's own result.",
    inputSchema: {
      server: z.string().describe("Installed server name"),
      tool: z.string().describe("Tool name on that server"),
      arguments: z.record(z.string(), z.unknown()).optional().describe("Tool arguments, as its input schema describes"),
      timeout_ms: z
        .number()
        .int()
        .min(1)
        .max(1_800_000)
        .optional()
        .describe("Per-call timeout in milliseconds (default: the daemon's bridge.callTimeoutMs, 60 s)"),
    },
    handler: callServer,
  },
];
