// The embedding worker: writes answer at once, and this worker embeds what is pending in batches,
// persists the vectors (with model and content key) and keeps the in-memory index in step. A provider
// that fails is retried with exponential backoff, never stormed; recall meanwhile stays keyword-only.
// After a model change it re-embeds everything (docs/api.md#re-embedding): the vectors of the
// previous model keep answering recall, each compared only with a query embedded by that same model,
// until the memory's new vector replaces it. The same loop embeds other texts that have vectors
// (document chunks) once no memory waits, through an EmbeddingQueue: one provider, one backoff, and
// recalls first for both.
import { type TakeOverTiming, watchForLeftovers } from "../cluster/take-over";
import { authorOf, type MemoryChange } from "../memory/store";
import { readInSteps } from "../event-loop";
import { Holds } from "../holds";
import { VectorIndex, indexOfDimensions, type AuthorSearch, type VectorHit } from "../search/vector-index";
import type { Logger } from "../../logger";
import { createEmbedder } from "./factory";
import { shownUrl } from "./http";
import { configOf, forgetRecordedCredentials, profileOf, type ModelProfile } from "./models";
import { QueryVectors } from "./query";
import type { EmbeddingStatus, ReindexStatus } from "../../contracts/embed";
import type { ReindexJob } from "./reindex";
import type { EmbeddingStore, PendingRow, StoredVectorRow, VectorWrite } from "./store";
import { EmbedRejectedError, type Embedder } from "./types";

/** What a recall's vector leg asks for: the scope, and the SQL filters' rows only when a search needs them. */
export interface VectorQuery {
  k: number;
  agentIds: string[];
  project?: string;
  /** Also the best of these authors' own memories, from the same pass (docs/api.md#how-it-ranks). */
  authors?: AuthorSearch;
  allowed: () => Promise<Set<number> | undefined>;
}

export interface EmbeddingWorkerOptions {
  batchSize?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How long a recall waits for its query vector before going keyword-only. */
  queryTimeoutMs?: number;
  /** Loads the embedder of a previous model, for the queries its vectors are compared with. */
  loadModel?: (profile: ModelProfile) => Promise<Embedder | null>;
  /** Told how many vectors a batch stored, once it committed (the daemon paces its collections by it). */
  afterStore?: (vectors: number) => void;
  /** On a shared store: when memories other daemons left unembedded are taken over (store.orphans). */
  takeOver?: TakeOverTiming;
  /** Where a provider's failure is logged, once when it starts failing and once when it answers again (the daemon's log; nowhere without one). */
  log?: Logger;
}

/** A worker given no log keeps the provider's failures to its status. */
const UNLOGGED: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** The vectors of the model being replaced, and that model's embedder for queries once it has loaded. */
interface PreviousModel {
  model: string;
  index: VectorIndex;
  queries: QueryVectors | null;
  /** After a failed query, the previous model is asked again only after this time. */
  retryAt: number;
}


/** A text to embed for an EmbeddingQueue. */
export interface QueuedText {
  seq: number;
  text: string;
}

/**
 * Texts besides memories that the worker embeds (document chunks), after the memories waiting: the
 * queue keeps what waits and where the vectors go, the worker embeds them.
 */
export interface EmbeddingQueue {
  /**
   * The provider is up: load the stored vectors of its model and queue the texts without one (beside
   * the memories' work; the worker asks for texts once it is done).
   */
  ready(embedder: Embedder): Promise<void>;
  /** At most `n` texts to embed next; none while the queue has nothing to give. */
  next(n: number): Promise<QueuedText[]>;
  /** The vectors of `batch`, in its order, by `embedder`. */
  embedded(embedder: Embedder, batch: QueuedText[], vectors: Float32Array[]): Promise<void>;
  /** The provider refused `batch` as input: those texts go without a vector. */
  refused(batch: QueuedText[], err: EmbedRejectedError): void;
}

/** The longest background embedding waits for recalls in flight before it takes a batch anyway. */
const RECALL_YIELD_MS = 250;

/**
 * A stored vector's floats, in one buffer used again for every row: an index keeps no reference to
 * what it is given, and a copy per row would be 2 KB of garbage each, 200 MB to load 100,000.
 */
class VectorScratch {
  private floats = new Float32Array(0);

  of(blob: Uint8Array): Float32Array {
    if (this.floats.byteLength !== blob.byteLength) this.floats = new Float32Array(blob.byteLength >> 2);
    new Uint8Array(this.floats.buffer).set(blob.subarray(0, this.floats.byteLength));
    return this.floats;
  }
}

export class EmbeddingWorker {
  private embedder: Embedder | null = null;
  private index: VectorIndex | null = null;
  private stopped = false;
  /** Provider `none`: nothing to embed, nothing to queue. */
  private disabled: boolean;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** Woken while looking for work: the loop looks again instead of sleeping (the look awaits the stores). */
  private woken = false;
  private sleeping: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | null = null;
  private ok = false;
  private lastError: string | undefined;
  /** The provider's failure is logged: its recovery will be too. */
  private failureLogged = false;
  /** Recalls in flight: background batches wait for them (holdForRecall). */
  private readonly recallsInFlight = new Holds(() => this.resume?.());
  private resume: (() => void) | null = null;
  /** While the provider is failing, queries try it again only after this time. */
  private retryAt = 0;
  /**
   * Live memories without a current vector, in the order they are to be embedded. Found by one scan
   * when the provider comes up, then kept by onChange, so a batch never scans the table.
   */
  private readonly pending = new Set<number>();
  /** On a shared store: stops the look for memories other daemons left unembedded. */
  private stopTakingOver: (() => void) | undefined;
  /** Memories of a refused batch, sent one at a time to find the one at fault. */
  private solo: number[] = [];
  /** Memories the provider refused on their own; embedded again only when their content changes. */
  private readonly rejected = new Set<number>();
  private queries: QueryVectors | null = null;
  private previous: PreviousModel | null = null;
  /** The re-embedding job of the current model, and how many memories it has done. */
  private job: ReindexJob | null = null;
  private jobDone = 0;
  /** The current model's provider is recorded (models.ts) with the first vectors it stores. */
  private recorded = false;
  private readonly opts: Required<EmbeddingWorkerOptions>;
  private readonly queues: EmbeddingQueue[] = [];
  private readonly scratch = new VectorScratch();
  /** Recovered memories whose stored vector is being read, by a token a later change takes away. */
  private readonly restoring = new Map<number, object>();
  /**
   * Memories another daemon changed while this worker was loading, before it had an index to put their
   * stored vectors in: read once it has (a vector stored after the load read past it is otherwise lost,
   * since the memory then is no longer pending).
   */
  private readonly followedWhileLoading = new Set<number>();
  /** While a batch's vectors are stored: the memories changed since it was read again, whose change decides. */
  private touched: Set<number> | null = null;

  constructor(
    private readonly store: EmbeddingStore,
    readonly provider: string,
    private readonly load: () => Promise<Embedder | null>,
    options: EmbeddingWorkerOptions = {},
  ) {
    this.disabled = provider === "none";
    this.opts = {
      batchSize: 16,
      minBackoffMs: 1000,
      maxBackoffMs: 60_000,
      queryTimeoutMs: 2000,
      loadModel: (profile) => createEmbedder(configOf(profile, profile.model === this.embedder?.model)),
      afterStore: () => {},
      takeOver: {},
      log: UNLOGGED,
      ...options,
    };
  }

  /**
   * Loads the provider and the stored vectors in the background, then embeds whatever is pending (the
   * builtin model itself loads at the first text to embed, lazy.ts).
   */
  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // A provider's request in flight ends now, not at its timeout; nothing of its batch is stored.
    this.embedder?.abort?.();
    this.previous?.queries?.embedder.abort?.();
    this.stopTakingOver?.();
    this.rouse();
    this.resume?.();
    if (this.sleeping) {
      clearTimeout(this.sleeping.timer);
      this.sleeping.resolve();
    }
    await this.loop;
    await this.embedder?.close();
    await this.previous?.queries?.embedder.close();
    this.index?.close();
    this.previous?.index.close();
  }

  /**
   * Embeds `queue`'s texts in this loop once no memory waits (nothing with provider none). The
   * returned function tells the worker the queue has new texts.
   */
  serve(queue: EmbeddingQueue): () => void {
    this.queues.push(queue);
    if (this.embedder) this.readyQueue(queue, this.embedder);
    return () => this.rouse();
  }

  /** Wakes the loop, or has it look for work again when it is looking already. */
  private rouse(): void {
    this.woken = true;
    this.wake?.();
  }

  /** Has `queue` load what it keeps for `embedder`, then asks it for texts; its failure shows in the status. */
  private readyQueue(queue: EmbeddingQueue, embedder: Embedder): void {
    queue.ready(embedder).then(
      () => this.rouse(),
      (err: unknown) => this.fail(err, 0),
    );
  }

  /** Follows a committed memory change: drop stale vectors now, embed the new content soon. */
  onChange(change: MemoryChange): void {
    // A stopped worker's index is closed: what changes after is read at the next start.
    if (this.disabled || this.stopped) return;
    this.supersede(change.seq);
    if (change.kind === "forgotten") {
      this.unindex(change.seq);
      this.pending.delete(change.seq);
      return;
    }
    if (change.contentChanged) {
      this.unindex(change.seq);
      this.rejected.delete(change.seq);
      this.pending.add(change.seq);
    }
    if (change.kind === "recovered") void this.restore(change.seq, true);
    this.rouse();
  }

  /**
   * Follows a change another daemon sharing the store made (the change feed): the index drops what
   * it held for the memory and takes the memory's stored vector when there is one. The daemon that
   * took the write embeds it, so nothing is queued here.
   */
  followStored(change: MemoryChange): void {
    if (this.disabled || this.stopped) return;
    this.supersede(change.seq);
    this.unindex(change.seq);
    if (change.kind === "forgotten") return;
    if (this.embedder) void this.restore(change.seq, false);
    else this.followedWhileLoading.add(change.seq);
  }

  /** A later change decides over a stored vector being read, or a vector being stored, for an earlier one. */
  private supersede(seq: number): void {
    this.restoring.delete(seq);
    this.touched?.add(seq);
  }

  /** Memory `seq` leaves both indexes (the current model's and, while a re-embedding runs, the previous one's). */
  private unindex(seq: number): void {
    this.index?.remove(seq);
    this.previous?.index.remove(seq);
  }

  /** Stored vectors of live memories, per model, most first (GET /api/embed/status). */
  storedModels(): Promise<{ model: string; dimensions: number; count: number }[]> {
    return this.store.storedModels();
  }

  status(): EmbeddingStatus {
    const status: EmbeddingStatus = {
      provider: this.provider,
      model: this.embedder?.model ?? null,
      ok: this.ok,
      loaded: this.embedder !== null && this.embedder.loaded !== false,
      pending: this.embedder ? this.pending.size : 0,
    };
    if (this.lastError && !this.ok) status.error = this.lastError;
    if (this.rejected.size > 0) status.rejected = this.rejected.size;
    const reindex = this.reindexStatus();
    if (reindex) status.reindex = reindex;
    return status;
  }

  /** The re-embedding of the current model: under way, or the last one done; null when there was none. */
  reindexStatus(): ReindexStatus | null {
    const job = this.job;
    if (!job) return null;
    const running = job.finishedAt === null;
    const status: ReindexStatus = {
      state: running ? "running" : "done",
      model: job.model,
      total: this.jobDone + (running ? this.pending.size : 0),
      done: this.jobDone,
      startedAt: job.startedAt,
    };
    if (this.previous?.queries) {
      status.previousModel = this.previous.model;
      status.previousDimensions = this.previous.index.dimensions;
    }
    if (job.finishedAt) status.finishedAt = job.finishedAt;
    return status;
  }

  /**
   * Re-embeds every memory with the current model (`all`: also those whose vector already is of it,
   * e.g. after the provider changed but the model name did not). The work is the background loop's;
   * the job row makes it resume after a restart.
   */
  async startReindex(all: boolean): Promise<ReindexStatus> {
    const embedder = this.embedder;
    if (!embedder) throw new Error(this.disabled ? "disabled" : "not loaded");
    // One under way already covers a plain request; `all` starts over, counting from now.
    if (this.job?.finishedAt === null && !all) return this.reindexStatus()!;
    const job: ReindexJob = { model: embedder.model, redoBefore: all ? new Date().toISOString() : null, startedAt: new Date().toISOString(), finishedAt: null };
    await this.store.openJob(job);
    this.job = job;
    this.jobDone = 0;
    await this.queuePending(embedder);
    await this.finishIfDone();
    this.rouse();
    return this.reindexStatus()!;
  }

  /** Why a re-embedding cannot start now, or null when it can. */
  get reindexBlocker(): "disabled" | "not loaded" | null {
    return this.disabled ? "disabled" : this.embedder ? null : "not loaded";
  }

  /**
   * The vector leg of a recall: the current model's vectors against the query embedded by it, and,
   * while a re-embedding runs, the previous model's vectors against the query embedded by that model;
   * never a vector against a query of another model. Each hit's score is a cosine in its own model.
   */
  async search(text: string, q: VectorQuery): Promise<{ hits: VectorHit[]; authorHits: VectorHit[]; embedding: "ok" | "unavailable" | "disabled" }> {
    if (this.disabled) return { hits: [], authorHits: [], embedding: "disabled" };
    // A query is embedded only for vectors it can be compared with: with none yet there is nothing
    // to find, and embedding it would load a lazy model for nothing.
    const currentIndex = this.index && this.index.count > 0 ? this.index : null;
    const previous = this.previous?.queries && this.previous.index.count > 0 ? this.previous : null;
    if (!currentIndex && !previous) return { hits: [], authorHits: [], embedding: this.embedder && this.ok ? "ok" : "unavailable" };
    const [current, old] = await Promise.all([currentIndex ? this.embedQuery(text) : null, previous ? this.previousQuery(previous, text) : null]);
    if (!current && !old) return { hits: [], authorHits: [], embedding: "unavailable" };
    const allowed = await q.allowed();
    const searchIn = (index: VectorIndex | null, vector: Float32Array | null) => {
      if (!index || !vector || index.count === 0) return { hits: [], authorHits: [] };
      const owners = new Set(q.agentIds.map((a) => index.ownerCode(a)));
      const options = { k: q.k, owners, project: q.project, allowed };
      return q.authors ? index.searchWithAuthors(vector, options, q.authors) : { hits: index.search(vector, options), authorHits: [] };
    };
    const [now, before] = [searchIn(currentIndex, current), searchIn(previous?.index ?? null, old)];
    const best = (hits: VectorHit[], k: number) => hits.sort((a, b) => b.score - a.score).slice(0, k);
    return {
      hits: best([...now.hits, ...before.hits], q.k),
      authorHits: best([...now.authorHits, ...before.authorHits], q.authors?.k ?? 0),
      embedding: "ok",
    };
  }

  /** Tells the query embedder the calling thread is busy, or no longer (Embedder.callerBusy). */
  callerBusy(busy: boolean): void {
    this.queries?.embedder.callerBusy?.(busy);
  }

  /**
   * Marks a recall in flight until the returned function is called: background embedding (which
   * competes for the same cores) waits meanwhile, so answers stay fast under a write load.
   */
  holdForRecall(): () => void {
    return this.recallsInFlight.take();
  }

  /** The vector index, once the provider is up and at least one vector exists. */
  get vectors(): VectorIndex | null {
    return this.index;
  }

  /** The query's vector, or null when the provider is missing, down or too slow. */
  async embedQuery(text: string): Promise<Float32Array | null> {
    const queries = this.queries;
    if (!queries) return null;
    if (!this.ok && Date.now() < this.retryAt) return null;
    try {
      const result = await queries.embed(text);
      if (result) this.succeeded();
      return result;
    } catch (err) {
      this.fail(err, this.opts.minBackoffMs);
      return null;
    }
  }

  /** The query embedded by the previous model, or null while it is missing, loading or failing. */
  private async previousQuery(previous: PreviousModel, text: string): Promise<Float32Array | null> {
    if (!previous.queries || Date.now() < previous.retryAt) return null;
    try {
      return await previous.queries.embed(text);
    } catch {
      previous.retryAt = Date.now() + this.opts.maxBackoffMs;
      return null;
    }
  }

  /**
   * Puts memory `seq`'s stored vector of the current model in the index, unless a change came while
   * it was read; without one, queues the memory when `orQueue`.
   */
  private async restore(seq: number, orQueue: boolean): Promise<void> {
    const embedder = this.embedder;
    const token = {};
    this.restoring.set(seq, token);
    const row = embedder ? await this.store.vectorOf(seq, embedder.model, this.sizeOf(embedder)).catch(() => null) : null;
    // A later change decides, and a worker that stopped meanwhile has closed its index.
    if (this.restoring.get(seq) !== token || this.stopped) return;
    this.restoring.delete(seq);
    if (row && embedder === this.embedder) {
      const vector = this.scratch.of(row.vector);
      this.ensureIndex(vector.length).upsert(seq, row.agent_id, vector, row.project, authorOf(row));
      return;
    }
    if (!orQueue) return;
    this.pending.add(seq);
    this.rouse();
  }

  private async run(): Promise<void> {
    let backoff = 0;
    await forgetRecordedCredentials(this.store).catch((err: Error) =>
      this.opts.log.warn(`embedding: recorded provider URLs could not be cleared of credentials: ${err.message}`),
    );
    while (!this.stopped && !this.embedder) {
      try {
        const embedder = await this.load();
        if (!embedder) {
          this.disabled = true;
          this.pending.clear();
          return;
        }
        await this.settleDimensions(embedder);
        if (!(await this.loadIndex(embedder))) {
          await embedder.close();
          return;
        }
        await this.resumeJob(embedder);
        await this.queuePending(embedder);
        this.queries = new QueryVectors(embedder, this.opts.queryTimeoutMs);
        this.embedder = embedder;
        for (const seq of this.followedWhileLoading) void this.restore(seq, false);
        this.followedWhileLoading.clear();
        this.watchForOrphans(embedder);
        for (const queue of this.queues) this.readyQueue(queue, embedder);
        this.succeeded();
        await this.finishIfDone();
        // In the background, so nothing awaits it: a store failure here is logged, never unhandled.
        void this.loadPrevious(embedder).catch((err: Error) =>
          this.opts.log.warn(`embedding: loading the previous model's vectors failed, recall finds the memories not yet re-embedded by keyword only: ${err.message}`),
        );
      } catch (err) {
        backoff = await this.backOff(err, backoff);
      }
    }
    backoff = 0;
    while (!this.stopped) {
      // Recalls come first: no new batch starts while one is being answered, but a steady stream of
      // recalls only slows embedding down (one batch per RECALL_YIELD_MS), never stops it.
      if (this.recallsInFlight.held && !this.stopped) {
        await Promise.race([new Promise<void>((resolve) => (this.resume = resolve)), Bun.sleep(RECALL_YIELD_MS)]);
        this.resume = null;
      }
      const embedder = this.embedder!;
      this.woken = false;
      let batch: PendingRow[];
      let queued: { queue: EmbeddingQueue; batch: QueuedText[] } | null;
      try {
        batch = await this.nextBatch();
        // A batch other daemons held every memory of: the next pending ones, until none is left.
        while (batch.length === 0 && this.pending.size > 0 && !this.stopped) batch = await this.nextBatch();
        queued = batch.length === 0 ? await this.nextQueued() : null;
      } catch {
        // The store is away (a shared one restarting): the provider is not at fault; look again soon.
        await this.sleep(this.opts.minBackoffMs);
        continue;
      }
      if (batch.length === 0 && !queued) {
        if (!this.woken) await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      try {
        if (queued) await queued.queue.embedded(embedder, queued.batch, await embedder.embed(queued.batch.map((t) => t.text)));
        else await this.storeVectors(embedder, batch, await embedder.embed(batch.map((r) => r.content)));
        this.succeeded();
        await this.finishIfDone();
        backoff = 0;
      } catch (err) {
        // Stopping: the request was cancelled, or failed meanwhile; either way nothing was stored.
        if (this.stopped) break;
        if (!(err instanceof EmbedRejectedError)) backoff = await this.backOff(err, backoff);
        else if (queued) queued.queue.refused(queued.batch, err);
        else this.isolate(batch);
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
    // Once per outage, not at every retry: the status has the latest reason.
    if (!this.failureLogged && !this.stopped) {
      this.failureLogged = true;
      this.opts.log.warn(`embedding: the ${this.provider} provider is failing, recall is keyword-only until it answers (retried with backoff): ${this.lastError}`);
    }
  }

  private succeeded(): void {
    this.ok = true;
    this.lastError = undefined;
    if (this.failureLogged) {
      this.failureLogged = false;
      this.opts.log.info(`embedding: the ${this.provider} provider answers again`);
    }
  }

  /** Sleeps unless stopped; a new write does not cut a backoff short. */
  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleeping = null;
        resolve();
      }, ms);
      this.sleeping = { timer, resolve };
    });
  }

  /** The size of the current model's vectors, null while it is not known (no answer yet, nothing stored). */
  private sizeOf(embedder: Embedder): number | null {
    return embedder.dimensions || null;
  }

  /**
   * A provider that does not know its size before it answers (HTTP without embedding.dimensions) is
   * told that of the model's stored vectors: an answer of another size is then a failure, not vectors
   * that would take the stored ones out of the index.
   */
  private async settleDimensions(embedder: Embedder): Promise<void> {
    if (embedder.dimensions > 0 || !embedder.expectDimensions) return;
    const stored = await this.store.dimensionsOf(embedder.model);
    if (stored !== null) embedder.expectDimensions(stored);
  }

  private ensureIndex(dimensions: number): VectorIndex {
    this.index = indexOfDimensions(this.index, dimensions, this.store.vectorDir);
    return this.index;
  }

  /**
   * Indexes the stored vectors `select` finds (a query over memory_vectors `v` joined to memories
   * `m`, its parameters `params`), a step at a time in seq order (event-loop.ts readInSteps: the
   * daemon answers meanwhile; loading 100,000 in one go held its event loop for ~10 s). A change
   * meanwhile is safe: the query reads only current vectors of live memories, and onChange removes
   * from the index what it already holds. False when `wanted()` turned false first (the worker
   * stopped, or the index was let go).
   */
  private indexStored(
    model: string,
    dimensions: number | null,
    indexOf: (row: StoredVectorRow) => VectorIndex,
    wanted: () => boolean,
  ): Promise<boolean> {
    return readInSteps(
      (after, n) => this.store.storedVectors(model, dimensions, after, n),
      (row) => indexOf(row).upsert(row.seq, row.agent_id, this.scratch.of(row.vector), row.project, authorOf(row)),
      wanted,
    );
  }

  /**
   * Queues every live memory without a valid vector of the current model (or one to redo). Without
   * vectors to redo those are the live memories the index lacks, once it holds every current vector
   * of the model (loaded, then kept by onChange): no scan of memory_vectors' 2 KB rows (~0.3 s at
   * 100,000 memories).
   */
  private async queuePending(embedder: Embedder): Promise<void> {
    const redoBefore = this.job?.finishedAt === null ? this.job.redoBefore : null;
    // The index answers for every vector when none is to be redone.
    const indexed = redoBefore === null ? this.index : null;
    const seqs = indexed ? await this.store.liveSeqs() : await this.store.pendingSeqs(embedder.model, redoBefore ?? "", this.sizeOf(embedder));
    for (const seq of seqs) {
      if (!this.rejected.has(seq) && !indexed?.has(seq)) this.pending.add(seq);
    }
  }

  /**
   * At start: the current model's unfinished job resumes; vectors of another model (the model or
   * provider changed) or of another size (embedding.dimensions changed) open a new one, so progress
   * shows and the previous vectors keep answering.
   */
  private async resumeJob(embedder: Embedder): Promise<void> {
    const job = await this.store.currentJob();
    const stale = await this.store.staleModel(embedder.model, this.sizeOf(embedder));
    if (job && job.model === embedder.model && (job.finishedAt === null || !stale)) this.job = job;
    else if (stale) {
      this.job = { model: embedder.model, redoBefore: null, startedAt: new Date().toISOString(), finishedAt: null };
      await this.store.openJob(this.job);
    }
    if (this.job) this.jobDone = await this.store.countDone(this.job.model, this.job.startedAt, this.sizeOf(embedder));
  }

  /** Ends the job once nothing is left to embed, and lets the previous model go. */
  private async finishIfDone(): Promise<void> {
    if (!this.job || this.job.finishedAt !== null || this.pending.size > 0 || this.solo.length > 0) return;
    this.job.finishedAt = new Date().toISOString();
    await this.store.finishJob(this.job.finishedAt);
    const previous = this.previous;
    this.previous = null;
    previous?.index.close();
    void previous?.queries?.embedder.close();
  }

  /**
   * While a re-embedding runs: the previous model's vectors, and its embedder for queries (loaded
   * from how its vectors were made, models.ts). Without it those vectors cannot be used and recall
   * runs on keywords and the vectors already replaced.
   */
  private async loadPrevious(current: Embedder): Promise<void> {
    if (this.job?.finishedAt !== null) return;
    const stale = await this.store.staleModel(current.model, this.sizeOf(current));
    if (!stale) return;
    const previous: PreviousModel = { model: stale.model, index: new VectorIndex(stale.dimensions, this.store.vectorDir), queries: null, retryAt: 0 };
    // In place before it is filled, so a memory re-embedded meanwhile leaves it (store()); until it
    // has a query model, recall does not search it.
    this.previous = previous;
    const kept = () => !this.stopped && this.previous === previous;
    if (!(await this.indexStored(stale.model, stale.dimensions, () => previous.index, kept))) return;
    const profile = profileOf(await this.store.modelRow(stale.model), stale.model, stale.dimensions, current);
    if (!profile) return;
    try {
      const embedder = await this.opts.loadModel(profile);
      embedder?.expectDimensions?.(stale.dimensions);
      if (embedder && this.previous === previous && !this.stopped) previous.queries = new QueryVectors(embedder, this.opts.queryTimeoutMs);
      else await embedder?.close();
    } catch {
      // Its provider is gone: the previous vectors stay unused until replaced.
    }
  }

  /** The current model's stored vectors of its size (those of another size are re-embedded). */
  private loadIndex(embedder: Embedder): Promise<boolean> {
    return this.indexStored(embedder.model, this.sizeOf(embedder), (row) => this.ensureIndex(row.dimensions), () => !this.stopped);
  }

  /** The next pending memories as they are now (forgotten ones leave the queue). */
  private async nextBatch(): Promise<PendingRow[]> {
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
    const rows = await this.store.rowsOf(seqs);
    // On a shared store, a memory whose lease another daemon holds is that daemon's: its vector comes
    // through the change feed (followStored), or the lease runs out and the look for orphans finds it.
    const mine = new Set(await this.store.lease(rows.map((r) => r.seq), this.embedder!.model, this.sizeOf(this.embedder!)));
    for (const seq of seqs) if (!mine.has(seq)) this.pending.delete(seq);
    return rows.filter((r) => mine.has(r.seq));
  }

  /** On a shared store: memories no daemon embeds (their daemon died) join the queue. */
  private watchForOrphans(embedder: Embedder): void {
    const orphans = this.store.orphans?.bind(this.store);
    if (!orphans) return;
    this.stopTakingOver = watchForLeftovers(
      (writtenBefore) => orphans(embedder.model, writtenBefore, this.sizeOf(embedder)),
      (seqs) => {
        const before = this.pending.size;
        for (const seq of seqs) if (!this.rejected.has(seq)) this.pending.add(seq);
        if (this.pending.size > before) this.rouse();
      },
      this.opts.takeOver,
    );
  }

  /** The first queue's next texts, once no memory waits. */
  private async nextQueued(): Promise<{ queue: EmbeddingQueue; batch: QueuedText[] } | null> {
    for (const queue of this.queues) {
      const batch = await queue.next(this.opts.batchSize);
      if (batch.length > 0) return { queue, batch };
    }
    return null;
  }

  private async storeVectors(embedder: Embedder, batch: PendingRow[], vectors: Float32Array[]): Promise<void> {
    const now = new Date().toISOString();
    if (!this.recorded && vectors.length > 0) {
      // Without the URL's credentials: the table is readable where the key is not (docs/api.md#re-embedding).
      await this.store.recordModel(embedder.model, embedder.provider, embedder.baseUrl ? shownUrl(embedder.baseUrl) : null, vectors[0]!.length, now);
      this.recorded = true;
    }
    const touched = (this.touched = new Set<number>());
    const current = new Map((await this.store.rowsOf(batch.map((r) => r.seq))).map((r) => [r.seq, r]));
    const writes: VectorWrite[] = [];
    const indexed: { row: PendingRow; vector: Float32Array }[] = [];
    batch.forEach((row, i) => {
      const vector = vectors[i]!;
      const latest = current.get(row.seq);
      // Forgotten meanwhile: its vector is kept for a recovery. Changed meanwhile: it stays pending.
      if (latest && latest.content_key !== row.content_key) return;
      writes.push({ seq: row.seq, dimensions: vector.length, contentKey: row.content_key, bytes: new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength) });
      if (latest) indexed.push({ row, vector });
      else this.pending.delete(row.seq);
    });
    try {
      await this.store.storeVectors(embedder.model, writes, now);
    } finally {
      this.touched = null;
    }
    for (const { row, vector } of indexed) {
      // Changed or forgotten while the vector was stored: what that change queued decides.
      if (touched.has(row.seq)) continue;
      this.ensureIndex(vector.length).upsert(row.seq, row.agent_id, vector, row.project, authorOf(row));
      // Replaced: from now on this memory answers with its new vector only.
      this.previous?.index.remove(row.seq);
      if (this.job?.finishedAt === null) this.jobDone++;
      this.pending.delete(row.seq);
    }
    this.opts.afterStore(batch.length);
  }
}
