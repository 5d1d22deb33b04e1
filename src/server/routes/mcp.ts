// /mcp: MCP Streamable HTTP (docs/mcp.md), stateless, behind the daemon's request guard (Host,
// Origin). Every POST gets a transport of its own and a server kept for its caller
// (src/mcp/idle-servers.ts), whose tools call this daemon's own API in process; GET opens a
// notification stream; DELETE is a no-op. Every answer here, errors included, is JSON-RPC shaped,
// and nothing is ever a 500.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Elysia } from "elysia";
import { SignetClient } from "../../client/client";
import { AgentIdSchema, DEFAULT_AGENT_ID } from "../../contracts/agent";
import { SignetError } from "../../contracts/errors";
import { DEFAULT_STREAM_CAPS, OpenStreams } from "../../core/auth/open-streams";
import {
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_INVALID_REQUEST,
  JSONRPC_PARSE_ERROR,
  JSONRPC_SERVER_ERROR,
  jsonRpcError,
  shuttingDown,
} from "../../mcp/http";
import { IdleServers } from "../../mcp/idle-servers";
import { PostExchange } from "../../mcp/post-exchange";
import { MAX_CALL_TIMEOUT_MS } from "../../contracts/bridge";
import { MCP_PROVENANCE, createMcpServer, toolCallHeaders, type OwnToolCall } from "../../mcp/server";
import { NO_BODY, readJsonBody } from "../body";
import type { DaemonContext } from "../context";
import { boundAgent, principalOf, setPrincipal, tokenIdOf, unboundToken, type Principal } from "../principal";
import { MCP_PATH } from "../request-path";

const DEFAULT_MAX_IN_FLIGHT = 32;
const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** What the default POST deadline leaves beyond the longest tool call (a bridged call's start plus its longest timeout). */
const DEADLINE_MARGIN_MS = 60_000;
const SESSION_KEY_MAX = 256;

export interface McpRouteOptions {
  /** The app's own request handler: tool calls reach the daemon's API in process, with no network hop. */
  handle(request: Request): Promise<Response>;
  /** POSTs handled at once; one more is answered 503 (default 32). */
  maxInFlight?: number;
  /** GET streams open at once; one more is answered 503 (default 64). One agent's are capped too: 429. */
  maxStreams?: number;
  /** Interval of the keep-alive comments on GET streams (default 15 s). */
  keepAliveMs?: number;
  /**
   * The most a POST may take before its requests still unanswered get a timeout error and its slot
   * is freed: a last resort, longer than any tool call's own timeout (default: bridge.callTimeoutMs
   * plus the longest bridged call, plus a minute).
   */
  postDeadlineMs?: number;
}

function busy(what: string): Response {
  return jsonRpcError(503, JSONRPC_SERVER_ERROR, `Server busy: ${what}; retry shortly`, { "Retry-After": "1" });
}

/** The caller holds all the streams one agent may: retrying helps only once one of its own ends. */
function tooManyStreams(what: string): Response {
  return jsonRpcError(429, JSONRPC_SERVER_ERROR, `Too many requests: ${what}`);
}

interface McpCaller {
  /** Who the /mcp request acts for, as the guard decided; tool calls act for the same. */
  principal?: Principal;
  agentId?: string;
  /** Handed to the tool layer (createMcpServer's ToolContext). */
  sessionKey?: string;
  /** The caller's bearer token, passed on so the API judges the call as the caller's own. */
  token?: string;
}

/** The caller as the request names it: an agent token's agent, else query parameters, then headers. */
function callerFrom(request: Request, url: URL): McpCaller | Response {
  const principal = principalOf(request);
  const agentId =
    boundAgent(principal) ??
    (url.searchParams.get("agent_id")?.trim() || request.headers.get("x-signet-agent-id")?.trim() || undefined);
  if (agentId !== undefined && !AgentIdSchema.safeParse(agentId).success) {
    return jsonRpcError(
      400,
      JSONRPC_INVALID_REQUEST,
      `Invalid agent id ${JSON.stringify(agentId.slice(0, 200))} (x-signet-agent-id or agent_id): use 1-128 letters, digits and . _ : @ -`,
    );
  }
  const sessionKey =
    url.searchParams.get("session_key")?.trim() || request.headers.get("x-signet-session-key")?.trim() || undefined;
  if (sessionKey !== undefined && sessionKey.length > SESSION_KEY_MAX) {
    return jsonRpcError(
      400,
      JSONRPC_INVALID_REQUEST,
      `Invalid session key (x-signet-session-key or session_key): at most ${SESSION_KEY_MAX} characters`,
    );
  }
  const auth = request.headers.get("authorization");
  const token = auth && /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, "").trim() || undefined : undefined;
  return { principal, agentId, sessionKey, token };
}

/** What a server built for `caller` acts as: two callers with the same key may share its servers. */
function callerKey({ principal, agentId, sessionKey, token }: McpCaller): string {
  return JSON.stringify([principal ?? null, agentId ?? null, sessionKey ?? null, token ?? null]);
}

/**
 * A `fetch` that hands the request to the app's handler instead of the network, acting for
 * `principal` (a request built here has no TCP peer: without one it would pass for no caller, never
 * for a loopback one). The client's timeout signal still applies: an abort rejects as fetch would.
 */
function inProcessFetch(handle: (request: Request) => Promise<Response>, principal: Principal | undefined): typeof fetch {
  const doFetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    setPrincipal(request, principal ?? { kind: "anonymous", loopback: false });
    const signal = init?.signal;
    if (!signal) return handle(request);
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<Response>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      handle(request)
        .then(resolve, reject)
        .finally(() => signal.removeEventListener("abort", onAbort));
    });
  };
  return doFetch as unknown as typeof fetch;
}

export function mcpRoutes(ctx: DaemonContext, options: McpRouteOptions) {
  const limit = ctx.config.daemon.maxBodyBytes;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  const postDeadlineMs = options.postDeadlineMs ?? ctx.config.bridge.callTimeoutMs + MAX_CALL_TIMEOUT_MS + DEADLINE_MARGIN_MS;
  const hub = ctx.mcpStreams;
  const streams = new OpenStreams(
    "notification streams",
    { ...DEFAULT_STREAM_CAPS, total: options.maxStreams ?? DEFAULT_STREAM_CAPS.total },
    ctx.tokens,
  );
  const idle = new IdleServers<McpServer>();
  let inFlight = 0;

  /** Calls to Signet's own tools that made no API request (the others are recorded as it is answered). */
  function recordFor(agentId: string | undefined) {
    return (call: OwnToolCall) => ctx.analytics.record({ ...call, server: "signet", source: "mcp", agentId: agentId ?? DEFAULT_AGENT_ID });
  }

  /** A server whose tools act as the caller, through the daemon's own API. */
  function serverFor({ principal, agentId, sessionKey, token }: McpCaller) {
    const client = new SignetClient({
      baseUrl: ctx.port > 0 ? `http://127.0.0.1:${ctx.port}` : "http://127.0.0.1",
      agentId,
      token,
      ...MCP_PROVENANCE,
      bridgeCallTimeoutMs: ctx.config.bridge.callTimeoutMs,
      fetch: inProcessFetch(options.handle, principal),
      callHeaders: toolCallHeaders,
    });
    const role = principal?.kind === "token" ? principal.role : undefined;
    return createMcpServer(client, { sessionKey, role }, { onLocalCall: recordFor(agentId) });
  }

  async function post(request: Request, url: URL): Promise<Response> {
    if (inFlight >= maxInFlight) return busy(`${maxInFlight} MCP requests are already in progress`);
    inFlight++;
    try {
      const caller = callerFrom(request, url);
      if (caller instanceof Response) return caller;
      const tooLarge = () =>
        jsonRpcError(413, JSONRPC_SERVER_ERROR, `Payload Too Large: request body is larger than the ${limit}-byte limit (daemon.maxBodyBytes)`);
      if (Number(request.headers.get("content-length") ?? "0") > limit) return tooLarge();
      let body: unknown;
      try {
        body = await readJsonBody(request, limit);
      } catch (err) {
        if (err instanceof SignetError && err.code === "too_large") return tooLarge();
        const detail = err instanceof SignetError ? err.message : `the request body could not be read: ${(err as Error).message}`;
        return jsonRpcError(400, JSONRPC_PARSE_ERROR, `Parse error: ${detail}`);
      }
      if (body === NO_BODY) return jsonRpcError(400, JSONRPC_PARSE_ERROR, "Parse error: the request body is empty; send a JSON-RPC message");
      // Tool calls carry their own timeouts; Bun's 10-second idle timeout must not cut them short.
      ctx.setIdleTimeout?.(request, 0);
      const key = callerKey(caller);
      const server = idle.take(key) ?? serverFor(caller);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      const exchange = new PostExchange(body, transport);
      // The POST ends, and its slot is freed, at the first of: the transport's answer; every request
      // answered or cancelled, when some were cancelled (the transport never answers then); the
      // client gone; the deadline.
      const ended = Promise.withResolvers<Response>();
      const clientGone = () => ended.resolve(jsonRpcError(499, JSONRPC_SERVER_ERROR, "Client closed the request"));
      request.signal.addEventListener("abort", clientGone, { once: true });
      if (request.signal.aborted) clientGone();
      const deadline = setTimeout(() => ended.resolve(exchange.timedOut(postDeadlineMs)), postDeadlineMs);
      try {
        return await Promise.race([transport.handleRequest(request, { parsedBody: body }), exchange.settled, ended.promise]);
      } finally {
        clearTimeout(deadline);
        request.signal.removeEventListener("abort", clientGone);
        await server.close().catch(() => {});
        // Closing ends its transport and anything the request left running; a server that stays
        // connected is not reused.
        if (!server.isConnected()) idle.give(key, server);
      }
    } finally {
      inFlight--;
    }
  }

  async function get(request: Request, url: URL): Promise<Response> {
    if (!hub.accepting) return shuttingDown();
    const caller = callerFrom(request, url);
    if (caller instanceof Response) return caller;
    // The slot is taken before the stream is set up, so GETs arriving together cannot pass the caps.
    const admission = streams.admit(caller.agentId ?? DEFAULT_AGENT_ID, tokenIdOf(caller.principal), unboundToken(caller.principal));
    if (!admission.ok) return admission.full === "agent" ? tooManyStreams(admission.message) : busy(admission.message);
    const { slot } = admission;
    try {
      const server = serverFor(caller);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, keepAliveMs });
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      if (!response.ok || !response.body) {
        // 406 without `Accept: text/event-stream`, 400 for an unsupported protocol version.
        slot.release();
        await server.close().catch(() => {});
        return response;
      }
      // The stream lives until the client leaves, the daemon stops or its token ends; keep-alive comments flow meanwhile.
      ctx.setIdleTimeout?.(request, 0);
      // From here the hub frees the slot when the stream ends.
      return await hub.adopt(server, transport, response, slot);
    } catch (err) {
      slot.release();
      throw err;
    }
  }

  async function dispatch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    switch (request.method) {
      case "POST":
        return post(request, url);
      case "GET":
        return get(request, url);
      case "DELETE":
        // Stateless: there is no session to end.
        return new Response(null, { status: 204 });
      default:
        return jsonRpcError(405, JSONRPC_SERVER_ERROR, `Method not allowed: ${request.method.slice(0, 20)}; use POST, GET or DELETE`, {
          Allow: "GET, POST, DELETE",
        });
    }
  }

  return new Elysia().all(
    MCP_PATH,
    async ({ request }) => {
      try {
        return await dispatch(request);
      } catch (err) {
        ctx.log.error(`${request.method} ${MCP_PATH} failed unexpectedly`, err);
        return jsonRpcError(503, JSONRPC_INTERNAL_ERROR, `Internal error: ${(err as Error)?.message ?? String(err)}`, {
          "Retry-After": "1",
        });
      }
    },
    // The body is read here, once, with the daemon's byte limit, and handed to the transport parsed.
    { parse: "none" },
  );
}
