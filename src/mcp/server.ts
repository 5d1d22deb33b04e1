// Builds an MCP server over the tool table (src/mcp/tools.ts); both transports serve the same one.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { SignetClient } from "../client/client";
import { VERSION } from "../version";
import type { ToolContext } from "./tool";
import { TOOLS } from "./tools";

/** How the MCP server's calls to the daemon identify themselves (docs/mcp.md#agent-and-session). */
export const MCP_PROVENANCE = { actor: "mcp-server", actorType: "harness", runtimePath: "plugin" } as const;

/** One call to one of Signet's own tools, as analytics records it (source `mcp`, server `signet`). */
export interface OwnToolCall {
  tool: string;
  latencyMs: number;
  success: boolean;
  errorText?: string;
}

/**
 * `ctx` carries what the transport knows of the caller's session (stdio: SIGNET_SESSION_KEY);
 * `onCall`, when given, hears of every tool call once it is answered.
 */
export function createMcpServer(client: SignetClient, ctx: ToolContext = {}, onCall?: (call: OwnToolCall) => void): McpServer {
  const server = new McpServer({ name: "signet", version: VERSION }, { capabilities: { logging: {} } });
  for (const tool of TOOLS) {
    tool(({ name, title, description, input, output, annotations, call }) =>
      server.registerTool(name, { title, description, inputSchema: input, outputSchema: output, annotations }, async (args) => {
        const started = performance.now();
        const result = await call(args, client, ctx);
        if (onCall) {
          const failed = result.isError === true;
          const first = result.content[0];
          onCall({
            tool: name,
            latencyMs: Math.round(performance.now() - started),
            success: !failed,
            errorText: failed && first?.type === "text" ? first.text : undefined,
          });
        }
        return result;
      }),
    );
  }
  return server;
}
