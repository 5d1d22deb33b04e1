// Checked before the daemon takes its lock: the data directory and what the daemon keeps in it are
// owner-only. Looser modes (left by an older version, a umask, a copy) are tightened, each one logged;
// a directory another account owns or can still write, or a symbolic link where the daemon writes,
// stops the start with an error naming the path.
import { chmodSync, existsSync, lstatSync, readdirSync, statSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { OWNER_ONLY_DIR, OWNER_ONLY_FILE, UnsafePathError, makeOwnerOnlyDir, octalMode as octal, symlinkRefused } from "../os/owner-only-files";
import type { Logger } from "../logger";
import { configPath, daemonDir, databasePath, secretsDir } from "../config/paths";

/** Clears the bits of `mode` outside `allowed` (never adds any); refuses a path others can still write. */
function tighten(path: string, mode: number, allowed: number, log: Logger): void {
  const current = mode & 0o7777;
  const wanted = current & allowed;
  if (wanted === current) return;
  try {
    chmodSync(path, wanted);
    log.info(`tightened mode of ${path} from ${octal(current)} to ${octal(wanted)}`);
  } catch (err) {
    const reason = (err as Error).message;
    if (current & 0o022) {
      throw new UnsafePathError(
        `${path} is writable by other accounts (mode ${octal(current)}) and its mode could not be tightened (${reason}); refusing to use it`,
      );
    }
    log.warn(`could not tighten mode of ${path} from ${octal(current)} to ${octal(wanted)}: ${reason}`);
  }
}

function secureDir(path: string, st: Stats, log: Logger): void {
  if (!st.isDirectory()) throw new UnsafePathError(`${path} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new UnsafePathError(
      `${path} is owned by uid ${st.uid} (mode ${octal(st.mode)}), not by uid ${uid} that runs the daemon; refusing to use it: chown it, or use another SIGNET_PATH`,
    );
  }
  tighten(path, st.mode, OWNER_ONLY_DIR, log);
}

/** One path the owner-only rule covers: its stat, or `link` where a symbolic link may not be. */
export interface OwnerOnlyPath {
  path: string;
  stat: Stats | "link";
  /** The mode it may have at most: 0700 for a directory, 0600 for a file. */
  allowed: number;
}

/** `directory`: the path must be one (the data directory, memory/, .daemon), whatever it is now. */
function entry(path: string, stat: Stats, directory = stat.isDirectory()): OwnerOnlyPath {
  return { path, stat, allowed: directory ? OWNER_ONLY_DIR : OWNER_ONLY_FILE };
}

/**
 * Every path of the data directory the owner-only rule covers (docs/security.md#files), as it is
 * now; missing ones are left out. The data directory and memory/ may be links the user made (to
 * another disk, say): their targets count. A linked agent.yaml (from a dotfiles checkout) is left
 * out: its target is not ours. Nothing in .daemon, nor the database, may be a link. The daemon
 * secures what this lists at start; `signet doctor` reports on it. Throws when a directory cannot be
 * listed.
 */
export function* ownerOnlyPaths(dataDir: string): Generator<OwnerOnlyPath> {
  const followed = (path: string) => (existsSync(path) ? entry(path, statSync(path), true) : undefined);
  const linked = (path: string, directory?: boolean): OwnerOnlyPath | undefined => {
    if (!existsSync(path) && !isLink(path)) return undefined;
    const st = lstatSync(path);
    return st.isSymbolicLink() ? { path, stat: "link", allowed: OWNER_ONLY_FILE } : entry(path, st, directory);
  };
  const root = followed(dataDir);
  if (!root) return;
  yield root;
  const db = databasePath(dataDir);
  const memoryDir = followed(dirname(db));
  if (memoryDir) yield memoryDir;
  for (const path of [db, `${db}-wal`, `${db}-shm`]) {
    const found = linked(path);
    if (found) yield found;
  }
  const yaml = configPath(dataDir);
  if (existsSync(yaml) && !lstatSync(yaml).isSymbolicLink()) yield entry(yaml, statSync(yaml));
  const tree = function* (path: string, directory?: boolean): Generator<OwnerOnlyPath> {
    const found = linked(path, directory);
    if (!found) return;
    yield found;
    if (found.stat === "link" || !found.stat.isDirectory()) return;
    for (const name of readdirSync(path)) yield* tree(join(path, name));
  };
  yield* tree(daemonDir(dataDir), true);
  yield* tree(secretsDir(dataDir), true);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Creates the data directory and .daemon owner-only if missing, tightens what is there, or throws
 * UnsafePathError. `log` is the caller's: the daemon's, or the CLI's for `signet daemon start`.
 */
export function secureDataDir(dataDir: string, log: Logger): void {
  makeOwnerOnlyDir(dataDir);
  for (const { path, stat, allowed } of ownerOnlyPaths(dataDir)) {
    if (stat === "link") throw symlinkRefused(path);
    // secureDir refuses what should be a directory and is not; other kinds of file are left alone.
    if (allowed === OWNER_ONLY_DIR) secureDir(path, stat, log);
    else if (stat.isFile()) tighten(path, stat.mode, allowed, log);
    // .daemon is created only in a data directory that proved ours; the walk reaches it last.
    if (path === dataDir && !isLink(daemonDir(dataDir))) makeOwnerOnlyDir(daemonDir(dataDir));
  }
}
