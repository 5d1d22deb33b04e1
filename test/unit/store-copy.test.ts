// copyStore (core/transfer/store-copy.ts) between a daemon's SQLite file and PostgreSQL, both ways:
// what each store derives on its own is made again (SQLite's full-text tables, PostgreSQL's identity
// counters), the transcripts move between their two shapes, and a target that is not empty is
// refused before anything is written. The operator's path (the CLI and daemons on each end) is in
// test/e2e/store-copy.test.ts.
import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
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

/** A daemon's SQLite file holding memories (one forgotten), a transcript and a document source, the daemon stopped. */
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
  await td.daemon.stop();
  return databasePath(td.dataDir);
}

function sqliteEnd(path: string): { kind: "sqlite"; db: Database; path: string } {
  const db = openDatabase(path);
  migrate(db);
  return { kind: "sqlite", db, path };
}

const matches = (db: Database, table: string, query: string) => db.query(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`).all(query).length;

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
});
