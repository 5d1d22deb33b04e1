// The files of a source (docs/api.md#sources): a file itself, or a directory walked without following
// symbolic links, with ignore.ts's skips and the source's glob applied. Only stat()s here; reading
// is extract.ts's job.
import { readFileSync, readdirSync, statSync, type Stats } from "node:fs";
import { join, relative } from "node:path";
import type { SkippedFile } from "../../contracts/sources";
import { yieldToLoop } from "../event-loop";
import { IgnoreRules, hasBinaryExtension, isSkippedDir } from "./ignore";

export interface FoundFile {
  path: string;
  /** The path relative to the source's root (the file name for a file source). */
  relative: string;
  size: number;
  mtimeMs: number;
}

export interface WalkResult {
  files: FoundFile[];
  skipped: SkippedFile[];
}

/** Directory entries looked at between yields to the event loop, so the daemon answers meanwhile. */
const ENTRIES_PER_STEP = 500;

/** What a path that is neither a file nor a directory is, for messages. */
export function kindOf(st: Stats): string {
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  if (st.isFIFO()) return "a named pipe";
  if (st.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

/** The files under `root` (a directory) that a source with `glob` takes. */
export async function walkDirectory(root: string, glob: string | null): Promise<WalkResult> {
  const files: FoundFile[] = [];
  const skipped: SkippedFile[] = [];
  const match = glob === null ? null : new Bun.Glob(glob);
  // The .gitignore rules in force: each with the directory its paths are relative to.
  const stack: { dir: string; rules: IgnoreRules | null }[] = [];
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
    let rules: IgnoreRules | null = null;
    try {
      rules = new IgnoreRules(readFileSync(join(dir, ".gitignore"), "utf8"));
    } catch {
      // no .gitignore here (or unreadable: nothing to apply)
    }
    stack.push({ dir, rules });
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      skipped.push({ path: dir, reason: `cannot read the directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
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
      if (entry.isSymbolicLink()) {
        skipped.push({ path, reason: "a symbolic link (links are not followed)" });
        continue;
      }
      if (!entry.isFile()) {
        skipped.push({ path, reason: "not a regular file" });
        continue;
      }
      if (hasBinaryExtension(entry.name)) {
        skipped.push({ path, reason: "a binary file" });
        continue;
      }
      try {
        const st = statSync(path);
        files.push({ path, relative: rel, size: st.size, mtimeMs: st.mtimeMs });
      } catch (err) {
        skipped.push({ path, reason: `cannot stat it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
      }
    }
    stack.pop();
  };

  await visit(root);
  return { files, skipped };
}
