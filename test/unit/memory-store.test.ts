// The memory domain on both stores: the same cases through MemoryService against the daemon's SQLite
// file and against a real PostgreSQL (a throwaway cluster), so the two MemoryStores cannot drift. On
// PostgreSQL also what only a shared store has: two daemons (two clients, each with its own service)
// writing at once, where dedupe, version checks and imports still decide once.
import { describe, expect, test } from "bun:test";
import { SignetError } from "../../src/contracts/errors";
import { ExportRecordSchema, type ExportRecord } from "../../src/contracts/transfer";
import { PostgresMemoryStore } from "../../src/core/memory/postgres-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import type { MemoryChange, MemoryStore } from "../../src/core/memory/store";
import { exportRecord } from "../helpers/export-record";
import { postgresDatabases } from "../helpers/postgres-databases";
import { migratedDatabase } from "../helpers/sqlite";

const postgres = postgresDatabases();

const ada: Caller = { agentId: "ada", actor: "test", actorType: "cli", runtimePath: "/bin/test" };
const bob: Caller = { agentId: "bob", actor: "test", actorType: null, runtimePath: null };

interface Opened {
  memory: MemoryService;
  changes: MemoryChange[];
  clock: { now: Date };
}

function service(store: MemoryStore, clock = { now: new Date("2026-12-01T10:00:00.000Z") }): Opened {
  const changes: MemoryChange[] = [];
  const memory = new MemoryService(store, { sharedAgents: ["team"], now: () => clock.now, onChange: (c) => changes.push(c) });
  return { memory, changes, clock };
}

const STORES: { name: string; available: boolean; open(): Promise<Opened> }[] = [
  {
    name: "SQLite",
    available: true,
    async open() {
      const db = migratedDatabase();
      return service(new SqliteMemoryStore(db));
    },
  },
  {
    name: "PostgreSQL",
    available: postgres.available,
    async open() {
      return service(new PostgresMemoryStore((await postgres.database({ max: 4 }))()));
    },
  },
];

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SignetError);
  return { code: (err as SignetError).code, message: (err as SignetError).message };
}

const HERON = "0b6e2c1a-0000-4000-8000-000000000001";

/** An export record of ada's (test/helpers/export-record.ts), with `over` in place. */
function record(over: Partial<ExportRecord>): ExportRecord {
  return ExportRecordSchema.parse({ ...exportRecord(HERON, "The staging database is heron-7", "ada"), ...over });
}

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`memories on ${kind.name}`, () => {
    test("remember stores a version 1 with its history; the same text again (any case, spacing, stop) is the one stored", async () => {
      const { memory, changes } = await kind.open();
      const stored = await memory.remember(ada, { content: "Deploys go out on Tuesdays", tags: ["ops", "deploy"], importance: 0.7, hints: ["when do we ship"] });
      expect(stored).toMatchObject({ deduped: false, version: 1, agentId: "ada", who: "ada", tags: ["ops", "deploy"], pinned: false, source: "test" });
      const again = await memory.remember(ada, { content: "  deploys go out on TUESDAYS.  ", importance: 0.9 });
      expect(again).toMatchObject({ id: stored.id, deduped: true, importance: 0.7 });
      expect(again.dedupe?.ignored).toContain("importance");
      // Another project, or another agent, is another memory.
      expect((await memory.remember(ada, { content: "Deploys go out on Tuesdays", project: "/work/web" })).deduped).toBe(false);
      expect((await memory.remember(bob, { content: "Deploys go out on Tuesdays" })).deduped).toBe(false);
      const got = await memory.get(ada, stored.id);
      expect(got.history).toEqual([
        expect.objectContaining({ version: 1, action: "create", content: "Deploys go out on Tuesdays", tags: ["ops", "deploy"], actor: "test", actorType: "cli" }),
      ]);
      expect(changes.map((c) => c.kind)).toEqual(["created", "created", "created"]);
      expect(changes[0]).toMatchObject({ agentId: "ada", project: null, contentChanged: true });
      expect(changes[0]!.text!.content).toBe("Deploys go out on Tuesdays");
      await expect(memory.remember(ada, { content: "later", createdAt: "2030-01-01T00:00:00.000Z" })).rejects.toThrow("in the future");
    });

    test("modify: a new version with its history, an unchanged one kept, ifVersion checked; forgotten and others' memories refused", async () => {
      const { memory, changes, clock } = await kind.open();
      const m = await memory.remember(ada, { content: "The staging DB is heron-7", tags: ["infra"] });
      clock.now = new Date("2026-12-01T11:00:00.000Z");
      const next = await memory.modify(ada, m.id, { content: "The staging DB is heron-8", tags: ["infra", "db"], reason: "migrated" });
      expect(next).toMatchObject({ version: 2, content: "The staging DB is heron-8", tags: ["infra", "db"], updatedAt: "2026-12-01T11:00:00.000Z" });
      expect(await memory.modify(ada, m.id, { content: "The staging DB is heron-8", reason: "same" })).toMatchObject({ version: 2 });
      expect(await failure(memory.modify(ada, m.id, { importance: 0.1, ifVersion: 1, reason: "stale" }))).toMatchObject({ code: "version_conflict" });
      expect((await memory.modify(ada, m.id, { pinned: true, ifVersion: 2, reason: "keep" })).pinned).toBe(true);
      expect((await memory.history(ada, m.id)).history.map((h) => [h.version, h.action, h.reason])).toEqual([
        [1, "create", null],
        [2, "modify", "migrated"],
        [3, "modify", "keep"],
      ]);
      expect(changes.map((c) => [c.kind, c.contentChanged])).toEqual([
        ["created", true],
        ["modified", true],
        ["modified", false],
      ]);
      // The new text is what dedupe compares with now.
      expect((await memory.remember(ada, { content: "the staging db is heron-8" })).id).toBe(m.id);
      expect((await memory.remember(ada, { content: "The staging DB is heron-7" })).deduped).toBe(false);
      expect(await failure(memory.modify(bob, m.id, { content: "mine now", reason: "x" }))).toMatchObject({ code: "not_found" });
      const shared = await memory.remember({ ...bob, agentId: "team" }, { content: "Team lunch is on Fridays" });
      expect((await memory.get(ada, shared.id)).content).toBe("Team lunch is on Fridays");
      expect(await failure(memory.modify(ada, shared.id, { content: "no", reason: "x" }))).toMatchObject({ code: "forbidden" });
    });

    test("forget: pinned needs force, twice is refused, modify waits for a recovery; recover within 30 days, not after", async () => {
      const { memory, changes, clock } = await kind.open();
      const pinned = await memory.remember(ada, { content: "Never deploy on Fridays", pinned: true });
      expect(await failure(memory.forget(ada, pinned.id, { reason: "old" }))).toMatchObject({ code: "pinned" });
      const gone = await memory.forget(ada, pinned.id, { reason: "old", force: true });
      expect(gone).toMatchObject({ version: 2, deletedAt: clock.now.toISOString(), deleteReason: "old" });
      expect(await failure(memory.forget(ada, pinned.id, { reason: "again", force: true }))).toMatchObject({ code: "deleted" });
      expect(await failure(memory.modify(ada, pinned.id, { content: "x", reason: "x" }))).toMatchObject({ code: "deleted" });
      // Forgotten memories are listed only when asked, and take no part in dedupe.
      expect((await memory.list(ada, { limit: 10, offset: 0 })).memories).toEqual([]);
      expect((await memory.list(ada, { limit: 10, offset: 0, forgotten: true })).memories.map((x) => x.id)).toEqual([pinned.id]);
      const twin = await memory.remember(ada, { content: "Never deploy on Fridays" });
      expect(twin.deduped).toBe(false);
      clock.now = new Date(clock.now.getTime() + 29 * 86_400_000);
      // While the twin holds its text, recovering it would make two live memories saying the same.
      expect(await failure(memory.recover(ada, pinned.id, { reason: "needed" }))).toMatchObject({ code: "exists", message: expect.stringContaining(twin.id) });
      await memory.forget(ada, twin.id, { reason: "dup" });
      expect(await memory.recover(ada, pinned.id, { reason: "needed" })).toMatchObject({ version: 3, deletedAt: null });
      expect((await memory.recover(ada, pinned.id, {})).version).toBe(3);
      clock.now = new Date(clock.now.getTime() + 31 * 86_400_000);
      expect(await failure(memory.recover(ada, twin.id, {}))).toMatchObject({ code: "deleted", message: expect.stringContaining("30 days") });
      expect(changes.map((c) => c.kind)).toEqual(["created", "forgotten", "created", "forgotten", "recovered"]);
      expect(changes[1]!.text).toBeNull();
    });

    test("short ids: a unique prefix in the caller's scope names a memory; too short, ambiguous and others' are errors", async () => {
      const { memory } = await kind.open();
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push((await memory.remember(ada, { content: `note number ${i}` })).id);
      const theirs = await memory.remember(bob, { content: "bob's own" });
      const id = ids[7]!;
      expect((await memory.get(ada, id.slice(0, 8).toUpperCase())).id).toBe(id);
      expect(await failure(memory.get(ada, id.slice(0, 5)))).toMatchObject({ code: "invalid_input", message: expect.stringContaining("too short") });
      expect(await failure(memory.get(ada, theirs.id))).toMatchObject({ code: "not_found" });
      expect(await failure(memory.get(ada, theirs.id.slice(0, 12)))).toMatchObject({ code: "not_found" });
      expect(await failure(memory.get(ada, "ffffffff-ffff"))).toMatchObject({ code: "not_found" });
      // Two memories whose ids share their first 8 characters (imported under those ids).
      for (const n of [1, 2]) await memory.restore(record({ id: `abcdef01-0000-4000-8000-00000000000${n}`, content: `twin ${n}` }));
      expect(await failure(memory.get(ada, "abcdef01"))).toMatchObject({ code: "invalid_input", message: expect.stringContaining("ambiguous: 2 memories") });
      expect((await memory.get(ada, "abcdef01-0000-4000-8000-000000000002")).content).toBe("twin 2");
      // Modify through a short id changes that memory.
      expect((await memory.modify(ada, id.slice(0, 10), { content: "note number seven", reason: "r" })).id).toBe(id);
    });

    test("list: newest first, filters by tag, type, project and pinned, pages with hasMore", async () => {
      const { memory, clock } = await kind.open();
      const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 10, minute)).toISOString();
      await memory.remember(ada, { content: "first", tags: ["a"], createdAt: at(1) });
      await memory.remember(ada, { content: "second", tags: ["a", "b"], type: "decision", createdAt: at(2) });
      await memory.remember(ada, { content: "third", project: "/p", pinned: true, createdAt: at(3) });
      await memory.remember(bob, { content: "not ada's", tags: ["a"], createdAt: at(4) });
      const contents = async (q: Record<string, unknown>) =>
        (await memory.list(ada, { limit: 10, offset: 0, ...q })).memories.map((m) => m.content);
      expect(await contents({})).toEqual(["third", "second", "first"]);
      expect(await contents({ tags: ["a"] })).toEqual(["second", "first"]);
      expect(await contents({ tags: ["a", "b"] })).toEqual(["second"]);
      expect(await contents({ type: "decision" })).toEqual(["second"]);
      expect(await contents({ project: "/p" })).toEqual(["third"]);
      expect(await contents({ pinned: true })).toEqual(["third"]);
      expect(await contents({ since: at(2) })).toEqual(["third", "second"]);
      const page = await memory.list(ada, { limit: 2, offset: 0 });
      expect([page.memories.length, page.hasMore]).toEqual([2, true]);
      const rest = await memory.list(ada, { limit: 2, offset: 2 });
      expect([rest.memories.map((m) => m.content), rest.hasMore]).toEqual([["first"], false]);
      expect(clock.now.toISOString() > at(4)).toBe(true);
    });

    test("restore: imported as it was, the same record skipped, a different one under its id a conflict, a live twin a duplicate", async () => {
      const { memory, changes } = await kind.open();
      expect(await memory.restore(record({}))).toEqual({ outcome: "imported" });
      const got = await memory.get(ada, record({}).id);
      expect(got).toMatchObject({ content: "The staging database is heron-7", version: 1, agentId: "ada", createdAt: "2025-03-01T10:00:00.000Z" });
      expect(got.history).toHaveLength(1);
      expect(await memory.restore(record({}))).toEqual({ outcome: "skipped" });
      expect(await memory.restore(record({ content: "something else" }))).toMatchObject({ outcome: "conflict", reason: expect.stringContaining("differs") });
      expect(await memory.restore(record({ agentId: "bob" }))).toMatchObject({ outcome: "conflict", reason: expect.stringContaining("agent ada") });
      const twin = record({ id: "0b6e2c1a-0000-4000-8000-000000000002", content: "the staging database is HERON-7" });
      expect(await memory.restore(twin)).toEqual({ outcome: "duplicate", existingId: record({}).id });
      const forgotten = record({ id: "0b6e2c1a-0000-4000-8000-000000000003", deletedAt: "2026-11-02T00:00:00.000Z", deleteReason: "old" });
      expect(await memory.restore(forgotten)).toEqual({ outcome: "imported" });
      expect(changes.map((c) => c.kind)).toEqual(["created", "forgotten"]);
    });
  });
}

describe.skipIf(!postgres.available)("memories shared by two daemons on one PostgreSQL", () => {
  async function twoDaemons(): Promise<[MemoryService, MemoryService]> {
    const connect = await postgres.database({ max: 8 });
    return [service(new PostgresMemoryStore(connect())).memory, service(new PostgresMemoryStore(connect())).memory];
  }

  test("the same text remembered through both at once is stored once; the other hears it is the one stored", async () => {
    const [one, two] = await twoDaemons();
    const texts = Array.from({ length: 20 }, (_, i) => `Decision ${i}: we keep the queue in SQLite`);
    const answers = await Promise.all(texts.flatMap((content) => [one.remember(ada, { content }), two.remember(ada, { content: content.toUpperCase() })]));
    const ids = new Set(answers.map((a) => a.id));
    expect(ids.size).toBe(20);
    expect(answers.filter((a) => a.deduped)).toHaveLength(20);
    expect((await one.list(ada, { limit: 100, offset: 0 })).memories).toHaveLength(20);
  });

  test("two modifies of one version through both at once: one wins, the other hears version_conflict", async () => {
    const [one, two] = await twoDaemons();
    for (let round = 0; round < 10; round++) {
      const m = await one.remember(ada, { content: `contended ${round}` });
      const outcomes = await Promise.allSettled([
        one.modify(ada, m.id, { content: `one's ${round}`, ifVersion: 1, reason: "r" }),
        two.modify(ada, m.id, { content: `two's ${round}`, ifVersion: 1, reason: "r" }),
      ]);
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
      expect((lost.reason as SignetError).code).toBe("version_conflict");
      expect((await two.get(ada, m.id)).history).toHaveLength(2);
    }
  });

  test("one record imported through both at once is imported once and skipped once", async () => {
    const [one, two] = await twoDaemons();
    const outcomes = await Promise.all([one.restore(record({})), two.restore(record({}))]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["imported", "skipped"]);
  });
});
