// RecallService in the benchmark's own process, wired as src/server/daemon.ts wires it (openDatabase
// + migrate, MemoryService, EmbeddingWorker over createEmbedder(config.embedding), AccessLog, the
// knowledge graph's GraphService), on a database file of its own: for measuring recall with a given
// provider without a daemon per run.
import { loadConfig } from "../../src/config/load";
import { createEmbedder } from "../../src/core/embed/factory";
import { SqliteEmbeddingStore } from "../../src/core/embed/sqlite-store";
import { EmbeddingWorker } from "../../src/core/embed/worker";
import { SqliteGraphStore } from "../../src/core/graph/sqlite-store";
import { GraphService } from "../../src/core/graph/service";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService } from "../../src/core/memory/service";
import { AccessLog, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import { RecallService } from "../../src/core/recall/service";
import { migrate } from "../../src/db/migrate";
import { MEMORY_STORE_CACHE_MIB, openDatabase } from "../../src/db/open";
import { createLogger } from "../../src/logger";
import { duration } from "./format";

export interface InProcessRecall {
  recall: RecallService;
  memory: MemoryService;
  /** Time until the embedding worker was ready (model loaded, nothing pending, vectors in memory). */
  readyMs: number;
}

/**
 * Runs `fn` with a RecallService over `dbFile` (SIGNET_PATH and HOME = `scratch`, so the embedding
 * provider is `provider`), once every memory in it is embedded.
 */
export async function withInProcessRecall<T>(
  dbFile: string,
  scratch: string,
  provider: string,
  fn: (r: InProcessRecall) => Promise<T>,
  settings: { drainTimeoutMs: number; progress: (line: string) => void },
): Promise<T> {
  const config = loadConfig({ env: { SIGNET_PATH: scratch, HOME: scratch }, flags: { embedding: { provider } } });
  const db = openDatabase(dbFile, { cacheMiB: MEMORY_STORE_CACHE_MIB });
  migrate(db);
  const embeddings = new EmbeddingWorker(new SqliteEmbeddingStore(db), config.embedding.provider, () => createEmbedder(config.embedding));
  // Extraction is told of changes, passes run on demand only: a benchmark's store does not move under it.
  const graph = new GraphService(new SqliteGraphStore(db), { dreamAfterMemories: Number.MAX_SAFE_INTEGER, dreamIdleMs: 3_600_000 });
  const memory = new MemoryService(new SqliteMemoryStore(db), {
    onChange: (c) => {
      embeddings.onChange(c);
      graph.onChange(c);
    },
  });
  const accessLog = new AccessLog(new SqliteAccessWrites(db), createLogger("daemon"));
  const recall = new RecallService(new SqliteRecallStore(db), memory, embeddings, accessLog, { graph });
  embeddings.start();
  try {
    await recall.start();
    await graph.start();
    await graph.settled();
    const t0 = performance.now();
    if (config.embedding.provider !== "none") {
      let lastLine = 0;
      for (;;) {
        const s = embeddings.status();
        if (s.model !== null && s.ok && s.pending === 0 && embeddings.vectors) break;
        const waited = performance.now() - t0;
        if (waited > settings.drainTimeoutMs) throw new Error(`in-process embedding worker not ready after ${duration(waited)}: ${JSON.stringify(s)}`);
        if (waited - lastLine > 5000) {
          lastLine = waited;
          settings.progress(`waiting for the in-process embedding worker (${JSON.stringify(s)})`);
        }
        await Bun.sleep(100);
      }
    }
    return await fn({ recall, memory, readyMs: performance.now() - t0 });
  } finally {
    await embeddings.stop();
    await graph.stop();
    accessLog.flush();
    db.close();
  }
}
