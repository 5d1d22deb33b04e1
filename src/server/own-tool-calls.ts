// Calls to Signet's own MCP tools, recorded by the daemon as it answers them (docs/api.md#analytics).
// signet-mcp and /mcp tag the API request each tool call makes with the tool's name and the
// caller's session (src/mcp/server.ts), so a call is on record the moment it is answered, whatever
// becomes of the MCP server's process afterwards (a harness ends signet-mcp with SIGTERM).
import { OWN_TOOL_HEADER } from "../contracts/analytics";
import type { ErrorBody } from "../contracts/errors";
import { normalizeSessionKey, SESSION_KEY_HEADER, SessionKeySchema } from "../contracts/session";
import { TOOLS } from "../mcp/tools";
import { callerFrom } from "./caller";
import type { DaemonContext } from "./context";
import type { Handler } from "./guard";

/** A tag names one of these or is ignored: a caller can only add the row a real call would. */
const OWN_TOOLS: ReadonlySet<string> = new Set(TOOLS.map((tool) => tool(({ name }) => name)));

/** The session a tagged request names, if it is one the caller's agent may claim. */
async function sessionOf(ctx: DaemonContext, request: Request, agentId: string): Promise<string | undefined> {
  const parsed = SessionKeySchema.safeParse(request.headers.get(SESSION_KEY_HEADER) ?? "");
  if (!parsed.success) return undefined;
  const key = normalizeSessionKey(parsed.data);
  return (await ctx.agents.heldByAnother(key, agentId)) ? undefined : key;
}

async function errorText(response: Response): Promise<string | undefined> {
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as Partial<ErrorBody> | null;
  return typeof body?.error === "string" ? `${body.code ?? response.status}: ${body.error}` : `HTTP ${response.status}`;
}

/** `handle`, recording each tagged request as one call of the tool it names (source `mcp`, server `signet`). */
export function recordingOwnToolCalls(ctx: DaemonContext, handle: Handler): Handler {
  return async (request) => {
    const tool = request.headers.get(OWN_TOOL_HEADER);
    if (tool === null || !OWN_TOOLS.has(tool) || !ctx.analytics.accepts("mcp")) return handle(request);
    const started = performance.now();
    const response = await handle(request);
    const latencyMs = performance.now() - started;
    let agentId: string;
    try {
      agentId = callerFrom(request).agentId;
    } catch {
      // An agent id the route refused: that answer is the call's, and there is no one to record it for.
      return response;
    }
    const success = response.status < 400;
    ctx.analytics.record({
      server: "signet",
      tool,
      source: "mcp",
      agentId,
      sessionKey: await sessionOf(ctx, request, agentId),
      latencyMs,
      success,
      errorText: success ? undefined : await errorText(response),
    });
    return response;
  };
}
