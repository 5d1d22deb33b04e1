// The one way the code index reads a file of a project (docs/security.md#the-data-directory-is-never-indexed):
// a run's hashing, a symbol's source in `signet code context`, status's and doctor's hashes and the
// manifest all go through here, at query time as at index time. A path is never followed through a
// link; what is opened (without blocking: a named pipe would hold the daemon until a writer comes)
// must be a regular file, reached inside the project, none of the daemon's data directory (a hard
// link of its admin token included) and within a byte limit. The reading itself is the one document
// sources use (sources/read.ts), so both keep the same rules.
import { lstatSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { isWithin } from "../../os/path-within";
import type { DataDirFence } from "../files/data-dir";
import { NotADocument } from "../sources/extract";
import { errCode, kindOf, readWithin } from "../sources/read";

/** Larger code files are generated or bundled more often than written: not indexed, and not read. */
export const MAX_FILE_BYTES = 1024 * 1024;

/** A file the code index does not read, and why; the message never holds any of its content. */
export class NotReadable extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = "NotReadable";
  }
}

/**
 * The bytes of `relative` (with `/`) in `project` (a real path): a regular file, not a link, at most
 * `limit` bytes, outside the data directory `fence` keeps out, and, when `seen` is given, the file a
 * listing saw there (device and inode). Anything else throws NotReadable with the reason: a path
 * that is not there too (`reason` "missing").
 */
export function readProjectFile(
  project: string,
  relative: string,
  limit: number,
  fence: DataDirFence | null,
  seen?: { dev: number; ino: number },
): Uint8Array {
  const path = join(project, relative);
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    throw new NotReadable(relative, errCode(err) === "ENOENT" ? "missing" : `cannot be read (${errCode(err)})`);
  }
  if (st.isSymbolicLink()) throw new NotReadable(relative, "a symbolic link (not followed)");
  if (!st.isFile()) throw new NotReadable(relative, `${kindOf(st)}, not a regular file`);
  if (seen && (st.dev !== seen.dev || st.ino !== seen.ino)) throw new NotReadable(relative, "replaced since the project was listed (the next run takes it)");
  try {
    // A folder on its way that is a link (swapped in since the run): the file is not the project's.
    if (!isWithin(realpathSync(path), project)) throw new NotReadable(relative, "reached through a symbolic link to outside the project (not followed)");
    // readWithin checks again what it opened: a link or a pipe swapped in since the lstat is refused.
    return readWithin(path, project, limit, seen ?? st, fence);
  } catch (err) {
    if (err instanceof NotReadable) throw err;
    if (err instanceof NotADocument) throw new NotReadable(relative, err.message);
    throw new NotReadable(relative, `cannot be read (${errCode(err)})`);
  }
}
