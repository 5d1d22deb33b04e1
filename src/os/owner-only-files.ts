// Owner-only files: the data directory holds memories (and soon tokens and keys), so what we create
// there is readable by our account alone, and is never reached through a symbolic link, which would
// let whoever planted it redirect our writes to a file of their choosing.
import { closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, type Stats } from "node:fs";
import { dirname } from "node:path";

export const OWNER_ONLY_FILE = 0o600;
export const OWNER_ONLY_DIR = 0o700;

/** A file's permission bits as people write them: `0600`, `0755`. */
export const octalMode = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");

/** A data-directory path the daemon refuses to use; the message names the path and what to do. */
export class UnsafePathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsafePathError";
  }
}

export function symlinkRefused(path: string): UnsafePathError {
  return new UnsafePathError(`${path} is a symbolic link; refusing to follow it (remove it)`);
}

/** lstat of `path`, undefined when it does not exist; throws when it is a symbolic link. */
export function lstatRefusingSymlink(path: string): Stats | undefined {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  if (st.isSymbolicLink()) throw symlinkRefused(path);
  return st;
}

// The umask can only clear bits, so the modes below are never loosened by it; no chmod is needed.

export function makeOwnerOnlyDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: OWNER_ONLY_DIR });
}

/**
 * Opens `path` with `flags` plus O_CREAT | O_NOFOLLOW: created 0600 when missing, refused when it is
 * a symbolic link. Returns the file descriptor.
 */
export function openOwnerOnly(path: string, flags: number): number {
  try {
    return openSync(path, flags | constants.O_CREAT | constants.O_NOFOLLOW, OWNER_ONLY_FILE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOOP") throw symlinkRefused(path);
    throw err;
  }
}

/** Creates `path` 0600 if missing and refuses a symbolic link there: for files SQLite then opens by name. */
export function ensureOwnerOnlyFile(path: string): void {
  closeSync(openOwnerOnly(path, constants.O_RDWR));
}

function writeNewFile(path: string, content: string | Uint8Array, durable = false): void {
  const fd = openOwnerOnly(path, constants.O_WRONLY | constants.O_EXCL);
  try {
    writeFileSync(fd, content);
    if (durable) fsyncSync(fd);
  } catch (err) {
    rmSync(path, { force: true });
    throw err;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `content` to `path`, mode 0600, never through a symbolic link. `exclusive`: create it, failing
 * with EEXIST if anything (a file or a link) is there already. Otherwise replace it atomically: write
 * an exclusively created temporary file beside it, then rename it over `path`. `durable`: the file
 * is on disk before the rename and the rename is on disk before returning (fsync of both), so a
 * crash or power loss leaves the old content or the new, never a torn or empty file.
 */
export function writeOwnerOnlyFile(
  path: string,
  content: string | Uint8Array,
  options: { exclusive?: boolean; durable?: boolean } = {},
): void {
  const durable = options.durable === true;
  if (options.exclusive) {
    writeNewFile(path, content, durable);
    if (durable) syncDir(dirname(path));
    return;
  }
  const tmp = `${path}.${process.pid}.tmp`;
  // Left by a crashed writer whose pid we now have: removed, never written through.
  rmSync(tmp, { force: true });
  writeNewFile(tmp, content, durable);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  if (durable) syncDir(dirname(path));
}

/** Makes a rename or creation in `dir` durable. */
function syncDir(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
