// The daemon's collection pacer: a collection after every so many memory changes (or recalls), none
// between; and recall's hook for it, called once per ranking.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { RecallRequestSchema } from "../../src/contracts/recall";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { AccessLog, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { RecallService } from "../../src/core/recall/service";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { CHANGES_PER_ASYNC_COLLECTION, CHANGES_PER_COLLECTION, changesPacer, collectionPacer } from "../../src/server/collect-pacer";
import { tempDir } from "../helpers/daemon";
import { recordingLogger } from "../helpers/log";

test("collects once every `every` changes, and not before", () => {
  let collections = 0;
  const pace = collectionPacer(3, () => collections++);
  const seen: number[] = [];
  for (let i = 0; i < 10; i++) {
    pace();
    seen.push(collections);
  }
  expect(seen).toEqual([0, 0, 1, 1, 1, 2, 2, 2, 3, 3]);
});

test("by default every CHANGES_PER_COLLECTION changes", () => {
  let collections = 0;
  const pace = collectionPacer(undefined, () => collections++);
  for (let i = 0; i < CHANGES_PER_COLLECTION - 1; i++) pace();
  expect(collections).toBe(0);
  pace();
  expect(collections).toBe(1);
});

test("counts a batch as its size", () => {
  let collections = 0;
  const pace = collectionPacer(10, () => collections++);
  pace(16);
  expect(collections).toBe(1);
  pace(9);
  expect(collections).toBe(1);
  pace(1);
  expect(collections).toBe(2);
});

test("the daemon's changes pacer: an asynchronous collection every CHANGES_PER_ASYNC_COLLECTION, a full one every CHANGES_PER_COLLECTION", () => {
  const gc = Bun.gc;
  const calls: boolean[] = [];
  Bun.gc = ((force?: boolean) => void calls.push(force === true)) as typeof Bun.gc;
  try {
    const pace = changesPacer();
    pace(CHANGES_PER_ASYNC_COLLECTION - 1);
    expect(calls).toEqual([]);
    pace();
    expect(calls).toEqual([false]);
    pace(CHANGES_PER_COLLECTION - CHANGES_PER_ASYNC_COLLECTION);
    expect(calls).toEqual([false, true, false]);
  } finally {
    Bun.gc = gc;
  }
});

test("recall tells the pacer once per ranking: a recall, and the prompt hook's ranking alike", async () => {
  const db = openDatabase(join(tempDir("signet-collect-pacer-"), "memories.db"));
  migrate(db);
  const memory = new MemoryService(new SqliteMemoryStore(db));
  let ranked = 0;
  const recall = new RecallService(new SqliteRecallStore(db), memory, null, new AccessLog(new SqliteAccessWrites(db), recordingLogger().log), {
    afterRank: () => ranked++,
  });
  const ada: Caller = { agentId: "ada", actor: "test", actorType: null, runtimePath: null };
  await memory.remember(ada, { content: "the staging database is heron-8" });
  const request = RecallRequestSchema.parse({ query: "staging database" });
  expect((await recall.recall(ada, request)).results).toHaveLength(1);
  expect(ranked).toBe(1);
  await recall.rank(ada, request);
  expect(ranked).toBe(2);
});
