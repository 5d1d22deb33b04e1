// The knowledge graph on both stores: extraction, Dreaming, reviews, feedback and the reads through
// GraphService against the daemon's SQLite file and against a real PostgreSQL (a throwaway
// cluster), memories written through MemoryService, so the two GraphStores cannot drift. On
// PostgreSQL also what only a shared store has: two daemons extracting the same memories and the
// same new names at once, a daemon's gazetteer following names another one made, and two passes
// for one agent at once.
import { describe, expect, test } from "bun:test";
import { Foreground } from "../../src/core/foreground";
import { GraphService, type GraphOptions } from "../../src/core/graph/service";
import { eventually } from "../helpers/wait";
import { PostgresGraphStore } from "../../src/core/graph/postgres-store";
import { SqliteGraphStore } from "../../src/core/graph/sqlite-store";
import type { GraphStore } from "../../src/core/graph/store";
import type { ChatModel } from "../../src/core/llm/chat";
import { PostgresMemoryStore } from "../../src/core/memory/postgres-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import type { MemoryChange, MemoryStore } from "../../src/core/memory/store";
import { listeningConnections, postgresDatabases } from "../helpers/postgres-databases";
import { listenedDatabase } from "../helpers/postgres-listeners";
import { migratedDatabase } from "../helpers/sqlite";

const postgres = postgresDatabases();

const ada: Caller = { agentId: "ada", actor: "test", actorType: null, runtimePath: null };
const bob: Caller = { agentId: "bob", actor: "test", actorType: null, runtimePath: null };

interface Daemon {
  memory: MemoryService;
  graph: GraphService;
  errors: string[];
  /** The changes written through this daemon, to tell another one of. */
  changes: MemoryChange[];
  /** Remembers through the daemon, its graph extracting it; the memory's id and seq. */
  remember(caller: Caller, req: Parameters<MemoryService["remember"]>[1]): Promise<{ id: string; seq: number }>;
  /** Rows of a graph table (or the memories), read from the store itself. */
  count(table: string): Promise<number>;
  importance(id: string): Promise<number>;
  /** Runs a statement on the store itself (what an older version left, or a daemon that died). */
  run(statement: string): Promise<void>;
  /** The graph of a daemon started again on the same store, with a store object of its own (nothing cached). */
  restarted(): Promise<GraphService>;
}

interface Access {
  count: Daemon["count"];
  run: Daemon["run"];
  graphStore(): GraphStore;
}

const GRAPH_OPTIONS = { dreamAfterMemories: 1_000_000, dreamIdleMs: 3_600_000 };

function daemon(stores: { memory: MemoryStore; graph: GraphStore }, access: Access, llm?: ChatModel, options: Partial<GraphOptions> = {}): Daemon {
  const errors: string[] = [];
  const changes: MemoryChange[] = [];
  let graph: GraphService | undefined;
  const memory = new MemoryService(stores.memory, {
    onChange: (c) => {
      changes.push(c);
      graph?.onChange(c);
    },
  });
  graph = new GraphService(stores.graph, { ...GRAPH_OPTIONS, onError: (m) => errors.push(m), llm, ...options });
  return {
    memory,
    graph,
    errors,
    changes,
    async remember(caller, req) {
      const { id } = await memory.remember(caller, req);
      return { id, seq: (await stores.memory.get(id))!.seq };
    },
    count: access.count,
    importance: async (id) => (await stores.memory.get(id))!.importance,
    run: access.run,
    async restarted() {
      const again = new GraphService(access.graphStore(), { ...GRAPH_OPTIONS, onError: (m) => errors.push(m) });
      await again.start();
      return again;
    },
  };
}

function sqliteDaemon(llm?: ChatModel, options: Partial<GraphOptions> = {}): Daemon {
  const db = migratedDatabase();
  return daemon(
    { memory: new SqliteMemoryStore(db), graph: new SqliteGraphStore(db) },
    {
      count: async (table) => db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n,
      run: async (statement) => void db.run(statement),
      graphStore: () => new SqliteGraphStore(db),
    },
    llm,
    options,
  );
}

function postgresDaemon(sql: Bun.SQL, llm?: ChatModel, options: Partial<GraphOptions> = {}): Daemon {
  return daemon(
    { memory: new PostgresMemoryStore(sql), graph: new PostgresGraphStore(sql) },
    {
      count: async (table) => ((await sql.unsafe(`SELECT count(*)::int AS n FROM ${table}`)) as { n: number }[])[0]!.n,
      run: async (statement) => void (await sql.unsafe(statement)),
      graphStore: () => new PostgresGraphStore(sql),
    },
    llm,
    options,
  );
}

const STORES: { name: string; available: boolean; open(llm?: ChatModel): Promise<Daemon> }[] = [
  { name: "SQLite", available: true, open: async (llm) => sqliteDaemon(llm) },
  { name: "PostgreSQL", available: postgres.available, open: async (llm) => postgresDaemon((await postgres.database({ max: 4 }))(), llm) },
];

/** A model that names two entities one thing (`from` into `into`), and the staging DB's `is` and `host` one attribute. */
const model = (from: string, into: string): ChatModel => ({
  label: "fake/model",
  complete: async (messages) => {
    const prompt = messages.map((m) => m.content).join("\n");
    const number = (line: string) => /\[(\d+)\] /.exec(prompt.split("\n").find((l) => l.includes(`] ${line}`)) ?? "")?.[1];
    return prompt.includes("Attributes:") ? `${number("staging DB: general.is")}=${number("staging DB: attributes.host")}` : `${number(`${from} (`)}=${number(`${into} (`)}`;
  },
});

async function started(d: Daemon): Promise<Daemon> {
  await d.graph.start();
  return d;
}

const pass = (d: Daemon, caller: Caller, dryRun = false) => d.graph.dream(caller.agentId, { dryRun, trigger: "test" });

/**
 * Dana Weber and Dana remembered through `via`; `other` finds the second memory by "dana", and still
 * does once a pass through `merger` merges Dana into Dana Weber, told of it by the store.
 */
async function mergeReaches(via: Daemon, merger: Daemon, other: Daemon): Promise<void> {
  await via.remember(ada, { content: "Dana Weber leads the payments team and signs off releases.", project: "payments" });
  const approved = await via.remember(ada, { content: "Dana approved the payments rollout for Thursday.", project: "payments" });
  await via.graph.settled();
  // The other daemon reads its gazetteer now: "dana" is the lone Dana's entity.
  expect(await other.graph.orderFactors(ada.agentId, "what did dana say?", [approved.seq])).toEqual(new Map([[approved.seq, 1.2]]));
  // The merge moves the memory's mention to Dana Weber's entity.
  expect((await pass(merger, ada)).counts).toMatchObject({ merge: 1 });
  // Told by the store, the other reads its names again and finds the memory by "dana" still.
  expect(await eventually(async () => (await other.graph.orderFactors(ada.agentId, "what did dana say?", [approved.seq])).size === 1, 5_000)).toBe(true);
}
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`the graph on ${kind.name}`, () => {
    test("extraction finds entities and claims; after a pass the newer claim supersedes the older, until it is forgotten", async () => {
      const d = await started(await kind.open());
      const old = await d.remember(ada, { content: "The staging DB is heron-7.", project: "orders", createdAt: daysAgo(2) });
      const newer = await d.remember(ada, { content: "Heads up: the staging DB is now heron-8 after the migration.", project: "orders" });
      const aside = await d.remember(ada, { content: "Quentin Blake reviewed it." });
      await d.graph.settled();
      expect((await d.graph.entities(ada.agentId, "", 10)).map((e) => [e.name, e.type, e.mentions])).toEqual([
        ["orders", "project", 2],
        ["staging DB", "thing", 2],
        ["Quentin Blake", "person", 1],
      ]);
      // Asked before any claim is superseded, and again after the pass that supersedes one.
      expect(await d.graph.supersededBy([old.seq, newer.seq])).toEqual(new Map());
      const first = await pass(d, ada);
      expect(first.counts).toMatchObject({ supersede: 1, relate: 1 });
      const claims = (await d.graph.entity(ada.agentId, "staging db")).claims;
      expect(claims.map((c) => [c.value, c.status, c.memoryId])).toEqual([
        ["heron-8", "active", newer.id],
        ["heron-7", "superseded", old.id],
      ]);
      expect(claims[1]!.validUntil).toBe(claims[0]!.validFrom);
      expect(claims[1]!.supersededBy).toBe(claims[0]!.id);
      // What recall asks: who superseded whom, what each memory is about, and which the query names.
      expect(await d.graph.supersededBy([old.seq, newer.seq])).toEqual(new Map([[old.seq, new Set([newer.seq])]]));
      expect(await d.graph.entityNames([newer.seq])).toEqual(new Map([[newer.seq, ["staging DB", "orders"]]]));
      expect(await d.graph.orderFactors(ada.agentId, "which host is the staging DB on?", [old.seq, newer.seq, aside.seq])).toEqual(
        new Map([
          [old.seq, 1.2],
          [newer.seq, 1.2],
        ]),
      );
      // A named author's memories have the author's lift in recall: the graph does not add its own.
      expect(await d.graph.orderFactors(ada.agentId, "what did Quentin Blake review?", [aside.seq])).toEqual(new Map([[aside.seq, 1.2]]));
      expect(await d.graph.orderFactors(ada.agentId, "what did Quentin Blake review?", [aside.seq], ["Quentin Blake"])).toEqual(new Map());
      expect((await pass(d, ada)).counts.supersede).toBe(0);
      // Forgotten: the older value is the slot's again, and an entity no memory mentions goes.
      await d.memory.forget(ada, newer.id, { reason: "wrong" });
      await d.memory.forget(ada, aside.id, { reason: "wrong" });
      await d.graph.settled();
      expect((await pass(d, ada)).counts).toMatchObject({ reinstate: 1, prune: 1 });
      expect((await d.graph.entity(ada.agentId, "staging DB")).claims.map((c) => [c.value, c.status])).toEqual([["heron-7", "active"]]);
      expect(await d.graph.entities(ada.agentId, "quentin", 10)).toEqual([]);
      expect(d.errors).toEqual([]);
    });

    test("an aggregate is never evidence: not read, and what the graph read of one (an older version's, or before a change made it one) goes", async () => {
      const d = await started(await kind.open());
      const staging = async (graph = d.graph) => (await graph.entity(ada.agentId, "staging DB")).claims.map((c) => [c.value, c.status, c.memoryId]);
      const old = await d.remember(ada, { content: "The staging DB is heron-7.", createdAt: daysAgo(2) });
      const newer = await d.remember(ada, { content: "The staging DB is heron-8.", createdAt: daysAgo(1) });
      const quotes = "Extractive summary: The staging DB is heron-8. The staging DB is heron-7.";
      const saved = await d.remember(ada, { content: quotes, type: "aggregate", tags: ["aggregate"] });
      await d.graph.settled();
      expect(await d.count("graph_extracted")).toBe(2);
      expect(await d.graph.entityNames([saved.seq])).toEqual(new Map());
      expect((await pass(d, ada)).counts).toMatchObject({ supersede: 1 });
      expect(await staging()).toEqual([
        ["heron-8", "active", newer.id],
        ["heron-7", "superseded", old.id],
      ]);
      // Such words in a fact are evidence: its last quote is the newest value...
      const fact = await d.remember(ada, { content: `Noted. ${quotes}`, type: "fact" });
      await d.graph.settled();
      await pass(d, ada);
      expect((await staging()).filter(([, status]) => status === "active").map(([value]) => value)).toEqual(["heron-7", "heron-7"]);
      // ... until it is made an aggregate: what the graph read of it goes, and the next pass reinstates.
      await d.memory.modify(ada, fact.id, { type: "aggregate", reason: "it is a saved answer" });
      await d.graph.settled();
      expect(await d.count("graph_extracted")).toBe(2);
      expect((await pass(d, ada)).counts).toMatchObject({ reinstate: 1 });
      expect((await staging()).filter(([, status]) => status === "active").map(([, , id]) => id)).toEqual([newer.id]);
      // A store an older version left, which read an aggregate as evidence: taken out at the next start.
      await d.memory.modify(ada, fact.id, { type: "fact", reason: "as an older version saw it" });
      await d.graph.settled();
      await pass(d, ada);
      await d.run(`UPDATE memories SET type = 'aggregate' WHERE seq = ${fact.seq}`);
      const again = await d.restarted();
      await again.settled();
      expect(await d.count("graph_extracted")).toBe(2);
      expect((await again.dream(ada.agentId, { dryRun: false, trigger: "test" })).counts).toMatchObject({ reinstate: 1 });
      expect((await staging(again)).filter(([, status]) => status === "active").map(([, , id]) => id)).toEqual([newer.id]);
      await again.stop();
      expect(d.errors).toEqual([]);
    });

    test("after the upgrade that reads every memory again, a name an older extraction took is no mention, and a pass prunes its entity", async () => {
      const d = await started(await kind.open());
      const said = await d.remember(ada, { content: "Thanks, Calvin. What a day at the lake!" });
      await d.graph.settled();
      expect(await d.graph.entityNames([said.seq])).toEqual(new Map([[said.seq, ["Calvin"]]]));
      // What an older version's extraction left: "What" as an entity the memory mentions.
      const now = new Date().toISOString();
      await d.run(`INSERT INTO graph_entities (id, agent_id, name, type, pinned, merged_into, created_at, updated_at) VALUES ('ent_old_what', 'ada', 'What', 'thing', 0, NULL, '${now}', '${now}')`);
      await d.run(`INSERT INTO graph_aliases (agent_id, key, entity_id, alias) VALUES ('ada', 'what', 'ent_old_what', 'What')`);
      await d.run(`INSERT INTO graph_mentions (entity_id, memory_seq) VALUES ('ent_old_what', ${said.seq})`);
      expect((await d.graph.entityNames([said.seq])).get(said.seq)?.sort()).toEqual(["Calvin", "What"]);
      const migration = kind.name === "SQLite" ? "018_graph_names_again.sql" : "postgres/012_graph_names_again.sql";
      await d.run(await Bun.file(new URL(`../../migrations/${migration}`, import.meta.url)).text());
      const again = await d.restarted();
      await again.settled();
      expect(await again.entityNames([said.seq])).toEqual(new Map([[said.seq, ["Calvin"]]]));
      expect((await again.dream(ada.agentId, { dryRun: false, trigger: "test" })).counts.prune).toBe(1);
      expect(await again.entities(ada.agentId, "what", 10)).toEqual([]);
      await again.stop();
      expect(d.errors).toEqual([]);
    });

    test("a pass gives an entity an older version misnamed the longest of its names extraction takes; a payload's name stays", async () => {
      const d = await started(await kind.open());
      const said = await d.remember(ada, { content: "Hey John, the deploy went out." });
      await d.graph.settled();
      expect(await d.graph.entityNames([said.seq])).toEqual(new Map([[said.seq, ["John"]]]));
      // What an older version left: John's entity named "Hey John", known by that name too.
      const [john] = await d.graph.entities(ada.agentId, "john", 10);
      await d.run(`UPDATE graph_entities SET name = 'Hey John' WHERE id = '${john!.id}'`);
      await d.run(`INSERT INTO graph_aliases (agent_id, key, entity_id, alias) VALUES ('ada', 'hey john', '${john!.id}', 'Hey John')`);
      const dry = await pass(d, ada, true);
      expect(dry.counts.name).toBe(1);
      expect(dry.actions.find((a) => a.action === "name")?.detail).toMatchObject({ entity: john!.id, from: "Hey John", into: "John" });
      expect((await d.graph.entity(ada.agentId, john!.id)).entity.name).toBe("Hey John");
      expect((await pass(d, ada)).counts.name).toBe(1);
      const renamed = await d.graph.entity(ada.agentId, john!.id);
      expect(renamed.entity.name).toBe("John");
      // The name it no longer takes is no longer one of the entity's.
      expect(renamed.entity.aliases).not.toContain("Hey John");
      expect((await pass(d, ada)).counts.name).toBe(0);
      // A name a payload gave stays, though extraction would take only a part of it.
      await d.remember(ada, { content: "Ledger notes.", structured: { entity: "Ledger API", aliases: ["Ledger"] } });
      await d.graph.settled();
      expect((await pass(d, ada)).counts.name).toBe(0);
      expect((await d.graph.entities(ada.agentId, "ledger", 10)).map((e) => e.name)).toEqual(["Ledger API"]);
      expect(d.errors).toEqual([]);
    });

    test("a slot is per project: newer evidence supersedes only its own project's claims, a global memory's only global ones", async () => {
      const d = await started(await kind.open());
      const active = async (graph = d.graph) =>
        (await graph.entity(ada.agentId, "staging DB")).claims.filter((c) => c.status === "active").map((c) => c.memoryId).sort();
      const shop = await d.remember(ada, { content: "The staging DB is heron-7.", project: "/work/shop", createdAt: daysAgo(3) });
      const blog = await d.remember(ada, { content: "The staging DB is osprey-2.", project: "/work/blog", createdAt: daysAgo(2) });
      const global = await d.remember(ada, { content: "The staging DB is kite-1.", createdAt: daysAgo(1) });
      await d.graph.settled();
      expect((await pass(d, ada)).counts.supersede).toBe(0);
      expect(await active()).toEqual([shop.id, blog.id, global.id].sort());
      // What a pass of an older version wrote, across projects: recall does not follow it, the next pass undoes it.
      await d.run(
        `UPDATE graph_claims SET status = 'superseded', superseded_by = (SELECT id FROM graph_claims WHERE memory_seq = ${blog.seq}),
           valid_until = (SELECT valid_from FROM graph_claims WHERE memory_seq = ${blog.seq}) WHERE memory_seq = ${shop.seq}`,
      );
      const again = await d.restarted();
      expect(await again.supersededBy([shop.seq, blog.seq, global.seq])).toEqual(new Map());
      expect((await again.dream(ada.agentId, { dryRun: false, trigger: "test" })).counts).toMatchObject({ reinstate: 1, supersede: 0 });
      expect(await active(again)).toEqual([shop.id, blog.id, global.id].sort());
      await again.stop();
      // Within a project, the newer value supersedes the older one, and recall follows it.
      const moved = await d.remember(ada, { content: "The staging DB is heron-9.", project: "/work/shop" });
      await d.graph.settled();
      expect((await pass(d, ada)).counts.supersede).toBe(1);
      expect(await active()).toEqual([moved.id, blog.id, global.id].sort());
      expect(await d.graph.supersededBy([shop.seq, blog.seq, global.seq, moved.seq])).toEqual(new Map([[shop.seq, new Set([moved.seq])]]));
      expect(d.errors).toEqual([]);
    });

    test("what the model proposes is applied when told to: two names of one thing merge, one attribute's two slots become one", async () => {
      const d = await started(await kind.open(model("Postgres", "PostgreSQL")));
      await d.remember(ada, { content: "We run Postgres 15 for the orders service.", project: "orders" });
      await d.remember(ada, { content: "PostgreSQL backs the billing ledger.", project: "billing" });
      const old = await d.remember(ada, { content: "The staging DB is heron-7.", createdAt: daysAgo(1) });
      const newer = await d.remember(ada, { content: "Moved the staging database.", structured: { entity: "staging DB", attributes: { host: "heron-8" } } });
      await d.graph.settled();
      const proposed = await pass(d, ada);
      expect(proposed.counts).toMatchObject({ propose: 2, merge: 0, rename: 0 });
      const applied = await d.graph.dream(ada.agentId, { dryRun: false, trigger: "test", apply: true });
      expect(applied.llm).toEqual({ model: "fake/model", status: "applied" });
      expect(applied.counts).toMatchObject({ merge: 1, rename: 1, supersede: 1 });
      expect((await d.graph.entities(ada.agentId, "postgres", 10)).map((e) => [e.name, e.aliases, e.mentions])).toEqual([["PostgreSQL", ["Postgres"], 2]]);
      const claims = (await d.graph.entity(ada.agentId, "staging DB")).claims;
      expect(claims.map((c) => [`${c.aspect}.${c.slot}`, c.value, c.status, c.memoryId])).toEqual([
        ["attributes.host", "heron-8", "active", newer.id],
        ["attributes.host", "heron-7", "superseded", old.id],
      ]);
    });

    test("a chain of merges in one pass lands on its last entity, with every name and mention", async () => {
      const d = await started(await kind.open(model("Dana Weber", "Dana Webber")));
      await d.remember(ada, { content: "Dana Weber leads the payments team.", project: "payments" });
      await d.remember(ada, { content: "Weber approved the payments rollout.", project: "payments" });
      await d.remember(ada, { content: "Dana Webber runs the payments budget.", project: "payments" });
      await d.graph.settled();
      // The rules merge Weber into Dana Weber; the model, Dana Weber into Dana Webber.
      const applied = await d.graph.dream(ada.agentId, { dryRun: false, trigger: "test", apply: true });
      expect(applied.actions.filter((a) => a.action === "merge").map((a) => [a.detail.fromName, a.detail.intoName])).toEqual([
        ["Weber", "Dana Weber"],
        ["Dana Weber", "Dana Webber"],
      ]);
      const dana = await d.graph.entities(ada.agentId, "weber", 10);
      expect(dana.map((e) => [e.name, e.type, e.aliases, e.mentions])).toEqual([["Dana Webber", "person", ["Dana Weber", "Weber"], 3]]);
      expect((await d.graph.entity(ada.agentId, "Weber")).entity.name).toBe("Dana Webber");
      expect((await d.graph.entity(ada.agentId, "Dana Webber")).relations.map((r) => [r.entity.name, r.evidence])).toEqual([["payments", 3]]);
    });

    test("a structured payload's attributes are claims of its entity, known by its aliases and typed by it", async () => {
      const d = await started(await kind.open());
      await d.remember(ada, {
        content: "Kenji Sato runs on-call for the billing service.",
        project: "billing",
        structured: { entity: "Kenji Sato", entityType: "person", aliases: ["ksato"], attributes: { role: "on-call lead", timezone: "JST" } },
      });
      await d.graph.settled();
      await pass(d, ada);
      const detail = await d.graph.entity(ada.agentId, "ksato");
      expect(detail.entity).toMatchObject({ name: "Kenji Sato", type: "person", aliases: ["ksato"], mentions: 1, pinned: false });
      expect(detail.aspects).toEqual([{ name: "attributes", weight: 1 }]);
      expect(Object.fromEntries(detail.claims.map((c) => [c.slot, c.value]))).toEqual({ role: "on-call lead", timezone: "JST" });
      expect(detail.relations.map((r) => [r.entity.name, r.type, r.evidence])).toEqual([["billing", "co-occurs", 1]]);
      expect(detail.memories.map((m) => m.content)).toEqual(["Kenji Sato runs on-call for the billing service."]);
    });

    test("a lone name merges into the one full name it can be; a dry run reports the pass and writes nothing", async () => {
      const d = await started(await kind.open());
      await d.remember(ada, { content: "Dana Weber leads the payments team and signs off releases.", project: "payments" });
      await d.remember(ada, { content: "Dana approved the payments rollout for Thursday.", project: "payments" });
      const stale = await d.remember(ada, { content: "old note about the quarterly audit", importance: 0.8, createdAt: daysAgo(390) });
      await d.remember(ada, { content: "Rotate the deploy key", reviewAfter: "2020-01-01T00:00:00.000Z" });
      await d.graph.settled();
      expect((await d.graph.entities(ada.agentId, "dana", 10)).map((e) => e.name).sort()).toEqual(["Dana", "Dana Weber"]);
      const entities = await d.count("graph_entities");

      const dry = await pass(d, ada, true);
      expect(dry.id).toBeNull();
      expect(dry.counts).toMatchObject({ merge: 1, decay: 1, review: 1 });
      expect(await d.graph.entities(ada.agentId, "dana", 10)).toHaveLength(2);
      expect(await d.importance(stale.id)).toBe(0.8);
      for (const table of ["graph_dreams", "graph_audit", "graph_reviews", "graph_decay", "graph_relations", "graph_agents"]) expect(await d.count(table)).toBe(0);
      expect(await d.count("graph_entities")).toBe(entities);

      const real = await pass(d, ada);
      expect(real.id).toBeGreaterThan(0);
      expect(real.counts).toMatchObject({ merge: 1, decay: 1, review: 1 });
      const dana = await d.graph.entities(ada.agentId, "dana", 10);
      expect(dana.map((e) => ({ name: e.name, type: e.type, aliases: e.aliases, mentions: e.mentions }))).toEqual([
        { name: "Dana Weber", type: "person", aliases: ["Dana"], mentions: 2 },
      ]);
      expect((await d.graph.entity(ada.agentId, "Dana")).entity.name).toBe("Dana Weber");
      // 360 days past the 30 unused ones: two half-lives, 0.8 → 0.2.
      expect(await d.importance(stale.id)).toBe(0.2);
      expect(await d.count("graph_audit")).toBe(Object.values(real.counts).reduce((a, b) => a + b, 0));
      expect(await d.count("graph_dreams")).toBe(1);
    });

    test("a name heard before a longer name starting with it does not split the longer one: either order, the same graph", async () => {
      const dana = ["Dana reviews every database migration.", "Dana Weber owns the billing service."];
      const react = ["The web app uses React.", "The mobile app uses React Native."];
      for (const order of [[0, 1], [1, 0]]) {
        const d = await started(await kind.open());
        for (const i of order) await d.remember(ada, { content: dana[i]!, project: "billing" });
        for (const i of order) await d.remember(ada, { content: react[i]! });
        await d.graph.settled();
        const all = await d.graph.entities(ada.agentId, "", 20);
        expect(all.map((e) => [e.name, e.mentions]).sort(([a], [b]) => String(a).localeCompare(String(b)))).toEqual([
          ["billing", 2],
          ["Dana", 1],
          ["Dana Weber", 1],
          ["React", 1],
          ["React Native", 1],
        ]);
        // And Dreaming merges the lone name into the full one, as it does in either order.
        await pass(d, ada);
        expect((await d.graph.entities(ada.agentId, "dana", 10)).map((e) => [e.name, e.aliases, e.mentions])).toEqual([["Dana Weber", ["Dana"], 2]]);
        expect(d.errors).toEqual([]);
      }
    });

    test("a due review is queued by a pass, listed once, and queued once", async () => {
      const d = await started(await kind.open());
      const due = await d.remember(ada, { content: "The VPN certificate expires this month", reviewAfter: "2021-06-01T00:00:00.000Z" });
      await d.remember(ada, { content: "Renew the TLS cert", reviewAfter: "2999-01-01T00:00:00.000Z" });
      await d.graph.settled();
      expect((await pass(d, ada)).counts.review).toBe(1);
      const listed = await d.graph.dueReviews(ada.agentId, 10);
      expect(listed).toEqual([
        { seq: due.seq, id: due.id, content: "The VPN certificate expires this month", type: "fact", reason: "reviewAfter 2021-06-01T00:00:00.000Z has passed" },
      ]);
      expect(await d.graph.dueReviews(bob.agentId, 10)).toEqual([]);
      await d.graph.reviewsListed(listed.map((r) => r.seq));
      expect(await d.graph.dueReviews(ada.agentId, 10)).toEqual([]);
      expect((await pass(d, ada)).counts.review).toBe(0);
    });

    test("feedback moves the aspect weights on the memory's entity paths", async () => {
      const d = await started(await kind.open());
      const m = await d.remember(ada, {
        content: "Ravi Kumar is the payments on-call this week",
        structured: { entity: "Ravi Kumar", entityType: "person", aspect: "rota", attributes: { oncall: "payments" } },
      });
      // Not waited for: feedback extracts what it rates first.
      expect(await d.graph.propagate(ada.agentId, [[m.id, 1]])).toBe(1);
      expect((await d.graph.entity(ada.agentId, "Ravi Kumar")).aspects).toEqual([{ name: "rota", weight: expect.closeTo(Math.exp(0.2), 6) }]);
      expect(await d.graph.propagate(ada.agentId, [[m.id, 0]])).toBe(0);
      // Another agent's feedback never reaches ada's memory.
      expect(await d.graph.propagate(bob.agentId, [[m.id, 1]])).toBe(0);
      expect(await d.graph.propagate(ada.agentId, [[m.id, -20]])).toBe(1);
      expect((await d.graph.entity(ada.agentId, "Ravi Kumar")).aspects).toEqual([{ name: "rota", weight: 0.25 }]);
    });

    test("another agent sees none of an agent's graph, and its pass touches none of it", async () => {
      const d = await started(await kind.open());
      await d.remember(ada, { content: "Marta Lind maintains the ingest pipeline.", project: "ingest" });
      await d.graph.settled();
      const [marta] = await d.graph.entities(ada.agentId, "marta", 10);
      expect(marta!.name).toBe("Marta Lind");
      expect(await d.graph.entities(bob.agentId, "marta", 10)).toEqual([]);
      await expect(d.graph.entity(bob.agentId, "Marta Lind")).rejects.toThrow("no entity");
      await expect(d.graph.entity(bob.agentId, marta!.id)).rejects.toThrow("no entity");
      const bobs = await pass(d, bob);
      expect(Object.values(bobs.counts).every((n) => n === 0)).toBe(true);
      expect((await d.graph.entity(ada.agentId, marta!.id)).relations.map((r) => r.entity.name)).toEqual([]);
    });
  });
}

describe("the graph's work waits for writes to pause", () => {
  test("nothing is extracted while memories keep coming; all of them once they stop", async () => {
    const foreground = new Foreground({ quietMs: 300, maxWaitMs: 60_000 });
    const d = await started(sqliteDaemon(undefined, { pause: () => foreground.pause() }));
    for (let i = 0; i < 20; i++) {
      foreground.touch();
      await d.remember(ada, { content: `Quentin Blake reviewed the staging DB migration, part ${i}.` });
      foreground.touch();
      await Bun.sleep(5);
      expect(await d.count("graph_mentions")).toBe(0);
    }
    expect(d.graph.backlog).toBe(20);
    await d.graph.settled();
    expect(d.graph.backlog).toBe(0);
    expect((await d.graph.entities(ada.agentId, "", 10)).map((e) => [e.name, e.mentions])).toEqual([["Quentin Blake", 20]]);
    await d.graph.stop();
    expect(d.errors).toEqual([]);
  });
});

describe.skipIf(!postgres.available)("the graph shared by two daemons on one PostgreSQL", () => {
  test("two daemons extracting the same memories, which name the same new entities, at once: each written once", async () => {
    const connect = await postgres.database({ max: 4 });
    const one = postgresDaemon(connect());
    const two = postgresDaemon(connect());
    // Written before either graph starts: each start finds every memory waiting and extracts it.
    for (const [i, d] of [one, two].entries()) {
      await d.remember(ada, { content: `Dana Weber leads the payments team, shift ${i}.`, project: "payments" });
      await d.remember(ada, { content: `Kenji Sato and Priya Raman own the search service, shift ${i}.` });
      await d.remember(ada, { content: `The staging DB is heron-${i}.` });
    }
    await Promise.all([one.graph.start(), two.graph.start()]);
    await Promise.all([one.graph.settled(), two.graph.settled()]);
    for (const name of ["Dana Weber", "Kenji Sato", "Priya Raman", "payments", "staging DB"]) {
      const found = (await one.graph.entities(ada.agentId, name, 10)).filter((e) => e.name === name);
      expect(found.map((e) => e.mentions)).toEqual([2]);
    }
    expect(await one.count("graph_entities")).toBe(5);
    expect(await one.count("graph_mentions")).toBe(10);
    expect(await one.count("graph_claims")).toBe(2);
    expect(await one.count("graph_extracted")).toBe(6);
    // Running, each daemon extracts what it writes: new names in both at once, one entity each.
    const names = ["Noor Haddad", "Ines Duarte", "Marta Lind", "Ravi Kumar"];
    await Promise.all(names.flatMap((name) => [one, two].map((d, i) => d.remember(ada, { content: `${name} reviewed the schema change ${i}.` }))));
    await Promise.all([one.graph.settled(), two.graph.settled()]);
    for (const name of names) expect((await two.graph.entities(ada.agentId, name, 10)).map((e) => [e.name, e.mentions])).toEqual([[name, 2]]);
    expect([...one.errors, ...two.errors]).toEqual([]);
  });

  test("memories a daemon took and died before extracting are extracted by a live one, once", async () => {
    const connect = await postgres.database({ max: 4 });
    const [live, other] = [0, 1].map(() => postgresDaemon(connect(), undefined, { takeOver: { everyMs: 50, afterMs: 200 } }));
    await Promise.all([live!.graph.start(), other!.graph.start()]);
    // The dead daemon's writes committed; its graph never read them.
    const dead = new MemoryService(new PostgresMemoryStore(connect()));
    await dead.remember(ada, { content: "Dana Weber leads the payments team." });
    await dead.remember(ada, { content: "Kenji Sato owns the search service." });
    expect(await eventually(async () => (await live!.count("graph_extracted")) === 2, 5_000)).toBe(true);
    await Promise.all([live!.graph.settled(), other!.graph.settled()]);
    // Both live daemons looked; the agent's lock and the check under it let one extract each memory.
    for (const name of ["Dana Weber", "Kenji Sato"]) expect((await live!.graph.entities(ada.agentId, name, 10)).map((e) => [e.name, e.mentions])).toEqual([[name, 1]]);
    await Promise.all([live!.graph.stop(), other!.graph.stop()]);
    expect([...live!.errors, ...other!.errors]).toEqual([]);
  });

  test("a pass through one daemon that merges names reaches the other's gazetteer", async () => {
    const connect = await postgres.database({ max: 4 });
    const one = await started(postgresDaemon(connect()));
    const two = await started(postgresDaemon(connect()));
    await mergeReaches(one, one, two);
    await Promise.all([one.graph.stop(), two.graph.stop()]);
  });

  test("a daemon whose graph cannot listen at its start says so, extracts all the same and hears other daemons' passes once it can", async () => {
    const db = await listenedDatabase(postgres);
    try {
      const one = await started(postgresDaemon(db.connect()));
      const sql = db.connect();
      const observer = db.connect();
      // Their pools hold a connection each, which queries use while new connections are kept out.
      await Promise.all([sql`SELECT 1`, observer`SELECT 1`]);
      const two = postgresDaemon(sql);
      const letIn = await db.cutListeners();
      try {
        // Resolves: a start that failed here would leave the daemon's graph never extracting.
        await two.graph.start();
      } finally {
        await letIn();
      }
      expect(two.errors).toHaveLength(1);
      expect(two.errors[0]).toMatch(/^graph: the passes of other daemons: listening on the shared store failed \(.+\); trying again in 0\.25 s$/);
      // Both listen (the first's client listens again by itself after the cut).
      expect(await eventually(async () => (await listeningConnections(observer)) === 2, 20_000)).toBe(true);
      await mergeReaches(two, one, two);
      await Promise.all([one.graph.stop(), two.graph.stop()]);
      expect([...one.errors, ...two.errors.slice(1)]).toEqual([]);
    } finally {
      await db.close();
    }
  }, 60_000);

  test("a daemon's gazetteer follows the names another daemon made", async () => {
    const connect = await postgres.database({ max: 4 });
    const one = await started(postgresDaemon(connect()));
    const two = await started(postgresDaemon(connect()));
    await two.remember(ada, { content: "Ops notes for the week." });
    await two.graph.settled();
    // Through the first daemon, which names Dana Weber first...
    await one.remember(ada, { content: "Dana Weber leads the payments team." });
    await one.graph.settled();
    // ... then through the second, whose gazetteer did not know the name: one entity still.
    await two.remember(ada, { content: "Dana Weber approved the rollout." });
    await two.graph.settled();
    // Written in lower case, only a name the graph knows is found: the second daemon knows it now.
    const lower = await two.remember(ada, { content: "ask dana weber about the rollout" });
    await two.graph.settled();
    const dana = (await two.graph.entities(ada.agentId, "dana weber", 10)).map((e) => [e.name, e.mentions]);
    expect(dana).toEqual([["Dana Weber", 3]]);
    expect(await two.graph.orderFactors(ada.agentId, "what did dana weber say?", [lower.seq])).toEqual(new Map([[lower.seq, 1.2]]));
    // Told of a memory the first daemon read (as the change feed tells it), the second finds it read
    // and takes in the names it mentions: a query naming them lifts it.
    const priya = await one.remember(ada, { content: "Priya Raman owns the search service." });
    await one.graph.settled();
    two.graph.onChange(one.changes.at(-1)!);
    await two.graph.settled();
    expect(await two.graph.orderFactors(ada.agentId, "what does priya raman own?", [priya.seq])).toEqual(new Map([[priya.seq, 1.2]]));
    expect((await two.graph.entities(ada.agentId, "priya", 10)).map((e) => e.mentions)).toEqual([1]);
  });

  test("two passes for one agent at once: one runs, the other is refused until it ends; a dry run is not", async () => {
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    let answer!: (text: string) => void;
    const answered = new Promise<string>((resolve) => (answer = resolve));
    // A model that answers when told to: the first daemon's pass waits on it, holding the agent's pass.
    const llm: ChatModel = {
      label: "fake/held",
      complete: () => {
        asked();
        return answered;
      },
    };
    const connect = await postgres.database({ max: 4 });
    const one = await started(postgresDaemon(connect(), llm));
    const two = postgresDaemon(connect());
    await one.remember(ada, { content: "We run Postgres 15 for the orders service.", project: "orders" });
    await one.remember(ada, { content: "PostgreSQL backs the billing ledger.", project: "billing" });
    await one.graph.settled();
    const first = pass(one, ada);
    await wasAsked;
    await expect(pass(two, ada)).rejects.toThrow("running on another daemon");
    expect((await pass(two, ada, true)).id).toBeNull();
    // Another agent's pass is its own.
    expect((await pass(two, bob)).id).toBeGreaterThan(0);
    answer("0");
    expect((await first).id).toBeGreaterThan(0);
    expect((await pass(two, ada)).id).toBeGreaterThan(0);
    expect(await one.count("graph_dreams")).toBe(3);
  });
});
