// Document sources in a PostgreSQL store shared by several daemons: sources, their files, chunks and
// chunk vectors. There is no full-text search here: the daemon's in-memory keyword index answers every
// keyword leg, and follows what other daemons write through the chunks' change feed
// (postgres-feed.ts), which every chunk write, removal and stored vector adds a line to.
//
// Rows are shared: every daemon lists and searches every source. An add or sync reads the source's
// path on the machine of the daemon that runs it, so daemons that sync one source must see the same
// files there (one machine, or a shared mount). Writes to one source take its advisory lock, so two
// daemons ingesting it at once write its files one after the other, each file's chunks replaced
// whole, never doubled.
import { WorkLeases } from "../cluster/leases";
import { LOCK_SPACE } from "../advisory-locks";
import type { SourceSummary } from "../../contracts/sources";
import { SOURCE_CHANNEL } from "./postgres-feed";
import {
  CHUNK_COLUMNS,
  CHUNK_SOURCE_COLUMNS,
  indexedChunk,
  keywordColumns,
  type ChunkChanges,
  type ChunkRow,
  type ChunkSourceRow,
  type FileRow,
  type IndexedChunk,
  type IngestBatch,
  type SourceRow,
  type SourceStore,
  type ChunkVectors,
} from "./store";

type Sql = Bun.SQL;

const LOCK_SOURCE = LOCK_SPACE.source;

const FILE_COLUMNS = "id, source_id, path, size::float8 AS size, mtime_ms, content_hash";

/** PostgreSQL's text holds no NUL: one becomes U+FFFD, which parts words as the NUL did (a removed one would join them). */
const noNul = (s: string) => s.replaceAll("\0", "\uFFFD");

/** Adds a line per chunk to the change feed and wakes the daemons following it, once `tx` commits. */
async function logChanges(tx: Sql, seqs: number[], at: string): Promise<void> {
  if (seqs.length === 0) return;
  await tx`
    WITH logged AS (
      INSERT INTO source_changes (chunk_seq, changed_at)
      SELECT seq, ${at} FROM unnest(${tx.array(seqs, "INT")}::int[]) AS seq RETURNING change_seq)
    SELECT pg_notify(${SOURCE_CHANNEL}, max(change_seq)::text) FROM logged`;
}

export class PostgresSourceStore implements SourceStore {
  readonly fts = null;
  readonly shared = true;

  private readonly leases: WorkLeases;

  /** `vectorDir`: this daemon's directory for its vector files (its data directory); `daemonId`: who holds its leases. */
  constructor(
    private readonly sql: Sql,
    readonly vectorDir: string,
    daemonId: string,
    leaseOptions: { ttlMs?: number; now?: () => number } = {},
  ) {
    this.leases = new WorkLeases(sql, daemonId, leaseOptions);
  }

  // ---- sources ----

  async sourceByPath(path: string): Promise<SourceRow | null> {
    const [row] = await this.sql<SourceRow[]>`SELECT * FROM sources WHERE path = ${path}`;
    return row ?? null;
  }

  async sourceById(id: number): Promise<SourceRow | null> {
    const [row] = await this.sql<SourceRow[]>`SELECT * FROM sources WHERE id = ${id}`;
    return row ?? null;
  }

  allSources(): Promise<SourceRow[]> {
    return this.sql`SELECT * FROM sources ORDER BY id`;
  }

  async openSource(path: string, kind: "file" | "dir", glob: string | null, now: string): Promise<{ row: SourceRow; created: boolean }> {
    const [created] = await this.sql<SourceRow[]>`
      INSERT INTO sources (path, kind, glob, created_at, synced_at) VALUES (${path}, ${kind}, ${glob}, ${now}, ${now})
      ON CONFLICT (path) DO NOTHING RETURNING *`;
    if (created) return { row: created, created: true };
    // Another daemon's add got there first: its row, read by a statement that sees its commit.
    return { row: (await this.sourceByPath(path))!, created: false };
  }

  async updateSource(id: number, glob: string | null, syncedAt: string): Promise<void> {
    await this.sql`UPDATE sources SET glob = ${glob}, synced_at = ${syncedAt} WHERE id = ${id}`;
  }

  deleteSource(id: number): Promise<number[]> {
    return this.sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${LOCK_SOURCE}, ${id})`;
      const seqs = (await tx<{ seq: number }[]>`SELECT c.seq FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE f.source_id = ${id}`).map(
        (r) => r.seq,
      );
      await tx`DELETE FROM sources WHERE id = ${id}`;
      await logChanges(tx, seqs, new Date().toISOString());
      return seqs;
    });
  }

  async summary(row: SourceRow, vectors: ChunkVectors | null): Promise<SourceSummary> {
    const [counts] = await this.sql<{ files: number; chunks: number; embedded: number }[]>`
      SELECT (SELECT count(*)::int FROM source_files WHERE source_id = ${row.id}) AS files,
        (SELECT count(*)::int FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE f.source_id = ${row.id}) AS chunks,
        (SELECT count(*)::int FROM source_vectors v JOIN source_chunks c ON c.seq = v.seq JOIN source_files f ON f.id = c.file_id
           WHERE f.source_id = ${row.id} AND v.model = ${vectors?.model ?? null}
             AND v.dimensions = coalesce(${vectors?.dimensions ?? null}::int, v.dimensions)) AS embedded`;
    return { id: row.id, path: row.path, kind: row.kind, glob: row.glob, ...counts!, createdAt: row.created_at, syncedAt: row.synced_at };
  }

  // ---- files and chunks ----

  filesOf(sourceId: number): Promise<FileRow[]> {
    return this.sql.unsafe(`SELECT ${FILE_COLUMNS} FROM source_files WHERE source_id = $1`, [sourceId]);
  }

  async fileByPath(path: string): Promise<FileRow | null> {
    const [row] = await this.sql.unsafe<FileRow[]>(`SELECT ${FILE_COLUMNS} FROM source_files WHERE path = $1`, [path]);
    return row ?? null;
  }

  writeBatch(sourceId: number, batch: IngestBatch, now: string): Promise<ChunkChanges> {
    const { touched = [], written = [], deleted = [] } = batch;
    return this.sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${LOCK_SOURCE}, ${sourceId})`;
      const changes: ChunkChanges = { removed: [], added: [] };
      if (touched.length > 0) {
        await tx`
          UPDATE source_files f SET size = t.size, mtime_ms = t."mtimeMs"
          FROM jsonb_to_recordset(${JSON.stringify(touched)}::text::jsonb) AS t(id int, size bigint, "mtimeMs" float8)
          WHERE f.id = t.id`;
      }
      // A written file's path may hold chunks, its own from before or another daemon's just written.
      const paths = written.map((f) => f.path);
      if (paths.length > 0) {
        const removed = await tx<{ seq: number }[]>`
          DELETE FROM source_chunks c USING source_files f WHERE c.file_id = f.id AND f.path = ANY(${tx.array(paths, "TEXT")}::text[]) RETURNING c.seq`;
        changes.removed.push(...removed.map((r) => r.seq));
        const files = written.map((f) => ({ path: f.path, format: f.format, size: f.size, mtime_ms: f.mtimeMs, content_hash: f.hash }));
        const ids = await tx<{ id: number; path: string }[]>`
          INSERT INTO source_files (source_id, path, format, size, mtime_ms, content_hash, ingested_at)
          SELECT ${sourceId}, path, format, size, mtime_ms, content_hash, ${now}
          FROM jsonb_to_recordset(${JSON.stringify(files)}::text::jsonb) AS t(path text, format text, size bigint, mtime_ms float8, content_hash text)
          ON CONFLICT (path) DO UPDATE SET source_id = excluded.source_id, format = excluded.format, size = excluded.size,
            mtime_ms = excluded.mtime_ms, content_hash = excluded.content_hash, ingested_at = excluded.ingested_at
          RETURNING id, path`;
        const fileIds = new Map(ids.map((r) => [r.path, r.id]));
        const chunks = written.flatMap((f) =>
          f.chunks.map((c, ordinal) => ({
            row: {
              id: c.id,
              file_id: fileIds.get(f.path)!,
              ordinal,
              start_line: c.startLine,
              end_line: c.endLine,
              heading: c.heading === null ? null : noNul(c.heading),
              content: noNul(c.content),
            },
            relative: f.relative,
          })),
        );
        if (chunks.length > 0) {
          const seqs = await tx<{ seq: number; id: string }[]>`
            INSERT INTO source_chunks (id, file_id, ordinal, start_line, end_line, heading, content)
            SELECT id, file_id, ordinal, start_line, end_line, heading, content
            FROM jsonb_to_recordset(${JSON.stringify(chunks.map((c) => c.row))}::text::jsonb)
              AS t(id text, file_id int, ordinal int, start_line int, end_line int, heading text, content text)
            RETURNING seq, id`;
          const seqOf = new Map(seqs.map((r) => [r.id, r.seq]));
          for (const { row, relative } of chunks) changes.added.push({ seq: seqOf.get(row.id)!, columns: keywordColumns(row.content, row.heading, relative) });
        }
      }
      if (deleted.length > 0) {
        const ids = tx.array(deleted, "INT");
        const removed = await tx<{ seq: number }[]>`DELETE FROM source_chunks WHERE file_id = ANY(${ids}::int[]) RETURNING seq`;
        changes.removed.push(...removed.map((r) => r.seq));
        await tx`DELETE FROM source_files WHERE id = ANY(${ids}::int[])`;
      }
      await logChanges(tx, [...changes.removed, ...changes.added.map((c) => c.seq)], now);
      return changes;
    });
  }

  async indexChunk(afterSeq: number, limit: number): Promise<IndexedChunk[]> {
    const rows: ChunkSourceRow[] = await this.sql.unsafe(
      `SELECT ${CHUNK_SOURCE_COLUMNS} FROM source_chunks c
       JOIN source_files f ON f.id = c.file_id JOIN sources s ON s.id = f.source_id WHERE c.seq > $1 ORDER BY c.seq LIMIT $2`,
      [afterSeq, limit],
    );
    return rows.map(indexedChunk);
  }

  chunksAmong(seqs: number[]): Promise<ChunkRow[]> {
    if (seqs.length === 0) return Promise.resolve([]);
    return this.sql.unsafe(`SELECT ${CHUNK_COLUMNS} FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE c.seq = ANY($1::int[])`, [
      this.sql.array(seqs, "INT"),
    ]);
  }

  async seqsUnder(path: string): Promise<number[]> {
    const rows = await this.sql<{ seq: number }[]>`
      SELECT c.seq FROM source_chunks c JOIN source_files f ON f.id = c.file_id WHERE strpos(f.path, ${path}) > 0`;
    return rows.map((r) => r.seq);
  }

  // ---- vectors ----

  async unembedded(vectors: ChunkVectors): Promise<number[]> {
    const rows = await this.sql<{ seq: number }[]>`
      SELECT c.seq FROM source_chunks c
        LEFT JOIN source_vectors v ON v.seq = c.seq AND v.model = ${vectors.model} AND v.dimensions = coalesce(${vectors.dimensions}::int, v.dimensions)
      WHERE v.seq IS NULL ORDER BY c.seq`;
    return rows.map((r) => r.seq);
  }

  textsOf(seqs: number[]): Promise<{ seq: number; text: string }[]> {
    return this.sql`
      SELECT seq, CASE WHEN heading IS NULL THEN content ELSE heading || chr(10) || content END AS text
      FROM source_chunks WHERE seq = ANY(${this.sql.array(seqs, "INT")}::int[]) ORDER BY seq`;
  }

  storeVectors(model: string, rows: { seq: number; vector: Float32Array }[]): Promise<number[]> {
    return this.sql.begin(async (tx) => {
      const stored: number[] = [];
      for (const { seq, vector } of rows) {
        const bytes = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
        const written = await tx`
          INSERT INTO source_vectors (seq, model, dimensions, vector)
          SELECT ${seq}, ${model}, ${vector.length}, ${bytes} WHERE EXISTS (SELECT 1 FROM source_chunks WHERE seq = ${seq})
          ON CONFLICT (seq) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions, vector = excluded.vector`;
        if (written.count > 0) stored.push(seq);
      }
      await logChanges(tx, stored, new Date().toISOString());
      // Done: the leases end with the vectors stored.
      await this.leases.release(tx, "chunk", rows.map((r) => r.seq));
      return stored;
    });
  }

  lease(seqs: number[], vectors: ChunkVectors): Promise<number[]> {
    // Only what still lacks a current vector: one another daemon stored since is not embedded again.
    return this.leases.claim("chunk", {
      sql: `SELECT c.seq AS item FROM source_chunks c LEFT JOIN source_vectors v ON v.seq = c.seq AND v.model = $2 AND v.dimensions = coalesce($3::int, v.dimensions)
            WHERE c.seq = ANY($1::int[]) AND v.seq IS NULL`,
      params: [seqs, vectors.model, vectors.dimensions],
    });
  }

  async orphans(vectors: ChunkVectors, changedBefore: string): Promise<number[]> {
    const rows = await this.sql<{ seq: number }[]>`
      SELECT c.seq FROM source_chunks c
        LEFT JOIN source_vectors v ON v.seq = c.seq AND v.model = ${vectors.model} AND v.dimensions = coalesce(${vectors.dimensions}::int, v.dimensions)
        LEFT JOIN work_leases l ON l.kind = 'chunk' AND l.item = c.seq AND l.lease_until >= ${this.leases.now()}
      WHERE v.seq IS NULL AND l.item IS NULL
        AND NOT EXISTS (SELECT 1 FROM source_changes s WHERE s.chunk_seq = c.seq AND s.changed_at >= ${changedBefore})
      ORDER BY c.seq LIMIT 1000`;
    return rows.map((r) => r.seq);
  }

  async storedVectors(vectors: ChunkVectors, afterSeq: number, limit: number): Promise<{ seq: number; vector: Uint8Array }[]> {
    return this.sql`
      SELECT seq, vector FROM source_vectors WHERE model = ${vectors.model} AND dimensions = coalesce(${vectors.dimensions}::int, dimensions)
        AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`;
  }
}
