// Builds an MCP server over the tool table; both transports serve the same one.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { SignetClient } from "../client/client";
import { VERSION } from "../version";
import { TOOLS, callTool } from "./tools";

export function createMcpServer(client: SignetClient): McpServer {
  const server = new McpServer({ name: "signet", version: VERSION }, { capabilities: { logging: {} } });
  for (const tool of TOOLS) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.inputSchema }, (args) =>
      callTool(tool, args as Record<string, unknown>, client),
    );
  }
  return server;
}
