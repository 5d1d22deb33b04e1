// Re-embedding (docs/api.md#re-embedding): GET /api/embed/status, POST /api/embed/reindex, the
// `embedding.reindex` part of /health, and `signet embed status|reindex`.
import { z } from "zod";

export const ReindexRequestSchema = z
  .object({
    /** Also re-embed memories whose vector already is of the current model (e.g. the provider changed, not the model's name). */
    all: z.boolean().optional(),
  })
  .strict();

/** A re-embedding: under way, or the last one done. */
export interface ReindexStatus {
  state: "running" | "done";
  /** The model everything is being re-embedded with. */
  model: string;
  /** The model whose vectors still answer recall for memories not yet re-embedded, while one does. */
  previousModel?: string;
  /** Memories to embed: those done plus those still waiting. */
  total: number;
  done: number;
  startedAt: string;
  finishedAt?: string;
}

/** The embedding provider's state, as the worker knows it (docs/api.md#health). */
export interface EmbeddingStatus {
  provider: string;
  model: string | null;
  ok: boolean;
  pending: number;
  /** Why the provider is not ok. */
  error?: string;
  /** Memories the provider refused to embed (they stay keyword-only), when there are any. */
  rejected?: number;
  /** The re-embedding under way, or the last one. */
  reindex?: ReindexStatus;
}

export interface EmbedStatusResponse extends Omit<EmbeddingStatus, "reindex"> {
  reindex: ReindexStatus | null;
  /** Stored vectors of live memories, per model. */
  vectors: { model: string; dimensions: number; count: number }[];
}

export interface ReindexResponse {
  reindex: ReindexStatus;
}
