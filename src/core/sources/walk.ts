// The files of a directory source (docs/api.md#sources), with ignore.ts's skips and the source's
// glob applied. Each entry is looked at with lstat (read.ts's examine): regular files within their
// byte limit are taken, a link only when its target is a file inside the source; everything else is
// reported skipped. Directories are entered only as what they are, never through a link, and each
// once. Reading the files is the caller's job (read.ts's readWithin), against what is seen here.
import { lstatSync, readdirSync, type Stats } from "node:fs";
import { join, relative } from "node:path";
import type { SkippedFile } from "../../contracts/sources";
import { yieldToLoop } from "../event-loop";
import { NotADocument, byteLimitOf } from "./extract";
import { IgnoreRules, hasBinaryExtension, isSkippedDir } from "./ignore";
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
}

/** Directory entries looked at between yields to the event loop, so the daemon answers meanwhile. */
const ENTRIES_PER_STEP = 500;
/** A .gitignore larger than this is not a list of patterns: its directory is skipped. */
const MAX_IGNORE_BYTES = 256 * 1024;

export function foundFile(path: string, rel: string, { readPath, stats }: Examined): FoundFile {
  return { path, relative: rel, readPath, stats, size: stats.size, mtimeMs: stats.mtimeMs };
}

/** The files under `root` (a directory, its path free of links) that a source with `glob` takes. */
export async function walkDirectory(root: string, glob: string | null): Promise<WalkResult> {
  const files: FoundFile[] = [];
  const skipped: SkippedFile[] = [];
  const match = glob === null ? null : new Bun.Glob(glob);
  // The .gitignore rules in force: each with the directory its paths are relative to.
  const stack: { dir: string; rules: IgnoreRules | null }[] = [];
  // Directories entered, by device and inode: one swapped for a link to another is not walked twice.
  const entered = new Set<string>();
  let seen = 0;

  const ignored = (path: string, isDir: boolean): boolean => {
    let verdict: boolean | undefined;
    for (const { dir, rules } of stack) {
      const v = rules?.verdict(relative(dir, path), isDir);
      if (v !== undefined) verdict = v;
    }
    return verdict === true;
  };

  const visit = async (dir: string): Promise<void> => {
    let st: Stats;
    try {
      st = lstatSync(dir);
    } catch (err) {
      skipped.push({ path: dir, reason: `cannot read the directory (${errCode(err)})` });
      return;
    }
    // A directory replaced by a link (or anything else) after its parent was listed.
    if (!st.isDirectory()) {
      skipped.push({ path: dir, reason: `${kindOf(st)}, not a directory (it changed while the source was walked)` });
      return;
    }
    const key = `${st.dev}:${st.ino}`;
    if (entered.has(key)) return;
    entered.add(key);
    let rules: IgnoreRules | null;
    try {
      rules = ignoreRules(dir, root);
    } catch (err) {
      if (!(err instanceof NotADocument)) throw err;
      // Its rules say what must not be taken: without them nothing here is.
      skipped.push({ path: join(dir, ".gitignore"), reason: `${err.message}: its directory is skipped` });
      return;
    }
    stack.push({ dir, rules });
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      skipped.push({ path: dir, reason: `cannot read the directory (${errCode(err)})` });
      stack.pop();
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++seen % ENTRIES_PER_STEP === 0) await yieldToLoop();
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (isSkippedDir(entry.name) || ignored(path, true)) continue;
        await visit(path);
        continue;
      }
      if (entry.name === ".gitignore" || ignored(path, false)) continue;
      const rel = relative(root, path);
      if (match && !match.match(rel)) continue;
      if (hasBinaryExtension(entry.name)) {
        skipped.push({ path, reason: "a binary file" });
        continue;
      }
      try {
        files.push(foundFile(path, rel, examine(path, root, byteLimitOf(path))));
      } catch (err) {
        if (!(err instanceof NotADocument)) throw err;
        skipped.push({ path, reason: err.message });
      }
    }
    stack.pop();
  };

  await visit(root);
  return { files, skipped };
}

/** The rules of `dir`'s .gitignore (read as any file of the source is), null when it has none. */
function ignoreRules(dir: string, root: string): IgnoreRules | null {
  const path = join(dir, ".gitignore");
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new NotADocument(`cannot stat it (${errCode(err)})`);
  }
  if (st.isDirectory()) return null;
  const { readPath, stats } = examine(path, root, MAX_IGNORE_BYTES);
  try {
    return new IgnoreRules(new TextDecoder().decode(readWithin(readPath, root, MAX_IGNORE_BYTES, stats)));
  } catch (err) {
    if (err instanceof NotADocument) throw err;
    throw new NotADocument(`cannot read it (${errCode(err)})`);
  }
}
