// Group commit: concurrent writes share one transaction, yet each succeeds or fails on its own, and
// changes are announced only once their commit is done.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService } from "../../src/core/memory/service";
import type { MemoryChange } from "../../src/core/memory/store";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { tempDir } from "../helpers/daemon";

const caller = { agentId: "a", actor: "test", actorType: null, runtimePath: null };

function setup() {
  const db = openDatabase(join(tempDir(), "memories.db"));
  migrate(db);
  const seen: { change: MemoryChange; inTransaction: boolean }[] = [];
  const memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (change) => seen.push({ change, inTransaction: db.inTransaction }) });
  return { db, memory, seen };
}

describe("GroupCommit", () => {
  test("writes issued together commit together; a failing one is undone alone", async () => {
    const { db, memory, seen } = setup();
    const results = await Promise.allSettled([
      memory.remember(caller, { content: "first" }),
      memory.remember(caller, { content: "bad", createdAt: "2999-01-01T00:00:00.000Z" }),
      memory.remember(caller, { content: "third" }),
      memory.remember(caller, { content: "FIRST." }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    const [first, , third, dup] = results as PromiseFulfilledResult<{ id: string; deduped: boolean }>[];
    // Dedupe sees the earlier write of the same batch.
    expect(dup!.value).toMatchObject({ id: first!.value.id, deduped: true });
    expect(third!.value.deduped).toBe(false);
    const rows = db.query<{ content: string }, []>("SELECT content FROM memories ORDER BY seq").all();
    expect(rows.map((r) => r.content)).toEqual(["first", "third"]);
    // Announced after the commit, never from inside the transaction.
    expect(seen.map((s) => s.change.kind)).toEqual(["created", "created"]);
    expect(seen.every((s) => !s.inTransaction)).toBe(true);
  });

  test("an error thrown inside a write rolls back that write's rows only", async () => {
    const { db, memory } = setup();
    const kept = await memory.remember(caller, { content: "kept" });
    const outcomes = await Promise.allSettled([
      memory.forget(caller, kept.id, { reason: "r" }),
      memory.forget(caller, kept.id, { reason: "again" }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected"]);
    const history = db.query<{ action: string }, [string]>("SELECT action FROM memory_history WHERE memory_id = ? ORDER BY id").all(kept.id);
    expect(history.map((h) => h.action)).toEqual(["create", "forget"]);
  });

  test("a group's later write sees what an earlier one changed", async () => {
    const { db, memory, seen } = setup();
    const stored = await Promise.all(["alpha kiwi", "beta kiwi"].map((content) => memory.remember(caller, { content })));
    // Forget one, modify the other, remember its old text again: one group.
    const [, , again] = await Promise.all([
      memory.forget(caller, stored[0]!.id, { reason: "gone" }),
      memory.modify(caller, stored[1]!.id, { content: "beta mango", reason: "r" }),
      memory.remember(caller, { content: "beta kiwi" }),
    ]);
    // The remember saw the modify before it: "beta kiwi" was no longer stored, so it is new.
    expect(again).toMatchObject({ deduped: false });
    const rows = db.query<{ content: string; gone: number }, []>("SELECT content, deleted_at IS NOT NULL AS gone FROM memories ORDER BY seq").all();
    expect(rows).toEqual([
      { content: "alpha kiwi", gone: 1 },
      { content: "beta mango", gone: 0 },
      { content: "beta kiwi", gone: 0 },
    ]);
    expect(seen.map((s) => s.change.kind)).toEqual(["created", "created", "forgotten", "modified", "created"]);
  });

  test("changes are announced with the text as written, none once forgotten", async () => {
    const { memory, seen } = setup();
    const stored = await memory.remember(caller, { content: "use snake_case names", tags: ["style"], project: "web" });
    await memory.forget(caller, stored.id, { reason: "r" });
    const [created, forgotten] = seen.map((s) => s.change);
    expect(created).toMatchObject({ kind: "created", agentId: "a", project: "web", text: { content: "use snake_case names", tags: '["style"]', hints: "[]" } });
    expect(forgotten).toMatchObject({ kind: "forgotten", seq: created!.seq, text: null });
  });

  test("a group whose commit fails stores nothing and announces nothing; the next one commits", async () => {
    const { db, memory, seen } = setup();
    const first = await memory.remember(caller, { content: "first" });
    // A constraint checked only at COMMIT (a deferred foreign key) fails the group after each of its
    // writes succeeded, as a full disk or an I/O error would.
    db.run("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
    db.run("CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)");
    db.run("CREATE TRIGGER fail_commit AFTER INSERT ON memories WHEN NEW.content = 'second' BEGIN INSERT INTO child VALUES (1); END");
    const outcomes = await Promise.allSettled([
      memory.remember(caller, { content: "second" }),
      memory.modify(caller, first.id, { content: "first, changed", reason: "r" }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(db.query<{ content: string }, []>("SELECT content FROM memories ORDER BY seq").all().map((r) => r.content)).toEqual(["first"]);
    expect(db.inTransaction).toBe(false);
    expect(seen.map((s) => s.change.kind)).toEqual(["created"]);
    db.run("DROP TRIGGER fail_commit");
    await memory.remember(caller, { content: "third" });
    expect(seen.map((s) => s.change.kind)).toEqual(["created", "created"]);
  });
});
