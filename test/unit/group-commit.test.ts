// Group commit: concurrent writes share one transaction, yet each succeeds or fails on its own, and
// changes are announced only once their commit is done.
import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService } from "../../src/core/memory/service";
import type { MemoryChange } from "../../src/core/memory/store";
import { keywordColumns } from "../../src/core/search/text";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { tempDir } from "../helpers/daemon";

const caller = { agentId: "a", actor: "test", actorType: null, runtimePath: null };

/**
 * How many times FTS5 has written a new segment of memories_fts: the write counter of its structure
 * record (fts5_index.c: a 4-byte cookie, then varints for the levels, the segments and the writes).
 */
function ftsSegmentWrites(db: Database): number {
  const row = db.query<{ block: Uint8Array }, []>("SELECT block FROM memories_fts_data WHERE id = 10").get();
  if (!row) return 0;
  let offset = 4;
  const varint = () => {
    let value = 0;
    for (;;) {
      const byte = row.block[offset++]!;
      value = value * 128 + (byte & 0x7f);
      if (!(byte & 0x80)) return value;
    }
  };
  varint(); // levels
  varint(); // segments
  return varint();
}

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

  test("a group's keyword rows reach FTS5 once, before its commit: one new segment for the whole group", async () => {
    const { db, memory } = setup();
    const before = ftsSegmentWrites(db);
    const stored = await Promise.all(
      ["alpha kiwi", "beta kiwi", "gamma kiwi", "delta kiwi", "epsilon kiwi", "zeta kiwi"].map((content) =>
        memory.remember(caller, { content, tags: ["fruit"] }),
      ),
    );
    // One segment per savepoint (per write) otherwise: each write of a group is one.
    expect(ftsSegmentWrites(db) - before).toBe(1);
    const matches = (q: string) => db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ?").get(q)!.n;
    expect(matches("kiwi")).toBe(6);
    expect(matches("fruit")).toBe(6);
    // A group's later write sees what an earlier one changed: forget, then modify another, in one group.
    await Promise.all([
      memory.forget(caller, stored[0]!.id, { reason: "gone" }),
      memory.modify(caller, stored[1]!.id, { content: "beta mango", reason: "r" }),
      memory.remember(caller, { content: "eta mango" }),
    ]);
    expect([matches("kiwi"), matches("mango"), matches("alpha"), matches("beta")]).toEqual([4, 2, 0, 1]);
  });

  test("changes are announced with the keyword columns as written, none once forgotten", async () => {
    const { memory, seen } = setup();
    const stored = await memory.remember(caller, { content: "use snake_case names", tags: ["style"], project: "web" });
    await memory.forget(caller, stored.id, { reason: "r" });
    const [created, forgotten] = seen.map((s) => s.change);
    expect(created).toMatchObject({ kind: "created", agentId: "a", project: "web", keywordColumns: keywordColumns("use snake_case names", '["style"]', "[]") });
    expect(forgotten).toMatchObject({ kind: "forgotten", seq: created!.seq, keywordColumns: null });
  });

  test("a group that rolls back stores nothing and announces nothing; the next one commits", async () => {
    const { db, memory, seen } = setup();
    const first = await memory.remember(caller, { content: "first" });
    // A keyword row already under the next memory's seq (an index out of step with the store) makes
    // the group's keyword write fail after its writes succeeded.
    db.run("INSERT INTO memories_fts (rowid, content, tags, hints, terms) VALUES (?, 'stale', '', '', '')", [seen[0]!.change.seq + 1]);
    const outcomes = await Promise.allSettled([
      memory.remember(caller, { content: "second" }),
      memory.modify(caller, first.id, { content: "first, changed", reason: "r" }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(db.query<{ content: string }, []>("SELECT content FROM memories ORDER BY seq").all().map((r) => r.content)).toEqual(["first"]);
    expect(seen.map((s) => s.change.kind)).toEqual(["created"]);
    db.run("DELETE FROM memories_fts WHERE rowid = ?", [seen[0]!.change.seq + 1]);
    await memory.remember(caller, { content: "third" });
    expect(seen.map((s) => s.change.kind)).toEqual(["created", "created"]);
  });
});
