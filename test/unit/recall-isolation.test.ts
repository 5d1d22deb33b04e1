// Agent isolation in recall on a real database: past 65,536 agents every agent still sees only its
// own memories, and a hit the in-memory indexes report for a row the caller may not read (an index
// out of step with the store) is dropped by the SQL that reads the rows.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { RecallRequestSchema } from "../../src/contracts/recall";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { AccessLog, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import { RecallService } from "../../src/core/recall/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { tempDir } from "../helpers/daemon";
import { recordingLogger } from "../helpers/log";

const AGENTS = 65_540;

const caller = (agentId: string): Caller => ({ agentId, actor: "test", actorType: null, runtimePath: null });

function setup(sharedAgents: string[] = []) {
  const dir = tempDir("signet-recall-isolation-");
  const db = openDatabase(join(dir, "memories.db"));
  migrate(db);
  const memory = new MemoryService(new SqliteMemoryStore(db), { sharedAgents });
  const accessLog = new AccessLog(new SqliteAccessWrites(db), recordingLogger().log);
  const recall = new RecallService(new SqliteRecallStore(db), memory, null, accessLog);
  const ids = async (agentId: string, query: string, extra: Record<string, unknown> = {}) =>
    (await recall.recall(caller(agentId), RecallRequestSchema.parse({ query, ...extra }))).results.map((r) => r.id);
  const close = () => {
    accessLog.flush();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { db, memory, recall, ids, close };
}

type Setup = ReturnType<typeof setup>;

/** Changes a row behind the services' backs, as a store the indexes are out of step with would be. */
function alter(db: Database, id: string, set: string): void {
  db.run(`UPDATE memories SET ${set} WHERE id = ?`, [id]);
}

describe("recall past 65,536 agents", () => {
  let s: Setup;

  beforeAll(async () => {
    s = setup();
    // One set-based insert (the service's per-row writes would take seconds): agent i owns seq i.
    // The keyword index loads from these rows; FTS5, which it stands in for, is not asked here.
    s.db.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO memories (seq, id, agent_id, content, content_key, created_at, updated_at)
       SELECT i, 'm-' || i, 'agent-' || i, 'the quokka ledger of agent ' || i, 'k-' || i, '2024-01-01T00:00:00.000Z',
         '2024-01-01T00:00:00.000Z' FROM n`,
      [AGENTS],
    );
    expect(await s.recall.start()).toBe(AGENTS);
  });

  afterAll(() => s.close());

  test("every agent sees its own memory and no other", async () => {
    for (const i of [1, 2, 3, 65_535, 65_536, 65_537, 65_538, 65_540]) {
      expect(await s.ids(`agent-${i}`, "quokka ledger")).toEqual([`m-${i}`]);
    }
    expect(await s.ids("agent-0", "quokka ledger")).toEqual([]);
  });
});

describe("the rows of an answer are re-checked against the caller's scope", () => {
  let s: Setup;
  afterAll(() => s.close());

  test("a hit for another agent's or a forgotten row is dropped, from FTS5 and from the keyword index", async () => {
    s = setup(["shared"]);
    const mine = async (content: string) => (await s.memory.remember(caller("a"), { content })).id;
    const kept = await mine("heron one");
    const movedEarly = await mine("heron two");
    const movedLate = await mine("heron three");
    const forgotten = await mine("heron four");
    const shared = (await s.memory.remember(caller("shared"), { content: "heron of the shared agent" })).id;
    const sorted = (ids: string[]) => [...ids].sort();

    // Until the keyword index has loaded, FTS5 answers; while the caller may read every agent that
    // owns memories (a and the shared one here) the leg takes its hits without a check of its own.
    expect((await s.ids("a", "heron")).sort()).toEqual(sorted([kept, movedEarly, movedLate, forgotten, shared]));
    alter(s.db, movedEarly, "agent_id = 'c'");
    expect((await s.ids("a", "heron")).sort()).toEqual(sorted([kept, movedLate, forgotten, shared]));

    await s.recall.start();
    alter(s.db, movedLate, "agent_id = 'c'");
    alter(s.db, forgotten, "deleted_at = '2024-01-01T00:00:00.000Z'");
    const r = await s.recall.recall(caller("a"), RecallRequestSchema.parse({ query: "heron" }));
    expect(r.results.map((x) => x.id).sort()).toEqual(sorted([kept, shared]));
    expect(r.meta.candidates).toBe(2);
    // With a row filter the leg's own check (the same reader) drops them before its top-k cut.
    expect((await s.ids("a", "heron", { type: "fact" })).sort()).toEqual(sorted([kept, shared]));
  });
});
