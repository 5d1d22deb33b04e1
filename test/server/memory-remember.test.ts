// POST /api/memory/remember and /note over real HTTP against a real daemon: the memory shape and
// defaults, validation, dedupe (docs/api.md#memories) and notes.
import { describe, expect, test } from "bun:test";
import { call, expectError, expectMemoryShape, freshAgent, list, remember, useTestDaemon } from "../helpers/memory-api";

const td = useTestDaemon();

describe("POST /api/memory/remember", () => {
  test("201 with the full memory shape and defaults", async () => {
    const agent = freshAgent();
    const before = Date.now();
    const res = await call(td(), "POST", "/api/memory/remember", {
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
    const created = await remember(td(), agent, body);
    const got = (await call(td(), "GET", `/api/memory/${created.id}`, { agent })).body;
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
    const m = await remember(td(), agent, { content: "tags as a string", tags: "alpha, beta ,gamma" });
    expect(m.tags).toEqual(["alpha", "beta", "gamma"]);
    const got = (await call(td(), "GET", `/api/memory/${m.id}`, { agent })).body;
    expect(got.tags).toEqual(["alpha", "beta", "gamma"]);
  });

  test("tags are a set: duplicates collapse", async () => {
    const m = await remember(td(), freshAgent(), { content: "dup tags", tags: ["x", "y", "x"] });
    expect(m.tags).toEqual(["x", "y"]);
    const m2 = await remember(td(), freshAgent(), { content: "dup tags str", tags: "x,x, y" });
    expect(m2.tags).toEqual(["x", "y"]);
  });

  test("duplicates collapse before the 64-tag limit is counted", async () => {
    const m = await remember(td(), freshAgent(), { content: "one tag said often", tags: Array(65).fill("a").join(",") });
    expect(m.tags).toEqual(["a"]);
    const res = await call(td(), "POST", "/api/memory/remember", { body: { content: "too many tags", tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }, agent: freshAgent() });
    expectError(res, 400, "invalid_input", "tags");
  });

  test("createdAt for imports is normalized to UTC with milliseconds", async () => {
    const m = await remember(td(), freshAgent(), { content: "imported", createdAt: "2020-05-01T10:00:00+02:00" });
    expect(m.createdAt).toBe("2020-05-01T08:00:00.000Z");
    const d = await remember(td(), freshAgent(), { content: "imported date only", createdAt: "2020-05-01" });
    expect(d.createdAt).toBe("2020-05-01T00:00:00.000Z");
  });

  test("createdAt in the future -> 400 invalid_input naming createdAt", async () => {
    const agent = freshAgent();
    const future = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const res = await call(td(), "POST", "/api/memory/remember", { body: { content: "from the future", createdAt: future }, agent });
    expectError(res, 400, "invalid_input", "createdAt");
    expect((await list(td(), agent)).memories).toEqual([]);
  });

  test("a time outside the years 0000-9999 in UTC -> 400, nothing stored (it would sort and compare as text wrongly)", async () => {
    const agent = freshAgent();
    for (const createdAt of ["9999-12-31T23:59:59-14:00", "0000-01-01T00:00+01:00"]) {
      const res = await call(td(), "POST", "/api/memory/remember", { body: { content: `at ${createdAt}`, createdAt }, agent });
      expectError(res, 400, "invalid_input", "createdAt");
      const review = await call(td(), "POST", "/api/memory/remember", { body: { content: `review at ${createdAt}`, reviewAfter: createdAt }, agent });
      expectError(review, 400, "invalid_input", "reviewAfter");
    }
    expect((await list(td(), agent)).memories).toEqual([]);
    // The edges themselves are ordinary times.
    const first = await remember(td(), agent, { content: "year zero", createdAt: "0000-01-01T00:00:00Z" });
    expect(first.createdAt).toBe("0000-01-01T00:00:00.000Z");
  });

  test("source is the x-signet-actor header (typed client sends 'test')", async () => {
    const m = await td().client(freshAgent()).memory.remember({ content: "via the typed client" });
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
      const res = await call(td(), "POST", "/api/memory/remember", { body, agent });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expectError(res, 400, "invalid_input", field);
    }
    expect((await list(td(), agent)).memories).toEqual([]);
  });

  test("an impossible calendar date (Feb 30) is rejected, not rolled over to March", async () => {
    const agent = freshAgent();
    for (const body of [
      { content: "feb 30 import", createdAt: "2024-02-30" },
      { content: "feb 31 review", reviewAfter: "2030-02-31T10:00:00Z" },
    ]) {
      const res = await call(td(), "POST", "/api/memory/remember", { body, agent });
      expectError(res, 400, "invalid_input", Object.keys(body)[1]!);
    }
  });
});

describe("dedupe", () => {
  test("same normalized content (case, whitespace, trailing punctuation) -> 200, same id, deduped:true", async () => {
    const agent = freshAgent();
    const first = await remember(td(), agent, { content: "Use Bun for tests", project: "p1" });
    expect(first.deduped).toBe(false);
    for (const variant of ["use bun for tests", "  USE   Bun\tfor\ntests  ", "Use Bun for tests.", "use bun for tests!!!", "Use Bun for tests ?"]) {
      const res = await call(td(), "POST", "/api/memory/remember", { body: { content: variant, project: "p1" }, agent });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(first.id);
      expect(res.body.deduped).toBe(true);
      // The stored memory is the original one, untouched.
      expect(res.body.content).toBe("Use Bun for tests");
      expect(res.body.version).toBe(1);
    }
    expect((await list(td(), agent)).memories.length).toBe(1);
  });

  test("a different project makes a new memory", async () => {
    const agent = freshAgent();
    const a = await remember(td(), agent, { content: "same words", project: "p1" });
    const b = await remember(td(), agent, { content: "same words", project: "p2" });
    const c = await remember(td(), agent, { content: "same words" });
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect((await list(td(), agent)).memories.length).toBe(3);
  });

  test("a different agent makes a new memory", async () => {
    const a = await remember(td(), freshAgent(), { content: "shared fact" });
    const b = await remember(td(), freshAgent(), { content: "shared fact" });
    expect(b.id).not.toBe(a.id);
    expect(b.deduped).toBe(false);
  });

  test("internal punctuation is not folded", async () => {
    const agent = freshAgent();
    const a = await remember(td(), agent, { content: "use bun, not npm" });
    const b = await remember(td(), agent, { content: "use bun not npm" });
    expect(b.id).not.toBe(a.id);
  });

  test("dedupe against a forgotten memory creates a new one", async () => {
    const agent = freshAgent();
    const a = await remember(td(), agent, { content: "ephemeral thought" });
    expect((await call(td(), "DELETE", `/api/memory/${a.id}`, { body: { reason: "wrong" }, agent })).status).toBe(200);
    const res = await call(td(), "POST", "/api/memory/remember", { body: { content: "Ephemeral thought." }, agent });
    expect(res.status).toBe(201);
    expect(res.body.deduped).toBe(false);
    expect(res.body.id).not.toBe(a.id);
  });

  test("concurrent identical remembers make exactly one memory", async () => {
    const agent = freshAgent();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call(td(), "POST", "/api/memory/remember", { body: { content: "race me" }, agent })),
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
    const res = await call(td(), "POST", "/api/memory/note", {
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
    const got = await call(td(), "GET", `/api/memory/${res.body.id}`, { agent });
    expect(got.body.type).toBe("note");
  });

  test("content of exactly 8000 characters is accepted", async () => {
    const res = await call(td(), "POST", "/api/memory/note", { body: { content: "n".repeat(8000) }, agent: freshAgent() });
    expect(res.status).toBe(201);
    expect(res.body.content.length).toBe(8000);
  });

  test("content over 8000 characters -> 400 invalid_input naming content", async () => {
    const agent = freshAgent();
    const res = await call(td(), "POST", "/api/memory/note", { body: { content: "n".repeat(8001) }, agent });
    expectError(res, 400, "invalid_input", "content");
    expect((await list(td(), agent)).memories).toEqual([]);
  });

  test("missing content, wrong types and unknown fields -> 400", async () => {
    const agent = freshAgent();
    expectError(await call(td(), "POST", "/api/memory/note", { body: {}, agent }), 400, "invalid_input", "content");
    expectError(await call(td(), "POST", "/api/memory/note", { body: { content: "x", title: 5 }, agent }), 400, "invalid_input", "title");
    expectError(await call(td(), "POST", "/api/memory/note", { body: { content: "x", type: "fact" }, agent }), 400, "invalid_input", "type");
  });
});
