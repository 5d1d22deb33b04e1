// Which provider made each model's vectors (table embedding_models), so the worker can embed a query
// for the vectors of a previous model while a re-embedding replaces them (docs/api.md#re-embedding).
import type { Database } from "bun:sqlite";
import type { Config } from "../../config/schema";
import { BUILTIN_MODEL } from "./builtin/embedder";
import type { Embedder } from "./types";

export interface ModelProfile {
  model: string;
  provider: "builtin" | "ollama" | "openai";
  baseUrl: string | null;
  dimensions: number;
}

const PROVIDERS = new Set(["builtin", "ollama", "openai"]);

export class EmbeddingModels {
  constructor(private readonly db: Database) {}

  /** Records how `embedder` makes its vectors: the latest provider and URL serving the model win. */
  record(embedder: Embedder, dimensions: number): void {
    this.db
      .query(
        `INSERT INTO embedding_models (model, provider, base_url, dimensions, recorded_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(model) DO UPDATE SET provider = excluded.provider, base_url = excluded.base_url,
           dimensions = excluded.dimensions, recorded_at = excluded.recorded_at`,
      )
      .run(embedder.model, embedder.provider, embedder.baseUrl ?? null, dimensions, new Date().toISOString());
  }

  /** Stored vectors of live memories, per model, most first. */
  stored(): { model: string; dimensions: number; count: number }[] {
    return this.db
      .query<{ model: string; dimensions: number; count: number }, []>(
        `SELECT v.model, v.dimensions, count(*) AS count FROM memory_vectors v JOIN memories m ON m.seq = v.seq
         WHERE m.deleted_at IS NULL GROUP BY v.model, v.dimensions ORDER BY count DESC`,
      )
      .all();
  }

  /**
   * How `model`'s vectors were made. Vectors stored before models were recorded: the builtin model is
   * known by name; another is taken to come from the current provider (a model change within one
   * provider), whose base URL `current` gives.
   */
  profile(model: string, dimensions: number, current: Embedder): ModelProfile | null {
    const row = this.db
      .query<{ provider: string; base_url: string | null; dimensions: number }, [string]>(
        "SELECT provider, base_url, dimensions FROM embedding_models WHERE model = ?",
      )
      .get(model);
    if (row && PROVIDERS.has(row.provider)) {
      return { model, provider: row.provider as ModelProfile["provider"], baseUrl: row.base_url, dimensions: row.dimensions };
    }
    if (model === BUILTIN_MODEL) return { model, provider: "builtin", baseUrl: null, dimensions };
    if (current.provider === "ollama" || current.provider === "openai") {
      return { model, provider: current.provider, baseUrl: current.baseUrl ?? null, dimensions };
    }
    return null;
  }
}

/**
 * The embedding configuration that makes `profile`'s vectors again, its API key from the environment.
 * Without `dimensions`: an OpenAI-compatible server would be sent it, and a query vector of another
 * size is never compared anyway (VectorIndex.search).
 */
export function configOf(profile: ModelProfile): Config["embedding"] {
  return { provider: profile.provider, model: profile.model, ...(profile.baseUrl ? { baseUrl: profile.baseUrl } : {}) };
}
