// Agents' way to the MCP servers installed in Signet (docs/mcp.md#bridge-tools): list them, then
// call their tools. Only enabled servers are offered; every call is made, timed and recorded by the
// daemon.
import { z } from "zod";
import { answer } from "../contracts/answer";
import { API } from "../contracts/api";
import { MAX_CALL_TIMEOUT_MS } from "../contracts/bridge";
import { defineTool, nonEmpty, type Tool } from "./tool";

/**
 * One answer shape for both uses of mcp_server_list: the servers, or one server's tools, each cut
 * to what an agent needs to choose one.
 */
const ServerListOutput = {
  servers: z
    .array(answer({ name: z.string(), description: z.string(), transport: z.enum(["stdio", "http"]), running: z.boolean() }))
    .optional()
    .describe("Without `server`: the enabled servers"),
  server: z.string().optional().describe("With `server`: that server's name"),
  tools: z
    .array(
      answer({
        name: z.string(),
        description: z.string(),
        inputSchema: z.record(z.string(), z.unknown()).describe("The tool's input schema, as its server gave it"),
      }),
    )
    .optional()
    .describe("With `server`: its tools"),
};

export const BRIDGE_TOOLS: Tool[] = [
  defineTool({
    name: "mcp_server_list",
    title: "List MCP servers",
    description:
      "List the MCP servers installed in Signet that you may call. Pass `server` to list that server's tools with their input schemas.",
    input: {
      server: nonEmpty("an installed server's name").optional().describe("An installed server's name: list its tools instead of the servers"),
    },
    output: ServerListOutput,
    // Open world: listing a server's tools starts that server, or connects to its URL.
    annotations: { readOnlyHint: true, openWorldHint: true },
    // Listing servers and listing a server's tools need the same permission.
    calls: API.bridge.list,
    handler: async (a, client) => {
      if (a.server !== undefined) {
        const { server, tools } = await client.bridge.tools(a.server);
        const lines = tools.map((t) => `- ${t.name}${t.description ? `: ${t.description}` : ""}`);
        return {
          content: [
            {
              type: "text",
              text: `${tools.length} tool(s) on "${server}" (call one with mcp_server_call; input schemas in the structured result):\n${lines.join("\n")}`,
            },
          ],
          structuredContent: {
            server,
            tools: tools.map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema })),
          },
        };
      }
      const { servers } = await client.bridge.list({ enabled: true });
      const text =
        servers.length === 0
          ? "No MCP servers are installed in Signet (an operator adds them with `signet mcp add`)."
          : `${servers.length} MCP server(s) installed; pass server to see its tools:\n${servers
              .map((s) => `- ${s.name}${s.description ? `: ${s.description}` : ""}`)
              .join("\n")}`;
      return {
        content: [{ type: "text", text }],
        structuredContent: {
          servers: servers.map((s) => ({ name: s.name, description: s.description ?? "", transport: s.transport.type, running: s.running })),
        },
      };
    },
  }),
  defineTool({
    name: "mcp_server_call",
    title: "Call an MCP server's tool",
    description:
      "Call a tool of an MCP server installed in Signet (see mcp_server_list). Returns the tool's own result.",
    input: {
      server: nonEmpty("an installed server's name").describe("Installed server name"),
      tool: z.string().describe("Tool name on that server"),
      // z.unknown, not z.record: a record drops a `__proto__` argument silently; the daemon's contract
      // checks the map and refuses that name, and tools/list still advertises an object.
      arguments: z
        .unknown()
        .meta({ type: "object", propertyNames: { type: "string" }, additionalProperties: {} })
        .optional()
        .describe("Tool arguments, as its input schema describes"),
      timeout_ms: z
        .number()
        .int()
        .min(1)
        .max(MAX_CALL_TIMEOUT_MS)
        .optional()
        .describe("Per-call timeout in milliseconds (default: the daemon's bridge.callTimeoutMs, 60 s)"),
    },
    // No output schema: structuredContent, when there is any, is the bridged tool's own, of a shape
    // only that tool knows; declaring one would also make it required in every answer. Whatever the
    // bridged tool does (it may delete things, or reach anywhere) this tool does.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    calls: API.bridge.call,
    // The server's answer goes back as it came: its content, structured content and isError.
    // A call the agent cancels is dropped on its way, and the daemon cancels it at the server.
    handler: (a, client, ctx) =>
      client.bridge.call(
        a.server,
        {
          tool: a.tool,
          // Checked whole by the daemon's contract (an object, no `__proto__` name).
          arguments: (a.arguments ?? {}) as Record<string, unknown>,
          timeoutMs: a.timeout_ms,
          source: "agent",
          sessionKey: ctx.sessionKey,
        },
        { cancel: ctx.signal },
      ),
  }),
];
