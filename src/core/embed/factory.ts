// Picks the embedding provider from configuration. `none` means keyword-only recall.
import type { Config } from "../../config/schema";
import { BUILTIN_DIMENSIONS, BUILTIN_MODEL } from "./builtin/embedder";
import { OllamaEmbedder, OpenAiEmbedder } from "./http";
import { LazyEmbedder } from "./lazy";
import type { Embedder } from "./types";

export async function createEmbedder(config: Config["embedding"], env = process.env): Promise<Embedder | null> {
  switch (config.provider) {
    case "none":
      return null;
    case "ollama":
      return new OllamaEmbedder(config.model, config.baseUrl, config.dimensions);
    case "openai":
      return new OpenAiEmbedder(config.model, config.baseUrl, config.dimensions, config.apiKey ?? env.OPENAI_API_KEY);
    case "builtin":
      // Its size is the model's: a configured other one would be silently ignored.
      if (config.dimensions !== undefined && config.dimensions !== BUILTIN_DIMENSIONS) {
        throw new Error(
          `embedding.dimensions is ${config.dimensions}, but the builtin model (${BUILTIN_MODEL}) makes ${BUILTIN_DIMENSIONS}-dimensional vectors: remove embedding.dimensions or set it to ${BUILTIN_DIMENSIONS}`,
        );
      }
      // Loaded at the first text to embed, and its code only then (lazy.ts).
      return new LazyEmbedder("builtin", BUILTIN_MODEL, BUILTIN_DIMENSIONS, async () => (await import("./builtin")).createBuiltinEmbedder());
  }
}
