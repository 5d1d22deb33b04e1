// The page's one way to the daemon: same-origin fetches through the guard, with the caller's agent id
// and, in team/hybrid mode, the API token the user typed (sessionStorage only: gone with the tab).
import { fillPath, paramCount, type Answer, type InputArgs, type Operation, type PathParams } from "../contracts/operation";
import type { Typed } from "../contracts/typed-routes";

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

export function setToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export function hasToken(): boolean {
  return sessionStorage.getItem(TOKEN_KEY) !== null;
}

/** Called when the daemon answers 401: the page asks for a token. */
let onUnauthorized: (message: string) => void = () => {};
export function whenUnauthorized(handler: (message: string) => void): void {
  onUnauthorized = handler;
}

async function request(method: string, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { "x-signet-agent-id": agentId(), "x-signet-actor": "dashboard", "x-signet-actor-type": "operator" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: text.slice(0, 200), code: "bad_response" };
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
