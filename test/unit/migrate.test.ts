// src/db/migrate.ts + src/db/open.ts: migrations applied in order, each in its own transaction,
// recorded in schema_migrations; re-runs are no-ops; a newer database is refused untouched.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { SqliteMemoryRows, SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService } from "../../src/core/memory/service";
import { MIGRATIONS, type Migration } from "../../src/db/migrations";
import { SchemaTooNewError, migrate, schemaVersion } from "../../src/db/migrate";
import { MEMORY_STORE_CACHE_MIB, openDatabase } from "../../src/db/open";
import { databasePath } from "../../src/config/paths";

const dirs: string[] = [];
const open: Database[] = [];

function freshDb(): { db: Database; path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "signet-migrate-test-"));
  dirs.push(dir);
  const path = databasePath(dir);
  const db = openDatabase(path);
  open.push(db);
  return { db, path, dir };
}

function reopen(path: string): Database {
  const db = openDatabase(path);
  open.push(db);
  return db;
}

afterEach(() => {
  while (open.length) open.pop()!.close();
});

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tables(db: Database): string[] {
  return db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type IN ('table') AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((r) => r.name);
}

function schemaSnapshot(db: Database): string {
  return JSON.stringify(db.query("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").all());
}

function migrationRows(db: Database) {
  return db.query<{ version: number; name: string; applied_at: string }, []>(
    "SELECT version, name, applied_at FROM schema_migrations ORDER BY version",
  ).all();
}

describe("openDatabase", () => {
  test("creates the memory/ directory and the database file", () => {
    const { path, dir } = freshDb();
    expect(path).toBe(join(dir, "memory", "memories.db"));
    expect(existsSync(path)).toBe(true);
  });

  test("journal_mode is WAL", () => {
    const { db } = freshDb();
    expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
  });

  test("busy_timeout is set (5000 ms)", () => {
    const { db } = freshDb();
    expect(db.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()?.timeout).toBe(5000);
  });

  test("foreign keys are on and synchronous is NORMAL", () => {
    const { db } = freshDb();
    expect(db.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()?.foreign_keys).toBe(1);
    expect(db.query<{ synchronous: number }, []>("PRAGMA synchronous").get()?.synchronous).toBe(1);
  });

  test("the page cache: SQLite's default unless asked, the memory store's MEMORY_STORE_CACHE_MIB when asked", () => {
    const { db, path } = freshDb();
    expect(db.query<{ cache_size: number }, []>("PRAGMA cache_size").get()?.cache_size).toBe(-2000);
    const store = openDatabase(path, { cacheMiB: MEMORY_STORE_CACHE_MIB });
    open.push(store);
    expect(store.query<{ cache_size: number }, []>("PRAGMA cache_size").get()?.cache_size).toBe(-MEMORY_STORE_CACHE_MIB * 1024);
  });

  test("WAL persists for a second connection", () => {
    const { path } = freshDb();
    const second = reopen(path);
    expect(second.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
  });
});

describe("migrate on a fresh database", () => {
  test("applies every migration in order and records each in schema_migrations", () => {
    const { db } = freshDb();
    expect(schemaVersion(db)).toBe(0);
    const result = migrate(db);
    const known = [...MIGRATIONS].sort((a, b) => a.version - b.version);
    expect(result.applied).toEqual(known.map((m) => m.name));
    expect(result.version).toBe(known.at(-1)!.version);
    const rows = migrationRows(db);
    expect(rows.map((r) => [r.version, r.name])).toEqual(known.map((m) => [m.version, m.name]));
    for (const r of rows) expect(r.applied_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(schemaVersion(db)).toBe(result.version);
  });

  test("creates the memory schema", () => {
    const { db } = freshDb();
    migrate(db);
    const names = tables(db);
    for (const t of ["memories", "memory_tags", "memory_history", "schema_migrations"]) {
      expect(names).toContain(t);
    }
    // Keyword search over memories is the daemon's in-memory index: no full-text table of them.
    expect(names.filter((t) => t.startsWith("memories_fts"))).toEqual([]);
  });

  test("a store from before the in-memory keyword index keeps its memories and loses memories_fts", () => {
    const { db } = freshDb();
    const dropping = MIGRATIONS.findIndex((m) => m.name === "014_memories_without_fts");
    migrate(db, MIGRATIONS.slice(0, dropping));
    db.run("INSERT INTO memories (id, agent_id, content, content_key, created_at, updated_at) VALUES ('m1', 'default', 'heron-7', 'k', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')");
    db.run("INSERT INTO memories_fts (rowid, content, tags, hints, terms) VALUES (1, 'heron-7', '', '', '')");
    expect(migrate(db, MIGRATIONS.slice(0, dropping + 1)).applied).toEqual(["014_memories_without_fts"]);
    expect(tables(db).filter((t) => t.startsWith("memories_fts"))).toEqual([]);
    expect(db.query<{ content: string }, []>("SELECT content FROM memories").all()).toEqual([{ content: "heron-7" }]);
  });

  test("after the migration a removed source's id is never given again (the highest id at the migration is kept)", () => {
    const { db } = freshDb();
    const at = MIGRATIONS.findIndex((m) => m.name === "016_source_ids");
    migrate(db, MIGRATIONS.slice(0, at));
    const add = (path: string) => db.run("INSERT INTO sources (path, kind, created_at, synced_at) VALUES (?, 'dir', '', '')", [path]);
    for (const path of ["/a", "/b", "/c"]) add(path);
    expect(migrate(db, MIGRATIONS.slice(0, at + 1)).applied).toEqual(["016_source_ids"]);
    db.run("DELETE FROM sources WHERE path = '/c'");
    const next = (path: string) => db.query<{ id: number }, [string]>("INSERT INTO sources (id, path, kind, created_at, synced_at) VALUES ((SELECT id + 1 FROM source_id_high), ?, 'dir', '', '') RETURNING id").get(path)!.id;
    expect(next("/d")).toBe(4);
    // An id given explicitly (a store copy) moves the high mark too.
    db.run("INSERT INTO sources (id, path, kind, created_at, synced_at) VALUES (9, '/e', 'dir', '', '')");
    db.run("DELETE FROM sources WHERE id IN (4, 9)");
    expect(next("/f")).toBe(10);
  });

  test("a store whose history was found by memory id finds each memory's history by its seq, every entry kept", async () => {
    const { db } = freshDb();
    const byId = MIGRATIONS.findIndex((m) => m.name === "015_history_by_memory_seq");
    migrate(db, MIGRATIONS.slice(0, byId));
    const at = "2026-01-01T00:00:00.000Z";
    for (const [seq, id, content] of [[1, "m1", "heron-7"], [2, "m2", "heron-8"]] as const) {
      db.run("INSERT INTO memories (seq, id, agent_id, content, content_key, version, created_at, updated_at) VALUES (?, ?, 'default', ?, ?, 2, ?, ?)", [seq, id, content, id, at, at]);
      for (const [version, action, text] of [[1, "create", `${content}?`], [2, "modify", content]] as const) {
        db.run(
          "INSERT INTO memory_history (memory_id, version, action, content, type, importance, tags, pinned, agent_id, created_at) VALUES (?, ?, ?, ?, 'fact', 0.5, '[]', 0, 'default', ?)",
          [id, version, action, text, at],
        );
      }
    }
    expect(migrate(db, MIGRATIONS.slice(0, byId + 1)).applied).toEqual(["015_history_by_memory_seq"]);
    const rows = new SqliteMemoryRows(db);
    const indexes = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'memory_history'").all();
    expect(indexes.map((i) => i.name)).toEqual(["idx_memory_history_seq"]);
    expect(rows.history(2).map((h) => [h.version, h.content])).toEqual([[1, "heron-8?"], [2, "heron-8"]]);
    expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memory_history WHERE memory_seq IS NULL").get()!.n).toBe(0);
    // What is written from now on carries the seq too, and is found the same way.
    const memory = new MemoryService(new SqliteMemoryStore(db));
    const stored = await memory.remember({ agentId: "default", actor: "test", actorType: null, runtimePath: null }, { content: "heron-9" });
    expect(rows.history(rows.get(stored.id)!.seq).map((h) => h.action)).toEqual(["create"]);
  });

  test("re-running is a no-op", () => {
    const { db } = freshDb();
    migrate(db);
    const before = schemaSnapshot(db);
    const rowsBefore = migrationRows(db);
    const again = migrate(db);
    expect(again.applied).toEqual([]);
    expect(again.version).toBe(rowsBefore.at(-1)!.version);
    expect(schemaSnapshot(db)).toBe(before);
    expect(migrationRows(db)).toEqual(rowsBefore);
  });

  test("re-running after reopening the file is a no-op", () => {
    const { db, path } = freshDb();
    migrate(db);
    db.close();
    open.splice(open.indexOf(db), 1);
    const again = reopen(path);
    expect(migrate(again).applied).toEqual([]);
  });

  test("applies only the migrations newer than the recorded version", () => {
    const { db } = freshDb();
    const list: Migration[] = [
      { version: 1, name: "001_a", sql: "CREATE TABLE a (x INTEGER)" },
      { version: 2, name: "002_b", sql: "CREATE TABLE b (x INTEGER)" },
    ];
    expect(migrate(db, list.slice(0, 1)).applied).toEqual(["001_a"]);
    expect(migrate(db, list)).toEqual({ applied: ["002_b"], version: 2 });
    expect(tables(db)).toEqual(expect.arrayContaining(["a", "b"]));
  });

  test("applies migrations in version order even when listed out of order", () => {
    const { db } = freshDb();
    const list: Migration[] = [
      { version: 2, name: "002_use", sql: "INSERT INTO t (x) VALUES (2)" },
      { version: 1, name: "001_make", sql: "CREATE TABLE t (x INTEGER)" },
    ];
    expect(migrate(db, list).applied).toEqual(["001_make", "002_use"]);
    expect(db.query("SELECT x FROM t").all()).toEqual([{ x: 2 }]);
  });

  test("a migration with several statements runs all of them", () => {
    const { db } = freshDb();
    migrate(db, [{ version: 1, name: "001_multi", sql: "CREATE TABLE m (x INTEGER);\nINSERT INTO m VALUES (1);\nINSERT INTO m VALUES (2);" }]);
    expect(db.query("SELECT COUNT(*) AS n FROM m").get()).toEqual({ n: 2 });
  });
});

describe("a database newer than this binary", () => {
  test("is refused with SchemaTooNewError and a clear message", () => {
    const { db } = freshDb();
    migrate(db);
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [
      known + 98,
      "099_future",
      new Date().toISOString(),
    ]);
    let err: unknown;
    try {
      migrate(db);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SchemaTooNewError);
    const message = (err as Error).message;
    expect(message).toContain(String(known + 98));
    expect(message).toContain(String(known));
    expect(message).toMatch(/newer/i);
    expect(message).toMatch(/upgrade/i);
  });

  test("nothing is changed when refused", () => {
    const { db } = freshDb();
    // A database written by a future signet: only its schema_migrations table, at version 999.
    db.run("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
    db.run("INSERT INTO schema_migrations VALUES (999, '999_future', '2030-01-01T00:00:00.000Z')");
    db.run("CREATE TABLE future_thing (x INTEGER)");
    const before = schemaSnapshot(db);
    const rowsBefore = migrationRows(db);
    expect(() => migrate(db)).toThrow(SchemaTooNewError);
    expect(schemaSnapshot(db)).toBe(before);
    expect(migrationRows(db)).toEqual(rowsBefore);
    expect(tables(db)).not.toContain("memories");
  });

  test("refused with a custom migration list too", () => {
    const { db } = freshDb();
    migrate(db, [
      { version: 1, name: "001_a", sql: "CREATE TABLE a (x INTEGER)" },
      { version: 2, name: "002_b", sql: "CREATE TABLE b (x INTEGER)" },
    ]);
    expect(() => migrate(db, [{ version: 1, name: "001_a", sql: "CREATE TABLE a (x INTEGER)" }])).toThrow(SchemaTooNewError);
  });
});

describe("a failing migration", () => {
  const good: Migration = { version: 1, name: "001_good", sql: "CREATE TABLE good (x INTEGER); INSERT INTO good VALUES (1);" };
  const bad: Migration = {
    version: 2,
    name: "002_bad",
    sql: "CREATE TABLE half_done (x INTEGER);\nINSERT INTO half_done VALUES (1);\nINSERT INTO no_such_table VALUES (1);",
  };
  const later: Migration = { version: 3, name: "003_later", sql: "CREATE TABLE later (x INTEGER)" };

  test("throws, is rolled back and is not recorded; earlier migrations stay applied", () => {
    const { db } = freshDb();
    expect(() => migrate(db, [good, bad, later])).toThrow();
    const names = tables(db);
    expect(names).toContain("good");
    expect(names).not.toContain("half_done");
    expect(names).not.toContain("later");
    expect(migrationRows(db).map((r) => r.version)).toEqual([1]);
    expect(schemaVersion(db)).toBe(1);
    expect(db.query("SELECT x FROM good").all()).toEqual([{ x: 1 }]);
  });

  test("a syntax error is rolled back and not recorded", () => {
    const { db } = freshDb();
    expect(() => migrate(db, [{ version: 1, name: "001_syntax", sql: "CREATE TABLE ok (x INTEGER); CREAT TABLE nope (x);" }])).toThrow();
    expect(tables(db)).not.toContain("ok");
    expect(migrationRows(db)).toEqual([]);
    expect(schemaVersion(db)).toBe(0);
  });

  test("leaves no transaction open, and a fixed migration applies afterwards", () => {
    const { db } = freshDb();
    expect(() => migrate(db, [good, bad])).toThrow();
    expect(db.inTransaction).toBe(false);
    const fixed: Migration = { ...bad, sql: "CREATE TABLE half_done (x INTEGER); INSERT INTO half_done VALUES (1);" };
    expect(migrate(db, [good, fixed, later]).applied).toEqual(["002_bad", "003_later"]);
    expect(migrationRows(db).map((r) => r.version)).toEqual([1, 2, 3]);
    expect(db.query("SELECT COUNT(*) AS n FROM half_done").get()).toEqual({ n: 1 });
  });

  test("a failing first real migration on top of the shipped ones leaves the shipped schema intact", () => {
    const { db } = freshDb();
    migrate(db);
    const before = schemaSnapshot(db);
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    const broken: Migration = {
      version: known + 1,
      name: "next_broken",
      sql: "ALTER TABLE memories ADD COLUMN extra TEXT; SELECT * FROM missing_table;",
    };
    expect(() => migrate(db, [...MIGRATIONS, broken])).toThrow();
    expect(schemaSnapshot(db)).toBe(before);
    expect(schemaVersion(db)).toBe(known);
  });
});

describe("openDatabase on a file that is not a database", () => {
  test("throws SQLite's reason and keeps no descriptor of the file open", () => {
    const dir = mkdtempSync(join(tmpdir(), "signet-migrate-test-"));
    dirs.push(dir);
    const path = databasePath(dir);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, "this is a text file, not SQLite's header".repeat(200), { mode: 0o600 });
    const descriptorsOf = () => readdirSync("/proc/self/fd").filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === path;
      } catch {
        return false;
      }
    }).length;
    for (let i = 0; i < 3; i++) expect(() => openDatabase(path)).toThrow(/not a database/);
    expect(descriptorsOf()).toBe(0);
  });
});
