// Vectors, models and the re-embedding job in a PostgreSQL store shared by several daemons. Each
// daemon keeps its own vector index in memory, its vector files in its own data directory. A stored
// vector adds a line to the memories' change feed (memory/postgres-feed.ts), so the other daemons
// load it into their indexes (EmbeddingWorker.followStored) instead of embedding the memory too.
import { WorkLeases } from "../cluster/leases";
import { MEMORY_CHANNEL } from "../memory/postgres-feed";
import type { ReindexJob } from "./reindex";
import type { EmbeddingStore, ModelRow, PendingRow, StoredVectorRow, VectorWrite } from "./store";

/** A bytea as Bun's client hands it over (a Buffer), or as bytes. */
const bytesOf = (v: Uint8Array) => (v instanceof Uint8Array ? v : new Uint8Array(v as ArrayBufferLike));

export class PostgresEmbeddingStore implements EmbeddingStore {
  private readonly leases: WorkLeases;

  /** `vectorDir`: this daemon's directory for its vector files (its data directory); `daemonId`: who holds its leases. */
  constructor(
    private readonly sql: Bun.SQL,
    readonly vectorDir: string,
    daemonId: string,
    leaseOptions: { ttlMs?: number; now?: () => number } = {},
  ) {
    this.leases = new WorkLeases(sql, daemonId, leaseOptions);
  }

  lease(seqs: number[], model: string, dimensions: number | null = null): Promise<number[]> {
    // Only what still lacks a current vector: one another daemon stored since is not embedded again.
    return this.leases.claim("embed", {
      sql: `SELECT m.seq AS item FROM memories m LEFT JOIN memory_vectors v ON v.seq = m.seq
            WHERE m.seq = ANY($1::int[]) AND m.deleted_at IS NULL
              AND (v.seq IS NULL OR v.model <> $2 OR v.dimensions <> coalesce($3::int, v.dimensions) OR v.content_key <> m.content_key)`,
      params: [seqs, model, dimensions],
    });
  }

  async orphans(model: string, writtenBefore: string, dimensions: number | null = null): Promise<number[]> {
    const rows = await this.sql<{ seq: number }[]>`
      SELECT m.seq FROM memories m LEFT JOIN memory_vectors v ON v.seq = m.seq
        LEFT JOIN work_leases l ON l.kind = 'embed' AND l.item = m.seq AND l.lease_until >= ${this.leases.now()}
      WHERE m.deleted_at IS NULL AND m.updated_at < ${writtenBefore} AND l.item IS NULL
        AND (v.seq IS NULL OR v.model <> ${model} OR v.dimensions <> coalesce(${dimensions}::int, v.dimensions) OR v.content_key <> m.content_key)
      ORDER BY m.seq LIMIT 1000`;
    return rows.map((r) => r.seq);
  }

  async liveSeqs(): Promise<number[]> {
    return (await this.sql<{ seq: number }[]>`SELECT seq FROM memories WHERE deleted_at IS NULL ORDER BY seq`).map((r) => r.seq);
  }

  async pendingSeqs(model: string, redoBefore: string, dimensions: number | null = null): Promise<number[]> {
    const rows = await this.sql<{ seq: number }[]>`
      SELECT m.seq FROM memories m LEFT JOIN memory_vectors v ON v.seq = m.seq
      WHERE m.deleted_at IS NULL AND (v.seq IS NULL OR v.model <> ${model} OR v.dimensions <> coalesce(${dimensions}::int, v.dimensions)
        OR v.content_key <> m.content_key OR v.created_at < ${redoBefore})
      ORDER BY m.seq`;
    return rows.map((r) => r.seq);
  }

  async storedVectors(model: string, dimensions: number | null, afterSeq: number, limit: number): Promise<StoredVectorRow[]> {
    const rows = await this.sql<StoredVectorRow[]>`
      SELECT v.seq, m.agent_id, m.project, m.who, v.dimensions, v.vector FROM memory_vectors v JOIN memories m ON m.seq = v.seq
      WHERE v.model = ${model} AND (${dimensions}::int IS NULL OR v.dimensions = ${dimensions}) AND v.content_key = m.content_key
        AND m.deleted_at IS NULL AND v.seq > ${afterSeq}
      ORDER BY v.seq LIMIT ${limit}`;
    return rows.map((r) => ({ ...r, vector: bytesOf(r.vector) }));
  }

  async vectorOf(seq: number, model: string, dimensions: number | null = null): Promise<Omit<StoredVectorRow, "seq" | "dimensions"> | null> {
    const [row] = await this.sql<Omit<StoredVectorRow, "seq" | "dimensions">[]>`
      SELECT m.agent_id, m.project, m.who, v.vector FROM memory_vectors v JOIN memories m ON m.seq = v.seq
      WHERE v.seq = ${seq} AND v.model = ${model} AND v.dimensions = coalesce(${dimensions}::int, v.dimensions)
        AND v.content_key = m.content_key AND m.deleted_at IS NULL`;
    return row ? { ...row, vector: bytesOf(row.vector) } : null;
  }

  rowsOf(seqs: number[]): Promise<PendingRow[]> {
    if (seqs.length === 0) return Promise.resolve([]);
    return this.sql`
      SELECT seq, agent_id, project, who, content, content_key FROM memories
      WHERE seq = ANY(${this.sql.array(seqs, "INT")}::int[]) AND deleted_at IS NULL ORDER BY seq`;
  }

  async storeVectors(model: string, vectors: VectorWrite[], at: string): Promise<void> {
    if (vectors.length === 0) return;
    await this.sql.begin(async (tx) => {
      for (const v of vectors) {
        await tx`
          INSERT INTO memory_vectors (seq, model, dimensions, content_key, vector, created_at)
          VALUES (${v.seq}, ${model}, ${v.dimensions}, ${v.contentKey}, ${Buffer.from(v.bytes.buffer, v.bytes.byteOffset, v.bytes.byteLength)}, ${at})
          ON CONFLICT (seq) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions,
            content_key = excluded.content_key, vector = excluded.vector, created_at = excluded.created_at`;
      }
      await tx`
        WITH logged AS (
          INSERT INTO memory_changes (memory_seq, changed_at)
          SELECT seq, ${at} FROM unnest(${tx.array(vectors.map((v) => v.seq), "INT")}::int[]) AS seq RETURNING change_seq)
        SELECT pg_notify(${MEMORY_CHANNEL}, max(change_seq)::text) FROM logged`;
      // Done: the leases end with the vectors stored.
      await this.leases.release(tx, "embed", vectors.map((v) => v.seq));
    });
  }

  async staleModel(current: string, dimensions: number | null = null): Promise<{ model: string; dimensions: number } | null> {
    const [row] = await this.sql<{ model: string; dimensions: number }[]>`
      SELECT v.model, v.dimensions FROM memory_vectors v JOIN memories m ON m.seq = v.seq
      WHERE (v.model <> ${current} OR v.dimensions <> coalesce(${dimensions}::int, v.dimensions))
        AND v.content_key = m.content_key AND m.deleted_at IS NULL
      GROUP BY v.model, v.dimensions ORDER BY count(*) DESC LIMIT 1`;
    return row ?? null;
  }

  async dimensionsOf(model: string): Promise<number | null> {
    const [row] = await this.sql<{ dimensions: number }[]>`
      SELECT dimensions FROM memory_vectors WHERE model = ${model} GROUP BY dimensions ORDER BY count(*) DESC LIMIT 1`;
    return row?.dimensions ?? null;
  }

  async recordModel(model: string, provider: string, baseUrl: string | null, dimensions: number, at: string): Promise<void> {
    await this.sql`
      INSERT INTO embedding_models (model, provider, base_url, dimensions, recorded_at) VALUES (${model}, ${provider}, ${baseUrl}, ${dimensions}, ${at})
      ON CONFLICT (model) DO UPDATE SET provider = excluded.provider, base_url = excluded.base_url,
        dimensions = excluded.dimensions, recorded_at = excluded.recorded_at`;
  }

  async modelRow(model: string): Promise<ModelRow | null> {
    const [row] = await this.sql<ModelRow[]>`SELECT provider, base_url, dimensions FROM embedding_models WHERE model = ${model}`;
    return row ?? null;
  }

  modelUrls(): Promise<{ model: string; base_url: string }[]> {
    return this.sql`SELECT model, base_url FROM embedding_models WHERE base_url IS NOT NULL`;
  }

  async setModelUrl(model: string, baseUrl: string): Promise<void> {
    await this.sql`UPDATE embedding_models SET base_url = ${baseUrl} WHERE model = ${model}`;
  }

  storedModels(): Promise<{ model: string; dimensions: number; count: number }[]> {
    return this.sql`
      SELECT v.model, v.dimensions, count(*)::int AS count FROM memory_vectors v JOIN memories m ON m.seq = v.seq
      WHERE m.deleted_at IS NULL GROUP BY v.model, v.dimensions ORDER BY count DESC`;
  }

  async currentJob(): Promise<ReindexJob | null> {
    const [row] = await this.sql<{ model: string; redo_before: string | null; started_at: string; finished_at: string | null }[]>`
      SELECT model, redo_before, started_at, finished_at FROM embed_reindex WHERE id = 1`;
    return row ? { model: row.model, redoBefore: row.redo_before, startedAt: row.started_at, finishedAt: row.finished_at } : null;
  }

  async openJob(job: ReindexJob): Promise<void> {
    await this.sql`
      INSERT INTO embed_reindex (id, model, redo_before, started_at, finished_at) VALUES (1, ${job.model}, ${job.redoBefore}, ${job.startedAt}, NULL)
      ON CONFLICT (id) DO UPDATE SET model = excluded.model, redo_before = excluded.redo_before, started_at = excluded.started_at, finished_at = NULL`;
  }

  async finishJob(at: string): Promise<void> {
    await this.sql`UPDATE embed_reindex SET finished_at = ${at} WHERE id = 1`;
  }

  async countDone(model: string, since: string, dimensions: number | null = null): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM memory_vectors v JOIN memories m ON m.seq = v.seq
      WHERE v.model = ${model} AND v.dimensions = coalesce(${dimensions}::int, v.dimensions) AND v.created_at >= ${since}
        AND v.content_key = m.content_key AND m.deleted_at IS NULL`;
    return row!.n;
  }
}
