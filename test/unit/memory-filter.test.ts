// The one filter builder (src/core/memory/filter.ts) behind GET /api/memories and recall: both select
// exactly the same memories for every filter (docs/api.md#get-apimemories, docs/api.md#request):
// tags all-of and exact, the caller's agent scope always, forgotten memories never.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { ListQuerySchema, RememberRequestSchema } from "../../src/contracts/memory";
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

const caller = (agentId: string): Caller => ({ agentId, actor: "test", actorType: null, runtimePath: null });

let dir: string;
let db: Database;
let memory: MemoryService;
let accessLog: AccessLog;
let recall: RecallService;
/** Each memory's name (its content after "lantern ") by id. */
const nameOf = new Map<string, string>();

beforeAll(async () => {
  dir = tempDir("signet-memory-filter-");
  db = openDatabase(join(dir, "memories.db"));
  migrate(db);
  memory = new MemoryService(new SqliteMemoryStore(db), { sharedAgents: ["team"] });
  accessLog = new AccessLog(new SqliteAccessWrites(db), recordingLogger().log);
  recall = new RecallService(new SqliteRecallStore(db), memory, null, accessLog);
  const add = async (name: string, agentId: string, body: Record<string, unknown>) => {
    const { id } = await memory.remember(caller(agentId), RememberRequestSchema.parse({ content: `lantern ${name}`, ...body }));
    nameOf.set(id, name);
    return id;
  };
  await add("plain", "me", {});
  await add("pref", "me", { type: "preference", who: "ana" });
  await add("tagX", "me", { tags: ["x"] });
  await add("tagXY", "me", { tags: ["x", "y"] });
  await add("tagXsub", "me", { tags: ["xy", "x-y"] });
  await add("project", "me", { project: "/work/p" });
  await add("old", "me", { createdAt: "2020-01-01T00:00:00Z" });
  await add("pinned", "me", { pinned: true, tags: ["x"] });
  await memory.forget(caller("me"), await add("forgotten", "me", { tags: ["x"] }), { reason: "gone" });
  await add("shared", "team", { tags: ["x"], type: "preference" });
  await add("private", "other", { tags: ["x"], type: "preference" });
  await recall.start();
});

afterAll(() => {
  accessLog.flush();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const names = (ids: string[]) => ids.map((i) => nameOf.get(i) ?? i).sort();

async function both(query: Record<string, string>): Promise<{ list: string[]; recall: string[] }> {
  const listed = (await memory.list(caller("me"), ListQuerySchema.parse(query))).memories.map((m) => m.id);
  const recallFilter = { ...query, ...(query.pinned ? { pinned: query.pinned === "true" } : {}) };
  const recalled = (await recall.recall(caller("me"), RecallRequestSchema.parse({ query: "lantern", limit: 100, ...recallFilter }))).results;
  return { list: names(listed), recall: names(recalled.map((r) => r.id)) };
}

describe("list and recall share one filter", () => {
  const cases: [string, Record<string, string>, string[]][] = [
    ["no filter: own and shared agents, never forgotten or private", {}, ["old", "plain", "pinned", "pref", "project", "shared", "tagX", "tagXY", "tagXsub"]],
    ["type", { type: "preference" }, ["pref", "shared"]],
    ["tags: one, exactly (never a substring)", { tags: "x" }, ["pinned", "shared", "tagX", "tagXY"]],
    ["tags: all of them", { tags: "y,x" }, ["tagXY"]],
    ["tags: one nobody carries", { tags: "z" }, []],
    ["project", { project: "/work/p" }, ["project"]],
    ["who", { who: "ana" }, ["pref"]],
    ["until (inclusive)", { until: "2020-01-01T00:00:00Z" }, ["old"]],
    ["since", { since: "2021-01-01" }, ["plain", "pinned", "pref", "project", "shared", "tagX", "tagXY", "tagXsub"]],
    ["pinned", { pinned: "true" }, ["pinned"]],
    ["filters combine", { tags: "x", pinned: "false", type: "fact" }, ["tagX", "tagXY"]],
  ];
  for (const [what, query, expected] of cases) {
    test(what, async () => {
      const sorted = [...expected].sort();
      expect(await both(query)).toEqual({ list: sorted, recall: sorted });
    });
  }
});
