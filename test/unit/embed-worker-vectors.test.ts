// The embedding worker's vector index over a real store with the builtin model: its float vectors
// live in an unlinked file beside the database (nothing left on disk, the descriptor closed at
// stop), and its hits are the exact best of memory_vectors after a restart's load, edits (a record
// written over), forgets (the last record moved into the hole) and a recovery.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { RememberRequestSchema } from "../../src/contracts/memory";
import { createBuiltinEmbedder } from "../../src/core/embed/builtin";
import { SqliteEmbeddingStore } from "../../src/core/embed/sqlite-store";
import { EmbeddingWorker } from "../../src/core/embed/worker";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { makeGenerator, makeQueryGenerator } from "../../scripts/lib/content";
import { openFilePaths } from "../helpers/open-files";
import { tempDir } from "../helpers/temp-cleanup";

const caller: Caller = { agentId: "default", actor: "test", actorType: null, runtimePath: null };

/** The vector files this process holds open in `dir`. */
function openVectorFiles(dir: string): string[] {
  return openFilePaths((path) => path.startsWith(`${dir}/.vectors-`));
}

async function embedded(worker: EmbeddingWorker): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const s = worker.status();
    if (s.model !== null && s.ok && s.pending === 0 && worker.vectors) return;
    await Bun.sleep(100);
  }
  throw new Error(`not embedded: ${JSON.stringify(worker.status())}`);
}

/** Every live memory's stored vector of the current content, by seq. */
function storedVectors(db: Database): Map<number, Float32Array> {
  const rows = db
    .query<{ seq: number; vector: Uint8Array }, []>(
      `SELECT v.seq, v.vector FROM memory_vectors v JOIN memories m ON m.seq = v.seq
       WHERE v.content_key = m.content_key AND m.deleted_at IS NULL`,
    )
    .all();
  return new Map(rows.map((r) => [r.seq, new Float32Array(r.vector.slice().buffer)]));
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, d) => s + x * b[d]!, 0);

describe("the embedding worker's vector index", () => {
  let dir: string;
  let db: Database;
  let memory: MemoryService;
  let worker: EmbeddingWorker;
  const seqOf = (id: string) => db.query<{ seq: number }, [string]>("SELECT seq FROM memories WHERE id = ?").get(id)!.seq;

  beforeAll(async () => {
    dir = tempDir("signet-worker-vectors-");
    db = openDatabase(join(dir, "memories.db"));
    migrate(db);
    worker = new EmbeddingWorker(new SqliteEmbeddingStore(db), "builtin", () => createBuiltinEmbedder());
    memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (c) => worker.onChange(c) });
    worker.start();
    const gen = makeGenerator(23);
    await Promise.all(Array.from({ length: 300 }, () => memory.remember(caller, RememberRequestSchema.parse(JSON.parse(gen())))));
    await embedded(worker);
  }, 120_000);

  afterAll(async () => {
    await worker.stop();
    db.close();
  });

  test("its float vectors are in an unlinked file beside the database, closed when the worker stops", async () => {
    expect(readdirSync(dir).filter((f) => f.startsWith(".vectors-"))).toEqual([]);
    const open = openVectorFiles(dir);
    expect(open).toHaveLength(1);
    expect(open[0]!.endsWith("(deleted)")).toBe(true);
    // A new worker on the same store loads the stored vectors into a file of its own.
    await worker.stop();
    expect(openVectorFiles(dir)).toEqual([]);
    worker = new EmbeddingWorker(new SqliteEmbeddingStore(db), "builtin", () => createBuiltinEmbedder());
    memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (c) => worker.onChange(c) });
    worker.start();
    await embedded(worker);
    expect(worker.vectors!.count).toBe(300);
    expect(openVectorFiles(dir)).toHaveLength(1);
  }, 120_000);

  test("after edits, forgets and a recovery, its hits and cosines are the exact ones over memory_vectors", async () => {
    const ids = db.query<{ id: string }, []>("SELECT id FROM memories ORDER BY seq").all().map((m) => m.id);
    expect(ids.length).toBe(300);
    const gen = makeGenerator(29);
    for (const id of ids.slice(0, 20)) await memory.modify(caller, id, { reason: "test", content: (JSON.parse(gen()) as { content: string }).content });
    for (const id of ids.slice(20, 50)) await memory.forget(caller, id, { reason: "test" });
    for (const id of ids.slice(20, 25)) await memory.recover(caller, id, {});
    await embedded(worker);
    const stored = storedVectors(db);
    expect(worker.vectors!.count).toBe(stored.size);
    expect(stored.size).toBe(275);
    const qgen = makeQueryGenerator(31);
    for (let i = 0; i < 10; i++) {
      const text = qgen().query;
      const q = (await worker.embedQuery(text))!;
      const { hits } = await worker.search(text, { k: 10, agentIds: ["default"], allowed: async () => undefined });
      const exact = [...stored].map(([seq, v]) => ({ seq, score: dot(v, q) })).sort((a, b) => b.score - a.score);
      expect(hits.map((h) => h.seq)).toEqual(exact.slice(0, 10).map((h) => h.seq));
      hits.forEach((h, r) => expect(h.score).toBeCloseTo(exact[r]!.score, 5));
    }
    const [a, b] = [seqOf(ids[0]!), seqOf(ids[299]!)];
    expect(worker.vectors!.cosineBetween(a, b)).toBeCloseTo(dot(stored.get(a)!, stored.get(b)!), 5);
    expect(worker.vectors!.cosineBetween(a, seqOf(ids[40]!))).toBeNull();
  }, 120_000);
});

describe("a stored vector read when the worker stops", () => {
  test("is not put in the closed index: the read ends quietly, as do changes heard after the stop", async () => {
    const dir = tempDir("signet-worker-stop-");
    const db = openDatabase(join(dir, "memories.db"));
    migrate(db);
    // The read of a stored vector waits until the test lets it go (a shared store's slow query).
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    class HeldStore extends SqliteEmbeddingStore {
      override async vectorOf(seq: number, model: string) {
        reads++;
        await held;
        return super.vectorOf(seq, model);
      }
    }
    const worker = new EmbeddingWorker(new HeldStore(db), "builtin", () => createBuiltinEmbedder());
    const memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (c) => worker.onChange(c) });
    worker.start();
    const stored = await memory.remember(caller, RememberRequestSchema.parse({ content: "the staging database is heron-8" }));
    await embedded(worker);
    const seq = db.query<{ seq: number }, [string]>("SELECT seq FROM memories WHERE id = ?").get(stored.id)!.seq;
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on("unhandledRejection", onUnhandled);
    try {
      // Another daemon sharing the store changed the memory: the worker reads its stored vector.
      worker.followStored({ kind: "modified", seq, agentId: "default", project: null, contentChanged: false, text: null });
      expect(reads).toBe(1);
      await worker.stop();
      release();
      await Bun.sleep(50);
      expect(unhandled).toEqual([]);
      // Changes heard after the stop (a write or the feed still finishing) leave the closed index alone.
      expect(() => worker.onChange({ kind: "forgotten", seq, agentId: "default", project: null, contentChanged: false, text: null })).not.toThrow();
      expect(() => worker.followStored({ kind: "forgotten", seq, agentId: "default", project: null, contentChanged: false, text: null })).not.toThrow();
    } finally {
      process.off("unhandledRejection", onUnhandled);
      db.close();
    }
  }, 60_000);
});
