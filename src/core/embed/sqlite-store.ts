// Vectors, models and the re-embedding job in the daemon's SQLite file (migrations 002, 007, 012),
// with the statements a busy worker runs prepared once.
import type { Database, Statement } from "bun:sqlite";
import { vectorFileDir } from "../search/vector-file";
import type { ReindexJob } from "./reindex";
import type { EmbeddingStore, ModelRow, PendingRow, StoredVectorRow, VectorWrite } from "./store";

export class SqliteEmbeddingStore implements EmbeddingStore {
  readonly vectorDir: string;
  private readonly selectLive: Statement<{ seq: number }, []>;
  private readonly selectPending: Statement<{ seq: number }, [string, number | null, string]>;
  private readonly upsertVector: Statement;
  private readonly vectorOfStmt: Statement<Omit<StoredVectorRow, "seq" | "dimensions">, [number, string, number | null]>;

  constructor(private readonly db: Database) {
    this.vectorDir = vectorFileDir(db);
    this.selectLive = db.query("SELECT seq FROM memories WHERE deleted_at IS NULL ORDER BY seq");
    // The parameters: the model, its size (null: any), and a `--all` re-embedding's start ('' when
    // none), before which vectors are redone.
    this.selectPending = db.query(
      `SELECT m.seq FROM memories m LEFT JOIN memory_vectors v ON v.seq = m.seq
       WHERE m.deleted_at IS NULL AND (v.seq IS NULL OR v.model <> ? OR v.dimensions <> coalesce(?, v.dimensions)
         OR v.content_key <> m.content_key OR v.created_at < ?)
       ORDER BY m.seq`,
    );
    this.upsertVector = db.query(
      `INSERT INTO memory_vectors (seq, model, dimensions, content_key, vector, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(seq) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions,
         content_key = excluded.content_key, vector = excluded.vector, created_at = excluded.created_at`,
    );
    this.vectorOfStmt = db.query(
      `SELECT m.agent_id, m.project, m.who, v.vector FROM memory_vectors v JOIN memories m ON m.seq = v.seq
       WHERE v.seq = ? AND v.model = ? AND v.dimensions = coalesce(?, v.dimensions) AND v.content_key = m.content_key AND m.deleted_at IS NULL`,
    );
  }

  async liveSeqs(): Promise<number[]> {
    return this.selectLive.all().map((r) => r.seq);
  }

  async pendingSeqs(model: string, redoBefore: string, dimensions: number | null = null): Promise<number[]> {
    return this.selectPending.all(model, dimensions, redoBefore).map((r) => r.seq);
  }

  async storedVectors(model: string, dimensions: number | null, afterSeq: number, limit: number): Promise<StoredVectorRow[]> {
    // NOT INDEXED: a step is a range of seq (the rowid), never a scan of the model index and a sort.
    return this.db
      .query<StoredVectorRow, (string | number)[]>(
        `SELECT v.seq, m.agent_id, m.project, m.who, v.dimensions, v.vector FROM memory_vectors v NOT INDEXED JOIN memories m ON m.seq = v.seq
         WHERE v.model = ?${dimensions === null ? "" : " AND v.dimensions = ?"} AND v.content_key = m.content_key AND m.deleted_at IS NULL
           AND v.seq > ? ORDER BY v.seq LIMIT ?`,
      )
      .all(...(dimensions === null ? [model] : [model, dimensions]), afterSeq, limit);
  }

  async vectorOf(seq: number, model: string, dimensions: number | null = null): Promise<Omit<StoredVectorRow, "seq" | "dimensions"> | null> {
    return this.vectorOfStmt.get(seq, model, dimensions);
  }

  async rowsOf(seqs: number[]): Promise<PendingRow[]> {
    if (seqs.length === 0) return [];
    return this.db
      .query<PendingRow, number[]>(
        `SELECT seq, agent_id, project, who, content, content_key FROM memories
         WHERE seq IN (${seqs.map(() => "?").join(",")}) AND deleted_at IS NULL ORDER BY seq`,
      )
      .all(...seqs);
  }

  /** A lone daemon embeds every memory itself. */
  async lease(seqs: number[], _model: string, _dimensions?: number | null): Promise<number[]> {
    return seqs;
  }

  async storeVectors(model: string, vectors: VectorWrite[], at: string): Promise<void> {
    this.db.transaction(() => {
      for (const v of vectors) this.upsertVector.run(v.seq, model, v.dimensions, v.contentKey, v.bytes, at);
    })();
  }

  async staleModel(current: string, dimensions: number | null = null): Promise<{ model: string; dimensions: number } | null> {
    // Nearly always there is none: the (model, dimensions) index answers that without reading a vector.
    // A null size compares with none, leaving the model alone to decide.
    const other = this.db
      .query<{ model: string }, [string, number | null]>(
        "SELECT model FROM memory_vectors WHERE model < ?1 OR model > ?1 OR (model = ?1 AND dimensions < ?2) OR (model = ?1 AND dimensions > ?2) LIMIT 1",
      )
      .get(current, dimensions);
    if (!other) return null;
    return this.db
      .query<{ model: string; dimensions: number }, [string, number | null]>(
        `SELECT v.model, v.dimensions FROM memory_vectors v JOIN memories m ON m.seq = v.seq
         WHERE (v.model <> ?1 OR v.dimensions <> coalesce(?2, v.dimensions)) AND v.content_key = m.content_key AND m.deleted_at IS NULL
         GROUP BY v.model, v.dimensions ORDER BY count(*) DESC LIMIT 1`,
      )
      .get(current, dimensions);
  }

  async dimensionsOf(model: string): Promise<number | null> {
    // From the (model, dimensions) index alone.
    const row = this.db
      .query<{ dimensions: number }, [string]>("SELECT dimensions FROM memory_vectors WHERE model = ? GROUP BY dimensions ORDER BY count(*) DESC LIMIT 1")
      .get(model);
    return row?.dimensions ?? null;
  }

  async recordModel(model: string, provider: string, baseUrl: string | null, dimensions: number, at: string): Promise<void> {
    this.db
      .query(
        `INSERT INTO embedding_models (model, provider, base_url, dimensions, recorded_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(model) DO UPDATE SET provider = excluded.provider, base_url = excluded.base_url,
           dimensions = excluded.dimensions, recorded_at = excluded.recorded_at`,
      )
      .run(model, provider, baseUrl, dimensions, at);
  }

  async modelRow(model: string): Promise<ModelRow | null> {
    return this.db.query<ModelRow, [string]>("SELECT provider, base_url, dimensions FROM embedding_models WHERE model = ?").get(model);
  }

  async modelUrls(): Promise<{ model: string; base_url: string }[]> {
    return this.db.query<{ model: string; base_url: string }, []>("SELECT model, base_url FROM embedding_models WHERE base_url IS NOT NULL").all();
  }

  async setModelUrl(model: string, baseUrl: string): Promise<void> {
    this.db.query("UPDATE embedding_models SET base_url = ? WHERE model = ?").run(baseUrl, model);
  }

  async storedModels(): Promise<{ model: string; dimensions: number; count: number }[]> {
    return this.db
      .query<{ model: string; dimensions: number; count: number }, []>(
        `SELECT v.model, v.dimensions, count(*) AS count FROM memory_vectors v JOIN memories m ON m.seq = v.seq
         WHERE m.deleted_at IS NULL GROUP BY v.model, v.dimensions ORDER BY count DESC`,
      )
      .all();
  }

  async currentJob(): Promise<ReindexJob | null> {
    const row = this.db
      .query<{ model: string; redo_before: string | null; started_at: string; finished_at: string | null }, []>(
        "SELECT model, redo_before, started_at, finished_at FROM embed_reindex WHERE id = 1",
      )
      .get();
    return row && { model: row.model, redoBefore: row.redo_before, startedAt: row.started_at, finishedAt: row.finished_at };
  }

  async openJob(job: ReindexJob): Promise<void> {
    this.db
      .query(
        `INSERT INTO embed_reindex (id, model, redo_before, started_at, finished_at) VALUES (1, ?, ?, ?, NULL)
         ON CONFLICT(id) DO UPDATE SET model = excluded.model, redo_before = excluded.redo_before,
           started_at = excluded.started_at, finished_at = NULL`,
      )
      .run(job.model, job.redoBefore, job.startedAt);
  }

  async finishJob(at: string): Promise<void> {
    this.db.query("UPDATE embed_reindex SET finished_at = ? WHERE id = 1").run(at);
  }

  async countDone(model: string, since: string, dimensions: number | null = null): Promise<number> {
    return this.db
      .query<{ n: number }, [string, number | null, string]>(
        `SELECT count(*) AS n FROM memory_vectors v JOIN memories m ON m.seq = v.seq
         WHERE v.model = ? AND v.dimensions = coalesce(?, v.dimensions) AND v.created_at >= ? AND v.content_key = m.content_key AND m.deleted_at IS NULL`,
      )
      .get(model, dimensions, since)!.n;
  }
}
