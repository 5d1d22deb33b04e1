// Builds an MCP server over the tool table; both transports serve the same one.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { SignetClient } from "../client/client";
import { VERSION } from "../version";
import { TOOLS, callTool, type ToolContext } from "./tools";

/** How the MCP server's calls to the daemon identify themselves (the design document's daemonFetch headers). */
export const MCP_PROVENANCE = { actor: "mcp-server", actorType: "harness", runtimePath: "plugin" } as const;

/** `ctx` carries what the transport knows of the caller's session (stdio: SIGNET_SESSION_KEY). */
export function createMcpServer(client: SignetClient, ctx: ToolContext = {}): McpServer {
  const server = new McpServer({ name: "signet", version: VERSION }, { capabilities: { logging: {} } });
  for (const tool of TOOLS) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.inputSchema }, (args) =>
      callTool(tool, args as Record<string, unknown>, client, ctx),
    );
  }
  return server;
}
