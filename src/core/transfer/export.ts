// `GET /api/export` (docs/api.md#get-apiexport): every memory with its whole history as JSON lines,
// read from one snapshot of the database on a connection of its own. The answer is produced a page at
// a time as the client reads it, so 100,000 memories never sit in memory together, and the daemon's
// own connection keeps writing meanwhile (WAL: a reader's snapshot does not block writers).
import { Database } from "bun:sqlite";
import { EXPORT_FORMAT_VERSION, type ExportHeader, type ExportRecord } from "../../contracts/transfer";
import { SqliteMemoryRows } from "../memory/sqlite-store";
import { toMemory } from "../memory/store";

/** Memories per chunk of the answer: a few hundred kilobytes of text in the usual case. */
const PAGE = 200;

export interface ExportOptions {
  /** Forgotten memories too. */
  forgotten: boolean;
  now?: () => Date;
}

/** The export of the database at `dbPath` as it is now: the header line, then one line per memory. */
export function exportStream(dbPath: string, options: ExportOptions): ReadableStream<Uint8Array> {
  const db = new Database(dbPath, { readonly: true, strict: true });
  const encoder = new TextEncoder();
  let store: SqliteMemoryRows;
  let header: ExportHeader;
  try {
    db.run("PRAGMA busy_timeout = 5000");
    // The snapshot starts with the transaction's first read: the count and every page see the same data.
    db.run("BEGIN");
    store = new SqliteMemoryRows(db);
    const exportedAt = (options.now?.() ?? new Date()).toISOString();
    header = { kind: "signet-export", version: EXPORT_FORMAT_VERSION, exportedAt, count: store.count(options.forgotten), forgotten: options.forgotten };
  } catch (err) {
    db.close();
    throw err;
  }
  let afterSeq = 0;
  let sentHeader = false;
  let open = true;
  const finish = () => {
    if (!open) return;
    open = false;
    db.close();
  };
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      try {
        if (!sentHeader) {
          sentHeader = true;
          controller.enqueue(encoder.encode(`${JSON.stringify(header)}\n`));
          return;
        }
        const rows = store.page(afterSeq, PAGE, options.forgotten);
        if (rows.length === 0) {
          finish();
          controller.close();
          return;
        }
        afterSeq = rows.at(-1)!.seq;
        const lines = rows.map((row) => {
          const record: ExportRecord = { kind: "memory", ...toMemory(row), history: store.exportHistory(row.id) };
          return `${JSON.stringify(record)}\n`;
        });
        controller.enqueue(encoder.encode(lines.join("")));
      } catch (err) {
        finish();
        controller.error(err);
      }
    },
    // The client went away: end the snapshot, or the WAL could not be checkpointed past it.
    cancel: finish,
  });
}
