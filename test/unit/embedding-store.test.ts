// The embedding worker on both stores, with the builtin model: memories written through
// MemoryService are embedded and their vectors stored; a forgotten memory leaves the index and a
// recovered one comes back from its stored vector; another worker on the same store (a restart, or
// another daemon) loads the stored vectors instead of embedding again. Against the daemon's SQLite
// file and a real PostgreSQL (a throwaway cluster), so the two EmbeddingStores cannot drift. On
// PostgreSQL also: the vectors one daemon stores reach another daemon's index through the change feed.
import { afterAll, describe, expect, test } from "bun:test";
import { createBuiltinEmbedder } from "../../src/core/embed/builtin";
import { PostgresEmbeddingStore } from "../../src/core/embed/postgres-store";
import { SqliteEmbeddingStore } from "../../src/core/embed/sqlite-store";
import type { EmbeddingStore } from "../../src/core/embed/store";
import { EmbeddingWorker, type EmbeddingWorkerOptions } from "../../src/core/embed/worker";
import { MemoryFeed } from "../../src/core/memory/postgres-feed";
import { PostgresMemoryStore } from "../../src/core/memory/postgres-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import type { MemoryStore } from "../../src/core/memory/store";
import { postgresDatabases } from "../helpers/postgres-databases";
import { tempDir } from "../helpers/temp-cleanup";
import { migratedDatabase } from "../helpers/sqlite";
import { eventually } from "../helpers/wait";

const workers: EmbeddingWorker[] = [];
const feeds: MemoryFeed[] = [];
afterAll(async () => {
  for (const f of feeds.splice(0)) await f.stop();
  for (const w of workers.splice(0)) await w.stop();
});
const postgres = postgresDatabases();

const ada: Caller = { agentId: "ada", actor: "test", actorType: null, runtimePath: null };

const MEMORIES = [
  "The staging database runs on heron-7",
  "Deploys go out on Tuesdays after the standup",
  "Lee prefers tabs over spaces in Makefiles",
  "The billing cron job runs at midnight UTC",
  "Rotate the API keys every ninety days",
  "The VPN needs multi-factor authentication",
];

interface Stores {
  memory: () => MemoryStore;
  embedding: () => EmbeddingStore;
}

/** A worker with the builtin model; `counted.texts` counts what its model embedded (queries too). */
function worker(store: EmbeddingStore, counted: { texts: number } = { texts: 0 }, options: EmbeddingWorkerOptions = {}): EmbeddingWorker {
  const w = new EmbeddingWorker(store, "builtin", async () => {
    const inner = await createBuiltinEmbedder();
    return Object.assign(Object.create(inner) as typeof inner, {
      embed: (texts: string[]) => {
        counted.texts += texts.length;
        return inner.embed(texts);
      },
    });
  }, options);
  workers.push(w);
  w.start();
  return w;
}

async function embedded(w: EmbeddingWorker, count: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const s = w.status();
    if (s.model !== null && s.ok && s.pending === 0 && (w.vectors?.count ?? 0) === count) return;
    await Bun.sleep(50);
  }
  throw new Error(`not embedded: ${JSON.stringify(w.status())}, ${w.vectors?.count ?? 0} vectors`);
}

const STORES: { name: string; available: boolean; open(): Promise<Stores> }[] = [
  {
    name: "SQLite",
    available: true,
    async open() {
      const db = migratedDatabase();
      return { memory: () => new SqliteMemoryStore(db), embedding: () => new SqliteEmbeddingStore(db) };
    },
  },
  {
    name: "PostgreSQL",
    available: postgres.available,
    async open() {
      const connect = await postgres.database({ max: 4 });
      return { memory: () => new PostgresMemoryStore(connect()), embedding: () => new PostgresEmbeddingStore(connect(), tempDir(), "d_test") };
    },
  },
];

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`vector sizes on ${kind.name}`, () => {
    // One database for these tests: a PostgreSQL file's clients stay open until its end.
    let opened: Promise<Stores> | undefined;
    const open = () => (opened ??= kind.open());

    test("a model's vectors are of one size: those of another are pending, stale, leased again and not read as current", async () => {
      const stores = await open();
      const store = stores.embedding();
      const memory = new MemoryService(stores.memory());
      for (const content of MEMORIES.slice(0, 3)) await memory.remember(ada, { content });
      const rows = await store.rowsOf(await store.liveSeqs());
      const seqs = rows.map((r) => r.seq);
      const unit = new Uint8Array(new Float32Array(64).fill(1 / 8).buffer);
      await store.storeVectors("m", rows.map((r) => ({ seq: r.seq, dimensions: 64, contentKey: r.content_key, bytes: unit })), new Date().toISOString());
      expect(await store.dimensionsOf("m")).toBe(64);
      expect(await store.dimensionsOf("other")).toBeNull();
      const since = "2000-01-01T00:00:00.000Z";
      // Of the model's size: nothing to do.
      expect(await store.staleModel("m", 64)).toBeNull();
      expect(await store.pendingSeqs("m", "", 64)).toEqual([]);
      expect(await store.vectorOf(seqs[0]!, "m", 64)).not.toBeNull();
      expect(await store.countDone("m", since, 64)).toBe(3);
      // The model at another size (embedding.dimensions changed): every vector is to be replaced.
      expect(await store.staleModel("m", 48)).toEqual({ model: "m", dimensions: 64 });
      expect(await store.pendingSeqs("m", "", 48)).toEqual(seqs);
      expect(await store.vectorOf(seqs[0]!, "m", 48)).toBeNull();
      expect(await store.countDone("m", since, 48)).toBe(0);
      // A size not known yet: the model alone decides.
      expect(await store.staleModel("m")).toBeNull();
      expect(await store.pendingSeqs("m", "")).toEqual([]);
      if (store instanceof PostgresEmbeddingStore) {
        // On a shared store only what is to be done is leased.
        expect(await store.lease(seqs, "m", 64)).toEqual([]);
        expect((await store.lease(seqs, "m", 48)).sort((x, y) => x - y)).toEqual(seqs);
      }
    }, 60_000);

    test("a worker's start clears the credentials of base URLs recorded with them, and leaves the rest", async () => {
      const store = (await open()).embedding();
      const at = new Date().toISOString();
      // As recorded before URLs were recorded without their credentials.
      await store.recordModel("old", "openai", "https://proxyuser:S3cret%40Pass@llm.example:8443/v1", 64, at);
      await store.recordModel("token", "ollama", "http://tok3n@10.0.0.2:11434", 32, at);
      await store.recordModel("clean", "ollama", "http://127.0.0.1:11434", 16, at);
      await store.recordModel("builtin", "builtin", null, 512, at);
      const w = worker(store);
      const cleared = async () => (await store.modelUrls()).every((r) => !r.base_url.includes("@"));
      expect(await eventually(cleared)).toBe(true);
      expect(await store.modelRow("old")).toEqual({ provider: "openai", base_url: "https://llm.example:8443/v1", dimensions: 64 });
      expect((await store.modelRow("token"))?.base_url).toBe("http://10.0.0.2:11434");
      expect((await store.modelRow("clean"))?.base_url).toBe("http://127.0.0.1:11434");
      expect((await store.modelRow("builtin"))?.base_url).toBeNull();
      await w.stop();
    }, 60_000);
  });
}

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`embeddings on ${kind.name}`, () => {
    test("written memories are embedded and stored; forget and recover move the index; another worker loads the stored vectors", async () => {
      const stores = await kind.open();
      const embeddingStore = stores.embedding();
      const w = worker(embeddingStore);
      const memory = new MemoryService(stores.memory(), { onChange: (c) => w.onChange(c) });
      const ids = [];
      for (const content of MEMORIES) ids.push((await memory.remember(ada, { content })).id);
      await embedded(w, MEMORIES.length);
      expect(await embeddingStore.storedModels()).toEqual([{ model: w.status().model!, dimensions: expect.any(Number), count: MEMORIES.length }]);
      // The vector leg finds a memory asked in other words.
      const { hits } = await w.search("which machine hosts the pre-production db?", { k: 3, agentIds: ["ada"], allowed: async () => undefined });
      expect(hits.length).toBeGreaterThan(0);

      const embeddedBy = new Date().toISOString();
      await Bun.sleep(5);
      await memory.forget(ada, ids[0]!, { reason: "moved" });
      expect(w.vectors!.count).toBe(MEMORIES.length - 1);
      await memory.recover(ada, ids[0]!, {});
      // Back from its stored vector: nothing was embedded (stored) again.
      await embedded(w, MEMORIES.length);
      expect(await embeddingStore.countDone(w.status().model!, embeddedBy)).toBe(0);

      // Another worker on the same store: the vectors load, nothing is embedded again.
      const other = worker(stores.embedding());
      await embedded(other, MEMORIES.length);
      expect(other.status().pending).toBe(0);
      expect(await embeddingStore.countDone(w.status().model!, "2000-01-01T00:00:00.000Z")).toBe(MEMORIES.length);
    }, 60_000);
  });
}

describe.skipIf(!postgres.available)("embeddings shared by two daemons on one PostgreSQL", () => {
  test("vectors one daemon stores reach the other's index through the change feed; the other never embeds them", async () => {
    const connect = await postgres.database({ max: 6 });
    const a = worker(new PostgresEmbeddingStore(connect(), tempDir(), "d_a"));
    const memory = new MemoryService(new PostgresMemoryStore(connect()), { onChange: (c) => a.onChange(c) });
    const bEmbedded = { texts: 0 };
    const b = worker(new PostgresEmbeddingStore(connect(), tempDir(), "d_b"), bEmbedded);
    const reader = connect();
    const feed = new MemoryFeed(reader, { onChange: (c) => b.followStored(c) });
    feeds.push(feed);
    await feed.start(await MemoryFeed.head(reader));
    // B ready first: memories written while it still loads would be found unembedded by its own look
    // and leased, and A (which follows no feed here) would never index what B embedded.
    await embedded(b, 0);
    const ids = [];
    for (const content of MEMORIES) ids.push((await memory.remember(ada, { content })).id);
    await embedded(a, MEMORIES.length);
    await embedded(b, MEMORIES.length);
    // B holds A's vectors: its own model embedded nothing.
    expect(bEmbedded.texts).toBe(0);
    await memory.forget(ada, ids[1]!, { reason: "stale" });
    await embedded(b, MEMORIES.length - 1);
  }, 60_000);
});

describe.skipIf(!postgres.available)("embedding work leased among daemons on one PostgreSQL", () => {
  /** A daemon's worker on its own store and directory, following the feed from now on. */
  async function daemon(connect: () => Bun.SQL, id: string, counted: { texts: number }, options: EmbeddingWorkerOptions = {}) {
    const reader = connect();
    const head = await MemoryFeed.head(reader);
    const w = worker(new PostgresEmbeddingStore(connect(), tempDir(), id), counted, options);
    const feed = new MemoryFeed(reader, { onChange: (c) => w.followStored(c) });
    feeds.push(feed);
    await feed.start(head);
    return w;
  }

  test("two daemons starting on the same unembedded memories embed each of them once", async () => {
    const connect = await postgres.database({ max: 8 });
    // Written while no daemon embedded (both were down).
    const memory = new MemoryService(new PostgresMemoryStore(connect()));
    for (let i = 0; i < 40; i++) await memory.remember(ada, { content: `${MEMORIES[i % MEMORIES.length]} (note ${i})` });
    const [aTexts, bTexts] = [{ texts: 0 }, { texts: 0 }];
    const [a, b] = await Promise.all([daemon(connect, "d_a", aTexts, { batchSize: 4 }), daemon(connect, "d_b", bTexts, { batchSize: 4 })]);
    await embedded(a, 40);
    await embedded(b, 40);
    expect(aTexts.texts + bTexts.texts).toBe(40);
  }, 60_000);

  test("vectors another daemon stores while this one is still loading its index reach this index", async () => {
    const connect = await postgres.database({ max: 8 });
    const memory = new MemoryService(new PostgresMemoryStore(connect()));
    for (let i = 0; i < 12; i++) await memory.remember(ada, { content: `${MEMORIES[i % MEMORIES.length]} (note ${i})` });
    // B has read the stored vectors (none yet) and holds before queueing what its index lacks: A
    // embeds everything meanwhile, and B's feed tells it so before B can take the vectors in.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const followed = { changes: 0 };
    const reader = connect();
    const head = await MemoryFeed.head(reader);
    const bStore = new PostgresEmbeddingStore(connect(), tempDir(), "d_b");
    const [liveSeqs, pendingSeqs] = [bStore.liveSeqs.bind(bStore), bStore.pendingSeqs.bind(bStore)];
    bStore.liveSeqs = async () => (await held, liveSeqs());
    bStore.pendingSeqs = async (model, redoBefore) => (await held, pendingSeqs(model, redoBefore));
    const bTexts = { texts: 0 };
    const b = worker(bStore, bTexts);
    const feed = new MemoryFeed(reader, { onChange: (c) => (followed.changes++, b.followStored(c)) });
    feeds.push(feed);
    await feed.start(head);
    const a = worker(new PostgresEmbeddingStore(connect(), tempDir(), "d_a"));
    await embedded(a, 12);
    for (let i = 0; i < 200 && followed.changes < 12; i++) await Bun.sleep(25);
    expect(followed.changes).toBe(12);
    release();
    await embedded(b, 12);
    expect(bTexts.texts).toBe(0);
  }, 60_000);

  test("memories a dead daemon leased, or took and never embedded, are taken over by a live one", async () => {
    const connect = await postgres.database({ max: 8 });
    const memory = new MemoryService(new PostgresMemoryStore(connect()));
    const counted = { texts: 0 };
    // Writes older than 3 s with no lease are taken over: longer than writing MEMORIES and the dead
    // daemon's lease below take on a busy machine, so the live daemon cannot take them first.
    const live = await daemon(connect, "d_live", counted, { takeOver: { everyMs: 100, afterMs: 3_000 } });
    await embedded(live, 0);
    // The dead daemon took these writes and leased the first three just before it died; its
    // leases run out after 1 s. Nothing told the live daemon to embed any of them.
    const dead = new PostgresEmbeddingStore(connect(), tempDir(), "d_dead", { ttlMs: 1_000 });
    const ids = [];
    for (const content of MEMORIES) ids.push((await memory.remember(ada, { content })).id);
    const seqs = (await connect()`SELECT seq FROM memories ORDER BY seq`).map((r: { seq: number }) => r.seq);
    expect((await dead.lease(seqs.slice(0, 3), "use-lite-512")).sort((x, y) => x - y)).toEqual(seqs.slice(0, 3));
    // Leased to the dead daemon: the live one cannot take them before the lease runs out.
    expect(await new PostgresEmbeddingStore(connect(), tempDir(), "d_other").lease(seqs.slice(0, 3), "use-lite-512")).toEqual([]);
    await embedded(live, MEMORIES.length);
    expect(counted.texts).toBe(MEMORIES.length);
  }, 60_000);
});

