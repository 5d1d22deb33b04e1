// What the embedding worker needs of a store, and the rows both stores return: the SQLite one
// (sqlite-store.ts) and the PostgreSQL one (postgres-store.ts). Memories' vectors (memory_vectors),
// which provider made each model's vectors (embedding_models) and the re-embedding job
// (embed_reindex, docs/api.md#re-embedding).
import type { ReindexJob } from "./reindex";

/** A stored vector as the index loads it. */
export interface StoredVectorRow {
  seq: number;
  dimensions: number;
  agent_id: string;
  project: string | null;
  who: string | null;
  vector: Uint8Array;
}

/** A memory to embed, as it is now. */
export interface PendingRow {
  seq: number;
  agent_id: string;
  project: string | null;
  who: string | null;
  content: string;
  content_key: string;
}

/** A vector to store for a memory, made from its content under `content_key`. */
export interface VectorWrite {
  seq: number;
  dimensions: number;
  contentKey: string;
  bytes: Uint8Array;
}

export interface ModelRow {
  provider: string;
  base_url: string | null;
  dimensions: number;
}

/** Vectors, models and the re-embedding job, in whichever store the daemon runs on. */
export interface EmbeddingStore {
  /** Where the vector index keeps its files (vector-file.ts). */
  readonly vectorDir: string;
  /** Every live memory's seq, in order. */
  liveSeqs(): Promise<number[]>;
  /**
   * Live memories without a current vector of `model` of `dimensions` (of any size when null), or
   * with one written before `redoBefore`, in order.
   */
  pendingSeqs(model: string, redoBefore: string, dimensions?: number | null): Promise<number[]>;
  /**
   * The next `limit` current vectors of live memories after `afterSeq` (in seq order) of `model`,
   * and of `dimensions` when given.
   */
  storedVectors(model: string, dimensions: number | null, afterSeq: number, limit: number): Promise<StoredVectorRow[]>;
  /** Memory `seq`'s current vector of `model` (of `dimensions`, when given), while the memory is live. */
  vectorOf(seq: number, model: string, dimensions?: number | null): Promise<(Omit<StoredVectorRow, "seq" | "dimensions">) | null>;
  /** The live ones among `seqs`, as they are now, in order. */
  rowsOf(seqs: number[]): Promise<PendingRow[]>;
  /**
   * Of `seqs`, those this daemon embeds with `model` now: on a shared store the ones still without a
   * current vector whose lease it holds (core/cluster/leases.ts; storing their vectors ends it), the
   * others being done or another daemon's; on a lone store all of them. A vector of another size than
   * `dimensions` (when given) is none.
   */
  lease(seqs: number[], model: string, dimensions?: number | null): Promise<number[]>;
  /**
   * On a shared store: live memories without a current vector of `model`, last written before
   * `writtenBefore`, that no daemon holds the lease of: work a daemon left (it died, or lost the
   * store), for this one to take over; a vector of another size than `dimensions` (when given) is
   * none. Absent on a lone store.
   */
  orphans?(model: string, writtenBefore: string, dimensions?: number | null): Promise<number[]>;
  /** Stores the vectors of `model` in one transaction, each replacing the memory's earlier one. */
  storeVectors(model: string, vectors: VectorWrite[], at: string): Promise<void>;
  /**
   * The model and size most current vectors of live memories are of, among those not of `current`
   * at `dimensions` (at any size when null): a model, or a size, being replaced.
   */
  staleModel(current: string, dimensions?: number | null): Promise<{ model: string; dimensions: number } | null>;
  /** The size most stored vectors of `model` are of (live or not), or null when there is none. */
  dimensionsOf(model: string): Promise<number | null>;
  /** Records how `model`'s vectors are made: the latest provider and URL serving it win. */
  recordModel(model: string, provider: string, baseUrl: string | null, dimensions: number, at: string): Promise<void>;
  modelRow(model: string): Promise<ModelRow | null>;
  /** Every recorded model's base URL, for the models recorded with one. */
  modelUrls(): Promise<{ model: string; base_url: string }[]>;
  /** Replaces `model`'s recorded base URL (its provider, size and time stay). */
  setModelUrl(model: string, baseUrl: string): Promise<void>;
  /** Stored vectors of live memories, per model, most first. */
  storedModels(): Promise<{ model: string; dimensions: number; count: number }[]>;
  currentJob(): Promise<ReindexJob | null>;
  /** Stores `job` as the one job, replacing any earlier one. */
  openJob(job: ReindexJob): Promise<void>;
  finishJob(at: string): Promise<void>;
  /**
   * Live memories given a current vector of `model` (of `dimensions`, when given) since `since`: a
   * job's work done, across restarts.
   */
  countDone(model: string, since: string, dimensions?: number | null): Promise<number>;
}
