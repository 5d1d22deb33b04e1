// Builds an MCP server over the tool table (src/mcp/tools.ts); both transports serve the same one.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { SignetClient } from "../client/client";
import { VERSION } from "../version";
import type { ToolContext } from "./tool";
import { toolRefusal } from "./tool-permissions";
import { TOOLS } from "./tools";

/** How the MCP server's calls to the daemon identify themselves (docs/mcp.md#agent-and-session). */
export const MCP_PROVENANCE = { actor: "mcp-server", actorType: "harness", runtimePath: "plugin" } as const;

/**
 * Sent with the initialize answer: when to reach for the memory tools. Harnesses put it into the
 * model's context, so it is short (docs/mcp.md#instructions).
 */
const INSTRUCTIONS = `Signet is your long-term memory: what you store here is available in later sessions.

Search (memory_search) at the start of a task, and before answering questions about the user's preferences, past decisions or facts about this project; do not guess what may already be stored.

Store (memory_store) durable facts, preferences and decisions as they come up: one self-contained statement per memory, with a type (fact, preference, decision, rule, learning, ...), tags, and hints: two or three questions or requests a developer might later make that the memory answers, in other words than its own (for "Use pnpm, never npm": "how do I add a package", "install a dependency"), so it is found when it is needed. Do not store transient chatter, intermediate steps, or what only matters for the current task. Storing the same content twice is harmless (deduped).

When a stored memory turns out wrong or outdated, correct it with memory_modify (a reason is required; the earlier version stays in the history) instead of storing a contradicting one. Use memory_forget, with a reason, for what should no longer be remembered. Pinned memories are not forgotten until unpinned (memory_modify with pinned: false); unpin only when the user wants it.`;

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
  const server = new McpServer({ name: "signet", version: VERSION }, { capabilities: { logging: {} }, instructions: INSTRUCTIONS });
  for (const tool of TOOLS) {
    tool(({ name, title, description, input, output, annotations, call }) =>
      server.registerTool(name, { title, description, inputSchema: input, outputSchema: output, annotations }, async (args) => {
        const started = performance.now();
        const refusal = ctx.role === undefined ? null : toolRefusal(name, ctx.role);
        const result: CallToolResult = refusal ? { isError: true, content: [{ type: "text", text: refusal }] } : await call(args, client, ctx);
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
