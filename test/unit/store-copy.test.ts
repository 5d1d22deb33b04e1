// copyStore (core/transfer/store-copy.ts) between a daemon's SQLite file and PostgreSQL, both ways:
// what each store derives on its own is made again (SQLite's full-text tables, PostgreSQL's identity
// counters, SQLite's highest source id), the transcripts move between their two shapes, a target
// that is not empty or a text PostgreSQL cannot hold is refused before anything is written, and a
// copy whose export differs from the source's is not kept. The operator's path (the CLI and daemons
// on each end) is in test/e2e/store-copy.test.ts.
import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { databasePath } from "../../src/config/paths";
import { PostgresMemoryStore } from "../../src/core/memory/postgres-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { copyStore, StoreCopyError } from "../../src/core/transfer/store-copy";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { startTestDaemon } from "../helpers/daemon";
import { postgresDatabases } from "../helpers/postgres-databases";
import { tempDir } from "../helpers/temp-cleanup";

const postgres = postgresDatabases();
const ada: Caller = { agentId: "ada", actor: "test", actorType: null, runtimePath: null };

/**
 * A daemon's SQLite file holding memories (one forgotten), a transcript and a document source (source
 * 1; source 2 was added and removed, so the next is 3), the daemon stopped.
 */
async function populatedFile(): Promise<string> {
  const td = await startTestDaemon();
  const send = (method: string, path: string, body: unknown) =>
    td.fetch(path, { method, headers: { "content-type": "application/json", "x-signet-agent-id": "ada", ...td.ownerHeaders }, body: JSON.stringify(body) });
  const post = (path: string, body: unknown) => send("POST", path, body);
  await post("/api/memory/remember", { content: "The payments service deploys from the blue-heron branch" });
  const gone = (await (await post("/api/memory/remember", { content: "A passing thought about lunch" })).json()) as { id: string };
  expect((await send("DELETE", `/api/memory/${gone.id}`, { reason: "noise" })).status).toBe(200);
  expect((await post("/api/hooks/session-end", { harness: "claude-code", sessionKey: "s-1", transcript: "user: the flamingo deploy broke" })).status).toBe(200);
  // Beside the data directory: a source in it is refused.
  const docs = tempDir("signet-docs-");
  writeFileSync(join(docs, "runbook.md"), "# Rollback\n\nTo roll back a deploy, run the rollback script.\n");
  expect((await post("/api/sources", { path: docs })).status).toBe(201);
  const scratch = tempDir("signet-docs-");
  writeFileSync(join(scratch, "scratch.md"), "# Scratch\n");
  const added = (await (await post("/api/sources", { path: scratch })).json()) as { source: { id: number } };
  expect(added.source.id).toBe(2);
  expect((await send("DELETE", "/api/sources/2", undefined)).status).toBe(200);
  await td.daemon.stop();
  return databasePath(td.dataDir);
}

function sqliteEnd(path: string): { kind: "sqlite"; db: Database; path: string } {
  const db = openDatabase(path);
  migrate(db);
  return { kind: "sqlite", db, path };
}

const matches = (db: Database, table: string, query: string) => db.query(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`).all(query).length;

/** The id a source added to the SQLite store now takes (as SqliteSourceStore.openSource gives it). */
const nextSourceId = (db: Database) =>
  db.query<{ id: number }, []>("INSERT INTO sources (id, path, kind, created_at, synced_at) VALUES ((SELECT id + 1 FROM source_id_high), '/elsewhere', 'dir', '', '') RETURNING id").get()!.id;

/** Rows in every table of a SQLite store that a copy writes. */
function sqliteRows(db: Database): number {
  const tables = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('schema_migrations', 'sqlite_sequence', 'source_id_high') AND name NOT LIKE '%\\_fts\\_%' ESCAPE '\\'").all();
  return tables.reduce((n, { name }) => n + db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM "${name}"`).get()!.n, 0);
}

/** Rows in every table of a PostgreSQL store but its migrations' record. */
async function postgresRows(sql: SQL): Promise<number> {
  const tables: { table_name: string }[] = await sql`
    SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'`;
  let n = 0;
  for (const { table_name } of tables) n += Number((await sql.unsafe(`SELECT count(*)::int AS n FROM "${table_name}"`))[0].n);
  return n;
}

describe("copying a store into a new SQLite file", () => {
  test("every row, the full-text tables made again, and no source id given again", async () => {
    const from = sqliteEnd(await populatedFile());
    const to = sqliteEnd(join(tempDir(), "copy.db"));
    const report = await copyStore(from, to);
    expect(report.memories).toBe(2);
    expect(report.tables.find((t) => t.table === "sources")!.rows).toBe(1);
    expect(matches(to.db, "source_chunks_fts", "rollback")).toBe(1);
    expect(matches(to.db, "session_transcripts_fts", "flamingo")).toBe(1);
    // Source 2 was removed before the copy: its id stays spent in the copy too.
    expect(nextSourceId(to.db)).toBe(3);
    from.db.close();
    to.db.close();
  });

  test("a target that stores something other than it was given: the exports differ, and the target keeps nothing", async () => {
    const from = sqliteEnd(await populatedFile());
    const to = sqliteEnd(join(tempDir(), "copy.db"));
    to.db.run("CREATE TRIGGER altering AFTER INSERT ON memories BEGIN UPDATE memories SET content = NEW.content || '!' WHERE seq = NEW.seq; END");
    const copying = copyStore(from, to);
    await expect(copying).rejects.toThrow(StoreCopyError);
    await expect(copying).rejects.toThrow("the copy's export differs from the source's at line 2: nothing was written");
    expect(sqliteRows(to.db)).toBe(0);
    from.db.close();
    to.db.close();
  });
});

describe.skipIf(!postgres.available)("copying a store", () => {
  test("SQLite → PostgreSQL → SQLite: the rows, the transcripts, the chunks' full-text table and the identity counters", async () => {
    const from = sqliteEnd(await populatedFile());
    const sql = (await postgres.database({ max: 2 }))();
    const progress: string[] = [];
    const there = await copyStore(from, { kind: "postgres", sql }, (p) => progress.push(p.table));
    expect(there.memories).toBe(2);
    expect(there.tables.find((t) => t.table === "memory_history")!.rows).toBe(3);
    expect(there.tables.find((t) => t.table === "session transcripts")!.rows).toBe(1);
    expect(progress).toContain("source_chunks");
    // Analyzed at the end, so the first queries on the copy are planned from its real sizes.
    const [analyzed] = await sql`SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'memories'`;
    expect(analyzed.last_analyze).not.toBeNull();
    // A memory written after the copy takes the next number, not one a copied memory holds.
    const memory = new MemoryService(new PostgresMemoryStore(sql));
    await memory.remember(ada, { content: "Written on PostgreSQL after the copy" });
    const [{ n }] = await sql`SELECT count(DISTINCT seq)::int AS n FROM memories`;
    expect(n).toBe(3);

    const back = sqliteEnd(join(tempDir(), "back.db"));
    const here = await copyStore({ kind: "postgres", sql }, back);
    expect(here.memories).toBe(3);
    // Made again from the rows: the source's chunks.
    expect(matches(back.db, "source_chunks_fts", "rollback")).toBe(1);
    expect(matches(back.db, "session_transcripts_fts", "flamingo")).toBe(1);
    from.db.close();
    back.db.close();
  });

  test("no source id is given again: the identity counter continues after the highest ever given, and back", async () => {
    const from = sqliteEnd(await populatedFile());
    const sql = (await postgres.database({ max: 2 }))();
    await copyStore(from, { kind: "postgres", sql });
    // Source 2 was removed on SQLite before the copy.
    const [added] = await sql`INSERT INTO sources (path, kind, created_at, synced_at) VALUES ('/added', 'dir', '', '') RETURNING id`;
    expect(added.id).toBe(3);
    await sql`DELETE FROM sources WHERE id = 3`;
    const back = sqliteEnd(join(tempDir(), "back.db"));
    await copyStore({ kind: "postgres", sql }, back);
    expect(nextSourceId(back.db)).toBe(4);
    from.db.close();
    back.db.close();
  });

  test("a target that holds a row is refused, and keeps only that row", async () => {
    const from = sqliteEnd(await populatedFile());
    const sql = (await postgres.database({ max: 2 }))();
    await new MemoryService(new PostgresMemoryStore(sql)).remember(ada, { content: "Already here" });
    const copying = copyStore(from, { kind: "postgres", sql });
    await expect(copying).rejects.toThrow(StoreCopyError);
    await expect(copying).rejects.toThrow("the target is not empty (memories holds 1 row)");
    const rows = await sql`SELECT content FROM memories`;
    expect(rows.map((r: { content: string }) => r.content)).toEqual(["Already here"]);
    from.db.close();
  });

  test("a text holding U+0000 (SQLite keeps it, PostgreSQL cannot) is refused before anything is written, naming the memory and the field", async () => {
    const td = await startTestDaemon();
    const clean = await td.client("ada").memory.remember({ content: "Nothing odd here" });
    const odd = await td.client("ada").memory.remember({ content: "Before\u0000after" });
    expect(odd.content).toBe("Before\u0000after");
    await td.daemon.stop();
    const from = sqliteEnd(databasePath(td.dataDir));
    const sql = (await postgres.database({ max: 2 }))();
    const progress: string[] = [];
    const copying = copyStore(from, { kind: "postgres", sql }, (p) => progress.push(p.table));
    await expect(copying).rejects.toThrow(StoreCopyError);
    await expect(copying).rejects.toThrow(
      `memory ${odd.id}'s content holds U+0000 (a NUL character), which PostgreSQL text cannot hold: this store cannot be copied into PostgreSQL; nothing was written`,
    );
    expect(progress).toEqual([]);
    expect(await postgresRows(sql)).toBe(0);
    expect(clean.id).not.toBe(odd.id);
    from.db.close();
  });

  test("a target that stores something other than it was given: the exports differ, and the target keeps nothing", async () => {
    const from = sqliteEnd(await populatedFile());
    const sql = (await postgres.database({ max: 2 }))();
    await sql.unsafe(`
      CREATE FUNCTION altering() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.content := NEW.content || '!'; RETURN NEW; END $$;
      CREATE TRIGGER altering BEFORE INSERT ON memories FOR EACH ROW EXECUTE FUNCTION altering();`);
    const copying = copyStore(from, { kind: "postgres", sql });
    await expect(copying).rejects.toThrow("the copy's export differs from the source's at line 2: nothing was written");
    expect(await postgresRows(sql)).toBe(0);
    from.db.close();
  });
});
