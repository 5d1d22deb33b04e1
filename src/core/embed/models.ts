// Which provider made each model's vectors (table embedding_models), so the worker can embed a query
// for the vectors of a previous model while a re-embedding replaces them (docs/api.md#re-embedding).
import type { Config } from "../../config/schema";
import { BUILTIN_MODEL } from "./builtin/embedder";
import { shownUrl } from "./http";
import type { EmbeddingStore, ModelRow } from "./store";
import type { Embedder } from "./types";

export interface ModelProfile {
  model: string;
  provider: "builtin" | "ollama" | "openai";
  baseUrl: string | null;
  dimensions: number;
}

const PROVIDERS = new Set(["builtin", "ollama", "openai"]);

/**
 * How `model`'s vectors of `dimensions` were made, from its recorded row (`recorded`). Vectors stored
 * before models were recorded: the builtin model is known by name; another is taken to come from the
 * current provider (a model change within one provider), whose base URL `current` gives. The row
 * holds the URL without its credentials: the current one's, when it is the same URL, has them.
 */
export function profileOf(recorded: ModelRow | null, model: string, dimensions: number, current: Embedder): ModelProfile | null {
  if (recorded && PROVIDERS.has(recorded.provider)) {
    const sameUrl = current.baseUrl && recorded.base_url === shownUrl(current.baseUrl);
    return { model, provider: recorded.provider as ModelProfile["provider"], baseUrl: sameUrl ? current.baseUrl! : recorded.base_url, dimensions };
  }
  if (model === BUILTIN_MODEL) return { model, provider: "builtin", baseUrl: null, dimensions };
  if (current.provider === "ollama" || current.provider === "openai") {
    return { model, provider: current.provider, baseUrl: current.baseUrl ?? null, dimensions };
  }
  return null;
}

/**
 * The embedding configuration that makes `profile`'s vectors again, its API key from the environment.
 * Its `dimensions` only when the current model has the same name (`sameName`): then only
 * embedding.dimensions made the sizes differ, and an OpenAI-compatible server must be sent it again;
 * otherwise the server is not sent what it may not know. Either way the embedder is told the size
 * (Embedder.expectDimensions), so an answer of another is a failure.
 */
export function configOf(profile: ModelProfile, sameName = false): Config["embedding"] {
  return {
    provider: profile.provider,
    model: profile.model,
    ...(profile.baseUrl ? { baseUrl: profile.baseUrl } : {}),
    ...(sameName && profile.provider !== "builtin" ? { dimensions: profile.dimensions } : {}),
  };
}

/**
 * Leaves out the credentials of recorded base URLs: rows recorded before URLs were recorded without
 * them may hold a proxy's password or a token.
 */
export async function forgetRecordedCredentials(store: EmbeddingStore): Promise<void> {
  for (const { model, base_url } of await store.modelUrls()) {
    if (!URL.canParse(base_url)) continue;
    const url = new URL(base_url);
    if (url.username || url.password) await store.setModelUrl(model, shownUrl(base_url));
  }
}
