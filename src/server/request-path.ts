// A request's path from its URL, also when a malformed Host left Bun with a relative URL.
import { ENDPOINTS } from "../contracts/routes";

export const MCP_PATH = ENDPOINTS.mcp.path;

export function requestPath(url: string): string {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  return url.slice(start).split(/[?#]/, 1)[0]!;
}

/** /mcp reads its own body and answers in JSON-RPC; Elysia routes "/mcp/" to the same handler. */
export function isMcpPath(path: string): boolean {
  return path === MCP_PATH || path === `${MCP_PATH}/`;
}

/** The path as sent, folded as a router might: lower case, single slashes, no trailing one. */
function foldedForm(path: string): string {
  return path.toLowerCase().replace(/\/{2,}/g, "/").replace(/\/$/, "");
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // undecodable: judge the raw form
    return text;
  }
}

/** The path as a router might read it: percent-decoded, then folded. */
function looseForm(path: string): string {
  return foldedForm(decoded(path));
}

/**
 * The path as the router reads it: each segment percent-decoded on its own, so an encoded slash stays
 * inside its segment (`/api/sessions/feature%2Flogin` is the session `feature/login`, one parameter),
 * then folded. The loose form reads that slash as a separator, and so names another route or none.
 */
function segmentForm(path: string): string {
  return foldedForm(
    path
      .split("/")
      .map((segment) => decoded(segment).replaceAll("/", "%2f"))
      .join("/"),
  );
}

/**
 * Every way the guard reads a path, so that no spelling (percent-encoding, case, doubled or trailing
 * slashes) reaches a route without what that route needs: decoded whole, decoded by segment, and as sent.
 */
export function pathForms(path: string): string[] {
  return [...new Set([looseForm(path), segmentForm(path), foldedForm(path)])];
}
