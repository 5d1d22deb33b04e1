// GET /api/memory/:id, /history and GET /api/memories over real HTTP against a real daemon: shapes,
// 404s, every list filter, ordering and paging (docs/api.md#get-apimemories).
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/client/client";
import { call, expectError, expectMemoryShape, freshAgent, ISO_MS, list, listIds, remember, useTestDaemon } from "../helpers/memory-api";

const td = useTestDaemon();

describe("GET /api/memory/:id and /history", () => {
  test("returns the memory with its history inline", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "history inline", tags: ["h"] }, "creator");
    const res = await call(td(), "GET", `/api/memory/${m.id}`, { agent });
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
    const m = await remember(td(), agent, { content: "history alone" });
    const full = await call(td(), "GET", `/api/memory/${m.id}`, { agent });
    const res = await call(td(), "GET", `/api/memory/${m.id}/history`, { agent });
    expect(res.status).toBe(200);
    expect(res.body.memoryId).toBe(m.id);
    expect(res.body.history).toEqual(full.body.history);
    expect(res.body).not.toHaveProperty("content");
  });

  test("an unknown id -> 404 not_found", async () => {
    const id = crypto.randomUUID();
    expectError(await call(td(), "GET", `/api/memory/${id}`), 404, "not_found", id);
    expectError(await call(td(), "GET", `/api/memory/${id}/history`), 404, "not_found");
  });

  test("the typed client maps 404 to ApiError not_found", async () => {
    const err = await td().client(freshAgent()).memory.get(crypto.randomUUID()).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect((err as ApiError).code).toBe("not_found");
  });
});

describe("GET /api/memories", () => {
  test("newest first, deleted excluded", async () => {
    const agent = freshAgent();
    const old = await remember(td(), agent, { content: "oldest", createdAt: "2023-01-01T00:00:00Z" });
    const a = await remember(td(), agent, { content: "first now" });
    const b = await remember(td(), agent, { content: "second now" });
    const c = await remember(td(), agent, { content: "third now" });
    const mid = await remember(td(), agent, { content: "middle", createdAt: "2024-01-01T00:00:00Z" });
    expect(await listIds(td(), agent)).toEqual([c.id, b.id, a.id, mid.id, old.id]);
    await call(td(), "DELETE", `/api/memory/${b.id}`, { body: { reason: "gone" }, agent });
    expect(await listIds(td(), agent)).toEqual([c.id, a.id, mid.id, old.id]);
  });

  test("response shape: memories, limit, offset, hasMore", async () => {
    const agent = freshAgent();
    await remember(td(), agent, { content: "shape" });
    const body = await list(td(), agent);
    expect(Object.keys(body).sort()).toEqual(["hasMore", "limit", "memories", "offset"]);
    expect(body.limit).toBe(100);
    expect(body.offset).toBe(0);
    expect(body.hasMore).toBe(false);
    expectMemoryShape(body.memories[0]);
  });

  test("filter: type", async () => {
    const agent = freshAgent();
    const f = await remember(td(), agent, { content: "a fact" });
    const d = await remember(td(), agent, { content: "a decision", type: "decision" });
    expect(await listIds(td(), agent, "type=decision")).toEqual([d.id]);
    expect(await listIds(td(), agent, "type=fact")).toEqual([f.id]);
    expect(await listIds(td(), agent, "type=rule")).toEqual([]);
  });

  test("filter: tags all-of, exact, never substring", async () => {
    const agent = freshAgent();
    const bun = await remember(td(), agent, { content: "bun only", tags: ["bun"] });
    const bunx = await remember(td(), agent, { content: "bunx only", tags: ["bunx"] });
    const both = await remember(td(), agent, { content: "bun and test", tags: ["bun", "test"] });
    const testOnly = await remember(td(), agent, { content: "test only", tags: ["test"] });
    await remember(td(), agent, { content: "untagged" });
    expect((await listIds(td(), agent, "tags=bun")).sort()).toEqual([bun.id, both.id].sort());
    expect(await listIds(td(), agent, "tags=bunx")).toEqual([bunx.id]);
    expect(await listIds(td(), agent, "tags=bu")).toEqual([]);
    expect(await listIds(td(), agent, "tags=un")).toEqual([]);
    expect(await listIds(td(), agent, "tags=bun%2Ctest")).toEqual([both.id]);
    expect(await listIds(td(), agent, "tags=test,%20bun")).toEqual([both.id]);
    expect((await listIds(td(), agent, "tags=test")).sort()).toEqual([both.id, testOnly.id].sort());
    expect(await listIds(td(), agent, "tags=bun,bunx")).toEqual([]);
    // Case matters: tags are matched exactly.
    expect(await listIds(td(), agent, "tags=BUN")).toEqual([]);
  });

  test("filter: project", async () => {
    const agent = freshAgent();
    const p1 = await remember(td(), agent, { content: "in p1", project: "/repo/one" });
    await remember(td(), agent, { content: "in p2", project: "/repo/two" });
    await remember(td(), agent, { content: "no project" });
    expect(await listIds(td(), agent, `project=${encodeURIComponent("/repo/one")}`)).toEqual([p1.id]);
    expect(await listIds(td(), agent, "project=%2Frepo")).toEqual([]);
  });

  test("filter: who", async () => {
    const agent = freshAgent();
    const alice = await remember(td(), agent, { content: "alice said", who: "alice" });
    await remember(td(), agent, { content: "bob said", who: "bob" });
    expect(await listIds(td(), agent, "who=alice")).toEqual([alice.id]);
    expect(await listIds(td(), agent, "who=ali")).toEqual([]);
  });

  test("filter: since and until (inclusive, any ISO form)", async () => {
    const agent = freshAgent();
    const jan = await remember(td(), agent, { content: "january", createdAt: "2024-01-01T00:00:00Z" });
    const feb = await remember(td(), agent, { content: "february", createdAt: "2024-02-01T00:00:00Z" });
    const mar = await remember(td(), agent, { content: "march", createdAt: "2024-03-01T00:00:00Z" });
    expect(await listIds(td(), agent, "since=2024-02-01T00:00:00Z")).toEqual(expect.arrayContaining([feb.id, mar.id]));
    expect(await listIds(td(), agent, "since=2024-02-01T00:00:00Z")).not.toContain(jan.id);
    expect(await listIds(td(), agent, "until=2024-02-01T00:00:00.000Z")).toEqual([feb.id, jan.id]);
    expect(await listIds(td(), agent, "since=2024-01-15&until=2024-02-15")).toEqual([feb.id]);
    // An offset zone is converted to UTC before comparing: 01:00+02:00 is 2024-01-31T23:00Z.
    expect(await listIds(td(), agent, `since=${encodeURIComponent("2024-02-01T01:00:00+02:00")}&until=2024-02-28`)).toEqual([feb.id]);
    expect(await listIds(td(), agent, "until=2023-12-31")).toEqual([]);
  });

  test("filter: pinned", async () => {
    const agent = freshAgent();
    const pinned = await remember(td(), agent, { content: "pinned one", pinned: true });
    const loose = await remember(td(), agent, { content: "loose one" });
    expect(await listIds(td(), agent, "pinned=true")).toEqual([pinned.id]);
    expect(await listIds(td(), agent, "pinned=1")).toEqual([pinned.id]);
    expect(await listIds(td(), agent, "pinned=false")).toEqual([loose.id]);
    expect(await listIds(td(), agent, "pinned=0")).toEqual([loose.id]);
  });

  test("filters combine", async () => {
    const agent = freshAgent();
    const hit = await remember(td(), agent, { content: "combined hit", type: "rule", tags: ["a"], project: "p", who: "w", pinned: true });
    await remember(td(), agent, { content: "combined miss 1", type: "rule", tags: ["a"], project: "p", who: "w" });
    await remember(td(), agent, { content: "combined miss 2", type: "fact", tags: ["a"], project: "p", who: "w", pinned: true });
    expect(await listIds(td(), agent, "type=rule&tags=a&project=p&who=w&pinned=true")).toEqual([hit.id]);
  });

  test("limit defaults to 100, offset pages, hasMore tells when more remain", async () => {
    const agent = freshAgent();
    const made: string[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const rs = await Promise.all(
        Array.from({ length: 21 }, (_, i) =>
          remember(td(), agent, { content: `bulk memory ${batch * 21 + i}`, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, batch * 21 + i)).toISOString() }),
        ),
      );
      made.push(...rs.map((m) => m.id));
    }
    expect(made.length).toBe(105);
    const newestFirst = [...made].reverse();
    const first = await list(td(), agent);
    expect(first.memories.length).toBe(100);
    expect(first.limit).toBe(100);
    expect(first.hasMore).toBe(true);
    expect(first.memories.map((m: any) => m.id)).toEqual(newestFirst.slice(0, 100));
    const rest = await list(td(), agent, "offset=100");
    expect(rest.memories.map((m: any) => m.id)).toEqual(newestFirst.slice(100));
    expect(rest.hasMore).toBe(false);
    expect(rest.offset).toBe(100);
    const page = await list(td(), agent, "limit=10&offset=20");
    expect(page.memories.map((m: any) => m.id)).toEqual(newestFirst.slice(20, 30));
    expect(page.hasMore).toBe(true);
    const exact = await list(td(), agent, "limit=5&offset=100");
    expect(exact.memories.length).toBe(5);
    expect(exact.hasMore).toBe(false);
    const big = await list(td(), agent, "limit=1000");
    expect(big.memories.length).toBe(105);
    expect(big.limit).toBe(1000);
    expect(big.hasMore).toBe(false);
    expect((await list(td(), agent, "offset=500")).memories).toEqual([]);
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
      expectError(await call(td(), "GET", `/api/memories?${query}`, { agent }), 400, "invalid_input", field);
    }
    // A negative number is a number out of range, and says so.
    expectError(await call(td(), "GET", "/api/memories?limit=-1", { agent }), 400, "invalid_input", "limit: must be at least 1");
    expectError(await call(td(), "GET", "/api/memories?offset=-1", { agent }), 400, "invalid_input", "offset: must be at least 0");
  });
});
