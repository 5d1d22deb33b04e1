// Builds an MCP server over the tool table (src/mcp/tools.ts); both transports serve the same one.
// Each call runs in a scope that tags the API requests it makes with the tool's name and the
// caller's session, and the daemon records the call as it answers (src/server/own-tool-calls.ts):
// whatever becomes of this process afterwards, the call is on record.
import { AsyncLocalStorage } from "node:async_hooks";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { SignetClient } from "../client/client";
import { OWN_TOOL_HEADER } from "../contracts/analytics";
import { SESSION_KEY_HEADER } from "../contracts/session";
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

When a stored memory turns out wrong or outdated, correct it with memory_modify (a reason is required; the earlier version stays in the history) instead of storing a contradicting one. Use memory_forget, with a reason, for what should no longer be remembered. Pinned memories are not forgotten until unpinned (memory_modify with pinned: false); unpin only when the user wants it.

Other agents may message you. Their messages arrive with your prompts, each once, marked as a message from its sender (not a memory); agent_message_inbox reads your inbox, agent_message_send answers, agent_peers lists who is working now.`;

/** One call to one of Signet's own tools, as analytics records it (source `mcp`, server `signet`). */
export interface OwnToolCall {
  tool: string;
  latencyMs: number;
  success: boolean;
  errorText?: string;
  sessionKey?: string;
}

/** The tool call whose handler is running, and how many API requests it made. */
interface CallScope {
  tool: string;
  sessionKey?: string;
  requests: number;
}

const calls = new AsyncLocalStorage<CallScope>();

/**
 * The headers that name the tool call a request is made for (the client's `callHeaders`);
 * undefined outside one. Every Signet tool makes one API request a call.
 */
export function toolCallHeaders(): Record<string, string> | undefined {
  const scope = calls.getStore();
  if (!scope) return undefined;
  scope.requests++;
  return scope.sessionKey ? { [OWN_TOOL_HEADER]: scope.tool, [SESSION_KEY_HEADER]: scope.sessionKey } : { [OWN_TOOL_HEADER]: scope.tool };
}

interface McpServerOptions {
  /** The caller's session for a call when `ctx` names none (signet-mcp: the session of its harness process). */
  sessionKey?: () => Promise<string | undefined>;
  /**
   * Hears of a call that made no API request (refused by the token's role, or failed on its
   * arguments), before it is answered: the daemon records every other call itself.
   */
  onLocalCall?: (call: OwnToolCall) => void | Promise<void>;
}

/**
 * One JSON Schema validator for every server of the process: the SDK otherwise builds a new Ajv
 * (meta-schemas and formats) for each server, and /mcp makes a server per request: that was about
 * half of a tool call's cost over the HTTP API.
 */
let schemaValidator: AjvJsonSchemaValidator | undefined;

/**
 * `ctx` carries what the transport knows of the caller (stdio: SIGNET_SESSION_KEY and the working
 * directory; /mcp: the session header and the token's role). The client must send `toolCallHeaders`.
 */
export function createMcpServer(client: SignetClient, ctx: ToolContext = {}, options: McpServerOptions = {}): McpServer {
  schemaValidator ??= new AjvJsonSchemaValidator();
  const server = new McpServer(
    { name: "signet", version: VERSION },
    { capabilities: { logging: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: schemaValidator },
  );
  for (const tool of TOOLS) {
    tool(({ name, title, description, input, output, annotations, calls: op, call }) =>
      server.registerTool(name, { title, description, inputSchema: input, outputSchema: output, annotations }, async (args) => {
        const sessionKey = ctx.sessionKey ?? (await options.sessionKey?.());
        const started = performance.now();
        const scope: CallScope = { tool: name, sessionKey, requests: 0 };
        const refusal = ctx.role === undefined ? null : toolRefusal(name, op, ctx.role);
        const result: CallToolResult = refusal
          ? { isError: true, content: [{ type: "text", text: refusal }] }
          : await calls.run(scope, () => call(args, client, { ...ctx, sessionKey }));
        if (scope.requests === 0 && options.onLocalCall) {
          const failed = result.isError === true;
          const first = result.content[0];
          await options.onLocalCall({
            tool: name,
            latencyMs: Math.round(performance.now() - started),
            success: !failed,
            errorText: failed && first?.type === "text" ? first.text : undefined,
            sessionKey,
          });
        }
        return result;
      }),
    );
  }
  return server;
}
