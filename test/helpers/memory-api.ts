// Shared by the memory route tests (test/server/memory-*.test.ts): raw HTTP calls to a test daemon
// with the agent and provenance headers, the exact error and memory shapes, and small wrappers.
import { afterAll, beforeAll, expect } from "bun:test";
import { startTestDaemon, type TestDaemon } from "./daemon";

/** Starts a daemon before the enclosing file's (or describe's) tests and stops it after them. */
export function useTestDaemon(options?: Parameters<typeof startTestDaemon>[0]): () => TestDaemon {
  let td: TestDaemon | undefined;
  beforeAll(async () => {
    td = await startTestDaemon(options);
  });
  afterAll(async () => {
    await td?.stop();
  });
  return () => {
    if (!td) throw new Error("the test daemon has not started");
    return td;
  };
}

export interface Res {
  status: number;
  body: any;
  text: string;
  contentType: string | null;
}

interface CallOptions {
  body?: unknown;
  /** A raw body string, sent as is. */
  raw?: string;
  agent?: string;
  actor?: string;
  actorType?: string;
  headers?: Record<string, string>;
}

export async function call(td: TestDaemon, method: string, path: string, opts: CallOptions = {}): Promise<Res> {
  const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
  if (opts.agent) headers["x-signet-agent-id"] = opts.agent;
  if (opts.actor) headers["x-signet-actor"] = opts.actor;
  if (opts.actorType) headers["x-signet-actor-type"] = opts.actorType;
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
  }
  return readRes(await td.fetch(path, { method, headers, body }), method);
}

/** A response as the tests look at it: status, body parsed when it is JSON, the raw text. */
export async function readRes(res: Response, method: string): Promise<Res> {
  const text = method === "HEAD" ? "" : await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, contentType: res.headers.get("content-type") };
}

/** Every error is exactly {error, code} with the code's status (docs/api.md#errors). */
export function expectError(res: Res, status: number, code: string, mentions?: string | RegExp): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.contentType ?? "").toContain("application/json");
  expect(Object.keys(res.body).sort()).toEqual(["code", "error"]);
  expect(typeof res.body.error).toBe("string");
  expect(res.body.error.length).toBeGreaterThan(0);
  if (typeof mentions === "string") expect(res.body.error).toContain(mentions);
  else if (mentions) expect(res.body.error).toMatch(mentions);
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/**
 * Callers the request guard refuses (docs/security.md): another site's name with the daemon's port
 * in Host (DNS rebinding), a foreign Origin, and a cross-site fetch.
 */
export function forgedCallers(td: TestDaemon): Record<string, string>[] {
  const port = new URL(td.url).port;
  return [
    { host: `evil.example:${port}` },
    { origin: "http://evil.example" },
    { "sec-fetch-site": "cross-site" },
    // A page on another local port: the same site, and no Origin on an <img> or a no-cors GET.
    { "sec-fetch-site": "same-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" },
  ];
}

/** Each forged caller gets 403 for `method path` (with `body` sent as JSON); the body is never read. */
export async function expectForgedRefused(td: TestDaemon, method: string, path: string, body?: unknown): Promise<void> {
  const json = body === undefined ? undefined : JSON.stringify(body);
  const base: Record<string, string> = json ? { "content-type": "application/json" } : {};
  for (const forged of forgedCallers(td)) {
    const headers = { ...base, ...forged };
    const res = await td.fetch(path, { method, headers, body: json });
    expect({ path, headers, status: res.status }).toEqual({ path, headers, status: 403 });
    await res.body?.cancel();
  }
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MEMORY_KEYS = [
  "id",
  "content",
  "type",
  "importance",
  "tags",
  "pinned",
  "who",
  "project",
  "agentId",
  "source",
  "sessionKey",
  "hints",
  "transcript",
  "structured",
  "reviewAfter",
  "createdAt",
  "updatedAt",
  "version",
  "accessCount",
  "lastAccessedAt",
  "deletedAt",
  "deleteReason",
];

export function expectMemoryShape(m: any): void {
  for (const k of MEMORY_KEYS) expect(m).toHaveProperty(k);
  expect(m.id).toMatch(UUID_V4);
  expect(m.createdAt).toMatch(ISO_MS);
  expect(m.updatedAt).toMatch(ISO_MS);
  expect(Array.isArray(m.tags)).toBe(true);
  expect(Array.isArray(m.hints)).toBe(true);
  expect(typeof m.pinned).toBe("boolean");
  expect(typeof m.importance).toBe("number");
  expect(Number.isInteger(m.version)).toBe(true);
}

let agentCounter = 0;
/** A fresh agent id per test keeps tests independent on one daemon. */
export const freshAgent = (prefix = "agent") => `${prefix}-${++agentCounter}`;

export async function remember(td: TestDaemon, agent: string, body: Record<string, unknown>, actor?: string): Promise<any> {
  const res = await call(td, "POST", "/api/memory/remember", { body, agent, actor });
  if (res.status !== 201) throw new Error(`remember failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function list(td: TestDaemon, agent: string, query = ""): Promise<any> {
  const res = await call(td, "GET", `/api/memories${query ? `?${query}` : ""}`, { agent });
  if (res.status !== 200) throw new Error(`list failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function listIds(td: TestDaemon, agent: string, query = ""): Promise<string[]> {
  return (await list(td, agent, query)).memories.map((m: any) => m.id);
}
