// The one request guard (docs/security.md). Every request, those the daemon hands itself in process
// included, passes here before it is routed and before its body is read:
// - Host must name this daemon: a loopback name with its port, or a name in daemon.allowedHosts.
//   A page whose own name resolves to 127.0.0.1 (DNS rebinding) arrives with its name in Host.
// - Origin, when present, must be the daemon's own origin or one in daemon.allowedOrigins, and
//   `Sec-Fetch-Site: cross-site` is refused: web pages may not drive the daemon.
// - A body must be declared `application/json`: browsers send text/plain, form and multipart bodies
//   cross-origin without a CORS preflight, JSON never. /mcp keeps the MCP SDK's own rules.
// - Who the request acts for (src/server/principal.ts): by auth.mode, the TCP peer address (never a
//   header) and the Bearer token; then the permission its route needs (src/server/permissions.ts),
//   and a token's rate limit on mutations.
// - Routes that start processes or change the installation need the owner's admin token; reports of
//   tool calls need the instance key (credentialFor below), in every auth mode.
// Refusals name the problem; none reads the body, so nothing is written and nothing starts.
import {
  ADMIN_TOKEN_HEADER,
  INSTANCE_KEY_HEADER,
  sameSecret,
} from "../config/owner-files";
import { isLoopbackHost } from "../config/daemon-url";
import { READ_PERMISSIONS, ROLE_PERMISSIONS, lackedPermission, type Permission, type Role } from "../contracts/auth";
import type { ErrorCode } from "../contracts/errors";
import type { RateLimits } from "../core/auth/rate-limit";
import type { TokenCheck } from "../core/auth/tokens";
import { JSONRPC_SERVER_ERROR, jsonRpcError } from "../mcp/http";
import type { Logger } from "../logger";
import { VERSION } from "../version";
import type { OwnerCredentials } from "./credentials";
import { errorResponse } from "./http-errors";
import { credentialNeeded, permissionsNeeded } from "./permissions";
import { ROUTES } from "../contracts/routes";
import { principalOf, setPrincipal, type Principal } from "./principal";
import { isMcpPath, pathForms, requestPath } from "./request-path";

export type AuthMode = "local" | "team" | "hybrid";

export interface GuardSettings {
  /** The port the daemon listens on, read per request (a daemon asked for port 0 learns it late). */
  port(): number;
  bind: string;
  allowedHosts: string[];
  allowedOrigins: string[];
  credentials: OwnerCredentials;
  mode: AuthMode;
  /** The TCP peer's address of a request the server received; null for any other (built in process). */
  peerAddress(request: Request): string | null;
  /** Looks a presented API token up (src/core/auth/tokens.ts). */
  checkToken(token: string): Promise<TokenCheck>;
  /** Spends one unit of a token's mutation budget: 0, or the seconds to wait. */
  rateLimiter: RateLimits;
  /** Where a token that could not be checked (the store down) is noted. */
  log: Pick<Logger, "warn">;
}

export type Handler = (request: Request) => Promise<Response>;

type Credential = "admin" | "instance";

const WILDCARD_BINDS = new Set(["0.0.0.0", "::"]);
/** A refusal's words on /mcp, where it is a JSON-RPC error ("Forbidden" for any code not named). */
const RPC_LABELS: Partial<Record<ErrorCode, string>> = { unauthorized: "Unauthorized", rate_limited: "Too many requests", unavailable: "Unavailable" };
const HEALTH_PATH = ROUTES.health.health.path;
const CORS_METHODS = "GET, POST, PATCH, DELETE";
const CORS_HEADERS = "authorization, content-type, x-signet-agent-id, x-signet-session-key";

function bare(host: string): string {
  return host.trim().toLowerCase().replace(/^\[|\]$/g, "");
}

/** `name`, `name:port`, `[v6]` or `[v6]:port` split into its parts, or null when malformed. */
function parseHostHeader(value: string): { name: string; port: number | null } | null {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  if (!m) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { name: bare(m[1]!), port };
}

/**
 * The credential a route needs, decided on the path before routing (src/server/permissions.ts, from
 * each operation's `credential`): for every form of the path (decoded whole, decoded by segment, as
 * sent), the strictest, so no spelling skips one.
 */
export function credentialFor(method: string, path: string): Credential | null {
  return credentialNeeded(method === "HEAD" ? "GET" : method, pathForms(path));
}

/**
 * The Bearer token the request presents; null when it sends no Authorization header; false when it
 * sends one that is not `Bearer <token>` (another scheme, more words, two folded headers): a token
 * always narrows, so a value the guard cannot read is refused rather than taken for no token.
 */
function bearer(request: Request): string | null | false {
  const value = request.headers.get(ADMIN_TOKEN_HEADER);
  if (value === null) return null;
  const m = /^bearer\s+(\S+)\s*$/i.exec(value);
  return m ? m[1]! : false;
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (a dual-stack listener reports those). */
function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^::ffff:(?=\d)/, "");
  return a === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

const TOKEN_PROBLEM = {
  unknown: "is not a token this daemon issued",
  expired: "has expired",
  revoked: "was revoked",
} as const;

/** What /health tells a caller it knows nothing about: that a Signet of this version runs. */
function publicHealth(): Response {
  return Response.json({ status: "ok", version: VERSION });
}

function mediaType(value: string | null): string {
  return (value ?? "").split(";", 1)[0]!.trim().toLowerCase();
}

function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  return (length !== null && length.trim() !== "0") || request.headers.has("transfer-encoding");
}

export function createGuard(settings: GuardSettings) {
  const ownNames = new Set(["localhost", "127.0.0.1", "::1"]);
  const bindName = bare(settings.bind);
  if (!WILDCARD_BINDS.has(bindName)) ownNames.add(bindName);
  const extraHosts = new Set(settings.allowedHosts.map(bare));
  const extraOrigins = new Set(settings.allowedOrigins.map(originOf).filter((o): o is string => o !== null));

  function isOwnName(name: string): boolean {
    return ownNames.has(name) || isLoopbackHost(name);
  }

  function hostProblem(host: string | null): { status: 400 | 403; message: string } | null {
    if (host === null || host.trim() === "") return { status: 403, message: "the request has no Host header" };
    const parsed = parseHostHeader(host);
    if (!parsed) return { status: 400, message: `malformed Host header ${JSON.stringify(host.slice(0, 100))}` };
    if (extraHosts.has(parsed.name)) return null;
    if (isOwnName(parsed.name) && parsed.port === settings.port()) return null;
    return {
      status: 403,
      message: `Host ${JSON.stringify(host.slice(0, 100))} does not name this daemon (a loopback name with port ${settings.port()}, or a name in daemon.allowedHosts)`,
    };
  }

  /** null: allowed without CORS; a string: allowed, answer with CORS for it; false: refused. */
  function originVerdict(origin: string): string | null | false {
    const normalized = originOf(origin);
    if (normalized === null) return false;
    if (extraOrigins.has(normalized)) return normalized;
    const url = new URL(normalized);
    // A name in daemon.allowedHosts is this daemon's, as the Host check takes it (behind a proxy, on
    // its scheme and port): the dashboard served under it loads its own assets with an Origin.
    if (extraHosts.has(bare(url.hostname))) return null;
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
    return url.protocol === "http:" && isOwnName(bare(url.hostname)) && port === settings.port() ? null : false;
  }

  function refuse(path: string, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
    if (isMcpPath(path)) {
      const label = RPC_LABELS[code] ?? "Forbidden";
      return jsonRpcError(status, JSONRPC_SERVER_ERROR, `${label}: ${message}`, headers);
    }
    return errorResponse(code, message, headers);
  }

  /**
   * Who the request acts for: the principal of the caller a request made in process acts for;
   * otherwise the Bearer token, then the mode and the TCP peer address. A Bearer value that is neither
   * the owner's credential nor a live token is a string saying why.
   */
  async function identify(request: Request, token: string | null): Promise<Principal | string> {
    const inherited = principalOf(request);
    if (inherited) return inherited;
    if (token !== null) {
      if (sameSecret(token, settings.credentials.adminToken)) return { kind: "trusted", via: "owner" };
      const check = await settings.checkToken(token);
      if (!check.ok) return `the Bearer token ${TOKEN_PROBLEM[check.problem]}`;
      const { id, role, agentId } = check.token;
      return { kind: "token", tokenId: id, role, agentId };
    }
    if (settings.mode === "local") return { kind: "trusted", via: "local" };
    const peer = settings.peerAddress(request);
    const loopback = peer !== null && isLoopbackAddress(peer);
    if (settings.mode === "hybrid" && loopback) return { kind: "trusted", via: "loopback" };
    return { kind: "anonymous", loopback };
  }

  /**
   * A refusal when the principal may not call the route, or may not right now (rate limit). The
   * route is judged on every form of the path (src/server/permissions.ts `permissionsNeeded`): the
   * caller must meet the needs of each route a form names.
   */
  async function permissionProblem(principal: Principal, method: string, path: string): Promise<Response | null> {
    const needs = permissionsNeeded(method, pathForms(path));
    const open = needs.length > 0 && needs.every((need) => need === "public");
    if (open || principal.kind === "trusted") return null;
    if (principal.kind === "anonymous") {
      return refuse(
        path,
        401,
        "unauthorized",
        `${method} ${path} needs a token in auth.mode ${settings.mode}${settings.mode === "hybrid" ? " from a remote peer" : ""}: send Authorization: Bearer <token> (signet token create makes one; clients send SIGNET_TOKEN)`,
      );
    }
    const role: Role = principal.role;
    if (needs.length === 0) return refuse(path, 403, "forbidden", `${method} ${path} is not open to tokens (no permission rule names it)`);
    const permissions = needs.filter((need): need is Permission => need !== "public" && need !== "signed-in");
    const missing = permissions.find((need) => !ROLE_PERMISSIONS[role].has(need));
    if (missing !== undefined) {
      return refuse(path, 403, "forbidden", `${method} ${path} needs ${lackedPermission(role, missing)}`);
    }
    // A GET changes nothing: polling a job's status or an inbox is not a burst of changes.
    if (method === "GET" || permissions.every((need) => READ_PERMISSIONS.has(need))) return null;
    const wait = await settings.rateLimiter.take(principal.tokenId);
    if (wait === 0) return null;
    return refuse(path, 429, "rate_limited", `too many changes with this token: retry in ${wait} s (auth.rateLimit)`, {
      "Retry-After": String(wait),
    });
  }

  /** Wraps the app's handler: the answer of `inner` for requests that pass, a refusal otherwise. */
  return function guarded(inner: Handler): Handler {
    return async (request) => {
      const method = request.method.toUpperCase();
      const path = requestPath(request.url);
      const health = method === "GET" && (path === HEALTH_PATH || path === `${HEALTH_PATH}/`);

      // Requests the daemon hands itself in process carry no Host header but an absolute URL; a
      // network request without Host reaches us with a relative one and is refused.
      const host = hostProblem(request.headers.get("host") ?? (request.url.startsWith("/") ? null : new URL(request.url).host));
      const origin = request.headers.get("origin");
      const cors = origin === null ? null : originVerdict(origin);
      // A page of another site, or of the same site on another port ("same-site": a site has no port),
      // which sends no Origin on an <img> or a no-cors GET: only the daemon's own pages and requests
      // not made by a page ("same-origin", "none", or no header) pass.
      const fetchSite = request.headers.get("sec-fetch-site")?.toLowerCase();
      const crossSite = (fetchSite === "cross-site" || fetchSite === "same-site") && !cors;
      if (host || cors === false || crossSite) {
        // /health stays public: whoever asks learns that a Signet of this version runs, nothing more.
        if (health && host?.status !== 400) return publicHealth();
        if (host) return refuse(path, host.status, host.status === 400 ? "invalid_input" : "forbidden", host.message);
        const problem =
          cors === false
            ? `Origin ${JSON.stringify(origin!.slice(0, 100))} may not call this daemon (add it to daemon.allowedOrigins to allow a web page)`
            : `requests of another site or another port's pages are refused (Sec-Fetch-Site: ${fetchSite})`;
        return refuse(path, 403, "forbidden", problem);
      }

      if (method === "OPTIONS") {
        // A preflight grants nothing by itself: only an allowed origin hears which methods it may use.
        const headers: Record<string, string> = { Allow: CORS_METHODS };
        if (cors) {
          Object.assign(headers, corsHeaders(cors), {
            "Access-Control-Allow-Methods": CORS_METHODS,
            "Access-Control-Allow-Headers": CORS_HEADERS,
            "Access-Control-Max-Age": "600",
          });
        }
        return new Response(null, { status: 204, headers });
      }

      if (hasBody(request) && !isMcpPath(path) && mediaType(request.headers.get("content-type")) !== "application/json") {
        const given = request.headers.get("content-type");
        return errorResponse(
          "unsupported_media_type",
          `request bodies must be sent as content-type application/json${given ? `, not ${JSON.stringify(given.slice(0, 100))}` : " (none was given)"}`,
        );
      }

      const token = bearer(request);
      if (token === false) {
        if (health) return publicHealth();
        return refuse(path, 401, "unauthorized", `${method} ${path}: the Authorization header is not \`Bearer <token>\` (one token, nothing else)`);
      }
      const needs = credentialFor(method, path);
      let principal: Principal | string;
      try {
        principal = await identify(request, token);
        if (typeof principal === "string") {
          if (health) return publicHealth();
          // A wrong owner credential keeps its own answer below; any other route hears what is wrong with the token.
          if (needs !== "admin") return refuse(path, 401, "unauthorized", `${method} ${path}: ${principal}`);
        } else {
          // /health stays public: unauthenticated remote callers learn the status and version, nothing more.
          if (health && principal.kind === "anonymous" && !principal.loopback) return publicHealth();
          const refused = await permissionProblem(principal, method, path);
          if (refused) return refused;
          setPrincipal(request, principal);
        }
      } catch (err) {
        // The token or its rate limit lives in the store (PostgreSQL in team deployments): while it
        // cannot be read, no caller with a token can be judged, so none passes, and the answer is the
        // retryable 503 every store outage gets.
        settings.log.warn(`${method} ${path}: the token could not be checked: ${(err as Error).message}`);
        return refuse(path, 503, "unavailable", `${method} ${path}: the token could not be checked (the store did not answer); retry shortly`, { "Retry-After": "1" });
      }

      if (needs) {
        const { adminToken, instanceKey } = settings.credentials;
        // An API token the owner issued, whose role passed the permission check above, stands in for
        // the instance key: a remote agent in team mode runs secret_exec with its own token.
        const delegated = typeof principal !== "string" && principal.kind === "token";
        const granted =
          sameSecret(token, adminToken) ||
          (needs === "instance" && (delegated || sameSecret(request.headers.get(INSTANCE_KEY_HEADER), instanceKey)));
        if (!granted) {
          const what =
            needs === "admin"
              ? "the owner's admin token (the signet CLI on this machine sends it from $SIGNET_PATH/.daemon/admin.token)"
              : "the owner's instance key (signet-mcp sends it from $SIGNET_PATH/.daemon/instance.key)";
          const given = token !== null || request.headers.has(INSTANCE_KEY_HEADER);
          return given
            ? errorResponse("forbidden", `${method} ${path} needs ${what}; the credential given is not it`)
            : errorResponse("unauthorized", `${method} ${path} needs ${what}`);
        }
      }

      const response = await inner(request);
      return cors ? withHeaders(response, corsHeaders(cors)) : response;
    };
  };
}

function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return url.origin;
  } catch {
    return null;
  }
}

function corsHeaders(origin: string): Record<string, string> {
  return { "Access-Control-Allow-Origin": origin, Vary: "Origin" };
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  try {
    for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    return response;
  } catch {
    // immutable headers (a proxied answer): copy
    const copy = new Response(response.body, response);
    for (const [k, v] of Object.entries(headers)) copy.headers.set(k, v);
    return copy;
  }
}
