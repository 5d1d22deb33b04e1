// Recall on both stores: the same cases through RecallService against the daemon's SQLite file and
// against a real PostgreSQL (a throwaway cluster), keyword leg only, so the two RecallStores cannot
// drift. On PostgreSQL also what only a shared store has: a memory stored through one daemon is
// recalled through another, whose keyword index follows the change feed.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { RecallRequestSchema } from "../../src/contracts/recall";
import { MemoryFeed } from "../../src/core/memory/postgres-feed";
import { PostgresMemoryStore } from "../../src/core/memory/postgres-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { AccessLog, type AccessWrites, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { PostgresAccessWrites } from "../../src/core/recall/postgres-access";
import { PostgresRecallStore } from "../../src/core/recall/postgres-store";
import { RecallService } from "../../src/core/recall/service";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import type { RecallStore } from "../../src/core/recall/store";
import { recordingLogger } from "../helpers/log";
import { postgresDatabases } from "../helpers/postgres-databases";
import { eventually } from "../helpers/wait";
import { migratedDatabase } from "../helpers/sqlite";

// Registered before the cluster's clean-up, so the feeds stop listening before their clients close.
const feeds: MemoryFeed[] = [];
afterAll(async () => {
  for (const f of feeds.splice(0)) await f.stop();
});
const postgres = postgresDatabases();

const ada: Caller = { agentId: "ada", actor: "test", actorType: null, runtimePath: null };
const bob: Caller = { agentId: "bob", actor: "test", actorType: null, runtimePath: null };

interface Daemon {
  memory: MemoryService;
  recall: RecallService;
  access: AccessLog;
  /** What the daemon logged (access bookkeeping logs its failures instead of failing a recall). */
  logged: string[];
  /** Content of the results of `query` for `caller`, best first. */
  ask(caller: Caller, query: string, extra?: Record<string, unknown>): Promise<string[]>;
}

async function daemon(stores: { memory: ConstructorParameters<typeof MemoryService>[0]; recall: RecallStore; access: AccessWrites }): Promise<Daemon> {
  let recall: RecallService | undefined;
  const memory = new MemoryService(stores.memory, { sharedAgents: ["team"], onChange: (c) => recall?.onChange(c) });
  const { log, lines } = recordingLogger();
  const access = new AccessLog(stores.access, log, 10);
  recall = new RecallService(stores.recall, memory, null, access);
  await recall.start();
  const service = recall;
  const ask = async (caller: Caller, query: string, extra: Record<string, unknown> = {}) =>
    (await service.recall(caller, RecallRequestSchema.parse({ query, ...extra }))).results.map((r) => r.content);
  return { memory, recall, access, logged: lines, ask };
}

const STORES: { name: string; available: boolean; open(): Promise<Daemon> }[] = [
  {
    name: "SQLite",
    available: true,
    async open() {
      const db = migratedDatabase();
      return daemon({ memory: new SqliteMemoryStore(db), recall: new SqliteRecallStore(db), access: new SqliteAccessWrites(db) });
    },
  },
  {
    name: "PostgreSQL",
    available: postgres.available,
    async open() {
      const sql = (await postgres.database({ max: 4 }))();
      return daemon({ memory: new PostgresMemoryStore(sql), recall: new PostgresRecallStore(sql), access: new PostgresAccessWrites(sql) });
    },
  },
];

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`recall on ${kind.name}`, () => {
    test("a query term of several tokens (snake_case) is found, phrase-like: by all of its words", async () => {
      const d = await kind.open();
      await d.memory.remember(ada, { content: "The style guide says snake_case for Python function names" });
      await d.memory.remember(ada, { content: "A case of snake oil in the vendor pitch" });
      await d.memory.remember(ada, { content: "Deploys go out on Tuesdays" });
      const found = await d.ask(ada, "what does the style guide say about snake_case?");
      expect(found[0]).toBe("The style guide says snake_case for Python function names");
      expect(await d.ask(ada, "snake_case")).toContain("The style guide says snake_case for Python function names");
    });

    test("ranks by the query's words, follows modifies and forgets, and reads only what the caller may", async () => {
      const d = await kind.open();
      await d.memory.remember(ada, { content: "The staging database runs on heron-7" });
      await d.memory.remember(ada, { content: "Deploys to staging go out on Tuesdays" });
      const lunch = await d.memory.remember(ada, { content: "Team lunch is on Fridays" });
      await d.memory.remember(bob, { content: "Bob's staging database password rotates monthly" });
      await d.memory.remember({ ...bob, agentId: "team" }, { content: "The shared staging database is read-only for agents" });
      const staging = await d.ask(ada, "staging database");
      expect(staging.slice(0, 2).sort()).toEqual(["The shared staging database is read-only for agents", "The staging database runs on heron-7"]);
      expect(staging).toContain("Deploys to staging go out on Tuesdays");
      expect(staging.join()).not.toContain("Bob's");
      await d.memory.modify(ada, lunch.id, { content: "Team lunch moved to the heron cafe", reason: "moved" });
      expect(await d.ask(ada, "cafe")).toEqual(["Team lunch moved to the heron cafe"]);
      expect(await d.ask(ada, "fridays")).toEqual([]);
      await d.memory.forget(ada, lunch.id, { reason: "gone" });
      expect(await d.ask(ada, "cafe")).toEqual([]);
    });

    test("filters narrow the candidates before the cut: type, tags, project, who, pinned", async () => {
      const d = await kind.open();
      for (let i = 0; i < 60; i++) await d.memory.remember(ada, { content: `kiwi note ${i}`, importance: 0.9 });
      await d.memory.remember(ada, { content: "kiwi decision", type: "decision", tags: ["fruit"], project: "/p", who: "Dana", pinned: true });
      const only = ["kiwi decision"];
      expect(await d.ask(ada, "kiwi", { type: "decision" })).toEqual(only);
      expect(await d.ask(ada, "kiwi", { tags: ["fruit"] })).toEqual(only);
      expect(await d.ask(ada, "kiwi", { project: "/p" })).toEqual(only);
      expect(await d.ask(ada, "kiwi", { who: "Dana" })).toEqual(only);
      expect(await d.ask(ada, "kiwi", { pinned: true })).toEqual(only);
      // Unfiltered, the 50 best candidates of the leg.
      expect(await d.ask(ada, "kiwi", { limit: 100 })).toHaveLength(50);
    });

    test("a hit's session neighbours come with it; a recall's accesses are counted", async () => {
      const d = await kind.open();
      const session = { sessionKey: "chat-1" };
      await d.memory.remember(ada, { content: "Sam asked which library to use for charts", createdAt: "2026-11-01T10:00:00.000Z", ...session });
      const answer = await d.memory.remember(ada, { content: "Lee picked uPlot after comparing three", createdAt: "2026-11-01T10:01:00.000Z", ...session });
      await d.memory.remember(ada, { content: "Sam said thanks", createdAt: "2026-11-01T10:02:00.000Z", ...session });
      const r = await d.recall.recall(ada, RecallRequestSchema.parse({ query: "uPlot", sessionKey: "s-42" }));
      // The hit first; its neighbours lent a place among the results (neighbours.ts), or given as its context.
      expect(r.results[0]!.content).toBe("Lee picked uPlot after comparing three");
      expect([...r.results, ...r.supporting].map((x) => x.content).sort()).toEqual([
        "Lee picked uPlot after comparing three",
        "Sam asked which library to use for charts",
        "Sam said thanks",
      ]);
      await d.access.flush();
      expect((await d.memory.get(ada, answer.id)).accessCount).toBe(1);
      // What session s-42 was shown was recorded without a failure.
      expect(d.logged).toEqual([]);
    });
  });
}

describe.skipIf(!postgres.available)("recall shared by two daemons on one PostgreSQL", () => {
  test("a memory stored through one daemon is recalled through the other, whose index follows the change feed", async () => {
    const connect = await postgres.database({ max: 4 });
    const stores = () => {
      const sql = connect();
      return { memory: new PostgresMemoryStore(sql), recall: new PostgresRecallStore(sql), access: new PostgresAccessWrites(sql) };
    };
    const one = await daemon(stores());
    await one.memory.remember(ada, { content: "Before the other daemon started: the VPN needs MFA" });
    // The other daemon starts as a daemon does: the feed's head, then the load, then the feed.
    const otherStores = stores();
    const reader = connect();
    const head = await MemoryFeed.head(reader);
    const two = await daemon(otherStores);
    const feed = new MemoryFeed(reader, { onChange: (c) => two.recall.onChange(c) });
    feeds.push(feed);
    await feed.start(head);
    expect(await two.ask(ada, "vpn")).toEqual(["Before the other daemon started: the VPN needs MFA"]);

    const stored = await one.memory.remember(ada, { content: "The release train leaves at noon on Thursdays" });
    expect(await eventually(async () => (await two.ask(ada, "release train")).length === 1, 5_000)).toBe(true);
    await one.memory.modify(ada, stored.id, { content: "The release train leaves at noon on Wednesdays", reason: "moved" });
    expect(await eventually(async () => (await two.ask(ada, "wednesdays")).length === 1, 5_000)).toBe(true);
    await one.memory.forget(ada, stored.id, { reason: "cancelled" });
    expect(await eventually(async () => (await two.ask(ada, "release train")).length === 0, 5_000)).toBe(true);
  });
});
