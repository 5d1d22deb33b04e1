// Which files of a project are indexed (docs/code.md#indexing): the code files of the tree as
// files/walk.ts walks it (the project's .gitignore files applied), minus node_modules, .git and
// .graphiq below the root. The root itself may be anywhere, inside node_modules too. Symbolic
// links are not followed; a .gitignore is read as a document source reads one.
import { statSync } from "node:fs";
import { walkTree } from "../files/walk";
import { readIgnoreFile } from "../sources/walk";
import { languageOf } from "./languages";

const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(["node_modules", ".git", ".graphiq"]);

export interface SourceFile {
  /** Relative to the root, with forward slashes. */
  path: string;
  size: number;
  mtimeMs: number;
}

/** The code files under `root` (a real path) that are indexed, sorted by path. */
export function listSourceFiles(root: string): SourceFile[] {
  const out: SourceFile[] = [];
  for (const item of walkTree(root, { skipDirs: ALWAYS_SKIPPED, readIgnoreFile: (path) => readIgnoreFile(path, root) })) {
    // A directory that cannot be listed, or whose .gitignore cannot be read, has nothing indexed.
    if (item.kind !== "entry" || !item.dirent.isFile() || !languageOf(item.dirent.name)) continue;
    const stat = statSync(item.path, { throwIfNoEntry: false });
    if (stat) out.push({ path: item.relative, size: stat.size, mtimeMs: stat.mtimeMs });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
