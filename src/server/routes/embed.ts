// Re-embedding (docs/api.md#re-embedding): GET /api/embed/status, and POST /api/embed/reindex, which
// rewrites every stored vector and so needs the owner's admin token (guard.ts, docs/security.md).
import { Elysia } from "elysia";
import type { EmbedStatusResponse, ReindexResponse } from "../../contracts/embed";
import { ReindexRequestSchema } from "../../contracts/embed";
import { SignetError } from "../../contracts/errors";
import { parseInput } from "../../contracts/parse";
import { EmbeddingModels } from "../../core/embed/models";
import type { DaemonContext } from "../context";

export function embedRoutes(ctx: DaemonContext) {
  const models = new EmbeddingModels(ctx.db);
  return new Elysia()
    .get("/api/embed/status", (): EmbedStatusResponse => {
      const { reindex, ...status } = ctx.embeddings.status();
      return { ...status, reindex: reindex ?? null, vectors: models.stored() };
    })
    .post("/api/embed/reindex", ({ body, set }): ReindexResponse => {
      const req = parseInput(ReindexRequestSchema, body ?? {}, "reindex request");
      const blocker = ctx.embeddings.reindexBlocker;
      if (blocker === "disabled") {
        throw new SignetError("invalid_input", "embedding.provider is none: nothing is embedded, so there is nothing to re-embed");
      }
      if (blocker === "not loaded") {
        const why = ctx.embeddings.status().error;
        throw new SignetError(
          "unavailable",
          `the embedding provider has not loaded${why ? ` (${why})` : ""}; try again once \`signet embed status\` shows it ok`,
        );
      }
      set.status = 202;
      return { reindex: ctx.embeddings.startReindex(req.all ?? false) };
    });
}
