// The embedding worker over a real SQLite store, its provider a local fake standing in for the paid or
// remote APIs (test/helpers/shaped-embedder.ts, over HTTP): an answer of another size than the model's
// vectors is a failure that stores nothing and leaves the index whole; a change of
// embedding.dimensions re-embeds every memory as a model change does, the old vectors answering
// meanwhile; a vector with Infinity or all zeros sets its memory aside; stopping cancels a request in
// flight; a failing provider is logged once, and its recovery once; the stored base URL and the
// errors carry no credentials; the builtin model refuses another size.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import type { Config } from "../../src/config/schema";
import { RememberRequestSchema } from "../../src/contracts/memory";
import { createEmbedder } from "../../src/core/embed/factory";
import { SqliteEmbeddingStore } from "../../src/core/embed/sqlite-store";
import { EmbeddingWorker, type EmbeddingWorkerOptions } from "../../src/core/embed/worker";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import type { Logger } from "../../src/logger";
import { startShapedEmbedder } from "../helpers/shaped-embedder";
import { migratedDatabase } from "../helpers/sqlite";
import { eventually } from "../helpers/wait";

const caller: Caller = { agentId: "default", actor: "test", actorType: null, runtimePath: null };
const fake = startShapedEmbedder(64);
const running: EmbeddingWorker[] = [];
afterEach(async () => {
  fake.shape = undefined;
  fake.failWith = undefined;
  fake.hold = undefined;
  for (const w of running.splice(0)) await w.stop();
});
afterAll(() => fake.stop());

const ollama: Config["embedding"] = { provider: "ollama", model: "bag", baseUrl: "" };
const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };

interface Daemon {
  worker: EmbeddingWorker;
  remember(content: string): Promise<number>;
}

/** A worker and memory service on `db`, embedding with `config` (the fake's URL filled in). */
function start(db: Database, config: Config["embedding"], options: EmbeddingWorkerOptions = {}): Daemon {
  const embedding = { ...config, baseUrl: config.baseUrl || fake.url };
  const worker = new EmbeddingWorker(new SqliteEmbeddingStore(db), embedding.provider, () => createEmbedder(embedding), {
    minBackoffMs: 20,
    maxBackoffMs: 100,
    log: quiet,
    ...options,
  });
  running.push(worker);
  const memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (c) => worker.onChange(c) });
  worker.start();
  return {
    worker,
    remember: async (content) => {
      const { id } = await memory.remember(caller, RememberRequestSchema.parse({ content }));
      return db.query<{ seq: number }, [string]>("SELECT seq FROM memories WHERE id = ?").get(id)!.seq;
    },
  };
}

async function stop(d: Daemon): Promise<void> {
  await d.worker.stop();
  running.splice(running.indexOf(d.worker), 1);
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  if (!(await eventually(check, ms))) throw new Error(`never: ${what}`);
}

const settled = (w: EmbeddingWorker) => () => {
  const s = w.status();
  return s.model !== null && s.ok && s.pending === 0 && s.reindex?.state !== "running";
};

/** Stored vectors: seq and size. */
const stored = (db: Database) =>
  db.query<{ seq: number; dimensions: number }, []>("SELECT seq, dimensions FROM memory_vectors ORDER BY seq").all();

/** The seqs a search by meaning finds. */
async function found(w: EmbeddingWorker, text: string): Promise<number[]> {
  const { hits } = await w.search(text, { k: 5, agentIds: ["default"], allowed: async () => undefined });
  return hits.map((h) => h.seq);
}

describe("one model, one vector size", () => {
  test("an answer of another size stores nothing and leaves the index whole; the status says both sizes", async () => {
    const db = migratedDatabase();
    let d = start(db, ollama);
    const cat = await d.remember("My cat loves tuna fish");
    await d.remember("The car needs new tires");
    await until(settled(d.worker), "the first two embedded");

    fake.shape = (t, v) => (t.includes("spreadsheets") ? [...v, 0, 0, 1] : v);
    const odd = await d.remember("Unrelated note about spreadsheets");
    await until(() => !d.worker.status().ok, "the provider's failure");
    expect(d.worker.status().error).toContain("returned 67-dimensional vectors; bag's vectors are 64-dimensional");
    expect(d.worker.status().pending).toBe(1);
    expect(stored(db).map((r) => r.dimensions)).toEqual([64, 64]);
    expect(d.worker.vectors).toMatchObject({ dimensions: 64, count: 2 });
    expect(d.worker.vectors!.has(cat)).toBe(true);

    // Once the provider answers in the model's size again, the memory is embedded.
    fake.shape = undefined;
    await until(settled(d.worker), "the third embedded");
    expect(stored(db)).toEqual([
      { seq: cat, dimensions: 64 },
      { seq: cat + 1, dimensions: 64 },
      { seq: odd, dimensions: 64 },
    ]);

    // After a restart the stored vectors set the size: the first answer of another is a failure too.
    await stop(d);
    fake.shape = (_t, v) => [...v, 0, 0, 1];
    d = start(db, ollama);
    await until(() => d.worker.status().model !== null, "the restart's load");
    expect(await d.worker.embedQuery("kitten")).toBeNull();
    expect(d.worker.status()).toMatchObject({ ok: false, error: expect.stringContaining("returned 67-dimensional vectors; bag's vectors are 64-dimensional") });
    await d.remember("A kitten sleeps on the sofa");
    await until(() => fake.requests.some((r) => r.texts.includes("A kitten sleeps on the sofa")), "the new memory sent");
    expect(stored(db)).toHaveLength(3);
    expect(d.worker.vectors).toMatchObject({ dimensions: 64, count: 3 });
  }, 30_000);

  test("a change of embedding.dimensions re-embeds every memory, the old vectors answering recall until replaced", async () => {
    const db = migratedDatabase();
    const openai = (dimensions: number): Config["embedding"] => ({ provider: "openai", model: "bag-3", baseUrl: "", apiKey: "sk-test", dimensions });
    let d = start(db, openai(64));
    const cat = await d.remember("My cat loves tuna fish");
    await d.remember("The car needs new tires");
    await d.remember("Puppy training on weekends");
    await until(settled(d.worker), "embedded at 64");
    await stop(d);

    // The new size's batches wait, so the re-embedding is caught under way.
    const contents = new Set(["My cat loves tuna fish", "The car needs new tires", "Puppy training on weekends"]);
    fake.hold = (r) => r.dimensions === 48 && r.texts.some((t) => contents.has(t));
    d = start(db, openai(48));
    await until(() => d.worker.status().reindex?.previousModel !== undefined, "the old vectors answering");
    expect(d.worker.status()).toMatchObject({ ok: true, pending: 3, reindex: { state: "running", model: "bag-3", previousModel: "bag-3", previousDimensions: 64, total: 3, done: 0 } });
    const mark = fake.requests.length;
    expect(await found(d.worker, "kitten")).toContain(cat);
    // Compared with the query as the old size embeds it: OpenAI was sent that size again.
    expect(fake.requests.slice(mark).find((r) => r.texts[0] === "kitten")?.dimensions).toBe(64);

    fake.hold = undefined;
    await until(settled(d.worker), "re-embedded at 48");
    expect(stored(db).map((r) => r.dimensions)).toEqual([48, 48, 48]);
    expect(d.worker.status().reindex).toMatchObject({ state: "done", total: 3, done: 3 });
    expect(d.worker.vectors).toMatchObject({ dimensions: 48, count: 3 });
    expect(await found(d.worker, "kitten")).toContain(cat);
    expect(await d.worker.storedModels()).toEqual([{ model: "bag-3", dimensions: 48, count: 3 }]);
  }, 30_000);
});

describe("unusable vectors", () => {
  test("a memory whose vector has Infinity, or is all zeros, is set aside as refused; the others are stored", async () => {
    const db = migratedDatabase();
    fake.shape = (t, v) => (t.includes("infinite") ? v.map((x, i) => (i === 0 ? Infinity : x)) : t.includes("nothing") ? v.map(() => 0) : v);
    const d = start(db, ollama);
    const seqs = await Promise.all(["My cat loves tuna fish", "an infinite loop", "The car needs new tires", "nothing at all"].map((c) => d.remember(c)));
    await until(() => d.worker.status().pending === 0 && d.worker.status().rejected === 2, "two set aside");
    expect(stored(db).map((r) => r.seq)).toEqual([seqs[0]!, seqs[2]!]);
    expect(d.worker.vectors!.count).toBe(2);
  }, 30_000);
});

describe("stopping", () => {
  test("cancels the provider's request in flight: stop does not wait for its answer, and nothing of its batch is stored", async () => {
    const db = migratedDatabase();
    fake.hold = (r) => r.texts.some((t) => t.includes("held"));
    const d = start(db, ollama);
    await d.remember("a memory held by the provider");
    await until(() => fake.open > 0, "the request in flight");
    await stop(d);
    // Still held by the fake: stop ended the request itself (its timeout is 30 s).
    expect(fake.open).toBe(1);
    expect(stored(db)).toEqual([]);
  }, 15_000);
});

describe("a failing provider", () => {
  test("is logged once when it starts failing and once when it answers again, not at every retry", async () => {
    const db = migratedDatabase();
    const lines: string[] = [];
    const log: Logger = { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: (m) => lines.push(`error ${m}`) };
    fake.failWith = 503;
    const from = fake.requests.length;
    const d = start(db, ollama, { log });
    await d.remember("My cat loves tuna fish");
    await until(() => fake.requests.length - from >= 4, "several retries");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith("warn embedding: the ollama provider is failing");
    expect(lines[0]).toContain(`${fake.url}/api/embed answered 503`);
    fake.failWith = undefined;
    await until(settled(d.worker), "embedded");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe("info embedding: the ollama provider answers again");
  }, 30_000);

  test("credentials in embedding.baseUrl reach neither the status nor embedding_models", async () => {
    const db = migratedDatabase();
    const baseUrl = `${fake.url.replace("http://", "http://proxyuser:S3cretPass@")}/v1`;
    const d = start(db, { provider: "openai", model: "bag-3", baseUrl, apiKey: "sk-secret-key" });
    await d.remember("My cat loves tuna fish");
    await until(settled(d.worker), "embedded");
    expect(db.query<{ base_url: string }, []>("SELECT base_url FROM embedding_models").all()).toEqual([{ base_url: fake.url }]);
    fake.failWith = 500;
    await d.remember("The car needs new tires");
    await until(() => !d.worker.status().ok, "the failure");
    const error = d.worker.status().error!;
    expect(error).toContain(`${fake.url}/v1/embeddings answered 500`);
    for (const secret of ["proxyuser", "S3cretPass", "sk-secret-key"]) expect(error).not.toContain(secret);
  }, 30_000);

  test("the builtin model with another embedding.dimensions is a failure naming the key", async () => {
    const d = start(migratedDatabase(), { provider: "builtin", dimensions: 256 });
    await until(() => d.worker.status().error !== undefined, "the failure");
    expect(d.worker.status()).toMatchObject({ ok: false, model: null, error: expect.stringContaining("embedding.dimensions is 256") });
  });
});
