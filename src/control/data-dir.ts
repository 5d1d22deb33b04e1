// Checked before the daemon takes its lock: the data directory and what the daemon keeps in it are
// owner-only. Looser modes (left by an older version, a umask, a copy) are tightened, each one logged;
// a directory another account owns or can still write, or a symbolic link where the daemon writes,
// stops the start with an error naming the path.
import { chmodSync, existsSync, lstatSync, readdirSync, statSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { OWNER_ONLY_DIR, OWNER_ONLY_FILE, UnsafePathError, lstatRefusingSymlink, makeOwnerOnlyDir } from "../os/owner-only-files";
import type { Logger } from "../logger";
import { configPath, daemonDir, databasePath } from "../config/paths";

const octal = (mode: number) => mode.toString(8).padStart(4, "0");

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
      `${path} is owned by uid ${st.uid} (mode ${octal(st.mode & 0o7777)}), not by uid ${uid} that runs the daemon; refusing to use it: chown it, or use another SIGNET_PATH`,
    );
  }
  tighten(path, st.mode, OWNER_ONLY_DIR, log);
}

/** Everything under .daemon: directories 0700, files 0600, no symbolic links. */
function secureTree(dir: string, log: Logger): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatRefusingSymlink(path);
    if (st?.isDirectory()) {
      secureDir(path, st, log);
      secureTree(path, log);
    } else if (st?.isFile()) {
      tighten(path, st.mode, OWNER_ONLY_FILE, log);
    }
  }
}

/**
 * Creates the data directory and .daemon owner-only if missing, tightens what is there, or throws
 * UnsafePathError. `log` is the caller's: the daemon's, or the CLI's for `signet daemon start`.
 */
export function secureDataDir(dataDir: string, log: Logger): void {
  // The data directory and memory/ may be links the user made (to another disk, say): their targets
  // are checked. .daemon is the daemon's alone and never a link.
  makeOwnerOnlyDir(dataDir);
  secureDir(dataDir, statSync(dataDir), log);
  const db = databasePath(dataDir);
  if (existsSync(dirname(db))) secureDir(dirname(db), statSync(dirname(db)), log);
  for (const path of [db, `${db}-wal`, `${db}-shm`]) {
    const st = lstatRefusingSymlink(path);
    if (st?.isFile()) tighten(path, st.mode, OWNER_ONLY_FILE, log);
  }
  // A linked agent.yaml (from a dotfiles checkout) is left alone: its target is not ours to chmod.
  const yaml = configPath(dataDir);
  const yamlStat = existsSync(yaml) ? lstatSync(yaml) : undefined;
  if (yamlStat?.isFile()) tighten(yaml, yamlStat.mode, OWNER_ONLY_FILE, log);
  const dir = daemonDir(dataDir);
  if (!lstatRefusingSymlink(dir)) makeOwnerOnlyDir(dir);
  secureDir(dir, lstatSync(dir), log);
  secureTree(dir, log);
}
