// What a source may read (docs/api.md#sources), as the owner: regular files inside the source, each
// within a byte limit. A path is looked at with lstat, never through a link: a link is resolved and
// taken only when its target stays inside the source. A file is then opened without following a
// link and without blocking (a named pipe would otherwise hold the open until a writer comes), and
// what was opened is checked, not what the path named a moment before: a regular file, the one
// the walk saw, reached inside the source, and none of the daemon's data directory (files/data-dir.ts),
// whether by a link, a hard link or a bind mount.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { NotADocument, sizeText } from "./extract";
import { DATA_DIR_REASON, type DataDirFence } from "../files/data-dir";
import { isWithin } from "../../os/path-within";

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A file as lstat saw it, to be read from `readPath` (itself, or a link's target inside the source). */
export interface Examined {
  readPath: string;
  stats: Stats;
}

/** What a path that is neither a file nor a directory is, for messages. */
export function kindOf(st: Stats): string {
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  if (st.isFIFO()) return "a named pipe";
  if (st.isSymbolicLink()) return "a symbolic link";
  if (st.isDirectory()) return "a directory";
  return "not a regular file";
}

/** An I/O error as messages name it: its code (ENOENT, EACCES), or its message when it has none. */
export const errCode = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/**
 * A directory entry that is not a directory, by its lstat: a regular file within `limit` bytes, or
 * a link to one inside `root`, neither of them in the data directory `fence` keeps out. Anything
 * else is refused with the reason (NotADocument).
 */
export function examine(path: string, root: string, limit: number, fence?: DataDirFence | null): Examined {
  let stats = lstatOrRefuse(path);
  let readPath = path;
  if (stats.isSymbolicLink()) {
    readPath = linkTarget(path, root);
    if (fence?.holds(readPath)) throw new NotADocument(`a symbolic link to ${readPath}: ${DATA_DIR_REASON}`);
    stats = lstatOrRefuse(readPath);
    if (stats.isDirectory()) throw new NotADocument("a symbolic link to a directory (links to directories are not followed)");
  }
  if (fence && (fence.has(stats) || fence.under(readPath))) throw new NotADocument(DATA_DIR_REASON);
  if (!stats.isFile()) throw new NotADocument(`${kindOf(stats)}, not a regular file`);
  if (stats.size > limit) throw new NotADocument(`larger than ${sizeText(limit)}`);
  return { readPath, stats };
}

function lstatOrRefuse(path: string): Stats {
  try {
    return lstatSync(path);
  } catch (err) {
    throw new NotADocument(`cannot stat it (${errCode(err)})`);
  }
}

/** Where the link at `path` leads, when that is inside `root`. */
function linkTarget(path: string, root: string): string {
  let target: string;
  try {
    target = realpathSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new NotADocument("a symbolic link to nothing (its target does not exist)");
    if (code === "ELOOP") throw new NotADocument("a symbolic link loop");
    throw new NotADocument(`a symbolic link that cannot be resolved (${errCode(err)})`);
  }
  if (!isWithin(target, root)) throw new NotADocument(`a symbolic link to ${target}, outside the source (not followed)`);
  return target;
}

/**
 * The bytes of the regular file at `path`, which the walk saw as `seen`: opened without following a
 * link or blocking, it must still be that file (device and inode), be reached inside `root` and
 * outside the data directory `fence` keeps out, and hold at most `limit` bytes (a file growing
 * meanwhile is read up to the limit only). A refusal is a NotADocument with the reason; an I/O
 * error is thrown as it is.
 */
export function readWithin(path: string, root: string, limit: number, seen: { dev: number; ino: number }, fence?: DataDirFence | null): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOOP") throw new NotADocument("replaced by a symbolic link while the source was read");
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotADocument(`${kindOf(st)}, not a regular file`);
    if (st.dev !== seen.dev || st.ino !== seen.ino) throw new NotADocument("replaced while the source was read (the next sync takes it)");
    const opened = openedPath(fd, path, st);
    if (!isWithin(opened, root)) throw new NotADocument("reached through a symbolic link to outside the source");
    // What was opened, not what the walk saw: a hard link of one of its files, or a path that now
    // leads into it (a directory on the way swapped for a link, a bind mount).
    if (fence && (fence.has(st) || fence.holds(opened, true))) throw new NotADocument(DATA_DIR_REASON);
    if (st.size > limit) throw new NotADocument(`larger than ${sizeText(limit)}`);
    return readAtMost(fd, limit, st.size);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens `path` as readWithin does and closes it: proves it a regular file the daemon's account can
 * open (access() would say yes to root for files it cannot open). Returns what was opened.
 */
export function probe(path: string): Stats {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    return fstatSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The path of the file open as `fd`. Linux names it in /proc: the kernel's answer, so a directory on
 * the way that was swapped for a link and back cannot hide where the file is. Elsewhere: the path
 * resolved now, if the same file (device and inode) is there.
 */
function openedPath(fd: number, path: string, st: Stats): string {
  if (process.platform === "linux") {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      // no /proc: resolve the path as below
    }
  }
  const real = realpathSync(path);
  const there = lstatSync(real);
  return there.dev === st.dev && there.ino === st.ino ? real : "";
}

function readAtMost(fd: number, limit: number, size: number): Uint8Array {
  let buf = new Uint8Array(Math.min(size, limit) + 1);
  let n = 0;
  for (;;) {
    if (n === buf.length) {
      if (n > limit) throw new NotADocument(`larger than ${sizeText(limit)}`);
      const grown = new Uint8Array(Math.min(n * 2, limit + 1));
      grown.set(buf);
      buf = grown;
    }
    const wanted = buf.length - n;
    const got = readSync(fd, buf, n, wanted, null);
    n += got;
    // A regular file reads short only at its end.
    if (got < wanted) return buf.subarray(0, n);
  }
}
