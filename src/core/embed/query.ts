// A recall's query vector from one model: cached (the same question is asked again and again) and
// bounded in time, so a slow provider makes a recall keyword-only instead of slow.
import type { Embedder } from "./types";

const QUERY_CACHE_SIZE = 256;

export class QueryVectors {
  private readonly cache = new Map<string, Float32Array>();

  constructor(
    readonly embedder: Embedder,
    private readonly timeoutMs: number,
  ) {}

  /** The query's vector, or null when the provider took longer than the bound; a provider error is thrown. */
  async embed(text: string): Promise<Float32Array | null> {
    const cached = this.cache.get(text);
    if (cached) return cached;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), this.timeoutMs)));
      const result = await Promise.race([this.embedder.embed([text], { priority: "query" }).then((v) => v[0] ?? null), timeout]);
      if (result) {
        if (this.cache.size >= QUERY_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
        this.cache.set(text, result);
      }
      return result;
    } finally {
      clearTimeout(timer);
    }
  }
}
