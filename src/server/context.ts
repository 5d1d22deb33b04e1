// What every route plugin is given: the configuration, the database and the domain services.
import type { Database } from "bun:sqlite";
import type { Config } from "../config/schema";
import type { EmbeddingWorker } from "../core/embed/worker";
import type { MemoryService } from "../core/memory/service";
import type { RecallService } from "../core/recall/service";

export interface DaemonContext {
  config: Config;
  db: Database;
  memory: MemoryService;
  recall: RecallService;
  embeddings: EmbeddingWorker;
  startedAt: number;
  /** The port actually listened on (config may say 0 in tests). */
  port: number;
}
