// An embedder whose model is loaded at its first text instead of when the daemon starts. Most
// daemons have nothing to embed for a long while, or ever, and loading the builtin model costs
// about 0.3 CPU-seconds, 30 MiB and a compute thread per core. Its name and dimensions are known
// without loading it, so the worker can read the stored vectors and queue what waits meanwhile.
// Once loaded it stays loaded; a load that failed is tried again at the next text.
import type { Embedder } from "./types";

export class LazyEmbedder implements Embedder {
  private inner: Embedder | null = null;
  private loading: Promise<Embedder> | null = null;
  private closed = false;

  constructor(
    readonly provider: string,
    readonly model: string,
    readonly dimensions: number,
    private readonly load: () => Promise<Embedder>,
  ) {}

  get loaded(): boolean {
    return this.inner !== null;
  }

  async embed(texts: string[], options?: { priority?: "query" | "background" }): Promise<Float32Array[]> {
    if (this.closed) throw new Error(`the ${this.model} model is closed`);
    if (texts.length === 0) return [];
    const model = this.inner ?? (await this.loadOnce());
    return model.embed(texts, options);
  }

  callerBusy(busy: boolean): void {
    this.inner?.callerBusy?.(busy);
  }

  async close(): Promise<void> {
    this.closed = true;
    // A load under way closes what it loads (loadOnce); one done is closed here.
    await this.loading?.catch(() => undefined);
    await this.inner?.close();
  }

  private loadOnce(): Promise<Embedder> {
    this.loading ??= this.load().then(
      async (model) => {
        if (this.closed) {
          await model.close();
          throw new Error(`the ${this.model} model is closed`);
        }
        this.inner = model;
        return model;
      },
      (err: unknown) => {
        this.loading = null;
        throw new Error(`the ${this.model} model could not be loaded: ${(err as Error)?.message ?? String(err)}`);
      },
    );
    return this.loading;
  }
}
