// `POST /api/backup` (docs/api.md#post-apibackup): a consistent copy of the live database in one
// file, made with SQLite's VACUUM INTO from one snapshot. The copy is created here first, exclusively
// and owner-only (it holds every memory), so an existing file or link is never overwritten or followed.
import { closeSync, constants, lstatSync, rmSync, statSync } from "node:fs";
import type { BackupResponse } from "../../contracts/transfer";
import { SignetError, invalidInput } from "../../contracts/errors";
import { newFilePlaceProblem } from "../../os/new-file";
import { openOwnerOnly } from "../../os/owner-only-files";
import type { Database } from "bun:sqlite";
import { SqliteMemoryRows } from "../memory/sqlite-store";

/** Copies the database `db` to the absolute `path`, which must not exist yet. */
export function backupDatabase(db: Database, path: string): BackupResponse {
  try {
    closeSync(openOwnerOnly(path, constants.O_WRONLY | constants.O_EXCL));
  } catch (err) {
    throw refusal(path, err);
  }
  try {
    // VACUUM INTO writes into an empty file; ours is, with mode 0600. The copy runs synchronously, so
    // no write lands between the count and the copy: the count is the copy's.
    const memories = new SqliteMemoryRows(db).count(true);
    db.run("VACUUM INTO ?", [path]);
    return { path, bytes: statSync(path).size, memories };
  } catch (err) {
    rmSync(path, { force: true });
    throw err;
  }
}

function refusal(path: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const place = newFilePlaceProblem(path, code);
  if (place) return invalidInput(place);
  switch (code) {
    case "EEXIST":
      return new SignetError("exists", `${path} ${whatIsThere(path)}: a backup never overwrites a file, give a new file name`);
    case "EISDIR":
      return invalidInput(`cannot create ${path}: it is a directory; give a file name`);
    case "ELOOP":
      return invalidInput(`cannot create ${path}: too many symbolic links on the way`);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return invalidInput(`cannot create ${path}: the daemon may not write there (${code})`);
    default:
      return err as Error;
  }
}

/** What is at a path a backup found taken, in words. */
function whatIsThere(path: string): string {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return "is a symbolic link (refusing to write through it)";
    if (st.isDirectory()) return "is a directory";
  } catch {
    // gone since: it was there a moment ago
  }
  return "already exists";
}
