// Background embedding of source chunks (docs/api.md#sources). Chunks are searchable by keyword as
// soon as they are written; this loop embeds those without a vector of the current model in batches,
// with the same provider instance the memory embedding worker uses (core/embed), and keeps the
// in-memory vector index (core/search/vector-index) in step. A failing provider is retried with
// backoff; a chunk the provider refuses stays keyword-only.
import type { Logger } from "../../logger";
import { EmbedRejectedError, type Embedder } from "../embed/types";
import { VectorIndex } from "../search/vector-index";
import type { SourceStore } from "./store";

const BATCH = 16;
const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** Every chunk vector has this owner in the index: sources belong to the owner, not to an agent. */
export const SOURCE_OWNER = "sources";

function blobToVector(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}

export class SourceEmbedder {
  private embedder: Embedder | null = null;
  private index: VectorIndex | null = null;
  private readonly pending = new Set<number>();
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private sleeping: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | null = null;
  private holds = 0;
  private released: (() => void) | null = null;

  constructor(
    private readonly store: SourceStore,
    private readonly load: () => Promise<Embedder | null>,
    private readonly log?: Logger,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.released?.();
    if (this.sleeping) {
      clearTimeout(this.sleeping.timer);
      this.sleeping.resolve();
    }
    await this.loop;
  }

  /** The current model, once the provider is loaded. */
  get model(): string | null {
    return this.embedder?.model ?? null;
  }

  /** The chunk vectors of the current model, once there is one. */
  get vectors(): VectorIndex | null {
    return this.index;
  }

  /** Chunks waiting for a vector. */
  get backlog(): number {
    return this.pending.size;
  }

  /** Whether chunk `seq` waits for a vector (one the provider refused waits no more). */
  waiting(seq: number): boolean {
    return this.pending.has(seq);
  }

  /**
   * No new batch starts until the returned function is called: an add or sync gets the cores, and
   * embedding follows once it is done (a batch already sent finishes).
   */
  hold(): () => void {
    this.holds++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.holds === 0) this.released?.();
    };
  }

  /** Follows a file's re-ingestion: its old chunks leave the index, its new ones wait for vectors. */
  changed(removed: number[], added: number[]): void {
    for (const seq of removed) {
      this.index?.remove(seq);
      this.pending.delete(seq);
    }
    if (!this.embedder) return;
    for (const seq of added) this.pending.add(seq);
    if (added.length > 0) this.wake?.();
  }

  private async run(): Promise<void> {
    let backoff = 0;
    while (!this.stopped && !this.embedder) {
      try {
        const embedder = await this.load();
        if (!embedder) return;
        for (const row of this.store.vectorsOf(embedder.model)) {
          const vector = blobToVector(row.vector);
          this.ensureIndex(vector.length).upsert(row.seq, SOURCE_OWNER, vector);
        }
        for (const seq of this.store.unembedded(embedder.model)) this.pending.add(seq);
        this.embedder = embedder;
      } catch (err) {
        backoff = await this.backOff(err, backoff);
      }
    }
    backoff = 0;
    while (!this.stopped) {
      while (this.holds > 0 && !this.stopped) {
        await new Promise<void>((resolve) => (this.released = resolve));
        this.released = null;
      }
      const seqs = [...this.pending].slice(0, BATCH);
      if (seqs.length === 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      const rows = this.store.textsOf(seqs);
      const live = new Set(rows.map((r) => r.seq));
      for (const seq of seqs) if (!live.has(seq)) this.pending.delete(seq);
      if (rows.length === 0) continue;
      const embedder = this.embedder!;
      try {
        const vectors = await embedder.embed(rows.map((r) => r.text), { priority: "background" });
        const stored = new Set(this.store.storeVectors(embedder.model, rows.map((r, i) => ({ seq: r.seq, vector: vectors[i]! }))));
        rows.forEach((r, i) => {
          // A chunk re-ingested while it was embedded has a new seq: its old vector is not kept.
          if (stored.has(r.seq) && this.pending.has(r.seq)) this.ensureIndex(vectors[i]!.length).upsert(r.seq, SOURCE_OWNER, vectors[i]!);
          this.pending.delete(r.seq);
        });
        backoff = 0;
      } catch (err) {
        if (err instanceof EmbedRejectedError) {
          // Refused as input: these chunks stay keyword-only rather than being retried forever.
          this.log?.warn(`sources: the embedding provider refused ${rows.length} chunk(s); they stay keyword-only: ${err.message}`);
          for (const r of rows) this.pending.delete(r.seq);
        } else backoff = await this.backOff(err, backoff);
      }
    }
  }

  private ensureIndex(dimensions: number): VectorIndex {
    if (!this.index || this.index.dimensions !== dimensions) this.index = new VectorIndex(dimensions);
    return this.index;
  }

  private backOff(err: unknown, previousMs: number): Promise<number> {
    const ms = Math.min(Math.max(MIN_BACKOFF_MS, previousMs * 2), MAX_BACKOFF_MS);
    this.log?.warn(`sources: embedding failed, retrying in ${ms} ms: ${(err as Error)?.message ?? String(err)}`);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleeping = null;
        resolve(ms);
      }, ms);
      this.sleeping = { timer, resolve: () => resolve(ms) };
    });
  }
}
