// The embedding worker loads a store's vectors at start a step at a time: the event loop gets turns
// while it loads (one synchronous pass held a daemon at 100,000 memories silent for ~10 s), and a
// memory forgotten or edited meanwhile does not end up in the index, whether the load had reached it
// or not. The vectors are random unit vectors stored for the builtin model's name: every memory has
// one, so the model itself is never loaded.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { RememberRequestSchema } from "../../src/contracts/memory";
import { createEmbedder } from "../../src/core/embed/factory";
import { SqliteEmbeddingStore } from "../../src/core/embed/sqlite-store";
import { EmbeddingWorker } from "../../src/core/embed/worker";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { ConfigSchema } from "../../src/config/schema";
import { mulberry32 } from "../../scripts/lib/content";
import { tempDir } from "../helpers/temp-cleanup";

const caller: Caller = { agentId: "default", actor: "test", actorType: null, runtimePath: null };
const MEMORIES = 5000;
const DIMENSIONS = 512;

function storeVectors(db: Database, model: string): void {
  const rnd = mulberry32(5);
  const insert = db.query("INSERT INTO memory_vectors (seq, model, dimensions, content_key, vector, created_at) VALUES (?, ?, ?, ?, ?, ?)");
  const rows = db.query<{ seq: number; content_key: string }, []>("SELECT seq, content_key FROM memories").all();
  db.transaction(() => {
    for (const { seq, content_key } of rows) {
      const v = Float32Array.from({ length: DIMENSIONS }, () => rnd() - 0.5);
      const norm = Math.hypot(...v);
      for (let d = 0; d < DIMENSIONS; d++) v[d]! /= norm;
      insert.run(seq, model, DIMENSIONS, content_key, new Uint8Array(v.buffer), new Date().toISOString());
    }
  })();
}

describe("loading the stored vectors at start", () => {
  let db: Database;
  let ids: string[];

  beforeAll(async () => {
    db = openDatabase(join(tempDir("signet-worker-load-"), "memories.db"));
    migrate(db);
    const memory = new MemoryService(new SqliteMemoryStore(db));
    await Promise.all(
      Array.from({ length: MEMORIES }, (_, i) => memory.remember(caller, RememberRequestSchema.parse({ content: `memory number ${i} about topic ${i % 97}` }))),
    );
    const embedder = (await createEmbedder(ConfigSchema.parse({}).embedding))!;
    storeVectors(db, embedder.model);
    ids = db.query<{ id: string }, []>("SELECT id FROM memories ORDER BY seq").all().map((m) => m.id);
  }, 60_000);

  afterAll(() => db.close());

  test("goes in steps the event loop runs between; forgets and edits meanwhile leave the index", async () => {
    const worker = new EmbeddingWorker(new SqliteEmbeddingStore(db), "builtin", () => createEmbedder(ConfigSchema.parse({}).embedding));
    const memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (c) => worker.onChange(c) });
    const seqOf = (id: string) => db.query<{ seq: number }, [string]>("SELECT seq FROM memories WHERE id = ?").get(id)!.seq;
    const [first, last, edited] = [ids[0]!, ids[MEMORIES - 1]!, ids[1]!];
    worker.start();
    let partialTurns = 0;
    // Turns of the event loop until the worker is up; at the first one that finds the index partly
    // loaded, forget a memory it holds and one it does not yet, and edit one it holds.
    for (let turn = 0; turn < 100_000 && worker.status().model === null; turn++) {
      const count = worker.vectors?.count ?? 0;
      if (count > 0 && count < MEMORIES && partialTurns++ === 0) {
        await Promise.all([
          memory.forget(caller, first, { reason: "test" }),
          memory.forget(caller, last, { reason: "test" }),
          memory.modify(caller, edited, { reason: "test", content: "now about something else" }),
        ]);
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect(worker.status().model).not.toBeNull();
    expect(partialTurns).toBeGreaterThan(0);
    const index = worker.vectors!;
    expect(index.count).toBe(MEMORIES - 3);
    for (const id of [first, last, edited]) expect(index.cosineBetween(seqOf(id), seqOf(ids[2]!))).toBeNull();
    await worker.stop();
  }, 60_000);
});
