// A re-embedding's start reads the previous model's vectors and how they were made in the
// background (worker.ts loadPrevious). A store that fails there (a disk error, a shared store going
// away) must leave a warning and a worker that carries on, never a rejection nothing handles, which
// ends a Bun process. The provider is the local fake of an OpenAI-compatible server
// (test/helpers/fake-embedder.ts); the store is the real SQLite one, with its read of the recorded
// models made to fail: no real disk error can be had on demand.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { RememberRequestSchema } from "../../src/contracts/memory";
import { ConfigSchema } from "../../src/config/schema";
import { createEmbedder } from "../../src/core/embed/factory";
import { SqliteEmbeddingStore } from "../../src/core/embed/sqlite-store";
import type { ModelRow } from "../../src/core/embed/store";
import { EmbeddingWorker } from "../../src/core/embed/worker";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { startFakeEmbedder } from "../helpers/fake-embedder";
import { recordingLogger } from "../helpers/log";
import { tempDir } from "../helpers/temp-cleanup";
import { eventually } from "../helpers/wait";

const caller: Caller = { agentId: "default", actor: "test", actorType: null, runtimePath: null };
const fake = startFakeEmbedder();
afterAll(() => fake.stop());

const embedding = (model: string) => ConfigSchema.parse({ embedding: { provider: "openai", model, baseUrl: fake.url } }).embedding;

class FailingModelReads extends SqliteEmbeddingStore {
  override async modelRow(): Promise<ModelRow | null> {
    throw new Error("disk I/O error");
  }
}

describe("the previous model's vectors at a re-embedding's start", () => {
  test("a store failing to read them leaves a warning, and the re-embedding goes on", async () => {
    const db = openDatabase(join(tempDir("signet-previous-model-"), "memories.db"));
    migrate(db);
    const first = new EmbeddingWorker(new SqliteEmbeddingStore(db), "openai", () => createEmbedder(embedding("fake-embed")));
    const memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (c) => first.onChange(c) });
    for (const content of ["the automobile is parked outside", "bananas and apples", "the build runs on Bun"]) await memory.remember(caller, RememberRequestSchema.parse({ content }));
    first.start();
    expect(await eventually(() => first.status().ok && first.status().pending === 0 && first.vectors !== null, 20_000)).toBe(true);
    await first.stop();

    // Another model: its start opens a re-embedding, and reads the previous model's vectors beside it.
    const { log, lines } = recordingLogger();
    const second = new EmbeddingWorker(new FailingModelReads(db), "openai", () => createEmbedder(embedding("other/256")), { log });
    second.start();
    try {
      expect(await eventually(() => lines.some((l) => l.startsWith("warn embedding: loading the previous model's vectors failed")), 20_000)).toBe(true);
      expect(lines).toContain("warn embedding: loading the previous model's vectors failed, recall finds the memories not yet re-embedded by keyword only: disk I/O error");
      expect(await eventually(() => second.status().ok && second.status().pending === 0, 20_000)).toBe(true);
      const models = db.query<{ model: string; n: number }, []>("SELECT model, count(*) AS n FROM memory_vectors GROUP BY model ORDER BY model").all();
      expect(models).toContainEqual({ model: "other/256", n: 3 });
    } finally {
      await second.stop();
      db.close();
    }
  }, 60_000);
});
