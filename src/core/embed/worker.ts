// The embedding worker: writes answer at once, and this worker embeds what is pending in batches,
// persists the vectors (with model and content key) and keeps the in-memory index in step. A provider
// that fails is retried with exponential backoff, never stormed; recall meanwhile stays keyword-only.
import type { Database, Statement } from "bun:sqlite";
import type { MemoryChange } from "../memory/service";
import { VectorIndex } from "../recall/vector-index";
import { EmbedRejectedError, type Embedder } from "./types";

export interface EmbeddingStatus {
  provider: string;
  model: string | null;
  ok: boolean;
  pending: number;
  error?: string;
  /** Memories the provider refused to embed (they stay keyword-only), when there are any. */
  rejected?: number;
}

export interface EmbeddingWorkerOptions {
  batchSize?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How long a recall waits for its query vector before going keyword-only. */
  queryTimeoutMs?: number;
}

interface PendingRow {
  seq: number;
  agent_id: string;
  project: string | null;
  content: string;
  content_key: string;
}

const QUERY_CACHE_SIZE = 256;
/** The longest background embedding waits for recalls in flight before it takes a batch anyway. */
const RECALL_YIELD_MS = 250;

function blobToVector(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}

export class EmbeddingWorker {
  private embedder: Embedder | null = null;
  private index: VectorIndex | null = null;
  private stopped = false;
  /** Provider `none`: nothing to embed, nothing to queue. */
  private disabled: boolean;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private sleeping: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | null = null;
  private ok = false;
  private lastError: string | undefined;
  private recallsInFlight = 0;
  private resume: (() => void) | null = null;
  /** While the provider is failing, queries try it again only after this time. */
  private retryAt = 0;
  /**
   * Live memories without a current vector, in the order they are to be embedded. Found by one scan
   * when the provider comes up, then kept by onChange, so a batch never scans the table.
   */
  private readonly pending = new Set<number>();
  /** Memories of a refused batch, sent one at a time to find the one at fault. */
  private solo: number[] = [];
  /** Memories the provider refused on their own; embedded again only when their content changes. */
  private readonly rejected = new Set<number>();
  private readonly queryCache = new Map<string, Float32Array>();
  private readonly opts: Required<EmbeddingWorkerOptions>;
  private readonly selectPending: Statement<{ seq: number }, [string]>;
  private readonly upsertVector: Statement;
  private readonly vectorOf: Statement<{ agent_id: string; project: string | null; vector: Uint8Array }, [number, string]>;

  constructor(
    private readonly db: Database,
    readonly provider: string,
    private readonly load: () => Promise<Embedder | null>,
    options: EmbeddingWorkerOptions = {},
  ) {
    this.disabled = provider === "none";
    this.opts = { batchSize: 16, minBackoffMs: 1000, maxBackoffMs: 60_000, queryTimeoutMs: 2000, ...options };
    this.selectPending = db.query(
      `SELECT m.seq FROM memories m LEFT JOIN memory_vectors v ON v.seq = m.seq
       WHERE m.deleted_at IS NULL AND (v.seq IS NULL OR v.model <> ? OR v.content_key <> m.content_key) ORDER BY m.seq`,
    );
    this.upsertVector = db.query(
      `INSERT INTO memory_vectors (seq, model, dimensions, content_key, vector, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(seq) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions,
         content_key = excluded.content_key, vector = excluded.vector, created_at = excluded.created_at`,
    );
    this.vectorOf = db.query(
      `SELECT m.agent_id, m.project, v.vector FROM memory_vectors v JOIN memories m ON m.seq = v.seq
       WHERE v.seq = ? AND v.model = ? AND v.content_key = m.content_key AND m.deleted_at IS NULL`,
    );
  }

  /** Loads the provider and the stored vectors in the background, then embeds whatever is pending. */
  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.resume?.();
    if (this.sleeping) {
      clearTimeout(this.sleeping.timer);
      this.sleeping.resolve();
    }
    await this.loop;
    await this.embedder?.close();
  }

  /** Follows a committed memory change: drop stale vectors now, embed the new content soon. */
  onChange(change: MemoryChange): void {
    if (this.disabled) return;
    if (change.kind === "forgotten") {
      this.index?.remove(change.seq);
      this.pending.delete(change.seq);
      return;
    }
    if (change.contentChanged) {
      this.index?.remove(change.seq);
      this.rejected.delete(change.seq);
      this.pending.add(change.seq);
    }
    if (change.kind === "recovered" && !this.restore(change.seq)) this.pending.add(change.seq);
    this.wake?.();
  }

  status(): EmbeddingStatus {
    const status: EmbeddingStatus = {
      provider: this.provider,
      model: this.embedder?.model ?? null,
      ok: this.ok,
      pending: this.embedder ? this.pending.size : 0,
    };
    if (this.lastError && !this.ok) status.error = this.lastError;
    if (this.rejected.size > 0) status.rejected = this.rejected.size;
    return status;
  }

  /**
   * Marks a recall in flight until the returned function is called: background embedding (which
   * competes for the same cores) waits meanwhile, so answers stay fast under a write load.
   */
  holdForRecall(): () => void {
    this.recallsInFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.recallsInFlight === 0) this.resume?.();
    };
  }

  /** The vector index, once the provider is up and at least one vector exists. */
  get vectors(): VectorIndex | null {
    return this.index;
  }

  /** The query's vector, or null when the provider is missing, down or too slow. */
  async embedQuery(text: string): Promise<Float32Array | null> {
    const embedder = this.embedder;
    if (!embedder) return null;
    const cached = this.queryCache.get(text);
    if (cached) return cached;
    if (!this.ok && Date.now() < this.retryAt) return null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), this.opts.queryTimeoutMs)));
      const result = await Promise.race([embedder.embed([text], { priority: "query" }).then((v) => v[0] ?? null), timeout]);
      if (result) {
        this.succeeded();
        if (this.queryCache.size >= QUERY_CACHE_SIZE) this.queryCache.delete(this.queryCache.keys().next().value!);
        this.queryCache.set(text, result);
      }
      return result;
    } catch (err) {
      this.fail(err, this.opts.minBackoffMs);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Puts a recovered memory's stored vector back in the index; false when it has none still valid. */
  private restore(seq: number): boolean {
    const embedder = this.embedder;
    if (!embedder) return false;
    const row = this.vectorOf.get(seq, embedder.model);
    if (!row) return false;
    const vector = blobToVector(row.vector);
    this.ensureIndex(vector.length).upsert(seq, row.agent_id, vector, row.project);
    return true;
  }

  private async run(): Promise<void> {
    let backoff = 0;
    while (!this.stopped && !this.embedder) {
      try {
        const embedder = await this.load();
        if (!embedder) {
          this.disabled = true;
          this.pending.clear();
          return;
        }
        this.loadIndex(embedder);
        for (const { seq } of this.selectPending.iterate(embedder.model)) this.pending.add(seq);
        this.embedder = embedder;
        this.succeeded();
      } catch (err) {
        backoff = await this.backOff(err, backoff);
      }
    }
    backoff = 0;
    while (!this.stopped) {
      // Recalls come first: no new batch starts while one is being answered, but a steady stream of
      // recalls only slows embedding down (one batch per RECALL_YIELD_MS), never stops it.
      if (this.recallsInFlight > 0 && !this.stopped) {
        await Promise.race([new Promise<void>((resolve) => (this.resume = resolve)), Bun.sleep(RECALL_YIELD_MS)]);
        this.resume = null;
      }
      const embedder = this.embedder!;
      const batch = this.nextBatch();
      if (batch.length === 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      try {
        const vectors = await embedder.embed(batch.map((r) => r.content));
        this.store(embedder, batch, vectors);
        this.succeeded();
        backoff = 0;
      } catch (err) {
        if (err instanceof EmbedRejectedError) this.isolate(batch);
        else backoff = await this.backOff(err, backoff);
      }
    }
  }

  /** A refused batch is retried one memory at a time; a memory refused alone is set aside. */
  private isolate(batch: PendingRow[]): void {
    if (batch.length > 1) {
      this.solo.push(...batch.map((r) => r.seq));
      return;
    }
    const seq = batch[0]!.seq;
    this.pending.delete(seq);
    this.rejected.add(seq);
  }

  /** Records a failure and sleeps for the next backoff (doubling from the minimum up to the cap). */
  private async backOff(err: unknown, previousMs: number): Promise<number> {
    const backoffMs = Math.min(Math.max(this.opts.minBackoffMs, previousMs * 2), this.opts.maxBackoffMs);
    this.fail(err, backoffMs);
    await this.sleep(backoffMs);
    return backoffMs;
  }

  private fail(err: unknown, backoffMs: number): void {
    this.ok = false;
    this.lastError = (err as Error)?.message ?? String(err);
    this.retryAt = Date.now() + backoffMs;
  }

  private succeeded(): void {
    this.ok = true;
    this.lastError = undefined;
  }

  /** Sleeps unless stopped; a new write does not cut a backoff short. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleeping = null;
        resolve();
      }, ms);
      this.sleeping = { timer, resolve };
    });
  }

  private ensureIndex(dimensions: number): VectorIndex {
    if (!this.index || this.index.dimensions !== dimensions) this.index = new VectorIndex(dimensions);
    return this.index;
  }

  private loadIndex(embedder: Embedder): void {
    const rows = this.db
      .query<{ seq: number; agent_id: string; project: string | null; dimensions: number; vector: Uint8Array }, [string]>(
        `SELECT v.seq, m.agent_id, m.project, v.dimensions, v.vector FROM memory_vectors v JOIN memories m ON m.seq = v.seq
         WHERE v.model = ? AND v.content_key = m.content_key AND m.deleted_at IS NULL ORDER BY v.seq`,
      )
      .iterate(embedder.model);
    for (const row of rows) this.ensureIndex(row.dimensions).upsert(row.seq, row.agent_id, blobToVector(row.vector), row.project);
  }

  /** The next pending memories as they are now (forgotten ones leave the queue). */
  private nextBatch(): PendingRow[] {
    const seqs: number[] = [];
    while (seqs.length === 0 && this.solo.length > 0) {
      const seq = this.solo.shift()!;
      if (this.pending.has(seq)) seqs.push(seq);
    }
    for (const seq of seqs.length > 0 ? [] : this.pending) {
      seqs.push(seq);
      if (seqs.length === this.opts.batchSize) break;
    }
    if (seqs.length === 0) return [];
    const rows = this.rowsOf(seqs);
    const live = new Set(rows.map((r) => r.seq));
    for (const seq of seqs) if (!live.has(seq)) this.pending.delete(seq);
    return rows;
  }

  private rowsOf(seqs: number[]): PendingRow[] {
    return this.db
      .query<PendingRow, number[]>(
        `SELECT seq, agent_id, project, content, content_key FROM memories
         WHERE seq IN (${seqs.map(() => "?").join(",")}) AND deleted_at IS NULL ORDER BY seq`,
      )
      .all(...seqs);
  }

  private store(embedder: Embedder, batch: PendingRow[], vectors: Float32Array[]): void {
    const now = new Date().toISOString();
    const current = new Map(this.rowsOf(batch.map((r) => r.seq)).map((r) => [r.seq, r]));
    this.db.transaction(() => {
      batch.forEach((row, i) => {
        const vector = vectors[i]!;
        const latest = current.get(row.seq);
        // Forgotten meanwhile: its vector is kept for a recovery. Changed meanwhile: it stays pending.
        const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
        if (!latest) {
          this.upsertVector.run(row.seq, embedder.model, vector.length, row.content_key, bytes, now);
          this.pending.delete(row.seq);
          return;
        }
        if (latest.content_key !== row.content_key) return;
        this.upsertVector.run(row.seq, embedder.model, vector.length, row.content_key, bytes, now);
        this.ensureIndex(vector.length).upsert(row.seq, row.agent_id, vector, row.project);
        this.pending.delete(row.seq);
      });
    })();
  }
}
