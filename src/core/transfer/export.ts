// `GET /api/export` (docs/api.md#get-apiexport): every memory with its whole history as JSON lines,
// read from one snapshot of the store on a connection of its own. The answer is produced a page at a
// time as the client reads it, so 100,000 memories never sit in memory together, and the daemon's
// other connections keep writing meanwhile (SQLite's WAL, PostgreSQL's MVCC: a reader's snapshot
// does not block writers). `signet store copy` compares the exports of both ends the same way.
import { Database } from "bun:sqlite";
import { EXPORT_FORMAT_VERSION, type ExportHeader, type ExportHistoryEntry, type ExportRecord } from "../../contracts/transfer";
import { SqliteMemoryRows } from "../memory/sqlite-store";
import { HISTORY_COLUMNS, MEMORY_COLUMNS, type HistoryRow, type MemoryRow, toExportHistoryEntry, toMemory } from "../memory/store";

/** Memories per chunk of the answer: a few hundred kilobytes of text in the usual case. */
const PAGE = 200;

export interface ExportOptions {
  /** Forgotten memories too. */
  forgotten: boolean;
  now?: () => Date;
}

/** One snapshot of a store's memories, read in the order they were stored. */
export interface ExportReader {
  count(forgotten: boolean): Promise<number>;
  page(afterSeq: number, limit: number, forgotten: boolean): Promise<MemoryRow[]>;
  /** Each memory's history by its seq, oldest first. */
  histories(seqs: number[]): Promise<Map<number, ExportHistoryEntry[]>>;
  /** Ends the snapshot; the reader is not used again. */
  close(): Promise<void>;
}

/** A snapshot of the SQLite file at `path`, on a read-only connection of its own. */
export function sqliteExportReader(path: string): ExportReader {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    // The snapshot starts with the transaction's first read: the count and every page see the same data.
    db.run("BEGIN");
  } catch (err) {
    db.close();
    throw err;
  }
  return sqliteReaderOn(db, async () => db.close());
}

/**
 * What `db` sees in the transaction it is in, which the caller began and ends (`signet store copy`
 * reads its snapshot of the source, and the copy it has not committed yet).
 */
export function sqliteTransactionExportReader(db: Database): ExportReader {
  return sqliteReaderOn(db, async () => undefined);
}

function sqliteReaderOn(db: Database, close: () => Promise<void>): ExportReader {
  const rows = new SqliteMemoryRows(db);
  return {
    count: async (forgotten) => rows.count(forgotten),
    page: async (afterSeq, limit, forgotten) => rows.page(afterSeq, limit, forgotten),
    histories: async (seqs) => new Map(seqs.map((seq) => [seq, rows.exportHistory(seq)])),
    close,
  };
}

/** A snapshot of a PostgreSQL store, in a read-only repeatable-read transaction on a reserved connection. */
export async function postgresExportReader(sql: Bun.SQL): Promise<ExportReader> {
  const conn = await sql.reserve();
  try {
    await conn`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`;
  } catch (err) {
    conn.release();
    throw err;
  }
  return postgresReaderOn(conn, async () => {
    try {
      await conn`ROLLBACK`;
    } finally {
      conn.release();
    }
  });
}

/** What a connection sees in the transaction it is in, which the caller began and ends (as sqliteTransactionExportReader). */
export function postgresTransactionExportReader(tx: Pick<Bun.SQL, "unsafe">): ExportReader {
  return postgresReaderOn(tx, async () => undefined);
}

function postgresReaderOn(conn: Pick<Bun.SQL, "unsafe">, close: () => Promise<void>): ExportReader {
  const live = (forgotten: boolean) => (forgotten ? "" : " AND deleted_at IS NULL");
  return {
    async count(forgotten) {
      const [row] = await conn.unsafe(`SELECT count(*)::int AS n FROM memories WHERE true${live(forgotten)}`);
      return row.n;
    },
    page: (afterSeq, limit, forgotten) =>
      conn.unsafe(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE seq > $1${live(forgotten)} ORDER BY seq LIMIT $2`, [afterSeq, limit]),
    async histories(seqs) {
      const rows: (HistoryRow & { memory_seq: number })[] = await conn.unsafe(
        `SELECT memory_seq, ${HISTORY_COLUMNS} FROM memory_history WHERE memory_seq = ANY($1::int[]) ORDER BY id`,
        [seqs],
      );
      const bySeq = new Map<number, ExportHistoryEntry[]>(seqs.map((seq) => [seq, []]));
      for (const { memory_seq, ...row } of rows) bySeq.get(memory_seq)!.push(toExportHistoryEntry(row));
      return bySeq;
    },
    close,
  };
}

/** The export of what `reader` sees: the header line, then one line per memory. The stream closes the reader. */
export async function exportStream(reader: ExportReader, options: ExportOptions): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  let header: ExportHeader;
  try {
    const exportedAt = (options.now?.() ?? new Date()).toISOString();
    header = { kind: "signet-export", version: EXPORT_FORMAT_VERSION, exportedAt, count: await reader.count(options.forgotten), forgotten: options.forgotten };
  } catch (err) {
    await reader.close();
    throw err;
  }
  let afterSeq = 0;
  let sentHeader = false;
  let open = true;
  const finish = async () => {
    if (!open) return;
    open = false;
    await reader.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!sentHeader) {
          sentHeader = true;
          controller.enqueue(encoder.encode(`${JSON.stringify(header)}\n`));
          return;
        }
        const rows = await reader.page(afterSeq, PAGE, options.forgotten);
        if (rows.length === 0) {
          await finish();
          controller.close();
          return;
        }
        afterSeq = rows.at(-1)!.seq;
        const histories = await reader.histories(rows.map((r) => r.seq));
        const lines = rows.map((row) => {
          const record: ExportRecord = { kind: "memory", ...toMemory(row), history: histories.get(row.seq) ?? [] };
          return `${JSON.stringify(record)}\n`;
        });
        controller.enqueue(encoder.encode(lines.join("")));
      } catch (err) {
        await finish().catch(() => undefined);
        controller.error(err);
      }
    },
    // The client went away: end the snapshot, or the WAL could not be checkpointed past it.
    cancel: finish,
  });
}
