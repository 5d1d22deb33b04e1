// Group commit: concurrent writes share one transaction, yet each succeeds or fails on its own, and
// changes are announced only once their commit is done.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { GroupCommit } from "../../src/core/memory/group-commit";
import { MemoryService, type MemoryChange } from "../../src/core/memory/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { tempDir } from "../helpers/daemon";

const caller = { agentId: "a", actor: "test", actorType: null, runtimePath: null };

function setup() {
  const db = openDatabase(join(tempDir(), "memories.db"));
  migrate(db);
  const seen: { change: MemoryChange; inTransaction: boolean }[] = [];
  const memory = new MemoryService(db, { onChange: (change) => seen.push({ change, inTransaction: db.inTransaction }) });
  const writes = new GroupCommit(db, () => memory.flushChanges());
  return { db, memory, writes, seen };
}

describe("GroupCommit", () => {
  test("writes issued together commit together; a failing one is undone alone", async () => {
    const { db, memory, writes, seen } = setup();
    const results = await Promise.allSettled([
      writes.run(() => memory.remember(caller, { content: "first" })),
      writes.run(() => memory.remember(caller, { content: "bad", createdAt: "2999-01-01T00:00:00.000Z" })),
      writes.run(() => memory.remember(caller, { content: "third" })),
      writes.run(() => memory.remember(caller, { content: "FIRST." })),
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
    const { db, memory, writes } = setup();
    const kept = await writes.run(() => memory.remember(caller, { content: "kept" }));
    const outcomes = await Promise.allSettled([
      writes.run(() => memory.forget(caller, kept.id, { reason: "r" })),
      writes.run(() => memory.forget(caller, kept.id, { reason: "again" })),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected"]);
    const history = db.query<{ action: string }, [string]>("SELECT action FROM memory_history WHERE memory_id = ? ORDER BY id").all(kept.id);
    expect(history.map((h) => h.action)).toEqual(["create", "forget"]);
  });
});
