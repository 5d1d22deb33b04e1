// SQL for document sources (migrations/006_sources.sql): sources, their files, chunks with their FTS5
// rows, and chunk vectors. A file's chunks and FTS5 rows are replaced together, inside the caller's
// transaction.
import type { Database, Statement } from "bun:sqlite";
import { basename, relative } from "node:path";
import type { SourceFormat, SourceSummary } from "../../contracts/sources";
import { matchesAmong } from "../search/matches";
import type { TermStats } from "../search/scoring";
import { indexTerms } from "../search/text";
import type { Chunk } from "./chunk";

/** BM25 weights of the keyword columns (source_chunks_fts and the in-memory index): content, heading, path (relative to the source), extra terms. */
export const COLUMN_WEIGHTS = [1.0, 0.8, 0.5, 0.5] as const;
const BM25 = `bm25(source_chunks_fts, ${COLUMN_WEIGHTS.join(", ")})`;

export interface SourceRow {
  id: number;
  path: string;
  kind: "file" | "dir";
  glob: string | null;
  created_at: string;
  synced_at: string;
}

export interface FileRow {
  id: number;
  source_id: number;
  path: string;
  size: number;
  mtime_ms: number;
  content_hash: string;
}

export interface ChunkRow {
  seq: number;
  id: string;
  path: string;
  start_line: number;
  end_line: number;
  /** The chunk's place in its file, from 0. */
  ordinal: number;
  heading: string | null;
  content: string;
}

export interface FtsHit {
  seq: number;
  /** bm25(): negative, better the lower. */
  score: number;
}

/**
 * Words that can have index terms of their own: with an underscore, a digit, a capital or a CJK
 * character (indexTerms finds nothing in a plain lowercase word, the commonest kind, so those are
 * not even looked up).
 */
const TERM_WORD = /[\p{L}\p{N}_]*[_\p{N}\p{Lu}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}][\p{L}\p{N}_]*/gu;
/** Words whose index terms are remembered at most; past this the memory starts over. */
const TERMS_CACHE_WORDS = 200_000;
const termsOfWord = new Map<string, string>();

/**
 * search/text.ts's extra index terms (identifier parts, CJK bigrams) of a chunk, word by distinct
 * word: identifiers repeat across a source tree, and splitting them is most of the cost of indexing.
 */
function chunkTerms(text: string): string {
  const out: string[] = [];
  for (const word of new Set(text.match(TERM_WORD))) {
    let terms = termsOfWord.get(word);
    if (terms === undefined) {
      if (termsOfWord.size >= TERMS_CACHE_WORDS) termsOfWord.clear();
      terms = indexTerms(word);
      termsOfWord.set(word, terms);
    }
    if (terms) out.push(terms);
  }
  return out.join(" ");
}

/** A chunk's four keyword columns, as source_chunks_fts and the in-memory index hold them. */
type KeywordColumns = [content: string, heading: string, path: string, terms: string];

export interface IndexedChunk {
  seq: number;
  columns: KeywordColumns;
}

/** `relPath`: the file's path relative to its source's root (its name for a file source). */
function keywordColumns(content: string, heading: string | null, relPath: string): KeywordColumns {
  return [content, heading ?? "", relPath, chunkTerms(`${heading ?? ""}\n${relPath}\n${content}`)];
}

const CHUNK_COLUMNS = "c.seq, c.id, f.path, c.start_line, c.end_line, c.ordinal, c.heading, c.content";

export class SourceStore {
  private readonly insertChunk: Statement<unknown, [string, number, number, number, number, string | null, string]>;
  private readonly insertFts: Statement;
  private readonly deleteFtsOfFile: Statement;
  private readonly deleteChunksOfFile: Statement;
  private readonly upsertFile: Statement<{ id: number }, [number, string, string, number, number, string, string]>;
  private readonly ftsTopStmt: Statement<FtsHit, [string, number]>;
  private readonly ftsTopInStmt: Statement<FtsHit, [string, string, number]>;
  private readonly ftsCountStmt: Statement<{ n: number }, [string]>;
  private readonly ftsCountInStmt: Statement<{ n: number }, [string, string]>;
  private readonly ftsAmongStmt: Statement<{ seq: number }, [string, string]>;

  constructor(readonly db: Database) {
    this.insertChunk = db.query(
      "INSERT INTO source_chunks (id, file_id, ordinal, start_line, end_line, heading, content) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.insertFts = db.query("INSERT INTO source_chunks_fts (rowid, content, heading, path, terms) VALUES (?, ?, ?, ?, ?)");
    this.deleteFtsOfFile = db.query("DELETE FROM source_chunks_fts WHERE rowid IN (SELECT seq FROM source_chunks WHERE file_id = ?)");
    this.deleteChunksOfFile = db.query("DELETE FROM source_chunks WHERE file_id = ?");
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
  }

  // ---- sources ----

  sourceByPath(path: string): SourceRow | null {
    return this.db.query<SourceRow, [string]>("SELECT * FROM sources WHERE path = ?").get(path);
  }

  sourceById(id: number): SourceRow | null {
    return this.db.query<SourceRow, [number]>("SELECT * FROM sources WHERE id = ?").get(id);
  }

  allSources(): SourceRow[] {
    return this.db.query<SourceRow, []>("SELECT * FROM sources ORDER BY id").all();
  }

  insertSource(path: string, kind: "file" | "dir", glob: string | null, now: string): SourceRow {
    return this.db
      .query<SourceRow, [string, string, string | null, string, string]>(
        "INSERT INTO sources (path, kind, glob, created_at, synced_at) VALUES (?, ?, ?, ?, ?) RETURNING *",
      )
      .get(path, kind, glob, now, now)!;
  }

  updateSource(id: number, glob: string | null, syncedAt: string): void {
    this.db.query("UPDATE sources SET glob = ?, synced_at = ? WHERE id = ?").run(glob, syncedAt, id);
  }

  /** Removes the source with its files, chunks, FTS5 rows and vectors. */
  deleteSource(id: number): number[] {
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

  summary(row: SourceRow, model: string | null): SourceSummary {
    const counts = this.db
      .query<{ files: number; chunks: number; embedded: number }, [string | null, number]>(
        `SELECT (SELECT count(*) FROM source_files WHERE source_id = s.id) AS files,
           (SELECT count(*) FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE f.source_id = s.id) AS chunks,
           (SELECT count(*) FROM source_vectors v JOIN source_chunks c ON c.seq = v.seq JOIN source_files f ON f.id = c.file_id
              WHERE f.source_id = s.id AND v.model = ?) AS embedded
         FROM sources s WHERE s.id = ?`,
      )
      .get(model, row.id)!;
    return { id: row.id, path: row.path, kind: row.kind, glob: row.glob, ...counts, createdAt: row.created_at, syncedAt: row.synced_at };
  }

  // ---- files and chunks ----

  filesOf(sourceId: number): FileRow[] {
    return this.db
      .query<FileRow, [number]>("SELECT id, source_id, path, size, mtime_ms, content_hash FROM source_files WHERE source_id = ?")
      .all(sourceId);
  }

  /** The file's row whichever source holds it. */
  fileByPath(path: string): FileRow | null {
    return this.db.query<FileRow, [string]>("SELECT id, source_id, path, size, mtime_ms, content_hash FROM source_files WHERE path = ?").get(path);
  }

  touchFile(id: number, size: number, mtimeMs: number): void {
    this.db.query("UPDATE source_files SET size = ?, mtime_ms = ? WHERE id = ?").run(size, mtimeMs, id);
  }

  /** Removes a file's chunks (and FTS5 rows); returns their seqs. */
  clearFile(fileId: number): number[] {
    const seqs = this.db.query<{ seq: number }, [number]>("SELECT seq FROM source_chunks WHERE file_id = ?").all(fileId).map((r) => r.seq);
    this.deleteFtsOfFile.run(fileId);
    this.deleteChunksOfFile.run(fileId);
    return seqs;
  }

  deleteFile(fileId: number): number[] {
    const seqs = this.clearFile(fileId);
    this.db.query("DELETE FROM source_files WHERE id = ?").run(fileId);
    return seqs;
  }

  /** Writes a file's row and its chunks (replacing what it had); returns the new chunks' seqs. */
  writeFile(
    sourceId: number,
    file: { path: string; relative: string; format: SourceFormat; size: number; mtimeMs: number; hash: string },
    chunks: (Chunk & { id: string })[],
    now: string,
  ): { removed: number[]; added: IndexedChunk[] } {
    const existing = this.fileByPath(file.path);
    const removed = existing ? this.clearFile(existing.id) : [];
    const fileId = this.upsertFile.get(sourceId, file.path, file.format, file.size, file.mtimeMs, file.hash, now)!.id;
    const added = chunks.map((c, ordinal): IndexedChunk => {
      const seq = Number(this.insertChunk.run(c.id, fileId, ordinal, c.startLine, c.endLine, c.heading, c.content).lastInsertRowid);
      const columns = keywordColumns(c.content, c.heading, file.relative);
      this.insertFts.run(seq, ...columns);
      return { seq, columns };
    });
    return { removed, added };
  }

  /** The next `limit` chunks after `afterSeq` with their keyword columns, for loading the in-memory index. */
  indexChunk(afterSeq: number, limit: number): IndexedChunk[] {
    return this.db
      .query<{ seq: number; content: string; heading: string | null; path: string; root: string; kind: string }, [number, number]>(
        `SELECT c.seq, c.content, c.heading, f.path, s.path AS root, s.kind FROM source_chunks c
         JOIN source_files f ON f.id = c.file_id JOIN sources s ON s.id = f.source_id WHERE c.seq > ? ORDER BY c.seq LIMIT ?`,
      )
      .all(afterSeq, limit)
      .map((r) => ({ seq: r.seq, columns: keywordColumns(r.content, r.heading, r.kind === "dir" ? relative(r.root, r.path) : basename(r.path)) }));
  }

  chunksAmong(seqs: number[]): ChunkRow[] {
    if (seqs.length === 0) return [];
    return this.db
      .query<ChunkRow, [string]>(
        `SELECT ${CHUNK_COLUMNS} FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE c.seq IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(seqs));
  }

  /** Chunks whose file path contains `path`. */
  seqsUnder(path: string): number[] {
    return this.db
      .query<{ seq: number }, [string]>("SELECT c.seq FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE instr(f.path, ?) > 0")
      .all(path)
      .map((r) => r.seq);
  }

  // ---- keyword search ----

  ftsTop(match: string, limit: number, path?: string): FtsHit[] {
    return path === undefined ? this.ftsTopStmt.all(match, limit) : this.ftsTopInStmt.all(match, path, limit);
  }

  /** How many chunks there are (under `path`) and how many match each expression, for weighing terms (search/scoring.ts). */
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

  /** Per chunk of `seqs`, the positions in `matches` of the expressions it matches. */
  matchedTerms(matches: string[], seqs: number[]): Map<number, number[]> {
    return matchesAmong(this.ftsAmongStmt, matches, seqs);
  }

  // ---- vectors ----

  /** Chunks without a vector of `model`, in order. */
  unembedded(model: string): number[] {
    return this.db
      .query<{ seq: number }, [string]>(
        "SELECT c.seq FROM source_chunks c LEFT JOIN source_vectors v ON v.seq = c.seq AND v.model = ? WHERE v.seq IS NULL ORDER BY c.seq",
      )
      .all(model)
      .map((r) => r.seq);
  }

  textsOf(seqs: number[]): { seq: number; text: string }[] {
    return this.db
      .query<{ seq: number; text: string }, [string]>(
        `SELECT seq, CASE WHEN heading IS NULL THEN content ELSE heading || char(10) || content END AS text
         FROM source_chunks WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY seq`,
      )
      .all(JSON.stringify(seqs));
  }

  /** Stores vectors of chunks that still exist (one may have been replaced while it was embedded). */
  storeVectors(model: string, rows: { seq: number; vector: Float32Array }[]): number[] {
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

  vectorsOf(model: string): IterableIterator<{ seq: number; vector: Uint8Array }> {
    return this.db
      .query<{ seq: number; vector: Uint8Array }, [string]>("SELECT seq, vector FROM source_vectors WHERE model = ? ORDER BY seq")
      .iterate(model);
  }
}
