// Builds an MCP server over the tool table (src/mcp/tools.ts); both transports serve the same one.
// Each call runs in a scope that tags the API requests it makes with the tool's name and the
// caller's session, and the daemon records the call as it answers (src/server/own-tool-calls.ts):
// whatever becomes of this process afterwards, the call is on record.
import { AsyncLocalStorage } from "node:async_hooks";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { type CallToolRequest, CallToolRequestSchema, type CallToolResult, type ServerResult } from "@modelcontextprotocol/sdk/types.js";
import type { AnyObjectSchema } from "@modelcontextprotocol/sdk/server/zod-compat.js";
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
   * arguments, the SDK's check against the input schema included), before it is answered: the
   * daemon records every other call itself.
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
  const own = new Set<string>();
  aroundToolCalls(server, async (name, answer) => {
    if (!own.has(name)) return answer();
    const sessionKey = ctx.sessionKey ?? (await options.sessionKey?.());
    const started = performance.now();
    const scope: CallScope = { tool: name, sessionKey, requests: 0 };
    let failure: string | null = null;
    try {
      const result = await calls.run(scope, answer);
      failure = failureOf(result);
      return result;
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
      throw err;
    } finally {
      // A call that made no request is on record only if recorded here.
      if (scope.requests === 0 && options.onLocalCall) {
        await options.onLocalCall({
          tool: name,
          latencyMs: Math.round(performance.now() - started),
          success: failure === null,
          errorText: failure || undefined,
          sessionKey,
        });
      }
    }
  });
  for (const tool of TOOLS) {
    tool(({ name, title, description, input, output, annotations, calls: op, call }) => {
      own.add(name);
      server.registerTool(name, { title, description, inputSchema: input, outputSchema: output, annotations }, async (args, extra) => {
        const refusal = ctx.role === undefined ? null : toolRefusal(name, op, ctx.role);
        if (refusal) return { isError: true, content: [{ type: "text", text: refusal }] };
        return call(args, client, { ...ctx, sessionKey: calls.getStore()?.sessionKey, signal: extra.signal });
      });
    });
  }
  return server;
}

/**
 * Has each tools/call request `server` answers go through `around`, with the tool's name. The SDK
 * checks a call's arguments against the tool's input schema before it runs the tool's handler, and
 * answers a mismatch itself: only around its tools/call handler is every call seen. It installs that
 * handler as the first tool is registered, so this comes before.
 */
function aroundToolCalls(server: McpServer, around: (tool: string, answer: () => Promise<ServerResult>) => Promise<ServerResult>): void {
  const inner = server.server;
  const install = inner.setRequestHandler.bind(inner);
  inner.setRequestHandler = ((schema: AnyObjectSchema, handler: (request: any, extra: any) => ServerResult | Promise<ServerResult>) =>
    install(
      schema,
      schema === CallToolRequestSchema
        ? (request: CallToolRequest, extra) => around(request.params.name, async () => handler(request, extra))
        : handler,
    )) as typeof inner.setRequestHandler;
}

/** The error text of a tool's answer when it is an error ("" when it has none), null when it is not one. */
function failureOf(result: ServerResult): string | null {
  if (!("isError" in result) || result.isError !== true) return null;
  const first = (result as CallToolResult).content[0];
  return first?.type === "text" ? first.text : "";
}
