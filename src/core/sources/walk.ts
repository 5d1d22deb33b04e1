// The files of a directory source (docs/api.md#sources): the tree as files/walk.ts walks it (its
// .gitignore files applied, directories entered only as what they are and each once), less
// ignore.ts's skips and what the source's glob leaves out. Each entry is looked at with lstat
// (read.ts's examine): regular files within their byte limit are taken, a link only when its target
// is a file inside the source; everything else is reported skipped. Reading the files is the
// caller's job (read.ts's readWithin), against what is seen here. The daemon's data directory is
// never entered and nothing in it is taken, even through a link (files/data-dir.ts): it is reported.
// A directory that is there but cannot be listed (EACCES, EIO: a permission or a network mount's
// hiccup) is reported too, and named in `unlisted`: what was taken from it keeps its chunks, as an
// unreadable file does, rather than leaving because the walk did not see it.
import { lstatSync, type Stats } from "node:fs";
import type { SkippedFile } from "../../contracts/sources";
import { yieldToLoop } from "../event-loop";
import { DATA_DIR_REASON, type DataDirFence } from "../files/data-dir";
import { NameNotUtf8, walkTree, type TreeProblem } from "../files/walk";
import { NotADocument, byteLimitOf } from "./extract";
import { SKIPPED_DIRS, hasBinaryExtension } from "./ignore";
import { errCode, examine, kindOf, readWithin, type Examined } from "./read";

export interface FoundFile {
  /** The path as it is in the source (a link's own path). */
  path: string;
  /** The path relative to the source's root (the file name for a file source). */
  relative: string;
  /** Where it is read from: the path itself, or a link's target inside the source. */
  readPath: string;
  /** The file as lstat saw it: reading checks that the file opened is this one. */
  stats: Stats;
  size: number;
  mtimeMs: number;
}

export interface WalkResult {
  files: FoundFile[];
  skipped: SkippedFile[];
  /** Directories that exist but could not be listed: the files under them were not seen, not found gone. */
  unlisted: string[];
}

/** A file or directory whose name is not UTF-8: the index keeps paths as text, and no text names it. */
const NOT_UTF8_REASON = "its name is not valid UTF-8: rename it to have it indexed";
/** Errors that say a directory is not there (any more): its files are gone, unlike those of one that cannot be listed. */
const GONE = new Set(["ENOENT", "ENOTDIR"]);

/** Directory entries looked at between yields to the event loop, so the daemon answers meanwhile. */
const ENTRIES_PER_STEP = 500;
/** A .gitignore larger than this is not a list of patterns: its directory is skipped. */
const MAX_IGNORE_BYTES = 256 * 1024;

export function foundFile(path: string, rel: string, { readPath, stats }: Examined): FoundFile {
  return { path, relative: rel, readPath, stats, size: stats.size, mtimeMs: stats.mtimeMs };
}

/**
 * The files under `root` (a directory, its path free of links) that a source with `glob` takes,
 * none of them in the data directory `fence` keeps out.
 */
export async function walkDirectory(root: string, glob: string | null, fence: DataDirFence | null = null): Promise<WalkResult> {
  const files: FoundFile[] = [];
  const skipped: SkippedFile[] = [];
  const unlisted: string[] = [];
  const match = glob === null ? null : new Bun.Glob(glob);
  let seen = 0;
  for (const item of walkTree(root, { skipDirs: SKIPPED_DIRS, readIgnoreFile: (path) => readIgnoreFile(path, root, fence), fence })) {
    if (++seen % ENTRIES_PER_STEP === 0) await yieldToLoop();
    if (item.kind !== "entry") {
      skipped.push(skippedDirectory(item));
      if (item.kind === "unreadable" && !(item.error instanceof NameNotUtf8) && !GONE.has(errCode(item.error))) unlisted.push(item.path);
      continue;
    }
    const { path, relative: rel, dirent } = item;
    if (dirent.name === ".gitignore") continue;
    if (match && !match.match(rel)) continue;
    if (hasBinaryExtension(dirent.name)) {
      skipped.push({ path, reason: "a binary file" });
      continue;
    }
    if (item.notUtf8) {
      skipped.push({ path, reason: NOT_UTF8_REASON });
      continue;
    }
    try {
      files.push(foundFile(path, rel, examine(path, root, byteLimitOf(path), fence)));
    } catch (err) {
      if (!(err instanceof NotADocument)) throw err;
      skipped.push({ path, reason: err.message });
    }
  }
  return { files, skipped, unlisted };
}

/** A directory the walk left out, as the answer's `skipped` names it. */
function skippedDirectory(problem: TreeProblem): SkippedFile {
  const { path } = problem;
  if (problem.kind === "data-dir") return { path, reason: DATA_DIR_REASON };
  if (problem.kind === "not-a-directory") return { path, reason: `${kindOf(problem.stats)}, not a directory (it changed while the source was walked)` };
  if (problem.kind === "unreadable" && problem.error instanceof NameNotUtf8) return { path, reason: NOT_UTF8_REASON };
  if (problem.kind === "unreadable") return { path, reason: `cannot read the directory (${errCode(problem.error)})` };
  return { path, reason: `${(problem.error as Error).message}: its directory is skipped` };
}

/**
 * The text of the .gitignore at `path` under `root`, read as any file of a source is (a regular
 * file, or a link to one inside `root`, within 256 KiB, not in the data directory `fence` keeps
 * out); null when it is gone. Anything else is refused with the reason (NotADocument).
 */
export function readIgnoreFile(path: string, root: string, fence: DataDirFence | null = null): string | null {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new NotADocument(`cannot stat it (${errCode(err)})`);
  }
  if (st.isDirectory()) return null;
  const { readPath, stats } = examine(path, root, MAX_IGNORE_BYTES, fence);
  try {
    return new TextDecoder().decode(readWithin(readPath, root, MAX_IGNORE_BYTES, stats, fence));
  } catch (err) {
    if (err instanceof NotADocument) throw err;
    throw new NotADocument(`cannot read it (${errCode(err)})`);
  }
}
