// migrations/postgres/ against the SQLite schema migrations/ leave: the same
// tables, columns, nullability, keys, unique constraints, foreign keys, defaults, CHECK counts and
// indexes, in PostgreSQL's types; and src/db/postgres.ts's runner: one migration when two clients
// start together, a newer database refused untouched, ids as SQLite hands them out. A real
// PostgreSQL (test/helpers/postgres.ts) and a real SQLite.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { SchemaTooNewError, migrate } from "../../src/db/migrate";
import { migratePostgres, openPostgres } from "../../src/db/postgres";
import { PostgresMemoryStore } from "../../src/core/memory/postgres-store";
import { POSTGRES_MIGRATIONS } from "../../src/db/postgres-migrations";
import { startTestPostgres, type TestPostgres } from "../helpers/postgres";
import { hasSystemTool } from "../helpers/system-tool";

// ---- The SQLite side, read from a database migrate() built. ----

interface Column {
  name: string;
  type: string;
  notnull: boolean;
  dflt: string | null;
  /** Position in the primary key, 1-based; 0 outside it. */
  pk: number;
}

interface Index {
  name: string;
  /** "col", "col DESC", comma-separated, in key order. */
  columns: string;
  unique: boolean;
  /** The WHERE of a partial index, or null. */
  predicate: string | null;
}

interface ForeignKey {
  from: string;
  table: string;
  to: string;
  onDelete: string;
}

interface Table {
  name: string;
  withoutRowid: boolean;
  columns: Column[];
  /** Indexes the migrations named (CREATE INDEX); not the automatic ones of keys. */
  indexes: Index[];
  /** Column lists of UNIQUE constraints (sqlite_autoindex_*, origin "u"). */
  uniques: string[];
  foreignKeys: ForeignKey[];
  checks: number;
}

function sqliteSchema(): Map<string, Table> {
  const db = new Database(":memory:");
  try {
    migrate(db);
    // table_list's type keeps FTS5 out: "virtual" for the FTS tables, "shadow" for their tables.
    const list = db.query("PRAGMA table_list").all() as { schema: string; name: string; type: string; wr: number }[];
    const tables = new Map<string, Table>();
    for (const t of list) {
      if (t.schema !== "main" || t.type !== "table") continue;
      if (t.name.startsWith("sqlite_") || t.name === "schema_migrations") continue;
      const q = (pragma: string) => db.query(`PRAGMA ${pragma}("${t.name}")`).all() as any[];
      const columns: Column[] = q("table_info").map((c) => ({
        name: c.name,
        type: String(c.type).toUpperCase(),
        notnull: c.notnull === 1,
        dflt: c.dflt_value,
        pk: c.pk,
      }));
      const indexes: Index[] = [];
      const uniques: string[] = [];
      for (const i of q("index_list")) {
        const keys = (db.query(`PRAGMA index_xinfo("${i.name}")`).all() as any[])
          .filter((k) => k.key === 1)
          .map((k) => (k.desc ? `${k.name} DESC` : k.name))
          .join(",");
        if (i.origin === "u") uniques.push(keys);
        if (i.origin !== "c") continue;
        const { sql } = db.query("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(i.name) as { sql: string };
        const where = /\bWHERE\b([\s\S]*)$/i.exec(sql);
        indexes.push({ name: i.name, columns: keys, unique: i.unique === 1, predicate: where ? normalizePredicate(where[1]!) : null });
      }
      const foreignKeys: ForeignKey[] = q("foreign_key_list").map((f) => ({
        from: f.from,
        table: f.table,
        to: f.to,
        onDelete: f.on_delete,
      }));
      const { sql } = db.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(t.name) as { sql: string };
      const checks = sql.match(/\bCHECK\s*\(/gi)?.length ?? 0;
      tables.set(t.name, { name: t.name, withoutRowid: t.wr === 1, columns, indexes, uniques, foreignKeys, checks });
    }
    return tables;
  } finally {
    db.close();
  }
}

/** A WHERE as both engines may print it: PostgreSQL adds parentheses; case and spacing differ. */
function normalizePredicate(where: string): string {
  return where.replace(/[()\s]/g, "").toLowerCase();
}

/** The auto-assigned key of a rowid table: its single INTEGER PRIMARY KEY (a rowid alias). */
function rowidAlias(t: Table): string | null {
  const pk = t.columns.filter((c) => c.pk > 0);
  return !t.withoutRowid && pk.length === 1 && pk[0]!.type === "INTEGER" ? pk[0]!.name : null;
}

/**
 * Rowid aliases the daemon never lets SQLite assign: each repeats another table's key, or is fixed.
 * In PostgreSQL they are plain INTEGER PRIMARY KEY; every other rowid alias is an identity.
 */
const GIVEN_KEYS = new Set([
  "memory_vectors.seq",
  "source_vectors.seq",
  "embed_reindex.id",
  "graph_extracted.memory_seq",
  "graph_reviews.memory_seq",
  "graph_decay.memory_seq",
]);

const PG_TYPE: Record<string, string[]> = {
  INTEGER: ["integer", "bigint"],
  REAL: ["double precision"],
  TEXT: ["text"],
  BLOB: ["bytea"],
};

// ---- The PostgreSQL side, read from the catalog. ----

interface PgColumn {
  table_name: string;
  column_name: string;
  is_nullable: "YES" | "NO";
  data_type: string;
  column_default: string | null;
  is_identity: "YES" | "NO";
  identity_generation: string | null;
}

async function pgTables(sql: SQL): Promise<string[]> {
  const rows = await sql`SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`;
  return rows.map((r: { table_name: string }) => r.table_name);
}

async function pgColumns(sql: SQL): Promise<Map<string, Map<string, PgColumn>>> {
  const rows: PgColumn[] = await sql`SELECT table_name, column_name, is_nullable, data_type, column_default,
      is_identity, identity_generation
    FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`;
  const byTable = new Map<string, Map<string, PgColumn>>();
  for (const r of rows) {
    if (!byTable.has(r.table_name)) byTable.set(r.table_name, new Map());
    byTable.get(r.table_name)!.set(r.column_name, r);
  }
  return byTable;
}

/** Each table's PRIMARY KEY and UNIQUE constraints, as column lists in key order. */
async function pgKeys(sql: SQL): Promise<{ pk: Map<string, string>; uniques: Map<string, string[]> }> {
  const rows = await sql`SELECT tc.table_name, tc.constraint_type, tc.constraint_name,
      string_agg(kcu.column_name::text, ',' ORDER BY kcu.ordinal_position) AS columns
    FROM information_schema.table_constraints tc
    JOIN information_schema.key_column_usage kcu
      ON kcu.constraint_schema = tc.constraint_schema AND kcu.constraint_name = tc.constraint_name
         AND kcu.table_name = tc.table_name
    WHERE tc.table_schema = 'public' AND tc.constraint_type IN ('PRIMARY KEY', 'UNIQUE')
    GROUP BY tc.table_name, tc.constraint_type, tc.constraint_name`;
  const pk = new Map<string, string>();
  const uniques = new Map<string, string[]>();
  for (const r of rows as { table_name: string; constraint_type: string; columns: string }[]) {
    if (r.constraint_type === "PRIMARY KEY") pk.set(r.table_name, r.columns);
    else uniques.set(r.table_name, [...(uniques.get(r.table_name) ?? []), r.columns].sort());
  }
  return { pk, uniques };
}

/** Every index by name, with its columns (DESC marked) and partial predicate. */
async function pgIndexes(sql: SQL): Promise<Map<string, Index & { table: string }>> {
  const rows = await sql`SELECT c.relname AS name, t.relname AS table, ix.indisunique AS unique,
      pg_get_expr(ix.indpred, ix.indrelid) AS predicate,
      string_agg(a.attname || CASE WHEN (ix.indoption[(k.ord - 1)::int] & 1) = 1 THEN ' DESC' ELSE '' END, ','
        ORDER BY k.ord) AS columns
    FROM pg_index ix
    JOIN pg_class c ON c.oid = ix.indexrelid
    JOIN pg_class t ON t.oid = ix.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
    WHERE n.nspname = 'public'
    GROUP BY c.relname, t.relname, ix.indisunique, ix.indpred, ix.indrelid`;
  const map = new Map<string, Index & { table: string }>();
  for (const r of rows as { name: string; table: string; unique: boolean; predicate: string | null; columns: string }[]) {
    map.set(r.name, {
      name: r.name,
      table: r.table,
      columns: r.columns,
      unique: r.unique,
      predicate: r.predicate === null ? null : normalizePredicate(r.predicate),
    });
  }
  return map;
}

const ON_DELETE: Record<string, string> = { a: "NO ACTION", r: "RESTRICT", c: "CASCADE", n: "SET NULL", d: "SET DEFAULT" };

async function pgForeignKeys(sql: SQL): Promise<Map<string, ForeignKey[]>> {
  // Every foreign key of the schema is on one column.
  const rows = await sql`SELECT cl.relname AS table_name, a.attname AS from_column, rt.relname AS ref_table,
      ra.attname AS to_column, con.confdeltype::text AS on_delete
    FROM pg_constraint con
    JOIN pg_class cl ON cl.oid = con.conrelid
    JOIN pg_namespace n ON n.oid = cl.relnamespace
    JOIN pg_class rt ON rt.oid = con.confrelid
    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = con.conkey[1]
    JOIN pg_attribute ra ON ra.attrelid = con.confrelid AND ra.attnum = con.confkey[1]
    WHERE con.contype = 'f' AND n.nspname = 'public'`;
  const map = new Map<string, ForeignKey[]>();
  for (const r of rows as { table_name: string; from_column: string; ref_table: string; to_column: string; on_delete: string }[]) {
    const fk = { from: r.from_column, table: r.ref_table, to: r.to_column, onDelete: ON_DELETE[r.on_delete] ?? r.on_delete };
    map.set(r.table_name, [...(map.get(r.table_name) ?? []), fk]);
  }
  return map;
}

async function pgCheckCounts(sql: SQL): Promise<Map<string, number>> {
  const rows = await sql`SELECT cl.relname AS table_name, count(*)::int AS n
    FROM pg_constraint con JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
    WHERE con.contype = 'c' AND n.nspname = 'public' GROUP BY cl.relname`;
  return new Map((rows as { table_name: string; n: number }[]).map((r) => [r.table_name, r.n]));
}

/** A column default as SQLite reports it, from PostgreSQL's: casts dropped, numbers as numbers. */
function defaultsMatch(sqlite: string | null, pg: string | null): boolean {
  if (sqlite === null || pg === null) return sqlite === pg;
  // datetime('now') is UTC as 'YYYY-MM-DD HH:MM:SS'.
  if (sqlite === "datetime('now')") return /statement_timestamp\(\).*'UTC'.*'YYYY-MM-DD HH24:MI:SS'/.test(pg);
  const bare = pg.replace(/::[a-z ]+$/i, "").replace(/^\((.*)\)$/, "$1");
  if (/^-?[\d.]+$/.test(sqlite)) return Number(bare) === Number(sqlite);
  return bare === sqlite;
}

/**
 * Tables only a shared store has: its migrations' own record, the rate limits a lone daemon keeps in
 * memory, the memories' and the document chunks' change feeds, which a lone daemon does without, and
 * the session transcripts SQLite keeps in an FTS5 table.
 */
const POSTGRES_ONLY = new Set(["schema_migrations", "rate_buckets", "memory_changes", "session_transcripts", "source_changes", "daemons", "work_leases"]);

/**
 * Tables only SQLite has: the highest source id ever given (migration 016), SQLite's stand-in for
 * the identity sequence PostgreSQL's `sources.id` takes its ids from, which never goes back either.
 */
const SQLITE_ONLY = new Set(["source_id_high"]);

/** Columns of shared tables only a shared store has: the daemon that runs a secret exec job. */
const POSTGRES_ONLY_COLUMNS = new Set(["secret_exec_jobs.daemon_id"]);
const POSTGRES_ONLY_INDEXES = new Set(["idx_secret_exec_jobs_daemon"]);

/** Every PostgreSQL migration's name, in order, and the version they leave. */
const ALL = POSTGRES_MIGRATIONS.map((m) => m.name);
const LATEST = POSTGRES_MIGRATIONS.at(-1)!.version;

const keyOf = (fk: ForeignKey) => `${fk.from} -> ${fk.table}(${fk.to}) ON DELETE ${fk.onDelete}`;

describe.skipIf(!hasSystemTool("postgres"))("the PostgreSQL schema", () => {
  let pg: TestPostgres;
  const clients: SQL[] = [];
  const sqlite = sqliteSchema();
  for (const table of SQLITE_ONLY) expect(sqlite.delete(table)).toBe(true);

  beforeAll(async () => {
    pg = await startTestPostgres();
  });

  afterAll(async () => {
    for (const c of clients) await c.close();
    await pg?.stop();
  });

  async function client(url: string): Promise<SQL> {
    const sql = openPostgres(url, { max: 2 });
    clients.push(sql);
    return sql;
  }

  /** A fresh database, migrated. */
  async function migrated(): Promise<SQL> {
    const sql = await client(await pg.createDatabase());
    expect((await migratePostgres(sql)).applied).toEqual(ALL);
    return sql;
  }

  test("SQLite's tables are read: FTS tables and schema_migrations left out", () => {
    expect(sqlite.has("memories")).toBe(true);
    expect(sqlite.has("graph_audit")).toBe(true);
    expect([...sqlite.keys()].filter((t) => t.includes("fts") || t === "schema_migrations" || t.startsWith("sqlite_"))).toEqual([]);
  });

  test("every SQLite table has its PostgreSQL twin: columns, NOT NULL, keys, uniques, foreign keys, defaults, checks, indexes", async () => {
    const sql = await migrated();
    const tables = await pgTables(sql);
    const columns = await pgColumns(sql);
    const { pk, uniques } = await pgKeys(sql);
    const indexes = await pgIndexes(sql);
    const fks = await pgForeignKeys(sql);
    const checks = await pgCheckCounts(sql);
    const problems: string[] = [];

    for (const t of sqlite.values()) {
      const cols = columns.get(t.name);
      if (!cols) {
        problems.push(`table ${t.name}: missing in PostgreSQL`);
        continue;
      }
      const want = t.columns.map((c) => c.name);
      const have = [...cols.keys()];
      for (const c of want.filter((c) => !have.includes(c))) problems.push(`${t.name}.${c}: missing in PostgreSQL`);
      for (const c of have.filter((c) => !want.includes(c) && !POSTGRES_ONLY_COLUMNS.has(`${t.name}.${c}`))) problems.push(`${t.name}.${c}: in PostgreSQL only`);
      for (const c of t.columns) {
        const p = cols.get(c.name);
        if (!p) continue;
        // A key column is NOT NULL in PostgreSQL. SQLite reports notnull = 0 for a rowid table's
        // TEXT PRIMARY KEY declared without NOT NULL (where, by a legacy quirk, it does accept NULL).
        const notnull = c.notnull || c.pk > 0;
        if ((p.is_nullable === "NO") !== notnull) {
          problems.push(`${t.name}.${c.name}: ${notnull ? "NOT NULL" : "nullable"} in SQLite, ${p.is_nullable === "NO" ? "NOT NULL" : "nullable"} in PostgreSQL`);
        }
        if (!defaultsMatch(c.dflt, p.column_default)) {
          problems.push(`${t.name}.${c.name}: default ${c.dflt} in SQLite, ${p.column_default} in PostgreSQL`);
        }
      }
      const sqlitePk = t.columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name).join(",");
      if ((pk.get(t.name) ?? "") !== sqlitePk) {
        problems.push(`table ${t.name}: primary key (${sqlitePk}) in SQLite, (${pk.get(t.name) ?? ""}) in PostgreSQL`);
      }
      const sqliteUniques = [...t.uniques].sort();
      if (JSON.stringify(uniques.get(t.name) ?? []) !== JSON.stringify(sqliteUniques)) {
        problems.push(`table ${t.name}: UNIQUE ${JSON.stringify(sqliteUniques)} in SQLite, ${JSON.stringify(uniques.get(t.name) ?? [])} in PostgreSQL`);
      }
      const sqliteFks = t.foreignKeys.map(keyOf).sort();
      const pgFks = (fks.get(t.name) ?? []).map(keyOf).sort();
      if (JSON.stringify(pgFks) !== JSON.stringify(sqliteFks)) {
        problems.push(`table ${t.name}: foreign keys ${JSON.stringify(sqliteFks)} in SQLite, ${JSON.stringify(pgFks)} in PostgreSQL`);
      }
      if ((checks.get(t.name) ?? 0) !== t.checks) {
        problems.push(`table ${t.name}: ${t.checks} CHECK constraints in SQLite, ${checks.get(t.name) ?? 0} in PostgreSQL`);
      }
      for (const i of t.indexes) {
        const p = indexes.get(i.name);
        if (!p) {
          problems.push(`index ${i.name} (${t.name}): missing in PostgreSQL`);
          continue;
        }
        const pgView = { table: p.table, columns: p.columns, unique: p.unique, predicate: p.predicate };
        const sqliteView = { table: t.name, columns: i.columns, unique: i.unique, predicate: i.predicate };
        if (JSON.stringify(pgView) !== JSON.stringify(sqliteView)) {
          problems.push(`index ${i.name} (${t.name}): ${JSON.stringify(sqliteView)} in SQLite, ${JSON.stringify(pgView)} in PostgreSQL`);
        }
      }
    }
    for (const name of tables) {
      if (!POSTGRES_ONLY.has(name) && !sqlite.has(name)) problems.push(`table ${name}: in PostgreSQL only`);
    }
    // Named indexes PostgreSQL has beyond SQLite's (its key indexes are *_pkey and *_key).
    const named = new Set([...sqlite.values()].flatMap((t) => t.indexes.map((i) => i.name)));
    for (const [name, i] of indexes) {
      if (!named.has(name) && !/_(pkey|key)$/.test(name) && !POSTGRES_ONLY.has(i.table) && !POSTGRES_ONLY_INDEXES.has(name)) {
        problems.push(`index ${name} (${i.table}): in PostgreSQL only`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("column types: INTEGER is integer or bigint, REAL double precision, TEXT text, BLOB bytea", async () => {
    const sql = await migrated();
    const columns = await pgColumns(sql);
    const problems: string[] = [];
    for (const t of sqlite.values()) {
      for (const c of t.columns) {
        const p = columns.get(t.name)?.get(c.name);
        if (!p) {
          problems.push(`${t.name}.${c.name}: missing in PostgreSQL`);
          continue;
        }
        const allowed = PG_TYPE[c.type];
        if (!allowed) problems.push(`${t.name}.${c.name}: SQLite type ${c.type} has no mapping`);
        else if (!allowed.includes(p.data_type)) {
          problems.push(`${t.name}.${c.name}: ${c.type} in SQLite, ${p.data_type} in PostgreSQL (want ${allowed.join(" or ")})`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  test("SQLite's auto-assigned keys are identities GENERATED BY DEFAULT, and no other column is", async () => {
    const sql = await migrated();
    const columns = await pgColumns(sql);
    const want: string[] = [];
    for (const t of sqlite.values()) {
      const key = rowidAlias(t);
      if (key && !GIVEN_KEYS.has(`${t.name}.${key}`)) want.push(`${t.name}.${key} BY DEFAULT`);
    }
    const have = [...columns.values()]
      .flatMap((cols) => [...cols.values()])
      .filter((c) => c.is_identity === "YES" && !POSTGRES_ONLY.has(c.table_name))
      .map((c) => `${c.table_name}.${c.column_name} ${c.identity_generation}`);
    expect(have.sort()).toEqual(want.sort());
    expect(want).toContain("memories.seq BY DEFAULT");
    // Every key GIVEN_KEYS names is one: a rowid alias of SQLite's.
    for (const k of GIVEN_KEYS) {
      const [table, column] = k.split(".") as [string, string];
      expect(rowidAlias(sqlite.get(table)!), k).toBe(column);
    }
  });

  test("two clients migrating one fresh database at the same moment migrate it once", async () => {
    const url = await pg.createDatabase();
    const a = await client(url);
    const b = await client(url);
    const results = await Promise.all([migratePostgres(a), migratePostgres(b)]);
    // Each migration is applied once, by one of the two (which one takes which is the race's).
    expect(results.flatMap((r) => r.applied).sort()).toEqual(ALL);
    expect(results.map((r) => r.version)).toEqual([LATEST, LATEST]);
    const rows = await a`SELECT version, name FROM schema_migrations ORDER BY version`;
    expect([...rows]).toEqual(POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })));
    // And again: nothing to do.
    expect(await migratePostgres(b)).toEqual({ applied: [], version: LATEST });
  });

  test("a database at a newer schema version is refused with SchemaTooNewError and left as it was", async () => {
    const sql = await client(await pg.createDatabase());
    await sql`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`;
    await sql`INSERT INTO schema_migrations VALUES (99, '099_future', '2030-01-01T00:00:00.000Z')`;
    let error: unknown;
    try {
      await migratePostgres(sql);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SchemaTooNewError);
    expect(await pgTables(sql)).toEqual(["schema_migrations"]);
    const rows = await sql`SELECT version, name, applied_at FROM schema_migrations`;
    expect([...rows]).toEqual([{ version: 99, name: "099_future", applied_at: "2030-01-01T00:00:00.000Z" }]);
  });

  test("a store whose history was found by memory id: each entry gets its memory's seq, and the store finds it by that", async () => {
    const sql = await client(await pg.createDatabase());
    const before = POSTGRES_MIGRATIONS.filter((m) => m.name < "010_history_by_memory_seq");
    await sql`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`;
    for (const m of before) {
      await sql.unsafe(m.sql);
      await sql`INSERT INTO schema_migrations VALUES (${m.version}, ${m.name}, '2026-01-01T00:00:00.000Z')`;
    }
    const at = "2026-01-01T00:00:00.000Z";
    for (const id of ["m1", "m2"]) {
      await sql`INSERT INTO memories (id, agent_id, content, content_key, created_at, updated_at) VALUES (${id}, 'default', ${`about ${id}`}, ${id}, ${at}, ${at})`;
      await sql`INSERT INTO memory_history (memory_id, version, action, content, type, importance, tags, pinned, agent_id, created_at)
        VALUES (${id}, 1, 'create', ${`about ${id}`}, 'fact', 0.5, '[]', 0, 'default', ${at})`;
    }
    expect((await migratePostgres(sql)).applied).toEqual(ALL.filter((name) => name >= "010_history_by_memory_seq"));
    const rows = await sql`SELECT h.memory_id, h.memory_seq = m.seq AS matches FROM memory_history h JOIN memories m ON m.id = h.memory_id ORDER BY h.id`;
    expect([...rows]).toEqual([{ memory_id: "m1", matches: true }, { memory_id: "m2", matches: true }]);
    const store = new PostgresMemoryStore(sql);
    const [m2] = await sql`SELECT seq FROM memories WHERE id = 'm2'`;
    expect((await store.history(m2.seq)).map((h) => h.content)).toEqual(["about m2"]);
  });

  test("a memory round trip: the SQLite insert's columns, seq assigned, the same row as SQLite's", async () => {
    const sql = await migrated();
    const row = {
      id: "mem-1",
      agent_id: "default",
      content: "PostgreSQL keeps the same values",
      content_key: "k1",
      type: "fact",
      importance: 0.7,
      tags: '["db","pg"]',
      pinned: 1,
      who: "tester",
      project: "/work/p",
      source: "cli",
      session_key: "s1",
      hints: '["where"]',
      transcript: null,
      structured: '{"entities":[]}',
      review_after: "2030-01-01T00:00:00.000Z",
      created_at: "2026-01-02T03:04:05.678Z",
      updated_at: "2026-01-02T03:04:05.678Z",
      version: 1,
      access_count: 0,
      last_accessed_at: null,
      deleted_at: null,
      delete_reason: null,
    };
    // The columns src/core/memory/store.ts inserts; seq left to the database.
    const [inserted] = await sql`INSERT INTO memories ${sql(row)} RETURNING seq`;
    expect(inserted.seq).toBe(1);
    const [back] = await sql`SELECT * FROM memories WHERE id = ${row.id}`;

    const db = new Database(":memory:");
    try {
      migrate(db);
      const cols = Object.keys(row);
      db.query(`INSERT INTO memories (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(
        ...(Object.values(row) as (string | number | null)[]),
      );
      const fromSqlite = db.query("SELECT * FROM memories WHERE id = ?").get(row.id);
      expect({ ...back }).toEqual(fromSqlite as Record<string, unknown>);
    } finally {
      db.close();
    }

    // A row copied with its id is accepted (GENERATED BY DEFAULT). The identity does not advance
    // past an id given explicitly, as SQLite's rowid would: the next generated seq (2) collides.
    // A copy from SQLite into PostgreSQL must therefore setval() each identity's sequence to the
    // largest id it copied; done here, generated ids resume after it.
    await sql`INSERT INTO memories ${sql({ ...row, seq: 2, id: "mem-2", content_key: "k2" })}`;
    let collision: unknown;
    try {
      await sql`INSERT INTO memories ${sql({ ...row, id: "mem-3", content_key: "k3" })}`;
    } catch (e) {
      collision = e;
    }
    expect(String(collision)).toContain("memories_pkey");
    await sql`SELECT setval(pg_get_serial_sequence('memories', 'seq'), (SELECT max(seq) FROM memories))`;
    const [after] = await sql`INSERT INTO memories ${sql({ ...row, id: "mem-3", content_key: "k3" })} RETURNING seq`;
    expect(after.seq).toBe(3);

    // mcp_invocations.created_at's default has SQLite's datetime('now') shape.
    await sql`INSERT INTO mcp_invocations (server, tool, source, latency_ms) VALUES ('s', 't', 'cli', ${2 ** 32 - 1})`;
    const [call] = await sql`SELECT created_at, latency_ms::text AS latency FROM mcp_invocations`;
    expect(call.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(call.latency).toBe(String(2 ** 32 - 1));
  });
});
