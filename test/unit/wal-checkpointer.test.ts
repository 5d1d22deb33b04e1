// The WAL checkpoint thread: the daemon's connection never checkpoints in a commit, the thread does.
import { afterEach, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startCheckpointer } from "../../src/db/checkpointer";
import { openDatabase } from "../../src/db/open";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function freshDb(): { db: Database; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "signet-ckpt-"));
  dirs.push(dir);
  const path = join(dir, "m.db");
  const db = openDatabase(path);
  db.run("CREATE TABLE t (x BLOB)");
  return { db, path };
}

/** Writes about 2,000 pages (8 MB) in 200 commits, twice SQLite's autocheckpoint threshold. */
function writePages(db: Database): void {
  const insert = db.query("INSERT INTO t (x) VALUES (randomblob(40000))");
  for (let i = 0; i < 200; i++) insert.run();
}

test("a commit on the daemon's connection does not checkpoint, however large the WAL grows", async () => {
  const { db, path } = freshDb();
  // The thread checkpoints once at its start, then not for a minute.
  const checkpoints = startCheckpointer(db, path, () => {}, 60_000);
  try {
    await checkpoints.next();
    const before = statSync(path).size;
    writePages(db);
    expect(statSync(path).size).toBe(before);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(7_000_000);
  } finally {
    await checkpoints.stop();
    db.close();
  }
});

test("the checkpoint thread copies the whole WAL into the database file", async () => {
  const { db, path } = freshDb();
  const errors: string[] = [];
  const checkpoints = startCheckpointer(db, path, (m) => errors.push(m), 50);
  try {
    // Checkpoints that ran while the writes did (their reports queued meanwhile) do not count.
    writePages(db);
    await checkpoints.next();
    expect(statSync(path).size).toBeGreaterThan(7_000_000);
    expect(errors).toEqual([]);
  } finally {
    await checkpoints.stop();
    db.close();
  }
});

test("after stop the connection checkpoints on its own again, and its close removes the WAL", async () => {
  const { db, path } = freshDb();
  const checkpoints = startCheckpointer(db, path, () => {}, 50);
  await checkpoints.next();
  await checkpoints.stop();
  expect((db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint).toBe(1000);
  const before = statSync(path).size;
  writePages(db);
  expect(statSync(path).size).toBeGreaterThan(before);
  db.close();
  expect(() => statSync(`${path}-wal`)).toThrow();
});
