// Document sources in the daemon's SQLite file (migrations/006_sources.sql): sources, their files,
// chunks with their FTS5 rows, and chunk vectors. A file's chunks and FTS5 rows are replaced together,
// each ingestion step in one transaction.
import type { Database, Statement } from "bun:sqlite";
import type { SourceFormat, SourceSummary } from "../../contracts/sources";
import { matchesAmong } from "../search/matches";
import type { TermStats } from "../search/scoring";
import { vectorFileDir } from "../search/vector-file";
import {
  CHUNK_COLUMNS,
  CHUNK_SOURCE_COLUMNS,
  COLUMN_WEIGHTS,
  indexedChunk,
  keywordColumns,
  type ChunkChanges,
  type ChunkRow,
  type ChunkSourceRow,
  type FileRow,
  type FileWrite,
  type FtsHit,
  type IndexedChunk,
  type IngestBatch,
  type SourceFts,
  type SourceRow,
  type SourceStore,
  type ChunkVectors,
} from "./store";

const BM25 = `bm25(source_chunks_fts, ${COLUMN_WEIGHTS.join(", ")})`;

export class SqliteSourceStore implements SourceStore, SourceFts {
  readonly fts: SourceFts = this;
  readonly shared = false;
  readonly vectorDir: string;
  private readonly insertChunk: Statement<unknown, [string, number, number, number, number, string | null, string]>;
  private readonly insertFts: Statement;
  private readonly deleteFtsOfFile: Statement;
  private readonly deleteChunksOfFile: Statement;
  private readonly seqsOfFile: Statement<{ seq: number }, [number]>;
  private readonly fileByPathStmt: Statement<FileRow, [string]>;
  private readonly touchFile: Statement;
  private readonly deleteFileStmt: Statement;
  private readonly upsertFile: Statement<{ id: number }, [number, string, SourceFormat, number, number, string, string]>;
  private readonly ftsTopStmt: Statement<FtsHit, [string, number]>;
  private readonly ftsTopInStmt: Statement<FtsHit, [string, string, number]>;
  private readonly ftsCountStmt: Statement<{ n: number }, [string]>;
  private readonly ftsCountInStmt: Statement<{ n: number }, [string, string]>;
  private readonly ftsAmongStmt: Statement<{ seq: number }, [string, string]>;
  /** Writes one ingestion step in one transaction. */
  private readonly writeBatchTx: (sourceId: number, batch: IngestBatch, now: string) => ChunkChanges;

  constructor(private readonly db: Database) {
    this.vectorDir = vectorFileDir(db);
    this.insertChunk = db.query(
      "INSERT INTO source_chunks (id, file_id, ordinal, start_line, end_line, heading, content) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.insertFts = db.query("INSERT INTO source_chunks_fts (rowid, content, heading, path, terms) VALUES (?, ?, ?, ?, ?)");
    this.deleteFtsOfFile = db.query("DELETE FROM source_chunks_fts WHERE rowid IN (SELECT seq FROM source_chunks WHERE file_id = ?)");
    this.deleteChunksOfFile = db.query("DELETE FROM source_chunks WHERE file_id = ?");
    this.seqsOfFile = db.query("SELECT seq FROM source_chunks WHERE file_id = ?");
    this.fileByPathStmt = db.query("SELECT id, source_id, path, size, mtime_ms, content_hash FROM source_files WHERE path = ?");
    this.touchFile = db.query("UPDATE source_files SET size = ?, mtime_ms = ? WHERE id = ?");
    this.deleteFileStmt = db.query("DELETE FROM source_files WHERE id = ?");
    this.upsertFile = db.query(
      `INSERT INTO source_files (source_id, path, format, size, mtime_ms, content_hash, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(path) DO UPDATE SET source_id = excluded.source_id, format = excluded.format, size = excluded.size,
         mtime_ms = excluded.mtime_ms, content_hash = excluded.content_hash, ingested_at = excluded.ingested_at
       RETURNING id`,
    );
    this.ftsTopStmt = db.query(`SELECT rowid AS seq, ${BM25} AS score FROM source_chunks_fts WHERE source_chunks_fts MATCH ? ORDER BY score LIMIT ?`);
    this.ftsTopInStmt = db.query(
      `SELECT source_chunks_fts.rowid AS seq, ${BM25} AS score FROM source_chunks_fts
       JOIN source_chunks c ON c.seq = source_chunks_fts.rowid JOIN source_files f ON f.id = c.file_id
       WHERE source_chunks_fts MATCH ? AND instr(f.path, ?) > 0 ORDER BY score LIMIT ?`,
    );
    this.ftsCountStmt = db.query("SELECT count(*) AS n FROM source_chunks_fts WHERE source_chunks_fts MATCH ?");
    this.ftsCountInStmt = db.query(
      `SELECT count(*) AS n FROM source_chunks_fts JOIN source_chunks c ON c.seq = source_chunks_fts.rowid
       JOIN source_files f ON f.id = c.file_id WHERE source_chunks_fts MATCH ? AND instr(f.path, ?) > 0`,
    );
    this.ftsAmongStmt = db.query(
      "SELECT rowid AS seq FROM source_chunks_fts WHERE source_chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
    );
    this.writeBatchTx = db.transaction((sourceId: number, batch: IngestBatch, now: string): ChunkChanges => {
      const changes: ChunkChanges = { removed: [], added: [] };
      for (const t of batch.touched ?? []) this.touchFile.run(t.size, t.mtimeMs, t.id);
      for (const file of batch.written ?? []) this.writeFile(sourceId, file, now, changes);
      for (const id of batch.deleted ?? []) {
        changes.removed.push(...this.clearFile(id));
        this.deleteFileStmt.run(id);
      }
      return changes;
    });
  }

  // ---- sources ----

  async sourceByPath(path: string): Promise<SourceRow | null> {
    return this.db.query<SourceRow, [string]>("SELECT * FROM sources WHERE path = ?").get(path);
  }

  async sourceById(id: number): Promise<SourceRow | null> {
    return this.db.query<SourceRow, [number]>("SELECT * FROM sources WHERE id = ?").get(id);
  }

  async allSources(): Promise<SourceRow[]> {
    return this.db.query<SourceRow, []>("SELECT * FROM sources ORDER BY id").all();
  }

  async openSource(path: string, kind: "file" | "dir", glob: string | null, now: string): Promise<{ row: SourceRow; created: boolean }> {
    const existing = await this.sourceByPath(path);
    if (existing) return { row: existing, created: false };
    const row = this.db
      .query<SourceRow, [string, string, string | null, string, string]>(
        // The id after the highest ever given (migration 016): a removed source's id is never reused.
        "INSERT INTO sources (id, path, kind, glob, created_at, synced_at) VALUES ((SELECT id + 1 FROM source_id_high), ?, ?, ?, ?, ?) RETURNING *",
      )
      .get(path, kind, glob, now, now)!;
    return { row, created: true };
  }

  async updateSource(id: number, glob: string | null, syncedAt: string): Promise<void> {
    this.db.query("UPDATE sources SET glob = ?, synced_at = ? WHERE id = ?").run(glob, syncedAt, id);
  }

  async deleteSource(id: number): Promise<number[]> {
    const seqs = this.db
      .query<{ seq: number }, [number]>("SELECT c.seq FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE f.source_id = ?")
      .all(id)
      .map((r) => r.seq);
    this.db.transaction(() => {
      this.db.query("DELETE FROM source_chunks_fts WHERE rowid IN (SELECT value FROM json_each(?))").run(JSON.stringify(seqs));
      this.db.query("DELETE FROM sources WHERE id = ?").run(id);
    })();
    return seqs;
  }

  async summary(row: SourceRow, vectors: ChunkVectors | null): Promise<SourceSummary> {
    const counts = this.db
      .query<{ files: number; chunks: number; embedded: number }, [string | null, number | null, number]>(
        `SELECT (SELECT count(*) FROM source_files WHERE source_id = s.id) AS files,
           (SELECT count(*) FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE f.source_id = s.id) AS chunks,
           (SELECT count(*) FROM source_vectors v JOIN source_chunks c ON c.seq = v.seq JOIN source_files f ON f.id = c.file_id
              WHERE f.source_id = s.id AND v.model = ? AND v.dimensions = coalesce(?, v.dimensions)) AS embedded
         FROM sources s WHERE s.id = ?`,
      )
      .get(vectors?.model ?? null, vectors?.dimensions ?? null, row.id)!;
    return { id: row.id, path: row.path, kind: row.kind, glob: row.glob, ...counts, createdAt: row.created_at, syncedAt: row.synced_at };
  }

  // ---- files and chunks ----

  async filesOf(sourceId: number): Promise<FileRow[]> {
    return this.db
      .query<FileRow, [number]>("SELECT id, source_id, path, size, mtime_ms, content_hash FROM source_files WHERE source_id = ?")
      .all(sourceId);
  }

  async fileByPath(path: string): Promise<FileRow | null> {
    return this.fileByPathStmt.get(path);
  }

  async writeBatch(sourceId: number, batch: IngestBatch, now: string): Promise<ChunkChanges> {
    return this.writeBatchTx(sourceId, batch, now);
  }

  /** Removes a file's chunks (and FTS5 rows); returns their seqs. */
  private clearFile(fileId: number): number[] {
    const seqs = this.seqsOfFile.all(fileId).map((r) => r.seq);
    this.deleteFtsOfFile.run(fileId);
    this.deleteChunksOfFile.run(fileId);
    return seqs;
  }

  /** Writes a file's row and its chunks, replacing what it had. */
  private writeFile(sourceId: number, file: FileWrite, now: string, changes: ChunkChanges): void {
    const existing = this.fileByPathStmt.get(file.path);
    if (existing) changes.removed.push(...this.clearFile(existing.id));
    const fileId = this.upsertFile.get(sourceId, file.path, file.format, file.size, file.mtimeMs, file.hash, now)!.id;
    file.chunks.forEach((c, ordinal) => {
      const seq = Number(this.insertChunk.run(c.id, fileId, ordinal, c.startLine, c.endLine, c.heading, c.content).lastInsertRowid);
      const columns = keywordColumns(c.content, c.heading, file.relative);
      this.insertFts.run(seq, ...columns);
      changes.added.push({ seq, columns });
    });
  }

  async indexChunk(afterSeq: number, limit: number): Promise<IndexedChunk[]> {
    return this.db
      .query<ChunkSourceRow, [number, number]>(
        `SELECT ${CHUNK_SOURCE_COLUMNS} FROM source_chunks c
         JOIN source_files f ON f.id = c.file_id JOIN sources s ON s.id = f.source_id WHERE c.seq > ? ORDER BY c.seq LIMIT ?`,
      )
      .all(afterSeq, limit)
      .map(indexedChunk);
  }

  async chunksAmong(seqs: number[]): Promise<ChunkRow[]> {
    if (seqs.length === 0) return [];
    return this.db
      .query<ChunkRow, [string]>(
        `SELECT ${CHUNK_COLUMNS} FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE c.seq IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(seqs));
  }

  async seqsUnder(path: string): Promise<number[]> {
    return this.db
      .query<{ seq: number }, [string]>("SELECT c.seq FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE instr(f.path, ?) > 0")
      .all(path)
      .map((r) => r.seq);
  }

  // ---- keyword search (FTS5) ----

  ftsTop(match: string, limit: number, path?: string): FtsHit[] {
    return path === undefined ? this.ftsTopStmt.all(match, limit) : this.ftsTopInStmt.all(match, path, limit);
  }

  termStats(matches: string[], path?: string): TermStats {
    const n =
      path === undefined
        ? this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM source_chunks").get()!.n
        : this.db
            .query<{ n: number }, [string]>("SELECT count(*) AS n FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE instr(f.path, ?) > 0")
            .get(path)!.n;
    const df = matches.map((m) => (path === undefined ? this.ftsCountStmt.get(m)! : this.ftsCountInStmt.get(m, path)!).n);
    return { n, df };
  }

  matchedTerms(matches: string[], seqs: number[]): Map<number, number[]> {
    return matchesAmong(this.ftsAmongStmt, matches, seqs);
  }

  // ---- vectors ----

  async unembedded(vectors: ChunkVectors): Promise<number[]> {
    return this.db
      .query<{ seq: number }, [string, number | null]>(
        `SELECT c.seq FROM source_chunks c LEFT JOIN source_vectors v ON v.seq = c.seq AND v.model = ?1 AND v.dimensions = coalesce(?2, v.dimensions)
         WHERE v.seq IS NULL ORDER BY c.seq`,
      )
      .all(vectors.model, vectors.dimensions)
      .map((r) => r.seq);
  }

  async textsOf(seqs: number[]): Promise<{ seq: number; text: string }[]> {
    return this.db
      .query<{ seq: number; text: string }, [string]>(
        `SELECT seq, CASE WHEN heading IS NULL THEN content ELSE heading || char(10) || content END AS text
         FROM source_chunks WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY seq`,
      )
      .all(JSON.stringify(seqs));
  }

  /** A lone daemon embeds every chunk itself. */
  async lease(seqs: number[], _vectors: ChunkVectors): Promise<number[]> {
    return seqs;
  }

  async storeVectors(model: string, rows: { seq: number; vector: Float32Array }[]): Promise<number[]> {
    const stored: number[] = [];
    const insert = this.db.query(
      `INSERT INTO source_vectors (seq, model, dimensions, vector) SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM source_chunks WHERE seq = ?1)
       ON CONFLICT(seq) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions, vector = excluded.vector`,
    );
    this.db.transaction(() => {
      for (const { seq, vector } of rows) {
        const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
        if (insert.run(seq, model, vector.length, bytes).changes > 0) stored.push(seq);
      }
    })();
    return stored;
  }

  async storedVectors(vectors: ChunkVectors, afterSeq: number, limit: number): Promise<{ seq: number; vector: Uint8Array }[]> {
    return this.db
      .query<{ seq: number; vector: Uint8Array }, [string, number | null, number, number]>(
        "SELECT seq, vector FROM source_vectors WHERE model = ? AND dimensions = coalesce(?, dimensions) AND seq > ? ORDER BY seq LIMIT ?",
      )
      .all(vectors.model, vectors.dimensions, afterSeq, limit);
  }
}
