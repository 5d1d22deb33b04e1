// `signet store copy` (docs/deploy.md#moving-a-store): every row of one store into another that is
// empty, SQLite to PostgreSQL or back. The two schemas hold the same tables and columns
// (test/unit/postgres-schema.test.ts keeps them so), so rows move table by table, parents before the
// tables that refer to them, read from one snapshot of the source and written in one transaction,
// which commits only once both ends' exports are the same: a copy that fails at any point leaves the
// target as it was. What each store derives on its own is not copied but made again: SQLite's
// full-text tables from the rows and its record of the highest source id, PostgreSQL's identity
// counters; the change feeds start empty (daemons load everything at start), as do rate buckets.
import type { Database } from "bun:sqlite";
import { CHUNK_SOURCE_COLUMNS, indexedChunk, type ChunkSourceRow } from "../sources/store";
import { exportStream, postgresTransactionExportReader, sqliteTransactionExportReader, type ExportReader } from "./export";

export type StoreEnd = { kind: "sqlite"; db: Database; path: string } | { kind: "postgres"; sql: Bun.SQL };

type Row = Record<string, unknown>;

/** Rows read and written at a time. */
const BATCH = 500;

/**
 * Tables a store keeps for itself: its migrations' record, SQLite's own, the derived ones (the change
 * feeds, rate buckets, SQLite's highest source id ever given), the daemons sharing it and their leases.
 */
const NOT_COPIED = new Set([
  "schema_migrations",
  "sqlite_sequence",
  "memory_changes",
  "source_changes",
  "rate_buckets",
  "source_id_high",
  "daemons",
  "work_leases",
]);
/** SQLite keeps transcripts in a full-text table, PostgreSQL in a table of its own: the one table copied by hand. */
const TRANSCRIPTS = { sqlite: "session_transcripts_fts", postgres: "session_transcripts" } as const;

export interface CopyProgress {
  table: string;
  rows: number;
}

export interface CopyReport {
  tables: CopyProgress[];
  /** Memories in the export both ends gave (forgotten ones included). */
  memories: number;
}

export class StoreCopyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreCopyError";
  }
}

/** A store's tables, their columns, and which tables each one refers to. */
interface Shape {
  columns: Map<string, string[]>;
  references: [from: string, to: string][];
}

async function shapeOf(end: StoreEnd): Promise<Shape> {
  const columns = new Map<string, string[]>();
  const references: [string, string][] = [];
  if (end.kind === "sqlite") {
    const tables = end.db
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND name NOT LIKE '%\\_fts\\_%' ESCAPE '\\'")
      .all();
    for (const { name } of tables) {
      columns.set(name, end.db.query<{ name: string }, [string]>("SELECT name FROM pragma_table_info(?) ORDER BY cid").all(name).map((c) => c.name));
      for (const fk of end.db.query<{ table: string }, [string]>('SELECT "table" FROM pragma_foreign_key_list(?)').all(name)) references.push([name, fk.table]);
    }
  } else {
    const rows: { table_name: string; column_name: string }[] = await end.sql`
      SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`;
    for (const r of rows) columns.set(r.table_name, [...(columns.get(r.table_name) ?? []), r.column_name]);
    const fks: { from: string; to: string }[] = await end.sql`
      SELECT DISTINCT tc.table_name AS "from", ccu.table_name AS "to" FROM information_schema.table_constraints tc
      JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
      WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`;
    for (const fk of fks) references.push([fk.from, fk.to]);
  }
  return { columns, references };
}

/** The tables both stores have, each after the tables it refers to. */
function copyOrder(from: Shape, to: Shape): { table: string; columns: string[] }[] {
  const shared = [...from.columns.keys()].filter((t) => to.columns.has(t) && !NOT_COPIED.has(t)).sort();
  const parents = new Map(shared.map((t) => [t, new Set<string>()]));
  for (const [child, parent] of [...from.references, ...to.references]) {
    if (child !== parent && parents.has(child) && parents.has(parent)) parents.get(child)!.add(parent);
  }
  const order: string[] = [];
  const placed = new Set<string>();
  const place = (table: string, path: Set<string>) => {
    if (placed.has(table)) return;
    if (path.has(table)) throw new StoreCopyError(`the tables ${[...path].join(", ")} refer to each other in a cycle`);
    path.add(table);
    for (const parent of parents.get(table)!) place(parent, path);
    path.delete(table);
    placed.add(table);
    order.push(table);
  };
  for (const table of shared) place(table, new Set());
  return order.map((table) => {
    const theirs = new Set(to.columns.get(table));
    return { table, columns: from.columns.get(table)!.filter((c) => theirs.has(c)) };
  });
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Reads one snapshot of a store, a batch at a time. */
interface SnapshotReader {
  rows(table: string, columns: string[]): AsyncGenerator<Row[]>;
  /** The first row of `table` with U+0000 in a text value, and its column (only SQLite text can hold one). */
  nulIn(table: string, columns: string[]): Promise<{ row: Row; column: string } | null>;
  /** The highest source id the store ever gave, removed sources' included: the copy gives none of them again. */
  highestSourceId(): Promise<number>;
  /** The export of the snapshot. */
  exportReader(): ExportReader;
  close(): Promise<void>;
}

async function snapshotOf(end: StoreEnd): Promise<SnapshotReader> {
  if (end.kind === "sqlite") {
    end.db.run("BEGIN");
    return {
      async *rows(table, columns) {
        let batch: Row[] = [];
        for (const row of end.db.query<Row, []>(`SELECT ${columns.map(quoted).join(", ")} FROM ${quoted(table)}`).iterate()) {
          batch.push(row);
          if (batch.length === BATCH) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      },
      async nulIn(table, columns) {
        const holds = (c: string) => `(typeof(${quoted(c)}) = 'text' AND instr(CAST(${quoted(c)} AS BLOB), x'00') > 0)`;
        const row = end.db.query<Row, []>(`SELECT ${columns.map(quoted).join(", ")} FROM ${quoted(table)} WHERE ${columns.map(holds).join(" OR ")} LIMIT 1`).get();
        if (row === null) return null;
        return { row, column: columns.find((c) => typeof row[c] === "string" && (row[c] as string).includes("\0"))! };
      },
      // Migration 016's record of it; the largest id still there is never above it.
      highestSourceId: async () =>
        end.db.query<{ n: number }, []>("SELECT max(coalesce((SELECT max(id) FROM source_id_high), 0), coalesce((SELECT max(id) FROM sources), 0)) AS n").get()!.n,
      exportReader: () => sqliteTransactionExportReader(end.db),
      close: async () => void end.db.run("ROLLBACK"),
    };
  }
  const conn = await end.sql.reserve();
  await conn`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`;
  return {
    async *rows(table, columns) {
      await conn.unsafe(`DECLARE copy_rows NO SCROLL CURSOR FOR SELECT ${columns.map(quoted).join(", ")} FROM ${quoted(table)}`);
      try {
        for (;;) {
          const batch: Row[] = await conn.unsafe(`FETCH ${BATCH} FROM copy_rows`);
          if (batch.length === 0) break;
          yield [...batch];
        }
      } finally {
        await conn.unsafe("CLOSE copy_rows");
      }
    },
    nulIn: async () => null,
    async highestSourceId() {
      // The identity counter's last value (null before it gave any): ids given by removed sources count.
      const [row] = await conn`
        SELECT GREATEST(COALESCE(pg_sequence_last_value(pg_get_serial_sequence('sources', 'id')), 0), COALESCE((SELECT MAX(id) FROM sources), 0)) AS n`;
      return Number(row.n);
    },
    exportReader: () => postgresTransactionExportReader(conn),
    async close() {
      try {
        await conn`ROLLBACK`;
      } finally {
        conn.release();
      }
    },
  };
}

/** Writes into the target in one transaction. */
interface TargetWriter {
  insert(table: string, columns: string[], rows: Row[]): Promise<void>;
  /** Makes again what the store derives from the rows (full-text tables, identity counters), no source id at or below `highestSourceId` given again. */
  derive(highestSourceId: number): Promise<void>;
  /** The export of what the target holds now, the copy not yet committed. */
  exportReader(): ExportReader;
}

/** Throws naming the first table of `tables` that holds a row. */
async function refuseUnlessEmpty(end: StoreEnd, tables: string[], where: string): Promise<void> {
  for (const table of tables) {
    const n =
      end.kind === "sqlite"
        ? end.db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${quoted(table)}`).get()!.n
        : Number((await end.sql.unsafe(`SELECT count(*)::int AS n FROM ${quoted(table)}`))[0].n);
    if (n > 0) throw new StoreCopyError(`${where} is not empty (${table} holds ${n} row${n === 1 ? "" : "s"}): copy into a new database or file`);
  }
}

function sqliteWriter(db: Database): TargetWriter {
  return {
    async insert(table, columns, rows) {
      const statement = db.query(`INSERT INTO ${quoted(table)} (${columns.map(quoted).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
      for (const row of rows) statement.run(...(columns.map((c) => toSqlite(row[c])) as never[]));
    },
    async derive(highestSourceId) {
      db.query("UPDATE source_id_high SET id = max(id, ?)").run(highestSourceId);
      const chunkFts = db.query("INSERT INTO source_chunks_fts (rowid, content, heading, path, terms) VALUES (?, ?, ?, ?, ?)");
      const chunks = db.query<ChunkSourceRow, []>(
        `SELECT ${CHUNK_SOURCE_COLUMNS} FROM source_chunks c JOIN source_files f ON f.id = c.file_id JOIN sources s ON s.id = f.source_id`,
      );
      for (const row of chunks.iterate()) {
        const { seq, columns } = indexedChunk(row);
        chunkFts.run(seq, ...columns);
      }
    },
    exportReader: () => sqliteTransactionExportReader(db),
  };
}

/** PostgreSQL gives BYTEA as a Buffer and BIGINT as a string; SQLite takes both as they are, but a Buffer's view may be shared. */
function toSqlite(value: unknown): unknown {
  return value instanceof Uint8Array ? new Uint8Array(value) : value;
}

function postgresWriter(tx: Bun.SQL): TargetWriter {
  return {
    async insert(table, columns, rows) {
      await tx`INSERT INTO ${tx(table)} ${tx(rows, ...columns)}`;
    },
    async derive(highestSourceId) {
      // Copied rows kept their ids: each identity counter continues after the highest (for sources,
      // after the highest the source store ever gave, so a removed source's id is not given again).
      const identities: { table_name: string; column_name: string }[] = await tx`
        SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'`;
      for (const { table_name, column_name } of identities) {
        if (NOT_COPIED.has(table_name)) continue;
        await tx.unsafe(
          `SELECT setval(pg_get_serial_sequence($1, $2), GREATEST(COALESCE((SELECT MAX(${quoted(column_name)}) FROM ${quoted(table_name)}), 0), $3::int) + 1, false)`,
          [table_name, column_name, table_name === "sources" && column_name === "id" ? highestSourceId : 0],
        );
      }
    },
    exportReader: () => postgresTransactionExportReader(tx),
  };
}

/** The camelCase name the API gives a column (memories and their history), else the column's. */
const fieldName = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Which record of `table` `row` is, in the words the operator knows it by. */
function recordName(from: StoreEnd, table: string, row: Row, column: string): string {
  if (table === "memories") return `memory ${row.id}'s ${fieldName(column)}`;
  if (table === "memory_history") return `memory ${row.memory_id}'s history (version ${row.version}, its ${fieldName(column)})`;
  if (table === TRANSCRIPTS.sqlite && from.kind === "sqlite") {
    const session = from.db.query<{ key: string }, [number]>("SELECT key FROM sessions WHERE seq = ?").get(Number(row.rowid));
    return `the transcript of session ${session?.key ?? Number(row.rowid)}`;
  }
  const key = ["id", "key", "seq", "name"].find((k) => row[k] !== undefined && row[k] !== null);
  return `${table}.${column}${key ? ` (the row with ${key} ${String(row[key])})` : ""}`;
}

/**
 * Throws naming the first record that holds U+0000, before anything is written: PostgreSQL text
 * cannot hold one, and a copy without it would not be the store's (SQLite holds whatever text it is given).
 */
async function refuseNul(reader: SnapshotReader, from: StoreEnd, order: { table: string; columns: string[] }[]): Promise<void> {
  for (const { table, columns } of [...order, { table: TRANSCRIPTS.sqlite, columns: ["rowid", "content"] }]) {
    const found = await reader.nulIn(table, columns);
    if (found) {
      throw new StoreCopyError(
        `${recordName(from, table, found.row, found.column)} holds U+0000 (a NUL character), which PostgreSQL text cannot hold: this store cannot be copied into PostgreSQL; nothing was written`,
      );
    }
  }
}

/** The transcripts' rows in `from`'s shape, as `to` keeps them. */
async function* transcripts(reader: SnapshotReader, from: StoreEnd): AsyncGenerator<{ session_seq: number; content: string }[]> {
  const source = from.kind === "sqlite" ? { table: TRANSCRIPTS.sqlite, columns: ["rowid", "content"] } : { table: TRANSCRIPTS.postgres, columns: ["session_seq", "content"] };
  for await (const batch of reader.rows(source.table, source.columns)) {
    yield batch.map((r) => ({ session_seq: Number(r.rowid ?? r.session_seq), content: String(r.content) }));
  }
}

/** An export's lines without the header's time of export. */
async function exportLines(reader: ExportReader): Promise<string[]> {
  const text = await new Response(await exportStream(reader, { forgotten: true, now: () => new Date(0) })).text();
  return text.split("\n");
}

/** Throws naming the first line where the two exports differ; else how many memories both hold. */
async function sameExports(source: ExportReader, target: ExportReader): Promise<number> {
  const [a, b] = [await exportLines(source), await exportLines(target)];
  const differs = a.findIndex((line, i) => line !== b[i]);
  if (differs >= 0 || a.length !== b.length) {
    const line = differs >= 0 ? differs + 1 : Math.min(a.length, b.length) + 1;
    throw new StoreCopyError(`the copy's export differs from the source's at line ${line}: nothing was written`);
  }
  return a.filter(Boolean).length - 1;
}

/**
 * Copies every row of `from` into `to`, both migrated to the same schema version, `to` empty.
 * `onProgress` hears each table as it is copied. Throws StoreCopyError when `to` is not empty, when
 * `to` is PostgreSQL and a text holds U+0000, or when the exports differ; whatever fails, `to` is
 * left as it was (the copy commits only after the exports were compared).
 */
export async function copyStore(from: StoreEnd, to: StoreEnd, onProgress: (p: CopyProgress) => void = () => undefined): Promise<CopyReport> {
  const order = copyOrder(await shapeOf(from), await shapeOf(to));
  await refuseUnlessEmpty(to, [...order.map((t) => t.table), to.kind === "sqlite" ? TRANSCRIPTS.sqlite : TRANSCRIPTS.postgres], "the target");
  const reader = await snapshotOf(from);
  const tables: CopyProgress[] = [];
  try {
    if (to.kind === "postgres") await refuseNul(reader, from, order);
    const copy = async (writer: TargetWriter): Promise<number> => {
      for (const { table, columns } of order) {
        const progress = { table, rows: 0 };
        for await (const batch of reader.rows(table, columns)) {
          await writer.insert(table, columns, batch);
          progress.rows += batch.length;
          onProgress(progress);
        }
        tables.push(progress);
      }
      const progress = { table: "session transcripts", rows: 0 };
      for await (const batch of transcripts(reader, from)) {
        if (to.kind === "sqlite") await writer.insert(TRANSCRIPTS.sqlite, ["rowid", "content"], batch.map((t) => ({ rowid: t.session_seq, content: t.content })));
        else await writer.insert(TRANSCRIPTS.postgres, ["session_seq", "content"], batch);
        progress.rows += batch.length;
        onProgress(progress);
      }
      tables.push(progress);
      await writer.derive(await reader.highestSourceId());
      // Before the commit, on the transaction's own view of the copy: a copy that differs is not kept.
      return sameExports(reader.exportReader(), writer.exportReader());
    };
    let memories: number;
    if (to.kind === "sqlite") {
      to.db.run("BEGIN IMMEDIATE");
      try {
        memories = await copy(sqliteWriter(to.db));
        to.db.run("COMMIT");
      } catch (err) {
        to.db.run("ROLLBACK");
        throw err;
      }
    } else {
      memories = await to.sql.begin((tx) => copy(postgresWriter(tx)));
      // The planner's statistics, now rather than when autovacuum gets to the new rows: until then a
      // daemon's first queries on the copy would be planned as if the tables were empty.
      await to.sql`ANALYZE`;
    }
    return { tables, memories };
  } finally {
    await reader.close();
  }
}
