// PATCH /api/memory/:id over real HTTP against a real daemon: versions and history, ifVersion,
// validation, forgotten and unknown memories.
import { describe, expect, test } from "bun:test";
import { call, expectError, expectMemoryShape, freshAgent, listIds, remember, useTestDaemon } from "../helpers/memory-api";

const td = useTestDaemon();

describe("PATCH /api/memory/:id", () => {
  test("writes a new version; history keeps the old content with actor and reason", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "original content", tags: ["v1"] }, "creator");
    const res = await call(td(), "PATCH", `/api/memory/${m.id}`, {
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
    const got = (await call(td(), "GET", `/api/memory/${m.id}`, { agent })).body;
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
    const m = await remember(td(), agent, { content: "pin me" });
    const pinned = await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "important", pinned: true }, agent });
    expect(pinned.body.pinned).toBe(true);
    expect(await listIds(td(), agent, "pinned=true")).toEqual([m.id]);
    const unpinned = await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "not anymore", pinned: false }, agent });
    expect(unpinned.body.pinned).toBe(false);
    expect(unpinned.body.version).toBe(3);
  });

  test("changing tags changes what the tags filter matches", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "retag me", tags: ["old"] });
    await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "retag", tags: ["new"] }, agent });
    expect(await listIds(td(), agent, "tags=old")).toEqual([]);
    expect(await listIds(td(), agent, "tags=new")).toEqual([m.id]);
  });

  test("the same tags in another order change nothing: no version, the stored order kept", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "tags as a set", tags: ["x", "y"] });
    const res = await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "same set", tags: ["y", "x"] }, agent });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(1);
    expect(res.body.tags).toEqual(["x", "y"]);
    const history = await call(td(), "GET", `/api/memory/${m.id}/history`, { agent });
    expect(history.body.history.map((h: { action: string }) => h.action)).toEqual(["create"]);
    // A different set is a change.
    const changed = await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "another set", tags: ["y"] }, agent });
    expect(changed.body.version).toBe(2);
  });

  test("new text another live memory of the project already holds -> 409 exists naming it, nothing changes", async () => {
    const agent = freshAgent();
    const pnpm = await remember(td(), agent, { content: "Use pnpm", project: "/p" });
    const yarn = await remember(td(), agent, { content: "Use yarn", project: "/p" });
    expectError(await call(td(), "PATCH", `/api/memory/${yarn.id}`, { body: { reason: "dup", content: "use PNPM." }, agent }), 409, "exists", pnpm.id);
    expect((await call(td(), "GET", `/api/memory/${yarn.id}`, { agent })).body).toMatchObject({ content: "Use yarn", version: 1 });
    // Its own text in other letters, or a forgotten memory's text, is no twin.
    expect((await call(td(), "PATCH", `/api/memory/${pnpm.id}`, { body: { reason: "case", content: "Use PNPM" }, agent })).body.version).toBe(2);
    await call(td(), "DELETE", `/api/memory/${pnpm.id}`, { body: { reason: "gone" }, agent });
    expect((await call(td(), "PATCH", `/api/memory/${yarn.id}`, { body: { reason: "now free", content: "Use pnpm" }, agent })).body.version).toBe(2);
  });

  test("ifVersion matching the current version succeeds", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "versioned" });
    const res = await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "r", content: "versioned 2", ifVersion: 1 }, agent });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(2);
  });

  test("ifVersion mismatch -> 409 version_conflict and nothing changes", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "contended" });
    await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "first", content: "contended v2" }, agent });
    const res = await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "stale", content: "contended v3", ifVersion: 1 }, agent });
    expectError(res, 409, "version_conflict");
    const got = (await call(td(), "GET", `/api/memory/${m.id}`, { agent })).body;
    expect(got.content).toBe("contended v2");
    expect(got.history).toHaveLength(2);
  });

  test("missing or blank reason -> 400 naming reason", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "needs a reason" });
    expectError(await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { content: "x" }, agent }), 400, "invalid_input", "reason");
    expectError(await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { content: "x", reason: "   " }, agent }), 400, "invalid_input", "reason");
    expect((await call(td(), "GET", `/api/memory/${m.id}`, { agent })).body.version).toBe(1);
  });

  test("nothing to change -> 400", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "unchanged" });
    expectError(await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "no-op" }, agent }), 400, "invalid_input", /nothing to change/i);
  });

  test("invalid fields -> 400 naming the field", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "bad patch" });
    const cases: [unknown, string][] = [
      [{ reason: "r", importance: 2 }, "importance"],
      [{ reason: "r", content: "" }, "content"],
      [{ reason: "r", type: "Bad Type" }, "type"],
      [{ reason: "r", ifVersion: 0 }, "ifVersion"],
      [{ reason: "r", pinned: true, createdAt: "2020-01-01" }, "createdAt"],
      [{ reason: "r", pinned: true, project: "p" }, "project"],
    ];
    for (const [body, field] of cases) {
      expectError(await call(td(), "PATCH", `/api/memory/${m.id}`, { body, agent }), 400, "invalid_input", field);
    }
  });

  test("modifying a forgotten memory -> 409 deleted", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "forgotten then modified" });
    await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "bye" }, agent });
    const res = await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "try", content: "zombie" }, agent });
    expectError(res, 409, "deleted");
    expect((await call(td(), "GET", `/api/memory/${m.id}`, { agent })).body.content).toBe("forgotten then modified");
  });

  test("an unknown id -> 404", async () => {
    expectError(await call(td(), "PATCH", `/api/memory/${crypto.randomUUID()}`, { body: { reason: "r", pinned: true } }), 404, "not_found");
  });
});
