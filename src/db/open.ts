// Opening the database: one place for the pragmas every process must agree on.
import { Database } from "bun:sqlite";
import { dirname, join } from "node:path";
import { ensureOwnerOnlyFile, makeOwnerOnlyDir } from "../os/owner-only-files";


/**
 * The memory store's page cache. SQLite's default is 2 MB: at 100k memories a recall's ~100 row
 * reads missed it and each paid read() calls (recall p50 12.4 → 11.0 ms in process with 64 MB;
 * docs/architecture.md#layout). 8 MiB answers as fast as 64 (8, 16, 32 and 64 alternated in one
 * sitting: within noise; 2 MB slower), and a large cache is all taken at start by the vectors loaded
 * through it (64 MiB: 80 MB of the daemon's memory at 100k; 16 against 8: a peak 14–21 MiB higher).
 * Memory is only taken as pages are read.
 */
export const MEMORY_STORE_CACHE_MIB = 8;

/** Opens (creating) a database with the shared pragmas; `cacheMiB` sets its page cache (SQLite's default 2 MB otherwise). */
export function openDatabase(path: string, options: { cacheMiB?: number } = {}): Database {
  makeOwnerOnlyDir(dirname(path));
  // SQLite would follow a link, and create the file with the umask's mode; its -wal and -shm take this file's mode.
  ensureOwnerOnlyFile(path);
  const db = new Database(path, { create: true, strict: true });
  try {
    // busy_timeout must come before journal_mode: two processes opening at once otherwise see SQLITE_BUSY.
    db.run("PRAGMA busy_timeout = 5000");
    db.run("PRAGMA journal_mode = WAL");
    // NORMAL in WAL mode: a commit survives a killed process (kill -9); only power loss can drop the tail.
    db.run("PRAGMA synchronous = NORMAL");
    db.run("PRAGMA foreign_keys = ON");
    // A group commit runs each write in a savepoint; their statement journal outgrows SQLite's 64 KiB
    // in-memory spill limit and went to a temp file, opened and written for every commit.
    db.run("PRAGMA temp_store = MEMORY");
    if (options.cacheMiB !== undefined) db.run(`PRAGMA cache_size = -${Math.round(options.cacheMiB * 1024)}`);
  } catch (err) {
    // A file that is not a database, or one another process holds locked: the caller reports it,
    // and the connection does not stay open behind it.
    db.close();
    throw err;
  }
  return db;
}
