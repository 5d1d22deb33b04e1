// `signet index` keeps its index out of git (docs/code.md#storage): `.graphiq/` goes to the
// repository's own ignore list, .git/info/exclude, which is never committed, once. The project's
// .gitignore is the team's file and is never edited.
import { appendFileSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const PATTERN = ".graphiq/";

/**
 * The git directory of the repository `dir` is in, looking up from it: a `.git` folder, or the one a
 * `.git` file names (a worktree, a submodule); null outside any repository.
 */
function gitDirOf(dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    const dotGit = join(d, ".git");
    const stat = statSync(dotGit, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return dotGit;
    if (stat?.isFile()) {
      const named = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1];
      if (named) return resolve(d, named.trim());
    }
    if (dirname(d) === d) return null;
  }
}

/** Where info/exclude is read from: a worktree's git directory names the shared one in `commondir`. */
function commonDirOf(gitDir: string): string {
  try {
    return resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim());
  } catch {
    return gitDir;
  }
}

export interface GitExclude {
  /** The exclude file. */
  path: string;
  /** False when a line of it already excluded the index, or it could not be written. */
  added: boolean;
  /** Why it could not be written (a read-only repository): the index is made all the same. */
  problem?: string;
}

/** Adds `.graphiq/` to the info/exclude of the repository `project` is in; null when it is in none. */
export function excludeIndexFromGit(project: string): GitExclude | null {
  const gitDir = gitDirOf(project);
  if (!gitDir) return null;
  const path = join(commonDirOf(gitDir), "info", "exclude");
  let current = "";
  try {
    current = readFileSync(path, "utf8");
  } catch {
    // No exclude file yet (git writes a commented one at init; a bare clone may have none).
  }
  // Unanchored, the pattern excludes an index at any depth: a project indexed inside the repository too.
  if (current.split(/\r?\n/).some((line) => line.trim() === PATTERN || line.trim() === ".graphiq")) return { path, added: false };
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  try {
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, `${separator}# Signet's code index (signet index)\n${PATTERN}\n`);
  } catch (err) {
    return { path, added: false, problem: (err as Error).message };
  }
  return { path, added: true };
}
