// Every memory route over real HTTP against a real daemon (temp SQLite, free loopback port):
// success and error paths, filters, versions, soft delete/recover, agent scoping and sharing,
// exact error bodies, and the atomicity of each write across rows, tags, history and the FTS index.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "../../src/client/client";
import { SignetError } from "../../src/contracts/errors";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { databasePath } from "../../src/config/paths";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";

// ---------------------------------------------------------------------------------------------
// helpers

interface Res {
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

async function call(td: TestDaemon, method: string, path: string, opts: CallOptions = {}): Promise<Res> {
  const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
  if (opts.agent) headers["x-signet-agent-id"] = opts.agent;
  if (opts.actor) headers["x-signet-actor"] = opts.actor;
  if (opts.actorType) headers["x-signet-actor-type"] = opts.actorType;
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
  }
  const res = await td.fetch(path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, contentType: res.headers.get("content-type") };
}

/** SPEC §3: every error is exactly {error, code} with the code's status. */
function expectError(res: Res, status: number, code: string, mentions?: string | RegExp): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.contentType ?? "").toContain("application/json");
  expect(Object.keys(res.body).sort()).toEqual(["code", "error"]);
  expect(typeof res.body.error).toBe("string");
  expect(res.body.error.length).toBeGreaterThan(0);
  if (typeof mentions === "string") expect(res.body.error).toContain(mentions);
  else if (mentions) expect(res.body.error).toMatch(mentions);
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
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

function expectMemoryShape(m: any): void {
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
const freshAgent = (prefix = "agent") => `${prefix}-${++agentCounter}`;

async function remember(td: TestDaemon, agent: string, body: Record<string, unknown>, actor?: string): Promise<any> {
  const res = await call(td, "POST", "/api/memory/remember", { body, agent, actor });
  if (res.status !== 201) throw new Error(`remember failed: ${res.status} ${res.text}`);
  return res.body;
}

async function list(td: TestDaemon, agent: string, query = ""): Promise<any> {
  const res = await call(td, "GET", `/api/memories${query ? `?${query}` : ""}`, { agent });
  if (res.status !== 200) throw new Error(`list failed: ${res.status} ${res.text}`);
  return res.body;
}

async function listIds(td: TestDaemon, agent: string, query = ""): Promise<string[]> {
  return (await list(td, agent, query)).memories.map((m: any) => m.id);
}

// ---------------------------------------------------------------------------------------------

let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon();
});

afterAll(async () => {
  await td?.stop();
});

describe("POST /api/memory/remember", () => {
  test("201 with the full memory shape and defaults", async () => {
    const agent = freshAgent();
    const before = Date.now();
    const res = await call(td, "POST", "/api/memory/remember", {
      body: { content: "The build uses Bun" },
      agent,
      actor: "unit-test-actor",
    });
    expect(res.status).toBe(201);
    expect(res.contentType ?? "").toContain("application/json");
    const m = res.body;
    expectMemoryShape(m);
    expect(m.content).toBe("The build uses Bun");
    expect(m.type).toBe("fact");
    expect(m.importance).toBe(0.5);
    expect(m.tags).toEqual([]);
    expect(m.pinned).toBe(false);
    expect(m.project).toBeNull();
    expect(m.agentId).toBe(agent);
    expect(m.source).toBe("unit-test-actor");
    expect(m.sessionKey).toBeNull();
    expect(m.hints).toEqual([]);
    expect(m.transcript).toBeNull();
    expect(m.structured).toBeNull();
    expect(m.reviewAfter).toBeNull();
    expect(m.version).toBe(1);
    expect(m.accessCount).toBe(0);
    expect(m.lastAccessedAt).toBeNull();
    expect(m.deletedAt).toBeNull();
    expect(m.deleteReason).toBeNull();
    expect(m.deduped).toBe(false);
    const created = Date.parse(m.createdAt);
    expect(created).toBeGreaterThanOrEqual(before - 5);
    expect(created).toBeLessThanOrEqual(Date.now() + 5);
  });

  test("every optional field is stored and returned (in the 201 and on GET)", async () => {
    const agent = freshAgent();
    const body = {
      content: "Prefer small focused commits",
      type: "preference",
      importance: 0.9,
      tags: ["git", "style"],
      pinned: true,
      who: "alice",
      project: "/work/signet",
      sessionKey: "session-123",
      hints: ["how should I commit?", "commit size"],
      transcript: "user: keep commits small\nassistant: ok",
      structured: { entity: "commits", attribute: "size", value: "small", nested: { n: [1, 2, 3] } },
      reviewAfter: "2031-06-01T12:00:00Z",
      createdAt: "2024-03-04T05:06:07.089Z",
    };
    const created = await remember(td, agent, body);
    const got = (await call(td, "GET", `/api/memory/${created.id}`, { agent })).body;
    for (const m of [created, got]) {
      expect(m.content).toBe(body.content);
      expect(m.type).toBe("preference");
      expect(m.importance).toBe(0.9);
      expect(m.tags).toEqual(["git", "style"]);
      expect(m.pinned).toBe(true);
      expect(m.who).toBe("alice");
      expect(m.project).toBe("/work/signet");
      expect(m.sessionKey).toBe("session-123");
      expect(m.hints).toEqual(body.hints);
      expect(m.transcript).toBe(body.transcript);
      expect(m.structured).toEqual(body.structured);
      expect(m.reviewAfter).toBe("2031-06-01T12:00:00.000Z");
      expect(m.createdAt).toBe("2024-03-04T05:06:07.089Z");
    }
  });

  test("tags given as a comma-separated string come back as an array", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "tags as a string", tags: "alpha, beta ,gamma" });
    expect(m.tags).toEqual(["alpha", "beta", "gamma"]);
    const got = (await call(td, "GET", `/api/memory/${m.id}`, { agent })).body;
    expect(got.tags).toEqual(["alpha", "beta", "gamma"]);
  });

  test("tags are a set: duplicates collapse", async () => {
    const m = await remember(td, freshAgent(), { content: "dup tags", tags: ["x", "y", "x"] });
    expect(m.tags).toEqual(["x", "y"]);
    const m2 = await remember(td, freshAgent(), { content: "dup tags str", tags: "x,x, y" });
    expect(m2.tags).toEqual(["x", "y"]);
  });

  test("createdAt for imports is normalized to UTC with milliseconds", async () => {
    const m = await remember(td, freshAgent(), { content: "imported", createdAt: "2020-05-01T10:00:00+02:00" });
    expect(m.createdAt).toBe("2020-05-01T08:00:00.000Z");
    const d = await remember(td, freshAgent(), { content: "imported date only", createdAt: "2020-05-01" });
    expect(d.createdAt).toBe("2020-05-01T00:00:00.000Z");
  });

  test("createdAt in the future -> 400 invalid_input naming createdAt", async () => {
    const agent = freshAgent();
    const future = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const res = await call(td, "POST", "/api/memory/remember", { body: { content: "from the future", createdAt: future }, agent });
    expectError(res, 400, "invalid_input", "createdAt");
    expect((await list(td, agent)).memories).toEqual([]);
  });

  test("source is the x-signet-actor header (typed client sends 'test')", async () => {
    const m = await td.client(freshAgent()).memory.remember({ content: "via the typed client" });
    expect(m.source).toBe("test");
  });

  test("validation errors name the field", async () => {
    const agent = freshAgent();
    const cases: [unknown, string][] = [
      [{}, "content"],
      [{ content: "" }, "content"],
      [{ content: "   " }, "content"],
      [{ content: "x".repeat(100_001) }, "content"],
      [{ content: "ok", importance: 1.5 }, "importance"],
      [{ content: "ok", importance: -0.1 }, "importance"],
      [{ content: "ok", type: "Not A Type!" }, "type"],
      [{ content: "ok", tags: ["has,comma"] }, "tags"],
      [{ content: "ok", tags: ["x".repeat(101)] }, "tags"],
      [{ content: "ok", tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }, "tags"],
      [{ content: "ok", reviewAfter: "next tuesday" }, "reviewAfter"],
      [{ content: "ok", createdAt: "2024-13-45" }, "createdAt"],
      [{ content: "ok", agentId: "bad agent id" }, "agentId"],
      [{ content: "ok", colour: "blue" }, "colour"],
    ];
    for (const [body, field] of cases) {
      const res = await call(td, "POST", "/api/memory/remember", { body, agent });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expectError(res, 400, "invalid_input", field);
    }
    expect((await list(td, agent)).memories).toEqual([]);
  });

  test("an impossible calendar date (Feb 30) is rejected, not rolled over to March", async () => {
    const agent = freshAgent();
    for (const body of [
      { content: "feb 30 import", createdAt: "2024-02-30" },
      { content: "feb 31 review", reviewAfter: "2030-02-31T10:00:00Z" },
    ]) {
      const res = await call(td, "POST", "/api/memory/remember", { body, agent });
      expectError(res, 400, "invalid_input", Object.keys(body)[1]!);
    }
  });
});

describe("dedupe", () => {
  test("same normalized content (case, whitespace, trailing punctuation) -> 200, same id, deduped:true", async () => {
    const agent = freshAgent();
    const first = await remember(td, agent, { content: "Use Bun for tests", project: "p1" });
    expect(first.deduped).toBe(false);
    for (const variant of ["use bun for tests", "  USE   Bun\tfor\ntests  ", "Use Bun for tests.", "use bun for tests!!!", "Use Bun for tests ?"]) {
      const res = await call(td, "POST", "/api/memory/remember", { body: { content: variant, project: "p1" }, agent });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(first.id);
      expect(res.body.deduped).toBe(true);
      // The stored memory is the original one, untouched.
      expect(res.body.content).toBe("Use Bun for tests");
      expect(res.body.version).toBe(1);
    }
    expect((await list(td, agent)).memories.length).toBe(1);
  });

  test("a different project makes a new memory", async () => {
    const agent = freshAgent();
    const a = await remember(td, agent, { content: "same words", project: "p1" });
    const b = await remember(td, agent, { content: "same words", project: "p2" });
    const c = await remember(td, agent, { content: "same words" });
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect((await list(td, agent)).memories.length).toBe(3);
  });

  test("a different agent makes a new memory", async () => {
    const a = await remember(td, freshAgent(), { content: "shared fact" });
    const b = await remember(td, freshAgent(), { content: "shared fact" });
    expect(b.id).not.toBe(a.id);
    expect(b.deduped).toBe(false);
  });

  test("internal punctuation is not folded", async () => {
    const agent = freshAgent();
    const a = await remember(td, agent, { content: "use bun, not npm" });
    const b = await remember(td, agent, { content: "use bun not npm" });
    expect(b.id).not.toBe(a.id);
  });

  test("dedupe against a forgotten memory creates a new one", async () => {
    const agent = freshAgent();
    const a = await remember(td, agent, { content: "ephemeral thought" });
    expect((await call(td, "DELETE", `/api/memory/${a.id}`, { body: { reason: "wrong" }, agent })).status).toBe(200);
    const res = await call(td, "POST", "/api/memory/remember", { body: { content: "Ephemeral thought." }, agent });
    expect(res.status).toBe(201);
    expect(res.body.deduped).toBe(false);
    expect(res.body.id).not.toBe(a.id);
  });

  test("concurrent identical remembers make exactly one memory", async () => {
    const agent = freshAgent();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call(td, "POST", "/api/memory/remember", { body: { content: "race me" }, agent })),
    );
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.status === 201).length).toBe(1);
    expect(results.filter((r) => r.status === 200 && r.body.deduped === true).length).toBe(19);
  });
});

describe("POST /api/memory/note", () => {
  test("stores a memory of type note with source codex-native-note", async () => {
    const agent = freshAgent();
    const res = await call(td, "POST", "/api/memory/note", {
      body: { content: "remember to run the migrations", title: "Ops", tags: "ops,db" },
      agent,
      actor: "someone-else",
    });
    expect(res.status).toBe(201);
    expectMemoryShape(res.body);
    expect(res.body.type).toBe("note");
    expect(res.body.source).toBe("codex-native-note");
    expect(res.body.content).toContain("remember to run the migrations");
    expect(res.body.content).toContain("Ops");
    expect(res.body.tags).toEqual(["ops", "db"]);
    expect(res.body.agentId).toBe(agent);
    const got = await call(td, "GET", `/api/memory/${res.body.id}`, { agent });
    expect(got.body.type).toBe("note");
  });

  test("content of exactly 8000 characters is accepted", async () => {
    const res = await call(td, "POST", "/api/memory/note", { body: { content: "n".repeat(8000) }, agent: freshAgent() });
    expect(res.status).toBe(201);
    expect(res.body.content.length).toBe(8000);
  });

  test("content over 8000 characters -> 400 invalid_input naming content", async () => {
    const agent = freshAgent();
    const res = await call(td, "POST", "/api/memory/note", { body: { content: "n".repeat(8001) }, agent });
    expectError(res, 400, "invalid_input", "content");
    expect((await list(td, agent)).memories).toEqual([]);
  });

  test("missing content, wrong types and unknown fields -> 400", async () => {
    const agent = freshAgent();
    expectError(await call(td, "POST", "/api/memory/note", { body: {}, agent }), 400, "invalid_input", "content");
    expectError(await call(td, "POST", "/api/memory/note", { body: { content: "x", title: 5 }, agent }), 400, "invalid_input", "title");
    expectError(await call(td, "POST", "/api/memory/note", { body: { content: "x", type: "fact" }, agent }), 400, "invalid_input", "type");
  });
});

describe("GET /api/memory/:id and /history", () => {
  test("returns the memory with its history inline", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "history inline", tags: ["h"] }, "creator");
    const res = await call(td, "GET", `/api/memory/${m.id}`, { agent });
    expect(res.status).toBe(200);
    expectMemoryShape(res.body);
    expect(res.body.id).toBe(m.id);
    expect(res.body.history).toHaveLength(1);
    const h = res.body.history[0];
    expect(h).toMatchObject({ version: 1, action: "create", content: "history inline", type: "fact", tags: ["h"], pinned: false, agentId: agent, actor: "creator" });
    expect(h.createdAt).toMatch(ISO_MS);
  });

  test("GET /history returns the history alone", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "history alone" });
    const full = await call(td, "GET", `/api/memory/${m.id}`, { agent });
    const res = await call(td, "GET", `/api/memory/${m.id}/history`, { agent });
    expect(res.status).toBe(200);
    expect(res.body.memoryId).toBe(m.id);
    expect(res.body.history).toEqual(full.body.history);
    expect(res.body).not.toHaveProperty("content");
  });

  test("an unknown id -> 404 not_found", async () => {
    const id = crypto.randomUUID();
    expectError(await call(td, "GET", `/api/memory/${id}`), 404, "not_found", id);
    expectError(await call(td, "GET", `/api/memory/${id}/history`), 404, "not_found");
  });

  test("the typed client maps 404 to ApiError not_found", async () => {
    const err = await td.client(freshAgent()).memory.get(crypto.randomUUID()).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect((err as ApiError).code).toBe("not_found");
  });
});

describe("GET /api/memories", () => {
  test("newest first, deleted excluded", async () => {
    const agent = freshAgent();
    const old = await remember(td, agent, { content: "oldest", createdAt: "2023-01-01T00:00:00Z" });
    const a = await remember(td, agent, { content: "first now" });
    const b = await remember(td, agent, { content: "second now" });
    const c = await remember(td, agent, { content: "third now" });
    const mid = await remember(td, agent, { content: "middle", createdAt: "2024-01-01T00:00:00Z" });
    expect(await listIds(td, agent)).toEqual([c.id, b.id, a.id, mid.id, old.id]);
    await call(td, "DELETE", `/api/memory/${b.id}`, { body: { reason: "gone" }, agent });
    expect(await listIds(td, agent)).toEqual([c.id, a.id, mid.id, old.id]);
  });

  test("response shape: memories, limit, offset, hasMore", async () => {
    const agent = freshAgent();
    await remember(td, agent, { content: "shape" });
    const body = await list(td, agent);
    expect(Object.keys(body).sort()).toEqual(["hasMore", "limit", "memories", "offset"]);
    expect(body.limit).toBe(100);
    expect(body.offset).toBe(0);
    expect(body.hasMore).toBe(false);
    expectMemoryShape(body.memories[0]);
  });

  test("filter: type", async () => {
    const agent = freshAgent();
    const f = await remember(td, agent, { content: "a fact" });
    const d = await remember(td, agent, { content: "a decision", type: "decision" });
    expect(await listIds(td, agent, "type=decision")).toEqual([d.id]);
    expect(await listIds(td, agent, "type=fact")).toEqual([f.id]);
    expect(await listIds(td, agent, "type=rule")).toEqual([]);
  });

  test("filter: tags all-of, exact, never substring", async () => {
    const agent = freshAgent();
    const bun = await remember(td, agent, { content: "bun only", tags: ["bun"] });
    const bunx = await remember(td, agent, { content: "bunx only", tags: ["bunx"] });
    const both = await remember(td, agent, { content: "bun and test", tags: ["bun", "test"] });
    const testOnly = await remember(td, agent, { content: "test only", tags: ["test"] });
    await remember(td, agent, { content: "untagged" });
    expect((await listIds(td, agent, "tags=bun")).sort()).toEqual([bun.id, both.id].sort());
    expect(await listIds(td, agent, "tags=bunx")).toEqual([bunx.id]);
    expect(await listIds(td, agent, "tags=bu")).toEqual([]);
    expect(await listIds(td, agent, "tags=un")).toEqual([]);
    expect(await listIds(td, agent, "tags=bun%2Ctest")).toEqual([both.id]);
    expect(await listIds(td, agent, "tags=test,%20bun")).toEqual([both.id]);
    expect((await listIds(td, agent, "tags=test")).sort()).toEqual([both.id, testOnly.id].sort());
    expect(await listIds(td, agent, "tags=bun,bunx")).toEqual([]);
    // Case matters: tags are matched exactly.
    expect(await listIds(td, agent, "tags=BUN")).toEqual([]);
  });

  test("filter: project", async () => {
    const agent = freshAgent();
    const p1 = await remember(td, agent, { content: "in p1", project: "/repo/one" });
    await remember(td, agent, { content: "in p2", project: "/repo/two" });
    await remember(td, agent, { content: "no project" });
    expect(await listIds(td, agent, `project=${encodeURIComponent("/repo/one")}`)).toEqual([p1.id]);
    expect(await listIds(td, agent, "project=%2Frepo")).toEqual([]);
  });

  test("filter: who", async () => {
    const agent = freshAgent();
    const alice = await remember(td, agent, { content: "alice said", who: "alice" });
    await remember(td, agent, { content: "bob said", who: "bob" });
    expect(await listIds(td, agent, "who=alice")).toEqual([alice.id]);
    expect(await listIds(td, agent, "who=ali")).toEqual([]);
  });

  test("filter: since and until (inclusive, any ISO form)", async () => {
    const agent = freshAgent();
    const jan = await remember(td, agent, { content: "january", createdAt: "2024-01-01T00:00:00Z" });
    const feb = await remember(td, agent, { content: "february", createdAt: "2024-02-01T00:00:00Z" });
    const mar = await remember(td, agent, { content: "march", createdAt: "2024-03-01T00:00:00Z" });
    expect(await listIds(td, agent, "since=2024-02-01T00:00:00Z")).toEqual(expect.arrayContaining([feb.id, mar.id]));
    expect(await listIds(td, agent, "since=2024-02-01T00:00:00Z")).not.toContain(jan.id);
    expect(await listIds(td, agent, "until=2024-02-01T00:00:00.000Z")).toEqual([feb.id, jan.id]);
    expect(await listIds(td, agent, "since=2024-01-15&until=2024-02-15")).toEqual([feb.id]);
    // An offset zone is converted to UTC before comparing: 01:00+02:00 is 2024-01-31T23:00Z.
    expect(await listIds(td, agent, `since=${encodeURIComponent("2024-02-01T01:00:00+02:00")}&until=2024-02-28`)).toEqual([feb.id]);
    expect(await listIds(td, agent, "until=2023-12-31")).toEqual([]);
  });

  test("filter: pinned", async () => {
    const agent = freshAgent();
    const pinned = await remember(td, agent, { content: "pinned one", pinned: true });
    const loose = await remember(td, agent, { content: "loose one" });
    expect(await listIds(td, agent, "pinned=true")).toEqual([pinned.id]);
    expect(await listIds(td, agent, "pinned=1")).toEqual([pinned.id]);
    expect(await listIds(td, agent, "pinned=false")).toEqual([loose.id]);
    expect(await listIds(td, agent, "pinned=0")).toEqual([loose.id]);
  });

  test("filters combine", async () => {
    const agent = freshAgent();
    const hit = await remember(td, agent, { content: "combined hit", type: "rule", tags: ["a"], project: "p", who: "w", pinned: true });
    await remember(td, agent, { content: "combined miss 1", type: "rule", tags: ["a"], project: "p", who: "w" });
    await remember(td, agent, { content: "combined miss 2", type: "fact", tags: ["a"], project: "p", who: "w", pinned: true });
    expect(await listIds(td, agent, "type=rule&tags=a&project=p&who=w&pinned=true")).toEqual([hit.id]);
  });

  test("limit defaults to 100, offset pages, hasMore tells when more remain", async () => {
    const agent = freshAgent();
    const made: string[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const rs = await Promise.all(
        Array.from({ length: 21 }, (_, i) =>
          remember(td, agent, { content: `bulk memory ${batch * 21 + i}`, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, batch * 21 + i)).toISOString() }),
        ),
      );
      made.push(...rs.map((m) => m.id));
    }
    expect(made.length).toBe(105);
    const newestFirst = [...made].reverse();
    const first = await list(td, agent);
    expect(first.memories.length).toBe(100);
    expect(first.limit).toBe(100);
    expect(first.hasMore).toBe(true);
    expect(first.memories.map((m: any) => m.id)).toEqual(newestFirst.slice(0, 100));
    const rest = await list(td, agent, "offset=100");
    expect(rest.memories.map((m: any) => m.id)).toEqual(newestFirst.slice(100));
    expect(rest.hasMore).toBe(false);
    expect(rest.offset).toBe(100);
    const page = await list(td, agent, "limit=10&offset=20");
    expect(page.memories.map((m: any) => m.id)).toEqual(newestFirst.slice(20, 30));
    expect(page.hasMore).toBe(true);
    const exact = await list(td, agent, "limit=5&offset=100");
    expect(exact.memories.length).toBe(5);
    expect(exact.hasMore).toBe(false);
    const big = await list(td, agent, "limit=1000");
    expect(big.memories.length).toBe(105);
    expect(big.limit).toBe(1000);
    expect(big.hasMore).toBe(false);
    expect((await list(td, agent, "offset=500")).memories).toEqual([]);
  });

  test("limit over 1000 and other bad query values -> 400 naming the parameter", async () => {
    const agent = freshAgent();
    const cases: [string, string][] = [
      ["limit=1001", "limit"],
      ["limit=0", "limit"],
      ["limit=-1", "limit"],
      ["limit=abc", "limit"],
      ["limit=1.5", "limit"],
      ["offset=-1", "offset"],
      ["offset=x", "offset"],
      ["since=yesterday", "since"],
      ["until=2024-99-99", "until"],
      ["pinned=maybe", "pinned"],
      ["type=NOT%20A%20TYPE", "type"],
      ["agent_id=bad%20agent", "agent_id"],
      ["colour=blue", "colour"],
    ];
    for (const [query, field] of cases) {
      expectError(await call(td, "GET", `/api/memories?${query}`, { agent }), 400, "invalid_input", field);
    }
  });
});

describe("PATCH /api/memory/:id", () => {
  test("writes a new version; history keeps the old content with actor and reason", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "original content", tags: ["v1"] }, "creator");
    const res = await call(td, "PATCH", `/api/memory/${m.id}`, {
      body: { reason: "it changed", content: "updated content", tags: "v2,extra", importance: 0.8, type: "decision" },
      agent,
      actor: "reviewer-bot",
      actorType: "agent",
    });
    expect(res.status).toBe(200);
    expectMemoryShape(res.body);
    expect(res.body).toMatchObject({ id: m.id, content: "updated content", tags: ["v2", "extra"], importance: 0.8, type: "decision", version: 2 });
    expect(res.body.createdAt).toBe(m.createdAt);
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(m.updatedAt));
    const got = (await call(td, "GET", `/api/memory/${m.id}`, { agent })).body;
    expect(got.content).toBe("updated content");
    expect(got.version).toBe(2);
    expect(got.history).toHaveLength(2);
    expect(got.history[0]).toMatchObject({ version: 1, action: "create", content: "original content", tags: ["v1"], actor: "creator" });
    expect(got.history[1]).toMatchObject({
      version: 2,
      action: "modify",
      content: "updated content",
      actor: "reviewer-bot",
      actorType: "agent",
      reason: "it changed",
    });
  });

  test("pinned can be set and cleared", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "pin me" });
    const pinned = await call(td, "PATCH", `/api/memory/${m.id}`, { body: { reason: "important", pinned: true }, agent });
    expect(pinned.body.pinned).toBe(true);
    expect(await listIds(td, agent, "pinned=true")).toEqual([m.id]);
    const unpinned = await call(td, "PATCH", `/api/memory/${m.id}`, { body: { reason: "not anymore", pinned: false }, agent });
    expect(unpinned.body.pinned).toBe(false);
    expect(unpinned.body.version).toBe(3);
  });

  test("changing tags changes what the tags filter matches", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "retag me", tags: ["old"] });
    await call(td, "PATCH", `/api/memory/${m.id}`, { body: { reason: "retag", tags: ["new"] }, agent });
    expect(await listIds(td, agent, "tags=old")).toEqual([]);
    expect(await listIds(td, agent, "tags=new")).toEqual([m.id]);
  });

  test("ifVersion matching the current version succeeds", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "versioned" });
    const res = await call(td, "PATCH", `/api/memory/${m.id}`, { body: { reason: "r", content: "versioned 2", ifVersion: 1 }, agent });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(2);
  });

  test("ifVersion mismatch -> 409 version_conflict and nothing changes", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "contended" });
    await call(td, "PATCH", `/api/memory/${m.id}`, { body: { reason: "first", content: "contended v2" }, agent });
    const res = await call(td, "PATCH", `/api/memory/${m.id}`, { body: { reason: "stale", content: "contended v3", ifVersion: 1 }, agent });
    expectError(res, 409, "version_conflict");
    const got = (await call(td, "GET", `/api/memory/${m.id}`, { agent })).body;
    expect(got.content).toBe("contended v2");
    expect(got.history).toHaveLength(2);
  });

  test("missing or blank reason -> 400 naming reason", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "needs a reason" });
    expectError(await call(td, "PATCH", `/api/memory/${m.id}`, { body: { content: "x" }, agent }), 400, "invalid_input", "reason");
    expectError(await call(td, "PATCH", `/api/memory/${m.id}`, { body: { content: "x", reason: "   " }, agent }), 400, "invalid_input", "reason");
    expect((await call(td, "GET", `/api/memory/${m.id}`, { agent })).body.version).toBe(1);
  });

  test("nothing to change -> 400", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "unchanged" });
    expectError(await call(td, "PATCH", `/api/memory/${m.id}`, { body: { reason: "no-op" }, agent }), 400, "invalid_input", /nothing to change/i);
  });

  test("invalid fields -> 400 naming the field", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "bad patch" });
    const cases: [unknown, string][] = [
      [{ reason: "r", importance: 2 }, "importance"],
      [{ reason: "r", content: "" }, "content"],
      [{ reason: "r", type: "Bad Type" }, "type"],
      [{ reason: "r", ifVersion: 0 }, "ifVersion"],
      [{ reason: "r", pinned: true, createdAt: "2020-01-01" }, "createdAt"],
      [{ reason: "r", pinned: true, project: "p" }, "project"],
    ];
    for (const [body, field] of cases) {
      expectError(await call(td, "PATCH", `/api/memory/${m.id}`, { body, agent }), 400, "invalid_input", field);
    }
  });

  test("modifying a forgotten memory -> 409 deleted", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "forgotten then modified" });
    await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "bye" }, agent });
    const res = await call(td, "PATCH", `/api/memory/${m.id}`, { body: { reason: "try", content: "zombie" }, agent });
    expectError(res, 409, "deleted");
    expect((await call(td, "GET", `/api/memory/${m.id}`, { agent })).body.content).toBe("forgotten then modified");
  });

  test("an unknown id -> 404", async () => {
    expectError(await call(td, "PATCH", `/api/memory/${crypto.randomUUID()}`, { body: { reason: "r", pinned: true } }), 404, "not_found");
  });
});

describe("DELETE /api/memory/:id", () => {
  test("soft delete: excluded from the list; GET still shows deletedAt and deleteReason", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "to be forgotten" });
    const res = await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "outdated" }, agent, actor: "janitor" });
    expect(res.status).toBe(200);
    expect(res.body.deletedAt).toMatch(ISO_MS);
    expect(res.body.deleteReason).toBe("outdated");
    expect(await listIds(td, agent)).not.toContain(m.id);
    const got = await call(td, "GET", `/api/memory/${m.id}`, { agent });
    expect(got.status).toBe(200);
    expect(got.body.content).toBe("to be forgotten");
    expect(got.body.deletedAt).toBe(res.body.deletedAt);
    expect(got.body.deleteReason).toBe("outdated");
    const last = got.body.history.at(-1);
    expect(last).toMatchObject({ action: "forget", reason: "outdated", actor: "janitor" });
  });

  test("a pinned memory without force -> 409 pinned telling to unpin first; still listed", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "pinned memory", pinned: true });
    const res = await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "try" }, agent });
    expectError(res, 409, "pinned", /unpin/i);
    expect(await listIds(td, agent)).toContain(m.id);
    const res2 = await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "try", force: false }, agent });
    expectError(res2, 409, "pinned");
  });

  test("a pinned memory with force is forgotten", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "force forget me", pinned: true });
    const res = await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "operator", force: true }, agent });
    expect(res.status).toBe(200);
    expect(res.body.deletedAt).not.toBeNull();
    expect(await listIds(td, agent)).not.toContain(m.id);
  });

  test("an already forgotten memory -> 409 deleted", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "twice forgotten" });
    await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "once" }, agent });
    expectError(await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "twice" }, agent }), 409, "deleted");
  });

  test("missing reason or body -> 400; unknown id -> 404", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "needs a reason to go" });
    expectError(await call(td, "DELETE", `/api/memory/${m.id}`, { body: {}, agent }), 400, "invalid_input", "reason");
    expectError(await call(td, "DELETE", `/api/memory/${m.id}`, { agent }), 400, "invalid_input");
    expectError(await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "r", force: "yes" }, agent }), 400, "invalid_input", "force");
    expect(await listIds(td, agent)).toContain(m.id);
    expectError(await call(td, "DELETE", `/api/memory/${crypto.randomUUID()}`, { body: { reason: "r" }, agent }), 404, "not_found");
  });
});

describe("POST /api/memory/:id/recover", () => {
  test("brings a forgotten memory back; history has forget and recover entries", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "lost and found" });
    await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "mistake?" }, agent });
    const res = await call(td, "POST", `/api/memory/${m.id}/recover`, { body: { reason: "it was right" }, agent, actor: "restorer" });
    expect(res.status).toBe(200);
    expect(res.body.deletedAt).toBeNull();
    expect(res.body.deleteReason).toBeNull();
    expect(await listIds(td, agent)).toContain(m.id);
    const history = (await call(td, "GET", `/api/memory/${m.id}/history`, { agent })).body.history;
    expect(history.map((h: any) => h.action)).toEqual(["create", "forget", "recover"]);
    expect(history[1].reason).toBe("mistake?");
    expect(history[2]).toMatchObject({ action: "recover", reason: "it was right", actor: "restorer" });
    // Versions keep increasing.
    expect(history.map((h: any) => h.version)).toEqual([1, 2, 3]);
  });

  test("works without a body", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "recover without body" });
    await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "x" }, agent });
    const res = await call(td, "POST", `/api/memory/${m.id}/recover`, { agent });
    expect(res.status).toBe(200);
    expect(await listIds(td, agent)).toContain(m.id);
  });

  test("a recovered memory dedupes again", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "dedupe after recover" });
    await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "x" }, agent });
    await call(td, "POST", `/api/memory/${m.id}/recover`, { body: {}, agent });
    const again = await call(td, "POST", "/api/memory/remember", { body: { content: "Dedupe after recover." }, agent });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(m.id);
  });

  test("an unknown id -> 404; bad body -> 400", async () => {
    const agent = freshAgent();
    expectError(await call(td, "POST", `/api/memory/${crypto.randomUUID()}/recover`, { body: {}, agent }), 404, "not_found");
    const m = await remember(td, agent, { content: "bad recover body" });
    expectError(await call(td, "POST", `/api/memory/${m.id}/recover`, { body: { reason: 5 }, agent }), 400, "invalid_input", "reason");
    expectError(await call(td, "POST", `/api/memory/${m.id}/recover`, { body: { bogus: 1 }, agent }), 400, "invalid_input", "bogus");
  });
});

describe("recover window (core, with a fake clock)", () => {
  const DAY = 24 * 60 * 60 * 1000;
  let dir: string;
  let db: ReturnType<typeof openDatabase>;
  let now: Date;
  let service: MemoryService;
  const caller: Caller = { agentId: "clock-agent", actor: "test", actorType: null, runtimePath: null };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "signet-recover-window-"));
    db = openDatabase(databasePath(dir));
    migrate(db);
    now = new Date("2025-01-01T00:00:00.000Z");
    service = new MemoryService(db, { now: () => now });
  });

  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a forget 31 days before now cannot be recovered: SignetError 'deleted'", () => {
    now = new Date("2025-01-01T00:00:00.000Z");
    const m = service.remember(caller, { content: "too late to recover" });
    service.forget(caller, m.id, { reason: "old" });
    now = new Date(now.getTime() + 31 * DAY);
    let err: unknown;
    try {
      service.recover(caller, m.id, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SignetError);
    expect((err as SignetError).code).toBe("deleted");
    expect((err as SignetError).message).toMatch(/30 days/);
    expect(service.get(caller, m.id).deletedAt).toBe("2025-01-01T00:00:00.000Z");
  });

  test("a forget 29 days before now recovers", () => {
    now = new Date("2025-03-01T00:00:00.000Z");
    const m = service.remember(caller, { content: "just in time" });
    service.forget(caller, m.id, { reason: "oops" });
    now = new Date(now.getTime() + 29 * DAY);
    const r = service.recover(caller, m.id, { reason: "back" });
    expect(r.deletedAt).toBeNull();
    expect(r.updatedAt).toBe(now.toISOString());
    expect(service.list(caller, { limit: 100, offset: 0 }).memories.map((x) => x.id)).toContain(m.id);
  });

  test("the fake clock also rules createdAt-in-the-future and timestamps", () => {
    now = new Date("2020-06-01T00:00:00.000Z");
    const m = service.remember(caller, { content: "clocked", createdAt: "2020-05-31T00:00:00.000Z" });
    expect(m.updatedAt).toBe("2020-06-01T00:00:00.000Z");
    expect(() => service.remember(caller, { content: "future by the fake clock", createdAt: "2020-06-02T00:00:00.000Z" })).toThrow(
      SignetError,
    );
  });
});

describe("agent isolation", () => {
  test("agent B cannot see agent A's memories via the x-signet-agent-id header", async () => {
    const a = freshAgent("iso-a");
    const b = freshAgent("iso-b");
    const m = await remember(td, a, { content: "A's secret plan" });
    expectError(await call(td, "GET", `/api/memory/${m.id}`, { agent: b }), 404, "not_found");
    expectError(await call(td, "GET", `/api/memory/${m.id}/history`, { agent: b }), 404, "not_found");
    expect(await listIds(td, b)).not.toContain(m.id);
    expectError(await call(td, "PATCH", `/api/memory/${m.id}`, { body: { reason: "r", content: "hijack" }, agent: b }), 404, "not_found");
    expectError(await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "r", force: true }, agent: b }), 404, "not_found");
    expectError(await call(td, "POST", `/api/memory/${m.id}/recover`, { body: {}, agent: b }), 404, "not_found");
    // A's memory is untouched.
    const got = (await call(td, "GET", `/api/memory/${m.id}`, { agent: a })).body;
    expect(got.content).toBe("A's secret plan");
    expect(got.version).toBe(1);
    expect(got.deletedAt).toBeNull();
  });

  test("another agent's memory is indistinguishable from a missing one", async () => {
    const a = freshAgent("iso-a");
    const b = freshAgent("iso-b");
    const m = await remember(td, a, { content: "hidden" });
    const hidden = await call(td, "GET", `/api/memory/${m.id}`, { agent: b });
    const missingId = crypto.randomUUID();
    const missing = await call(td, "GET", `/api/memory/${missingId}`, { agent: b });
    expect(hidden.status).toBe(missing.status);
    expect(hidden.body.error.replace(m.id, "ID")).toBe(missing.body.error.replace(missingId, "ID"));
  });

  test("without a header the caller is the default agent", async () => {
    const a = freshAgent("iso-a");
    const m = await remember(td, a, { content: "not default's" });
    expectError(await call(td, "GET", `/api/memory/${m.id}`), 404, "not_found");
    const d = await call(td, "POST", "/api/memory/remember", { body: { content: `default agent memory ${a}` } });
    expect(d.body.agentId).toBe("default");
  });

  test("agentId in the body scopes remember, modify and forget", async () => {
    const a = freshAgent("iso-a");
    const b = freshAgent("iso-b");
    // Header says A, body says B: the body names the agent.
    const res = await call(td, "POST", "/api/memory/remember", { body: { content: "body-scoped", agentId: b }, agent: a });
    expect(res.status).toBe(201);
    expect(res.body.agentId).toBe(b);
    expect(await listIds(td, a)).not.toContain(res.body.id);
    expect(await listIds(td, b)).toContain(res.body.id);

    const ma = await remember(td, a, { content: "A owns this" });
    expectError(
      await call(td, "PATCH", `/api/memory/${ma.id}`, { body: { reason: "r", content: "x", agentId: b }, agent: a }),
      404,
      "not_found",
    );
    expectError(await call(td, "DELETE", `/api/memory/${ma.id}`, { body: { reason: "r", agentId: b }, agent: a }), 404, "not_found");
    expect((await call(td, "GET", `/api/memory/${ma.id}`, { agent: a })).body.version).toBe(1);
  });

  test("agent_id in the list query scopes the list", async () => {
    const a = freshAgent("iso-a");
    const b = freshAgent("iso-b");
    const ma = await remember(td, a, { content: "listed for A" });
    const mb = await remember(td, b, { content: "listed for B" });
    expect(await listIds(td, a, `agent_id=${b}`)).toEqual([mb.id]);
    expect(await listIds(td, b, `agent_id=${a}`)).toEqual([ma.id]);
    expect(await listIds(td, "default", `agent_id=${a}`)).toEqual([ma.id]);
  });

  test("an invalid x-signet-agent-id header -> 400", async () => {
    expectError(await call(td, "GET", "/api/memories", { agent: "not a valid id" }), 400, "invalid_input", /agent/i);
    expectError(await call(td, "POST", "/api/memory/remember", { body: { content: "x" }, agent: "-leading-dash" }), 400, "invalid_input");
    expectError(await call(td, "GET", "/api/memories", { agent: "a".repeat(129) }), 400, "invalid_input");
  });

  test("provenance headers never grant anything", async () => {
    const a = freshAgent("iso-a");
    const b = freshAgent("iso-b");
    const m = await remember(td, a, { content: "provenance is not permission" });
    const res = await call(td, "GET", `/api/memory/${m.id}`, { agent: b, actor: a, actorType: "operator", headers: { "x-signet-runtime-path": "plugin" } });
    expectError(res, 404, "not_found");
  });
});

describe("shared agents (agents.<id>.readPolicy: shared)", () => {
  let shared: TestDaemon;

  beforeAll(async () => {
    shared = await startTestDaemon({ yaml: "agents:\n  shared-a:\n    readPolicy: shared\n" });
  });

  afterAll(async () => {
    await shared?.stop();
  });

  test("agent B can read shared-a's memories (get, history and list)", async () => {
    const m = await remember(shared, "shared-a", { content: "team convention: tabs", tags: ["style"] });
    const got = await call(shared, "GET", `/api/memory/${m.id}`, { agent: "agent-b" });
    expect(got.status).toBe(200);
    expect(got.body.content).toBe("team convention: tabs");
    expect(got.body.agentId).toBe("shared-a");
    expect((await call(shared, "GET", `/api/memory/${m.id}/history`, { agent: "agent-b" })).status).toBe(200);
    expect(await listIds(shared, "agent-b")).toContain(m.id);
    expect(await listIds(shared, "agent-b", "tags=style")).toContain(m.id);
  });

  test("agent B cannot modify, forget or recover shared-a's memories: 403 forbidden", async () => {
    const m = await remember(shared, "shared-a", { content: "read only for others" });
    expectError(await call(shared, "PATCH", `/api/memory/${m.id}`, { body: { reason: "r", content: "changed" }, agent: "agent-b" }), 403, "forbidden");
    expectError(await call(shared, "DELETE", `/api/memory/${m.id}`, { body: { reason: "r" }, agent: "agent-b" }), 403, "forbidden");
    expectError(await call(shared, "DELETE", `/api/memory/${m.id}`, { body: { reason: "r", force: true }, agent: "agent-b" }), 403, "forbidden");
    expect((await call(shared, "DELETE", `/api/memory/${m.id}`, { body: { reason: "owner forgets" }, agent: "shared-a" })).status).toBe(200);
    expectError(await call(shared, "POST", `/api/memory/${m.id}/recover`, { body: {}, agent: "agent-b" }), 403, "forbidden");
    const got = (await call(shared, "GET", `/api/memory/${m.id}`, { agent: "shared-a" })).body;
    expect(got.content).toBe("read only for others");
    expect(got.history.map((h: any) => h.action)).toEqual(["create", "forget"]);
  });

  test("forgotten shared memories are not listed for others", async () => {
    const m = await remember(shared, "shared-a", { content: "shared then forgotten" });
    await call(shared, "DELETE", `/api/memory/${m.id}`, { body: { reason: "x" }, agent: "shared-a" });
    expect(await listIds(shared, "agent-b")).not.toContain(m.id);
  });

  test("B's own memories stay private from shared-a and from other agents", async () => {
    const mb = await remember(shared, "agent-b", { content: "B's private note" });
    expectError(await call(shared, "GET", `/api/memory/${mb.id}`, { agent: "shared-a" }), 404, "not_found");
    expectError(await call(shared, "GET", `/api/memory/${mb.id}`, { agent: "agent-c" }), 404, "not_found");
    expect(await listIds(shared, "shared-a")).not.toContain(mb.id);
  });

  test("a private agent's memories stay invisible even with sharing configured", async () => {
    const mc = await remember(shared, "private-c", { content: "C is private" });
    expectError(await call(shared, "GET", `/api/memory/${mc.id}`, { agent: "agent-b" }), 404, "not_found");
    expect(await listIds(shared, "agent-b")).not.toContain(mc.id);
  });

  test("B writing the same content as shared-a makes B's own memory (dedupe is per agent)", async () => {
    const ma = await remember(shared, "shared-a", { content: "same content shared" });
    const res = await call(shared, "POST", "/api/memory/remember", { body: { content: "same content shared" }, agent: "agent-b" });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(ma.id);
    expect(res.body.agentId).toBe("agent-b");
  });
});

describe("every write is atomic across row, tags, history and the FTS index", () => {
  const db = () => td.daemon.context.db;
  const seqOf = (id: string) => db().query<{ seq: number }, [string]>("SELECT seq FROM memories WHERE id = ?").get(id)!.seq;
  const ftsRow = (id: string) =>
    db().query<{ content: string; tags: string; hints: string }, [number]>("SELECT content, tags, hints FROM memories_fts WHERE rowid = ?").get(seqOf(id));
  const ftsMatch = (term: string) =>
    db()
      .query<{ rowid: number }, [string]>("SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?")
      .all(term)
      .map((r) => r.rowid);
  const tagsOf = (id: string) =>
    db()
      .query<{ tag: string }, [number]>("SELECT tag FROM memory_tags WHERE memory_seq = ? ORDER BY tag")
      .all(seqOf(id))
      .map((r) => r.tag);
  const historyCount = (id: string) =>
    db().query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM memory_history WHERE memory_id = ?").get(id)!.n;
  const counts = () => ({
    memories: db().query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memories").get()!.n,
    fts: db().query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memories_fts").get()!.n,
    history: db().query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memory_history").get()!.n,
    tags: db().query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memory_tags").get()!.n,
  });

  test("remember -> forget -> recover keeps memories_fts in step", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "zebrafish telemetry pipeline", tags: ["zz1", "zz2"], hints: ["aquarium sensors"] });
    const seq = seqOf(m.id);
    // The index row exists and finds the memory by its content, its tags and its hints.
    expect(ftsRow(m.id)).not.toBeNull();
    expect(ftsRow(m.id)!.content).toContain("zebrafish");
    expect(ftsMatch("zebrafish")).toEqual([seq]);
    expect(ftsMatch("zz1")).toEqual([seq]);
    expect(ftsMatch("aquarium")).toEqual([seq]);
    expect(tagsOf(m.id)).toEqual(["zz1", "zz2"]);
    expect(historyCount(m.id)).toBe(1);

    await call(td, "DELETE", `/api/memory/${m.id}`, { body: { reason: "gone" }, agent });
    expect(ftsRow(m.id)).toBeNull();
    expect(ftsMatch("zebrafish")).toEqual([]);
    expect(historyCount(m.id)).toBe(2);

    await call(td, "POST", `/api/memory/${m.id}/recover`, { body: {}, agent });
    expect(ftsRow(m.id)?.content).toContain("zebrafish");
    expect(ftsMatch("zebrafish")).toEqual([seq]);
    expect(ftsMatch("zz2")).toEqual([seq]);
    expect(historyCount(m.id)).toBe(3);
  });

  test("modify replaces the indexed text and the tag rows", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "quokka habitat notes", tags: ["before"] });
    await call(td, "PATCH", `/api/memory/${m.id}`, { body: { reason: "rename", content: "wombat habitat notes", tags: ["after"] }, agent });
    expect(ftsMatch("quokka")).toEqual([]);
    expect(ftsMatch("wombat")).toEqual([seqOf(m.id)]);
    expect(ftsRow(m.id)?.tags).toContain("after");
    expect(ftsRow(m.id)?.tags).not.toContain("before");
    expect(tagsOf(m.id)).toEqual(["after"]);
    expect(historyCount(m.id)).toBe(2);
  });

  test("a deduped remember writes nothing", async () => {
    const agent = freshAgent();
    await remember(td, agent, { content: "dedupe writes nothing", tags: ["t"] });
    const before = counts();
    const res = await call(td, "POST", "/api/memory/remember", { body: { content: "Dedupe writes nothing!", tags: ["t", "u"] }, agent });
    expect(res.status).toBe(200);
    expect(counts()).toEqual(before);
  });

  test("refused writes (400, 404, 409) leave every table unchanged", async () => {
    const agent = freshAgent();
    const pinned = await remember(td, agent, { content: "refusals pinned", pinned: true });
    const gone = await remember(td, agent, { content: "refusals gone" });
    await call(td, "DELETE", `/api/memory/${gone.id}`, { body: { reason: "x" }, agent });
    const before = counts();
    const refusals: [string, string, unknown, number][] = [
      ["POST", "/api/memory/remember", { content: "future", createdAt: "2999-01-01T00:00:00Z" }, 400],
      ["POST", "/api/memory/remember", { content: "bad", importance: 7 }, 400],
      ["POST", "/api/memory/note", { content: "n".repeat(8001) }, 400],
      ["DELETE", `/api/memory/${pinned.id}`, { reason: "no force" }, 409],
      ["DELETE", `/api/memory/${gone.id}`, { reason: "again" }, 409],
      ["PATCH", `/api/memory/${gone.id}`, { reason: "r", content: "zombie" }, 409],
      ["PATCH", `/api/memory/${pinned.id}`, { reason: "r", content: "stale", ifVersion: 9 }, 409],
      ["PATCH", `/api/memory/${crypto.randomUUID()}`, { reason: "r", content: "nobody" }, 404],
      ["POST", `/api/memory/${crypto.randomUUID()}/recover`, {}, 404],
    ];
    for (const [method, path, body, status] of refusals) {
      const res = await call(td, method, path, { body, agent });
      expect({ method, path, status: res.status }).toEqual({ method, path, status });
    }
    expect(counts()).toEqual(before);
  });

  test("the daemon's database answers durably: a fresh connection sees the write", async () => {
    const agent = freshAgent();
    const m = await remember(td, agent, { content: "visible to another connection" });
    const other = openDatabase(databasePath(td.dataDir));
    try {
      const row = other.query<{ content: string }, [string]>("SELECT content FROM memories WHERE id = ?").get(m.id);
      expect(row?.content).toBe("visible to another connection");
    } finally {
      other.close();
    }
  });
});
