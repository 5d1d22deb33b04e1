// Which permission and which owner's credential each route needs (docs/security.md#roles-and-permissions),
// derived from the operations and endpoints of src/contracts/api.ts and decided on the path before
// routing. A route no operation declares is refused to every token (deny by default). Trusted callers
// (local mode, hybrid loopback peers, the owner's credential) are not limited by the permission.
import { ENDPOINTS, ROUTES, type Endpoint, type Route, type RouteNeed } from "../contracts/routes";

type Credential = NonNullable<Route["credential"]>;

interface Rule {
  /** null: any method. GET also covers HEAD. */
  methods: Set<string> | null;
  path: RegExp;
  need: RouteNeed;
  credential: Credential | null;
}

/** A trailing `/**` is the path itself and everything under it; `:name` is one segment. */
function compile({ method, path, need, credential }: Endpoint & { credential?: Credential }): Rule {
  const tree = path.endsWith("/**");
  const base = tree ? path.slice(0, -3) : path;
  const body = base
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  const methods = method === "*" ? null : new Set(method === "GET" ? ["GET", "HEAD"] : [method]);
  return { methods, path: new RegExp(`^${body}${tree ? "(?:/.*)?" : ""}$`), need, credential: credential ?? null };
}

const RULES: Rule[] = [
  ...Object.values(ROUTES)
    .flatMap((area): Route[] => Object.values(area))
    // A literal segment wins over a parameter in the same place (POST /api/sessions/search, not :key).
    .sort((x, y) => (x.path.match(/:/g)?.length ?? 0) - (y.path.match(/:/g)?.length ?? 0))
    .map(compile),
  ...Object.values(ENDPOINTS).map(compile),
];

function ruleFor(method: string, path: string): Rule | undefined {
  const p = path === "" ? "/" : path;
  return RULES.find((rule) => (rule.methods === null || rule.methods.has(method)) && rule.path.test(p));
}

/** The route's need, or undefined when no rule names it. `path` is one of the guard's forms of it (lower case). */
export function permissionFor(method: string, path: string): RouteNeed | undefined {
  return ruleFor(method, path)?.need;
}

/**
 * What a request needs, whichever way its path is read (`forms`: decoded whole, decoded by segment,
 * and as sent; src/server/request-path.ts): the needs of every route a form names, all of which the
 * caller must meet, since the router reaches one of them. A form that names no route is no route
 * (the router answers 404 there), so `/api/sessions/feature%2Flogin`, the session `feature/login`,
 * needs what that route needs although decoded whole it reads as a path no rule names. Empty when
 * no form names a route: refused to every token (deny by default).
 */
export function permissionsNeeded(method: string, forms: string[]): RouteNeed[] {
  const needs = new Set<RouteNeed>();
  for (const form of forms) {
    const need = permissionFor(method, form);
    if (need !== undefined) needs.add(need);
  }
  return [...needs];
}

const STRICTNESS: Record<Credential, number> = { instance: 1, admin: 2 };

/**
 * The owner's credential a request needs, whichever way its path is spelled: the strictest of what
 * the routes each form of the path names ask (`forms`: decoded, and as sent), since the router
 * reaches one of them. A path no form names is no route: the router answers 404.
 */
export function credentialNeeded(method: string, forms: string[]): Credential | null {
  let needed: Credential | null = null;
  for (const form of forms) {
    const credential = ruleFor(method, form)?.credential ?? null;
    if (credential && (needed === null || STRICTNESS[credential] > STRICTNESS[needed])) needed = credential;
  }
  return needed;
}
