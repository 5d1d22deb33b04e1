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
import { INSTRUCTIONS } from "./initialize-answer";
import type { ToolContext } from "./tool";
import { toolRefusal } from "./tool-permissions";
import { TOOLS } from "./tools";

/** How the MCP server's calls to the daemon identify themselves (docs/mcp.md#agent-and-session). */
export const MCP_PROVENANCE = { actor: "mcp-server", actorType: "harness", runtimePath: "plugin" } as const;

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
 * (meta-schemas and formats) for each server, and /mcp builds one for each caller it serves.
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
      server.registerTool(name, { title, description, inputSchema: input, outputSchema: output, annotations }, async (args, extra) => {
        const sessionKey = ctx.sessionKey ?? (await options.sessionKey?.());
        const started = performance.now();
        const scope: CallScope = { tool: name, sessionKey, requests: 0 };
        const refusal = ctx.role === undefined ? null : toolRefusal(name, op, ctx.role);
        const result: CallToolResult = refusal
          ? { isError: true, content: [{ type: "text", text: refusal }] }
          : await calls.run(scope, () => call(args, client, { ...ctx, sessionKey, signal: extra.signal }));
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
