// Picks the embedding provider from configuration. `none` means keyword-only recall.
import type { Config } from "../../config/schema";
import { OllamaEmbedder, OpenAiEmbedder } from "./http";
import type { Embedder } from "./types";

export async function createEmbedder(config: Config["embedding"], env = process.env): Promise<Embedder | null> {
  switch (config.provider) {
    case "none":
      return null;
    case "ollama":
      return new OllamaEmbedder(config.model, config.baseUrl, config.dimensions);
    case "openai":
      return new OpenAiEmbedder(config.model, config.baseUrl, config.dimensions, config.apiKey ?? env.OPENAI_API_KEY);
    case "builtin": {
      // Loaded on demand: the model is large and only the daemon needs it.
      const { createBuiltinEmbedder } = await import("./builtin");
      return createBuiltinEmbedder();
    }
  }
}
