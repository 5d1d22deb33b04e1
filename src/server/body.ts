// Reading request bodies: streamed with a byte limit (so an oversized chunked body is refused without
// being buffered; the request guard has checked the content type), parsed as JSON, with lone UTF-16 surrogates
// made well-formed so what we answer is exactly what SQLite stores.
import { textNestsDeeperThan } from "../contracts/json-bounds";
import { SignetError } from "../contracts/errors";
import { readUpTo } from "../os/bounded-read";

/**
 * JSON.parse copes with any depth, but the recursive code after it (validators, JSON.stringify) runs
 * out of stack some thousands of levels down. No request needs more than a few dozen levels (a
 * memory's `structured` allows 32); the rest is generous room for bridged tools' arguments.
 */
const MAX_BODY_DEPTH = 512;

export function tooLarge(limit: number): SignetError {
  return new SignetError("too_large", `request body is larger than the ${limit}-byte limit (daemon.maxBodyBytes)`);
}

/** JSON escapes of UTF-16 surrogates: only these can put a lone surrogate into a parsed string. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** What readJsonBody gives for a request without a body (or an empty one): JSON `null` is a body, and is refused where an object is wanted. */
export const NO_BODY: unique symbol = Symbol("no body");

/** The parsed JSON body, or NO_BODY when there is none. */

export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  if (!request.body) return NO_BODY;
  // A declared length was checked against the limit already: read it in one go. Otherwise stream.
  const declared = request.headers.get("content-length");
  const bytes = declared !== null ? new Uint8Array(await request.arrayBuffer()) : await readUpTo(request.body, limit);
  if (bytes === null || bytes.byteLength > limit) throw tooLarge(limit);
  if (bytes.byteLength === 0) return NO_BODY;
  if (textNestsDeeperThan(bytes, MAX_BODY_DEPTH)) {
    throw new SignetError("invalid_input", `request body is nested deeper than ${MAX_BODY_DEPTH} levels`);
  }
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === "") return NO_BODY;
  try {
    if (!SURROGATE_ESCAPE.test(text)) return JSON.parse(text);
    return JSON.parse(text, (_key, value: unknown) => (typeof value === "string" ? value.toWellFormed() : value));
  } catch (err) {
    throw new SignetError("invalid_input", `request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** Where the path begins in an absolute URL (-1 when it has none). */
function pathStart(url: string): number {
  return url.indexOf("/", url.indexOf("//") + 2);
}

/**
 * Elysia finds the path with `url.indexOf("/", 11)`, which misroutes requests whose Host is shorter
 * than four characters; such requests get a placeholder host in the URL (headers are untouched).
 */
export function routable(request: Request): Request {
  const url = request.url;
  if (pathStart(url) >= 11) return request;
  const parsed = new URL(url);
  return new Request(`${parsed.protocol}//short-host.invalid${parsed.pathname}${parsed.search}`, request);
}
