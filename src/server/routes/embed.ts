// Re-embedding (docs/api.md#re-embedding): its status, and starting a re-embedding, which rewrites
// every stored vector and so needs the owner's admin token (guard.ts, docs/security.md).
import { EMBED_API } from "../../contracts/embed";
import { SignetError } from "../../contracts/errors";
import type { DaemonContext } from "../context";
import { routes, serve } from "../serve";

export function embedRoutes(ctx: DaemonContext) {
  return routes(
    serve(EMBED_API.status, async () => {
      const { reindex, ...status } = ctx.embeddings.status();
      return { ...status, reindex: reindex ?? null, vectors: await ctx.embeddings.storedModels() };
    }),
    serve(EMBED_API.reindex, async ({ body, set }) => {
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
      return { reindex: await ctx.embeddings.startReindex(body.all ?? false) };
    }),
  );
}
