// Re-embedding (docs/api.md#re-embedding): its status, and starting a re-embedding, which rewrites
// every stored vector and so needs the owner's admin token (guard.ts, docs/security.md).
import { EMBED_API } from "../../contracts/embed";
import { SignetError } from "../../contracts/errors";
import { EmbeddingModels } from "../../core/embed/models";
import type { DaemonContext } from "../context";
import { routes, serve } from "../serve";

export function embedRoutes(ctx: DaemonContext) {
  const models = new EmbeddingModels(ctx.db);
  return routes(
    serve(EMBED_API.status, () => {
      const { reindex, ...status } = ctx.embeddings.status();
      return { ...status, reindex: reindex ?? null, vectors: models.stored() };
    }),
    serve(EMBED_API.reindex, ({ body, set }) => {
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
      return { reindex: ctx.embeddings.startReindex(body.all ?? false) };
    }),
  );
}
