// DELETE /api/memory/:id and POST /api/memory/:id/recover over real HTTP against a real daemon: soft
// delete, pinning, recovery, and the 30-day recover window (in core, with a fake clock).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignetError } from "../../src/contracts/errors";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { databasePath } from "../../src/config/paths";
import { call, expectError, freshAgent, ISO_MS, listIds, remember, useTestDaemon } from "../helpers/memory-api";

const td = useTestDaemon();

describe("DELETE /api/memory/:id", () => {
  test("soft delete: excluded from the list; GET still shows deletedAt and deleteReason", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "to be forgotten" });
    const res = await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "outdated" }, agent, actor: "janitor" });
    expect(res.status).toBe(200);
    expect(res.body.deletedAt).toMatch(ISO_MS);
    expect(res.body.deleteReason).toBe("outdated");
    expect(await listIds(td(), agent)).not.toContain(m.id);
    const got = await call(td(), "GET", `/api/memory/${m.id}`, { agent });
    expect(got.status).toBe(200);
    expect(got.body.content).toBe("to be forgotten");
    expect(got.body.deletedAt).toBe(res.body.deletedAt);
    expect(got.body.deleteReason).toBe("outdated");
    const last = got.body.history.at(-1);
    expect(last).toMatchObject({ action: "forget", reason: "outdated", actor: "janitor" });
  });

  test("a pinned memory without force -> 409 pinned telling to unpin first; still listed", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "pinned memory", pinned: true });
    const res = await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "try" }, agent });
    expectError(res, 409, "pinned", /unpin/i);
    expect(await listIds(td(), agent)).toContain(m.id);
    const res2 = await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "try", force: false }, agent });
    expectError(res2, 409, "pinned");
  });

  test("a pinned memory with force is forgotten", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "force forget me", pinned: true });
    const res = await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "operator", force: true }, agent });
    expect(res.status).toBe(200);
    expect(res.body.deletedAt).not.toBeNull();
    expect(await listIds(td(), agent)).not.toContain(m.id);
  });

  test("an already forgotten memory -> 409 deleted", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "twice forgotten" });
    await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "once" }, agent });
    expectError(await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "twice" }, agent }), 409, "deleted");
  });

  test("missing reason or body -> 400; unknown id -> 404", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "needs a reason to go" });
    expectError(await call(td(), "DELETE", `/api/memory/${m.id}`, { body: {}, agent }), 400, "invalid_input", "reason");
    expectError(await call(td(), "DELETE", `/api/memory/${m.id}`, { agent }), 400, "invalid_input");
    expectError(await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "r", force: "yes" }, agent }), 400, "invalid_input", "force");
    expect(await listIds(td(), agent)).toContain(m.id);
    expectError(await call(td(), "DELETE", `/api/memory/${crypto.randomUUID()}`, { body: { reason: "r" }, agent }), 404, "not_found");
  });
});

describe("POST /api/memory/:id/recover", () => {
  test("brings a forgotten memory back; history has forget and recover entries", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "lost and found" });
    await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "mistake?" }, agent });
    const res = await call(td(), "POST", `/api/memory/${m.id}/recover`, { body: { reason: "it was right" }, agent, actor: "restorer" });
    expect(res.status).toBe(200);
    expect(res.body.deletedAt).toBeNull();
    expect(res.body.deleteReason).toBeNull();
    expect(await listIds(td(), agent)).toContain(m.id);
    const history = (await call(td(), "GET", `/api/memory/${m.id}/history`, { agent })).body.history;
    expect(history.map((h: any) => h.action)).toEqual(["create", "forget", "recover"]);
    expect(history[1].reason).toBe("mistake?");
    expect(history[2]).toMatchObject({ action: "recover", reason: "it was right", actor: "restorer" });
    // Versions keep increasing.
    expect(history.map((h: any) => h.version)).toEqual([1, 2, 3]);
  });

  test("works without a body", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "recover without body" });
    await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "x" }, agent });
    const res = await call(td(), "POST", `/api/memory/${m.id}/recover`, { agent });
    expect(res.status).toBe(200);
    expect(await listIds(td(), agent)).toContain(m.id);
  });

  test("a recovered memory dedupes again", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "dedupe after recover" });
    await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "x" }, agent });
    await call(td(), "POST", `/api/memory/${m.id}/recover`, { body: {}, agent });
    const again = await call(td(), "POST", "/api/memory/remember", { body: { content: "Dedupe after recover." }, agent });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(m.id);
  });

  test("a memory whose text a live memory took over meanwhile is not recovered: 409 exists naming that one", async () => {
    const agent = freshAgent();
    const first = await remember(td(), agent, { content: "Use pnpm", project: "/p" });
    await call(td(), "DELETE", `/api/memory/${first.id}`, { body: { reason: "x" }, agent });
    const second = await remember(td(), agent, { content: "use pnpm.", project: "/p" });
    expect(second.id).not.toBe(first.id);
    expectError(await call(td(), "POST", `/api/memory/${first.id}/recover`, { body: {}, agent }), 409, "exists", second.id);
    expect(await listIds(td(), agent)).toEqual([second.id]);
    // The same text in another project is another memory: that one recovers.
    const other = await remember(td(), agent, { content: "Use pnpm", project: "/q" });
    await call(td(), "DELETE", `/api/memory/${other.id}`, { body: { reason: "x" }, agent });
    expect((await call(td(), "POST", `/api/memory/${other.id}/recover`, { body: {}, agent })).status).toBe(200);
  });

  test("an unknown id -> 404; bad body -> 400", async () => {
    const agent = freshAgent();
    expectError(await call(td(), "POST", `/api/memory/${crypto.randomUUID()}/recover`, { body: {}, agent }), 404, "not_found");
    const m = await remember(td(), agent, { content: "bad recover body" });
    expectError(await call(td(), "POST", `/api/memory/${m.id}/recover`, { body: { reason: 5 }, agent }), 400, "invalid_input", "reason");
    expectError(await call(td(), "POST", `/api/memory/${m.id}/recover`, { body: { bogus: 1 }, agent }), 400, "invalid_input", "bogus");
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
    service = new MemoryService(new SqliteMemoryStore(db), { now: () => now });
  });

  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a forget 31 days before now cannot be recovered: SignetError 'deleted'", async () => {
    now = new Date("2025-01-01T00:00:00.000Z");
    const m = await service.remember(caller, { content: "too late to recover" });
    await service.forget(caller, m.id, { reason: "old" });
    now = new Date(now.getTime() + 31 * DAY);
    const err = await service.recover(caller, m.id, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SignetError);
    expect((err as SignetError).code).toBe("deleted");
    expect((err as SignetError).message).toMatch(/30 days/);
    expect((await service.get(caller, m.id)).deletedAt).toBe("2025-01-01T00:00:00.000Z");
  });

  test("a forget 29 days before now recovers", async () => {
    now = new Date("2025-03-01T00:00:00.000Z");
    const m = await service.remember(caller, { content: "just in time" });
    await service.forget(caller, m.id, { reason: "oops" });
    now = new Date(now.getTime() + 29 * DAY);
    const r = await service.recover(caller, m.id, { reason: "back" });
    expect(r.deletedAt).toBeNull();
    expect(r.updatedAt).toBe(now.toISOString());
    expect((await service.list(caller, { limit: 100, offset: 0 })).memories.map((x) => x.id)).toContain(m.id);
  });

  test("the fake clock also rules createdAt-in-the-future and timestamps", async () => {
    now = new Date("2020-06-01T00:00:00.000Z");
    const m = await service.remember(caller, { content: "clocked", createdAt: "2020-05-31T00:00:00.000Z" });
    expect(m.updatedAt).toBe("2020-06-01T00:00:00.000Z");
    await expect(service.remember(caller, { content: "future by the fake clock", createdAt: "2020-06-02T00:00:00.000Z" })).rejects.toThrow(SignetError);
  });
});
