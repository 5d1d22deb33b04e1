// The page's one way to the daemon: same-origin fetches through the guard, with the caller's agent id
// and, in team/hybrid mode, the API token the user typed (sessionStorage only: gone with the tab).
import { fillPath, paramCount, type Answer, type InputArgs, type Operation, type PathParams } from "../contracts/operation";
import type { Typed } from "../contracts/typed-routes";
import { excerpt } from "./ui";

const TOKEN_KEY = "signet.token";
const AGENT_KEY = "signet.agent";

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function agentId(): string {
  return sessionStorage.getItem(AGENT_KEY) || "default";
}

export function setAgentId(id: string): void {
  if (id.trim()) sessionStorage.setItem(AGENT_KEY, id.trim());
  else sessionStorage.removeItem(AGENT_KEY);
}

/**
 * Why `token` cannot be an API token, or null. Tokens the daemon issues (and the admin token) are
 * visible ASCII; anything else could never be accepted, and a character outside Latin-1 cannot even
 * be sent (fetch refuses such a header value, so every request would fail before reaching the daemon).
 */
function tokenProblem(token: string): string | null {
  if (token === "") return "The token is empty.";
  const odd = Array.from(token).find((c) => c < "!" || c > "~");
  if (odd === undefined) return null;
  const shown = odd.trim() ? `"${odd}"` : `U+${odd.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  return `That is not an API token: it holds ${shown}, and tokens are letters, digits and ASCII punctuation only. Paste the token again.`;
}

/** Keeps the token for this tab; a token tokenProblem() refuses is not kept, and its problem is thrown. */
export function setToken(token: string | null): void {
  if (!token) {
    sessionStorage.removeItem(TOKEN_KEY);
    return;
  }
  const problem = tokenProblem(token);
  if (problem) throw new Error(problem);
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function hasToken(): boolean {
  return sessionStorage.getItem(TOKEN_KEY) !== null;
}

/** Called when the daemon answers 401: the page asks for a token. */
let onUnauthorized: (message: string) => void = () => {};
export function whenUnauthorized(handler: (message: string) => void): void {
  onUnauthorized = handler;
}

/** Brings up the sign-in form with `message`, as a 401 does: for a change that needs another credential. */
export function askForSignIn(message: string): void {
  onUnauthorized(message);
}

/**
 * The stored token, when it can be sent. One that cannot (stored before the check existed, or by
 * hand) is dropped, and the sign-in form comes back saying why, instead of every request failing.
 */
function sendableToken(method: string, path: string): string | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const problem = token === null ? null : tokenProblem(token);
  if (problem === null) return token;
  sessionStorage.removeItem(TOKEN_KEY);
  const message = `The token kept in this tab was dropped. ${problem}`;
  onUnauthorized(message);
  throw new ApiError(401, "unauthorized", `${method} ${path}: ${message}`);
}

async function request(method: string, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { "x-signet-agent-id": agentId(), "x-signet-actor": "dashboard", "x-signet-actor-type": "operator" };
  const token = sendableToken(method, path);
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: excerpt(text, 200), code: "bad_response" };
  }
  if (!response.ok) {
    const err = data as { error?: string; code?: string } | null;
    const failure = new ApiError(response.status, err?.code ?? "error", err?.error ?? `${method} ${path}: HTTP ${response.status}`);
    if (response.status === 401) onUnauthorized(failure.message);
    throw failure;
  }
  return data;
}

/** A query string from the defined, non-empty values. */
function queryString(params: Record<string, unknown> | undefined): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** Calls an operation of the API at its route (TYPED_ROUTES): its path parameters, then its body or query. */
export async function call<O extends Operation>(op: Typed<O>, ...args: [...PathParams<O["path"]>, ...InputArgs<O>]): Promise<Answer<O>> {
  const n = paramCount(op.path);
  const input = args[n] as Record<string, unknown> | undefined;
  const path = fillPath(op.path, args.slice(0, n) as string[]) + (op.takes === "query" ? queryString(input) : "");
  return (await request(op.method, path, op.takes === "body" ? input : undefined)) as Answer<O>;
}
