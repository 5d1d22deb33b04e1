// Re-embedding (docs/api.md#re-embedding): GET /api/embed/status, POST /api/embed/reindex, the
// `embedding.reindex` part of /health, and `signet embed status|reindex`.
import { z } from "zod";
import { answer } from "./answer";
import { operation } from "./operation";
import { ROUTES } from "./routes";

const ReindexRequestSchema = z
  .object({
    /** Also re-embed memories whose vector already is of the current model (e.g. the provider changed, not the model's name). */
    all: z.boolean().optional(),
  })
  .strict()
  .default({});

/** A re-embedding: under way, or the last one done. */
const ReindexStatusSchema = answer({
  state: z.enum(["running", "done"]),
  model: z.string().describe("The model everything is being re-embedded with"),
  previousModel: z.string().optional().describe("The model whose vectors still answer recall for memories not yet re-embedded, while one does"),
  previousDimensions: z.number().optional().describe("The size of those vectors: after a change of embedding.dimensions the model is the same, its size not"),
  total: z.number().describe("Memories to embed: those done plus those still waiting"),
  done: z.number(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
});
export type ReindexStatus = z.infer<typeof ReindexStatusSchema>;

const embeddingState = {
  provider: z.string(),
  model: z.string().nullable(),
  ok: z.boolean(),
  loaded: z.boolean().describe("Whether the model is loaded: the builtin model loads when there is first something to embed"),
  pending: z.number(),
  rejected: z.number().optional().describe("Memories the provider refused to embed (they stay keyword-only), when there are any"),
};

/** The embedding provider's state as /health shows it: whether the provider is ok, not why. */
export const HealthEmbeddingSchema = answer({
  ...embeddingState,
  reindex: ReindexStatusSchema.optional().describe("The re-embedding under way, or the last one"),
});

/** The embedding provider's state, as the worker knows it (docs/api.md#health). */
const EmbeddingStatusSchema = answer({ ...HealthEmbeddingSchema.shape, error: z.string().optional().describe("Why the provider is not ok") });
export type EmbeddingStatus = z.infer<typeof EmbeddingStatusSchema>;

const EmbedStatusResponseSchema = answer({
  ...embeddingState,
  error: z.string().optional().describe("Why the provider is not ok"),
  reindex: ReindexStatusSchema.nullable(),
  vectors: z.array(answer({ model: z.string(), dimensions: z.number(), count: z.number() })).describe("Stored vectors of live memories, per model"),
});
export type EmbedStatusResponse = z.infer<typeof EmbedStatusResponseSchema>;

const ReindexResponseSchema = answer({ reindex: ReindexStatusSchema });

export const EMBED_API = {
  status: operation(ROUTES.embed.status, { response: EmbedStatusResponseSchema }),
  /** Rewrites every stored vector: the owner's admin token (docs/security.md). Answers 202. */
  reindex: operation(ROUTES.embed.reindex, { input: "reindex request", body: ReindexRequestSchema, response: ReindexResponseSchema }),
};
