// One daemon per data directory. The lock is an exclusive SQLite transaction on a lock file: a kernel
// (fcntl) lock that dies with its process, so a crash or `kill -9` never leaves a stale lock behind.
// The pid file only tells who holds it.
import { Database } from "bun:sqlite";
import { accessSync, constants, lstatSync, rmSync, statSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import { ensureOwnerOnlyFile, lstatRefusingSymlink, makeOwnerOnlyDir, octalMode, UnsafePathError, writeOwnerOnlyFile } from "../os/owner-only-files";
import { readPidFile, type PidInfo } from "../config/daemon-record";
import { daemonDir, daemonFiles } from "../config/paths";

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

/**
 * How long taking the lock waits for it: a moment, so that another process's probe of it
 * (isLockHeld, a `signet daemon status` say) does not pass for a running daemon. A daemon holds it
 * for as long as it runs, so waiting longer would change nothing.
 */
const ACQUIRE_WAIT_MS = 250;

/** SQLite's answer when another connection holds the lock: the one answer that means "held". */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

function statOrUndefined(path: string, follow: boolean): Stats | undefined {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Why the data directory cannot hold the daemon's files, when something that is not a directory
 * stands where it or `.daemon` should be (a file given as SIGNET_PATH, say): what is wrong, and what
 * to do. Undefined otherwise, missing ones included (they are made).
 */
export function dataDirProblem(dataDir: string): { detail: string; fix: string } | undefined {
  let st: Stats;
  try {
    st = statSync(dataDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOTDIR") return undefined;
    return { detail: `the data directory ${dataDir} (SIGNET_PATH) cannot be made: a file stands where a directory above it should be`, fix: "set SIGNET_PATH to a directory" };
  }
  if (!st.isDirectory()) return { detail: `the data directory ${dataDir} (SIGNET_PATH) is not a directory`, fix: "set SIGNET_PATH to a directory (or move the file away)" };
  const daemon = daemonDir(dataDir);
  const inside = statOrUndefined(daemon, false);
  if (inside && !inside.isDirectory() && !inside.isSymbolicLink()) {
    return { detail: `${daemon} is not a directory: the daemon keeps its lock and credentials there`, fix: "move it away (the daemon makes the directory)" };
  }
  return undefined;
}

/** Throws dataDirProblem's error, if any: before anything is made or opened in the data directory. */
export function assertDataDir(dataDir: string): void {
  const problem = dataDirProblem(dataDir);
  if (problem) throw new UnsafePathError(`${problem.detail}: ${problem.fix}`);
}

/**
 * The lock file could not be probed or taken for another reason than a daemon holding it: the
 * error names the file, what went wrong and what to do.
 */
function lockFileError(dataDir: string, path: string, err: unknown): Error {
  const problem = dataDirProblem(dataDir);
  if (problem) return new UnsafePathError(`${problem.detail}: ${problem.fix}`);
  const reason = (err as Error).message;
  const what = `cannot use the daemon's lock ${path} (${reason})`;
  const dir = dirname(path);
  const st = statOrUndefined(path, false);
  if (st && !st.isFile()) return new UnsafePathError(`${what}: it is not a regular file; remove it (the daemon makes it again)`);
  const uid = process.getuid?.();
  const owner = st ?? statOrUndefined(dir, true);
  if (uid !== undefined && owner && owner.uid !== uid) {
    const whose = st ? path : dir;
    return new UnsafePathError(
      `${what}: ${whose} belongs to uid ${owner.uid}, not to you (uid ${uid}); a daemon once run as another user (\`sudo signet daemon start\`, say) leaves its files so. ` +
        `Stop any daemon of that user here, then give the data directory back: \`sudo chown -R ${uid} '${dataDir}'\``,
    );
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    const mode = statOrUndefined(dir, true)?.mode;
    return new UnsafePathError(`${what}: you may not write ${dir}${mode === undefined ? "" : ` (mode ${octalMode(mode)})`}; make it yours alone and writable: \`chmod 700 '${dir}'\``);
  }
  if (st) {
    try {
      accessSync(path, constants.R_OK | constants.W_OK);
    } catch {
      return new UnsafePathError(`${what}: you may not read and write it (mode ${octalMode(st.mode)}); \`chmod 600 '${path}'\``);
    }
  }
  return new UnsafePathError(`${what}: if no daemon of this data directory runs, remove the file (the daemon makes it again)`);
}

/**
 * True when some process holds the data directory's daemon lock right now. Only SQLite's "busy"
 * means it is held; anything else that stops the probe (a lock file that is not ours, or not a file;
 * a data directory that is a file) is thrown, naming the file and what to do. The probe opens the
 * file read-only: it needs neither write access nor a journal beside it.
 */
export function isLockHeld(dataDir: string): boolean {
  const path = daemonFiles(dataDir).lock;
  let st: Stats | undefined;
  try {
    st = lstatRefusingSymlink(path);
  } catch (err) {
    if (err instanceof UnsafePathError) throw err;
    throw lockFileError(dataDir, path, err);
  }
  if (!st) return false;
  if (!st.isFile()) throw lockFileError(dataDir, path, new Error("not a regular file"));
  let probe: Database | undefined;
  try {
    probe = new Database(path, { readonly: true });
    probe.run("PRAGMA busy_timeout = 0");
    probe.run("BEGIN EXCLUSIVE");
    probe.run("ROLLBACK");
    return false;
  } catch (err) {
    if (isBusy(err)) return true;
    throw lockFileError(dataDir, path, err);
  } finally {
    probe?.close();
  }
}

export class DaemonLock {
  private constructor(
    private readonly dataDir: string,
    private readonly db: Database,
  ) {}

  static acquire(dataDir: string): DaemonLock {
    assertDataDir(dataDir);
    const files = daemonFiles(dataDir);
    let db: Database | undefined;
    try {
      makeOwnerOnlyDir(dirname(files.lock));
      // SQLite would follow a link, and create the lock (and its journal) with the umask's mode.
      ensureOwnerOnlyFile(files.lock);
      db = new Database(files.lock, { create: true });
      db.run(`PRAGMA busy_timeout = ${ACQUIRE_WAIT_MS}`);
      db.run("BEGIN EXCLUSIVE");
    } catch (err) {
      db?.close();
      if (isBusy(err)) throw new DaemonRunningError(dataDir, readPidFile(dataDir));
      if (err instanceof UnsafePathError) throw err;
      throw lockFileError(dataDir, files.lock, err);
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
