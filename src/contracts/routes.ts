// Where each operation of the API lives (src/contracts/api.ts has the whole operation): its method
// and path, the permission a token needs, the owner's credential it needs, whether it takes a body
// or a query, and how its answer comes. Nothing here needs zod, so the client, the hook and the
// dashboard's page load this table without evaluating a schema; each area's operations join these
// facts to their schemas with operation() (src/contracts/operation.ts).
import type { Permission } from "./auth";

/** `public`: no token needed in any mode; `signed-in`: any authenticated caller (the route checks further). */
export type RouteNeed = Permission | "public" | "signed-in";

export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** `:name` is one path segment, given to the client's method as a positional string, in order. */
  path: string;
  need: RouteNeed;
  /**
   * The owner's credential the route needs in every auth mode, which the owner's own client sends:
   * `admin` the admin token of its data directory (it starts processes or changes the installation),
   * `instance` the instance key or the admin token (signet-mcp has the key, an agent's token does not).
   */
  credential?: "admin" | "instance";
  /** A JSON body, or a query string; the operation has the schema of the one it takes. */
  takes?: "body" | "query";
  /**
   * The answer is a stream (NDJSON lines, or server-sent events), not one JSON value: the client has
   * no derived method for it; its adapter reads the stream.
   */
  stream?: "ndjson" | "sse";
  /** How long the client waits for the answer, when longer than its default. */
  timeoutMs?: number;
}

/** An endpoint that is not a JSON operation (the MCP transport, the dashboard's page and assets). */
export interface Endpoint {
  /** `*` for any method. */
  method: Route["method"] | "*";
  /** A trailing `/**` is the path itself and everything under it. */
  path: string;
  need: RouteNeed;
}

/**
 * How long an ACP relay may take when the message names no acpTimeoutMs: the daemon's default, and
 * what the client's wait for a message's answer adds its margin to.
 */
export const DEFAULT_ACP_TIMEOUT_MS = 20_000;

/**
 * An import batch, a backup, or a source's add or sync writes as much as it is given: minutes for a
 * large one. A source's removal waits its turn behind them.
 */
const LONG_WRITE_MS = 10 * 60_000;

export const ROUTES = {
  health: {
    health: { method: "GET", path: "/health", need: "public", timeoutMs: 2_000 },
  },
  memory: {
    remember: { method: "POST", path: "/api/memory/remember", need: "remember", takes: "body" },
    note: { method: "POST", path: "/api/memory/note", need: "remember", takes: "body" },
    list: { method: "GET", path: "/api/memories", need: "recall", takes: "query" },
    get: { method: "GET", path: "/api/memory/:id", need: "recall" },
    history: { method: "GET", path: "/api/memory/:id/history", need: "recall" },
    modify: { method: "PATCH", path: "/api/memory/:id", need: "modify", takes: "body" },
    forget: { method: "DELETE", path: "/api/memory/:id", need: "forget", takes: "body" },
    recover: { method: "POST", path: "/api/memory/:id/recover", need: "modify", takes: "body" },
  },
  recall: {
    recall: { method: "POST", path: "/api/memory/recall", need: "recall", takes: "body" },
  },
  embed: {
    status: { method: "GET", path: "/api/embed/status", need: "recall" },
    reindex: { method: "POST", path: "/api/embed/reindex", need: "sources-manage", credential: "admin", takes: "body" },
  },
  hooks: {
    fire: { method: "POST", path: "/api/hooks/:event", need: "sessions", takes: "body" },
  },
  sessions: {
    list: { method: "GET", path: "/api/sessions", need: "sessions-read", takes: "query" },
    get: { method: "GET", path: "/api/sessions/:key", need: "sessions-read" },
    search: { method: "POST", path: "/api/sessions/search", need: "sessions-read", takes: "body" },
    bypass: { method: "POST", path: "/api/sessions/:key/bypass", need: "sessions", takes: "body" },
    feedback: { method: "POST", path: "/api/memory/feedback", need: "sessions", takes: "body" },
    remove: { method: "DELETE", path: "/api/sessions/:key", need: "sessions", credential: "admin" },
  },
  code: {
    search: { method: "POST", path: "/api/code/search", need: "recall", takes: "body" },
    context: { method: "POST", path: "/api/code/context", need: "recall", takes: "body" },
    blast: { method: "POST", path: "/api/code/blast", need: "recall", takes: "body" },
    status: { method: "GET", path: "/api/code/status", need: "recall", takes: "query" },
    doctor: { method: "GET", path: "/api/code/doctor", need: "recall", takes: "query" },
    constants: { method: "GET", path: "/api/code/constants", need: "recall", takes: "query" },
    briefing: { method: "GET", path: "/api/code/briefing", need: "recall", takes: "query" },
    clear: { method: "POST", path: "/api/code/clear", need: "sources-manage", credential: "admin", takes: "body" },
  },
  sources: {
    list: { method: "GET", path: "/api/sources", need: "recall" },
    add: { method: "POST", path: "/api/sources", need: "sources-manage", credential: "admin", takes: "body", timeoutMs: LONG_WRITE_MS },
    sync: { method: "POST", path: "/api/sources/sync", need: "sources-manage", credential: "admin", takes: "body", timeoutMs: LONG_WRITE_MS },
    remove: { method: "DELETE", path: "/api/sources/:id", need: "sources-manage", credential: "admin", timeoutMs: LONG_WRITE_MS },
    search: { method: "POST", path: "/api/sources/search", need: "recall", takes: "body" },
  },
  agents: {
    presence: { method: "GET", path: "/api/cross-agent/presence", need: "messages", takes: "query" },
    heartbeat: { method: "POST", path: "/api/cross-agent/presence", need: "messages", takes: "body" },
    leave: { method: "DELETE", path: "/api/cross-agent/presence", need: "messages", takes: "query" },
    send: { method: "POST", path: "/api/cross-agent/messages", need: "messages", takes: "body" },
    inbox: { method: "GET", path: "/api/cross-agent/messages", need: "messages", takes: "query" },
    ack: { method: "POST", path: "/api/cross-agent/messages/ack", need: "messages", takes: "body" },
    watch: { method: "GET", path: "/api/cross-agent/stream", need: "messages", takes: "query", stream: "sse" },
  },
  analytics: {
    report: { method: "POST", path: "/api/mcp/invocations", need: "analytics-report", credential: "instance", takes: "body" },
    summary: { method: "GET", path: "/api/mcp/analytics", need: "analytics-read", takes: "query" },
    server: { method: "GET", path: "/api/mcp/analytics/:server", need: "analytics-read", takes: "query" },
    alerts: { method: "GET", path: "/api/mcp/alerts", need: "analytics-read", takes: "query" },
    features: { method: "GET", path: "/api/mcp/features", need: "analytics-read", takes: "query" },
    unused: { method: "GET", path: "/api/mcp/unused", need: "analytics-read", takes: "query" },
    sessionTools: { method: "GET", path: "/api/sessions/:key/tools", need: "sessions-read", takes: "query" },
  },
  graph: {
    entities: { method: "GET", path: "/api/graph/entities", need: "recall", takes: "query" },
    entity: { method: "GET", path: "/api/graph/entities/:id", need: "recall", takes: "query" },
    dream: { method: "POST", path: "/api/graph/dream", need: "modify", credential: "admin", takes: "body", timeoutMs: LONG_WRITE_MS },
  },
  tokens: {
    list: { method: "GET", path: "/api/tokens", need: "tokens-manage", credential: "admin" },
    create: { method: "POST", path: "/api/tokens", need: "tokens-manage", credential: "admin", takes: "body" },
    revoke: { method: "DELETE", path: "/api/tokens/:id", need: "tokens-manage", credential: "admin" },
  },
  transfer: {
    export: { method: "GET", path: "/api/export", need: "data-transfer", credential: "admin", takes: "query", stream: "ndjson" },
    import: { method: "POST", path: "/api/import", need: "data-transfer", credential: "admin", takes: "body", timeoutMs: LONG_WRITE_MS },
    backup: { method: "POST", path: "/api/backup", need: "data-transfer", credential: "admin", takes: "body", timeoutMs: LONG_WRITE_MS },
  },
  bridge: {
    list: { method: "GET", path: "/api/marketplace/servers", need: "mcp-call", takes: "query" },
    install: { method: "POST", path: "/api/marketplace/servers", need: "mcp-manage", credential: "admin", takes: "body" },
    get: { method: "GET", path: "/api/marketplace/servers/:name", need: "mcp-call" },
    update: { method: "PATCH", path: "/api/marketplace/servers/:name", need: "mcp-manage", credential: "admin", takes: "body" },
    remove: { method: "DELETE", path: "/api/marketplace/servers/:name", need: "mcp-manage", credential: "admin" },
    tools: { method: "GET", path: "/api/marketplace/servers/:name/tools", need: "mcp-call", takes: "query" },
    call: { method: "POST", path: "/api/marketplace/servers/:name/call", need: "mcp-call", takes: "body" },
  },
  secrets: {
    list: { method: "GET", path: "/api/secrets", need: "secrets-exec", credential: "instance" },
    set: { method: "PUT", path: "/api/secrets/:name", need: "secrets-manage", credential: "admin", takes: "body" },
    remove: { method: "DELETE", path: "/api/secrets/:name", need: "secrets-manage", credential: "admin" },
    exec: { method: "POST", path: "/api/secrets/exec", need: "secrets-exec", credential: "instance", takes: "body" },
    status: { method: "GET", path: "/api/secrets/exec/:jobId", need: "secrets-exec", credential: "instance" },
  },
} as const satisfies Record<string, Record<string, Route>>;

export const ENDPOINTS = {
  /** The MCP Streamable HTTP transport (docs/mcp.md): each tool checks its own permission. */
  mcp: { method: "*", path: "/mcp", need: "signed-in" },
  /** The dashboard's page and its hashed assets; its data comes from the API, with a token. */
  dashboardPage: { method: "GET", path: "/", need: "public" },
  dashboardAssets: { method: "GET", path: "/assets/**", need: "public" },
} as const satisfies Record<string, Endpoint>;
