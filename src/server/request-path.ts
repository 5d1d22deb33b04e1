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
export function foldedForm(path: string): string {
  return path.toLowerCase().replace(/\/{2,}/g, "/").replace(/\/$/, "");
}

/** The path as a router might read it: percent-decoded, then folded. */
export function looseForm(path: string): string {
  let p = path;
  try {
    p = decodeURIComponent(path);
  } catch {
    // undecodable: judge the raw form
  }
  return foldedForm(p);
}
