// One daemon per data directory. The lock is an exclusive SQLite transaction on a lock file: a kernel
// (fcntl) lock that dies with its process, so a crash or `kill -9` never leaves a stale lock behind.
// The pid file only tells who holds it.
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { ensureOwnerOnlyFile, lstatRefusingSymlink, makeOwnerOnlyDir, writeOwnerOnlyFile } from "../os/owner-only-files";
import { readPidFile, type PidInfo } from "../config/daemon-record";
import { daemonFiles } from "../config/paths";

export class DaemonRunningError extends Error {
  constructor(
    dataDir: string,
    readonly holder: PidInfo | null,
  ) {
    super(
      holder
        ? `a daemon is already running for ${dataDir} (pid ${holder.pid}, ${holder.url}); stop it with \`signet daemon stop\``
        : `a daemon is already running for ${dataDir} (its lock is held); stop it with \`signet daemon stop\``,
    );
    this.name = "DaemonRunningError";
  }
}

/** True when some process holds the data directory's daemon lock right now. */
export function isLockHeld(dataDir: string): boolean {
  const path = daemonFiles(dataDir).lock;
  if (!lstatRefusingSymlink(path)) return false;
  const probe = new Database(path);
  try {
    probe.run("PRAGMA busy_timeout = 0");
    probe.run("BEGIN EXCLUSIVE");
    probe.run("ROLLBACK");
    return false;
  } catch {
    return true;
  } finally {
    probe.close();
  }
}

export class DaemonLock {
  private constructor(
    private readonly dataDir: string,
    private readonly db: Database,
  ) {}

  static acquire(dataDir: string): DaemonLock {
    const files = daemonFiles(dataDir);
    makeOwnerOnlyDir(dirname(files.lock));
    // SQLite would follow a link, and create the lock (and its journal) with the umask's mode.
    ensureOwnerOnlyFile(files.lock);
    const db = new Database(files.lock, { create: true });
    try {
      db.run("PRAGMA busy_timeout = 0");
      db.run("BEGIN EXCLUSIVE");
    } catch {
      db.close();
      throw new DaemonRunningError(dataDir, readPidFile(dataDir));
    }
    return new DaemonLock(dataDir, db);
  }

  writePid(info: PidInfo): void {
    writeOwnerOnlyFile(daemonFiles(this.dataDir).pid, `${JSON.stringify(info)}\n`);
  }

  /** First thing in a stop: the record no longer vouches for the port (daemon-record.ts), which closes before the record goes. */
  markStopping(): void {
    const info = readPidFile(this.dataDir);
    if (info?.pid === process.pid) this.writePid({ ...info, stopping: true });
  }

  release(): void {
    const pidPath = daemonFiles(this.dataDir).pid;
    if (readPidFile(this.dataDir)?.pid === process.pid) rmSync(pidPath, { force: true });
    this.db.close();
  }
}
