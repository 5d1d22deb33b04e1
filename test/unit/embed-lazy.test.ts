// A lazily loaded model (core/embed/lazy.ts) in the embedding worker: a model that cannot be loaded
// is reported where a failing provider is (status `ok: false` with the reason, recall keyword-only)
// once there is something to embed, not at start; the load is tried again after the backoff, and
// once it succeeds the waiting memories are embedded with the real builtin model.
import { afterEach, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { RememberRequestSchema } from "../../src/contracts/memory";
import { createBuiltinEmbedder } from "../../src/core/embed/builtin";
import { BUILTIN_DIMENSIONS, BUILTIN_MODEL } from "../../src/core/embed/builtin/embedder";
import { LazyEmbedder } from "../../src/core/embed/lazy";
import type { Embedder } from "../../src/core/embed/types";
import { SqliteEmbeddingStore } from "../../src/core/embed/sqlite-store";
import { EmbeddingWorker } from "../../src/core/embed/worker";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { tempDir } from "../helpers/temp-cleanup";
import { eventually } from "../helpers/wait";

const caller: Caller = { agentId: "default", actor: "test", actorType: null, runtimePath: null };
const query = { k: 10, agentIds: ["default"], allowed: async () => undefined };

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

/** A worker over a fresh store whose builtin model loads through `load`. */
function workerWith(load: () => Promise<Embedder>): { db: Database; worker: EmbeddingWorker; memory: MemoryService } {
  const db = openDatabase(join(tempDir("signet-lazy-model-"), "memories.db"));
  migrate(db);
  const worker = new EmbeddingWorker(new SqliteEmbeddingStore(db), "builtin", async () => new LazyEmbedder("builtin", BUILTIN_MODEL, BUILTIN_DIMENSIONS, load), {
    minBackoffMs: 50,
    maxBackoffMs: 100,
  });
  const memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (c) => worker.onChange(c) });
  worker.start();
  cleanup.push(async () => {
    await worker.stop();
    db.close();
  });
  return { db, worker, memory };
}

describe("a model that cannot be loaded", () => {
  test("is reported at the first text to embed, not at start, and loads when it can", async () => {
    let attempts = 0;
    let broken = true;
    const { worker, memory } = workerWith(async () => {
      attempts++;
      if (broken) throw new Error("its weights could not be read");
      return createBuiltinEmbedder();
    });
    expect(await eventually(() => worker.status().model !== null)).toBe(true);
    // Nothing to embed: nothing was tried, nothing failed, and the status says it is not loaded.
    expect(worker.status()).toEqual({ provider: "builtin", model: BUILTIN_MODEL, ok: true, loaded: false, pending: 0 });
    expect((await worker.search("a young cat", query)).embedding).toBe("ok");
    expect(attempts).toBe(0);

    await memory.remember(caller, RememberRequestSchema.parse({ content: "The kitten is asleep on the sofa" }));
    expect(await eventually(() => !worker.status().ok)).toBe(true);
    expect(worker.status()).toMatchObject({
      ok: false,
      loaded: false,
      pending: 1,
      error: "the use-lite-512 model could not be loaded: its weights could not be read",
    });
    // Recall goes keyword-only meanwhile.
    expect((await worker.search("a young cat", query)).embedding).toBe("unavailable");
    // Tried again after each backoff, never once per recall.
    expect(await eventually(() => attempts >= 2)).toBe(true);

    broken = false;
    expect(await eventually(() => worker.status().ok && worker.status().pending === 0, 60_000)).toBe(true);
    expect(worker.status()).toMatchObject({ ok: true, loaded: true, pending: 0 });
    const found = await worker.search("a young cat", query);
    expect(found.embedding).toBe("ok");
    expect(found.hits).toHaveLength(1);
  }, 90_000);
});

describe("LazyEmbedder", () => {
  test("loads once for concurrent first texts, and closes what it loaded", async () => {
    let loads = 0;
    let model: Embedder | null = null;
    const lazy = new LazyEmbedder("builtin", BUILTIN_MODEL, BUILTIN_DIMENSIONS, async () => (loads++, (model = await createBuiltinEmbedder())));
    expect(lazy.loaded).toBe(false);
    expect(await lazy.embed([])).toEqual([]);
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([lazy.embed(["x"]), lazy.embed(["y", "z"], { priority: "query" })]);
    expect([a.length, b.length, loads, lazy.loaded]).toEqual([1, 2, 1, true]);
    await lazy.close();
    await expect(lazy.embed(["x"])).rejects.toThrow("the use-lite-512 model is closed");
    await expect(model!.embed(["x"])).rejects.toThrow("builtin embedder is closed");
  }, 60_000);

  test("closed while loading, it closes the model when the load ends", async () => {
    let model: Embedder | null = null;
    const lazy = new LazyEmbedder("builtin", BUILTIN_MODEL, BUILTIN_DIMENSIONS, async () => (model = await createBuiltinEmbedder()));
    const first = lazy.embed(["x"]);
    await lazy.close();
    await expect(first).rejects.toThrow("the use-lite-512 model is closed");
    expect(lazy.loaded).toBe(false);
    await expect(model!.embed(["x"])).rejects.toThrow("builtin embedder is closed");
  }, 60_000);
});
