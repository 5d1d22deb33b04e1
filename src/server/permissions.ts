// Which permission each route needs (docs/security.md#roles-and-permissions): one table, read in
// order, first match wins, decided on the path before routing. A route missing from it is refused
// to every token (deny by default), so a new route must be added here to be reachable with one.
// Trusted callers (local mode, hybrid loopback peers, the owner's credential) are not limited by it.
import type { Permission } from "../contracts/auth";

/** `public`: no token needed in any mode; `signed-in`: any authenticated caller (the route checks further). */
export type RouteNeed = Permission | "public" | "signed-in";

/**
 * [methods, path pattern, need]. Methods: a comma list, or `*` for any; GET also covers HEAD.
 * Patterns: `:name` is one path segment; a trailing `/**` is the path itself and everything under it.
 */
const RULES: [string, string, RouteNeed][] = [
  ["GET", "/health", "public"],
  // The dashboard's page and its hashed assets (src/server/routes/dashboard.ts); its data comes from the API below, with a token.
  ["GET", "/", "public"],
  ["GET", "/assets/**", "public"],
  ["*", "/mcp", "signed-in"],
  ["*", "/api/tokens/**", "tokens-manage"],
  ["POST", "/api/memory/recall", "recall"],
  ["POST", "/api/memory/remember", "remember"],
  ["POST", "/api/memory/note", "remember"],
  ["POST", "/api/memory/feedback", "sessions"],
  ["GET", "/api/memories", "recall"],
  ["GET", "/api/memory/:id", "recall"],
  ["GET", "/api/memory/:id/history", "recall"],
  ["PATCH", "/api/memory/:id", "modify"],
  ["POST", "/api/memory/:id/recover", "modify"],
  ["DELETE", "/api/memory/:id", "forget"],
  ["*", "/api/hooks/**", "sessions"],
  ["GET", "/api/sessions/**", "sessions-read"],
  ["POST", "/api/sessions/search", "sessions-read"],
  // Removing a session also needs the owner's admin token (credentialFor in guard.ts).
  ["DELETE", "/api/sessions/:key", "sessions"],
  ["*", "/api/sessions/**", "sessions"],
  ["*", "/api/cross-agent/**", "messages"],
  ["POST", "/api/secrets/exec", "secrets-exec"],
  ["GET", "/api/secrets/exec/:job", "secrets-exec"],
  // Names only: an agent chooses what to inject by name (secret_list), never sees a value.
  ["GET", "/api/secrets", "secrets-exec"],
  ["*", "/api/secrets/**", "secrets-manage"],
  ["GET", "/api/marketplace/servers/**", "mcp-call"],
  ["POST", "/api/marketplace/servers/:name/call", "mcp-call"],
  ["*", "/api/marketplace/**", "mcp-manage"],
  ["POST", "/api/mcp/invocations", "analytics-report"],
  ["GET", "/api/mcp/**", "analytics-read"],
  ["POST", "/api/sources/search", "recall"],
  ["GET", "/api/sources/**", "recall"],
  ["*", "/api/sources/**", "sources-manage"],
  ["GET", "/api/embed/**", "recall"],
  ["*", "/api/embed/**", "sources-manage"],
  ["*", "/api/code/index/**", "sources-manage"],
  ["*", "/api/code/clear/**", "sources-manage"],
  ["*", "/api/code/**", "recall"],
  ["*", "/api/export", "data-transfer"],
  ["*", "/api/import", "data-transfer"],
  ["*", "/api/backup", "data-transfer"],
];

interface Rule {
  methods: Set<string> | null;
  path: RegExp;
  need: RouteNeed;
}

function compile([methods, pattern, need]: [string, string, RouteNeed]): Rule {
  const tree = pattern.endsWith("/**");
  const base = tree ? pattern.slice(0, -3) : pattern;
  const body = base
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  const names = methods === "*" ? null : new Set(methods.split(",").map((m) => m.trim()));
  if (names?.has("GET")) names.add("HEAD");
  return { methods: names, path: new RegExp(`^${body}${tree ? "(?:/.*)?" : ""}$`), need };
}

const COMPILED = RULES.map(compile);

/** The route's need, or undefined when no rule names it. `path` is the guard's loose form (lower case, decoded). */
export function permissionFor(method: string, path: string): RouteNeed | undefined {
  const p = path === "" ? "/" : path;
  return COMPILED.find((rule) => (rule.methods === null || rule.methods.has(method)) && rule.path.test(p))?.need;
}
