// A lock between processes, taken as the daemon takes its own (control/lock.ts): an exclusive SQLite
// transaction on a lock file, that is a kernel (fcntl) lock, which dies with its process, so a
// `signet index` killed while it holds one never leaves it behind for the next run to trip over.
import { Database } from "bun:sqlite";
import { dirname } from "node:path";
import { ensureOwnerOnlyFile, makeOwnerOnlyDir } from "../../os/owner-only-files";

export interface HeldLock {
  release(): void;
}

/** SQLite's answer while another connection holds the lock. */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/**
 * Takes the lock at `path` (made owner-only if missing; never through a link), waiting up to
 * `waitMs` for another process that holds it; null when that one still holds it then.
 */
export function takeLock(path: string, waitMs: number): HeldLock | null {
  makeOwnerOnlyDir(dirname(path));
  ensureOwnerOnlyFile(path);
  const db = new Database(path, { create: true });
  try {
    db.run(`PRAGMA busy_timeout = ${waitMs}`);
    db.run("BEGIN EXCLUSIVE");
  } catch (err) {
    db.close();
    if (isBusy(err)) return null;
    throw err;
  }
  return {
    release() {
      db.run("ROLLBACK");
      db.close();
    },
  };
}
