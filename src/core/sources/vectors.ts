// The vectors of source chunks (docs/api.md#sources). Chunks are searchable by keyword as soon as
// they are written; the embedding worker (core/embed/worker.ts) embeds those without a vector of the
// current model in its one loop, after the memories waiting, and this queue stores them and keeps the
// in-memory vector index (core/search/vector-index) in step. A chunk the provider refuses stays
// keyword-only.
import type { Logger } from "../../logger";
import { type TakeOverTiming, watchForLeftovers } from "../cluster/take-over";
import type { EmbeddingQueue, QueuedText } from "../embed/worker";
import type { EmbedRejectedError, Embedder } from "../embed/types";
import { readInSteps } from "../event-loop";
import { Holds } from "../holds";
import { indexOfDimensions, type VectorIndex } from "../search/vector-index";
import type { ChunkChange, ChunkVectors, SourceStore } from "./store";

/** Every chunk vector has this owner in the index: sources belong to the owner, not to an agent. */
export const SOURCE_OWNER = "sources";

function blobToVector(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}

export class SourceVectors implements EmbeddingQueue {
  private embedder: Embedder | null = null;
  /** Which vectors the index holds, from when they start loading. */
  private indexed: ChunkVectors | null = null;
  private index: VectorIndex | null = null;
  private readonly pending = new Set<number>();
  private stopped = false;
  /** An add or sync in progress: no chunk goes to the worker meanwhile. */
  private readonly holds = new Holds(() => this.wake());
  /** Tells the embedding worker there are chunks to embed (set once it serves this queue). */
  private wake: () => void = () => undefined;

  /** On a shared store: stops the look for chunks other daemons left unembedded. */
  private stopTakingOver: (() => void) | undefined;

  constructor(
    private readonly store: SourceStore,
    private readonly log?: Logger,
    private readonly takeOver: TakeOverTiming = {},
  ) {}

  /** Has `serve` (the embedding worker's) embed the chunks from now on. */
  start(serve: (queue: EmbeddingQueue) => () => void): void {
    this.wake = serve(this);
  }

  /** No chunk is given to the worker after this (it may still finish a batch it has). */
  stop(): void {
    this.stopped = true;
    this.stopTakingOver?.();
  }

  /** The current model, once the provider is loaded. */
  get model(): string | null {
    return this.embedder?.model ?? null;
  }

  /** Which chunk vectors are current, once the provider is loaded. */
  get current(): ChunkVectors | null {
    return this.embedder ? this.indexed : null;
  }

  /** The chunk vectors of the current model, once there is one. */
  get vectors(): VectorIndex | null {
    return this.index;
  }

  /** Whether chunk `seq` waits for a vector (one the provider refused waits no more). */
  waiting(seq: number): boolean {
    return this.pending.has(seq);
  }

  /**
   * No chunk is given to the worker until the returned function is called: an add or sync gets the
   * cores, and embedding follows once it is done (a batch already sent finishes).
   */
  hold(): () => void {
    return this.holds.take();
  }

  /**
   * Follows a file's re-ingestion: its old chunks leave the index, its new ones wait for vectors
   * (before the provider is up, ready() finds them).
   */
  changed(removed: number[], added: number[]): void {
    for (const seq of removed) {
      this.index?.remove(seq);
      this.pending.delete(seq);
    }
    if (this.indexed === null) return;
    for (const seq of added) this.pending.add(seq);
    if (added.length > 0) this.wake();
  }

  /**
   * Follows a chunk another daemon sharing the store changed (the change feed): the index takes its
   * stored vector of the current model (one queued here waits no more), or lets it go. The daemon
   * that wrote a chunk embeds it, so nothing is queued here.
   */
  followStored(change: ChunkChange): void {
    const { seq, columns, vector } = change;
    if (columns === null) this.changed([seq], []);
    else if (vector && this.isCurrent(vector.model, vector.bytes.byteLength / 4)) {
      const floats = blobToVector(vector.bytes);
      this.ensureIndex(floats.length).upsert(seq, SOURCE_OWNER, floats);
      this.pending.delete(seq);
    } else this.index?.remove(seq);
  }

  /** Whether a vector of `model` of `dimensions` is of the kind the index holds. */
  private isCurrent(model: string, dimensions: number): boolean {
    const indexed = this.indexed;
    return indexed !== null && model === indexed.model && (indexed.dimensions === null || dimensions === indexed.dimensions);
  }

  async ready(embedder: Embedder): Promise<void> {
    // The model's size when known (configured, or that of its stored memory vectors): chunk vectors of
    // another size, from before embedding.dimensions changed, are made again.
    const indexed: ChunkVectors = { model: embedder.model, dimensions: embedder.dimensions || null };
    this.indexed = indexed;
    await readInSteps(
      (after, n) => this.store.storedVectors(indexed, after, n),
      (row) => {
        const vector = blobToVector(row.vector);
        this.ensureIndex(vector.length).upsert(row.seq, SOURCE_OWNER, vector);
      },
      () => !this.stopped,
    );
    for (const seq of await this.store.unembedded(indexed)) this.pending.add(seq);
    this.embedder = embedder;
    this.watchForOrphans(indexed);
  }

  /** On a shared store: chunks no daemon embeds (their daemon died) join the queue. */
  private watchForOrphans(vectors: ChunkVectors): void {
    const orphans = this.store.orphans?.bind(this.store);
    if (!orphans || this.stopped) return;
    this.stopTakingOver = watchForLeftovers(
      (changedBefore) => orphans(vectors, changedBefore),
      (seqs) => {
        const before = this.pending.size;
        for (const seq of seqs) this.pending.add(seq);
        if (this.pending.size > before) this.wake();
      },
      this.takeOver,
    );
  }

  async next(n: number): Promise<QueuedText[]> {
    for (;;) {
      if (this.stopped || this.holds.held) return [];
      const seqs = [...this.pending].slice(0, n);
      if (seqs.length === 0) return [];
      const rows = await this.store.textsOf(seqs);
      // On a shared store, a chunk whose lease another daemon holds is that daemon's (its vector comes
      // through the change feed), or one another daemon already embedded.
      const mine = new Set(await this.store.lease(rows.map((r) => r.seq), this.indexed!));
      for (const seq of seqs) if (!mine.has(seq)) this.pending.delete(seq);
      const taken = rows.filter((r) => mine.has(r.seq));
      if (taken.length > 0) return taken;
    }
  }

  async embedded(embedder: Embedder, batch: QueuedText[], vectors: Float32Array[]): Promise<void> {
    const stored = new Set(await this.store.storeVectors(embedder.model, batch.map((r, i) => ({ seq: r.seq, vector: vectors[i]! }))));
    batch.forEach((r, i) => {
      // A chunk re-ingested while it was embedded has a new seq: its old vector is not kept.
      if (stored.has(r.seq) && this.pending.has(r.seq)) this.ensureIndex(vectors[i]!.length).upsert(r.seq, SOURCE_OWNER, vectors[i]!);
      this.pending.delete(r.seq);
    });
  }

  refused(batch: QueuedText[], err: EmbedRejectedError): void {
    // Refused as input: these chunks stay keyword-only rather than being retried forever.
    this.log?.warn(`sources: the embedding provider refused ${batch.length} chunk(s); they stay keyword-only: ${err.message}`);
    for (const r of batch) this.pending.delete(r.seq);
  }

  private ensureIndex(dimensions: number): VectorIndex {
    this.index = indexOfDimensions(this.index, dimensions, this.store.vectorDir);
    return this.index;
  }
}
