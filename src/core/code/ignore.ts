// Which files of a project are indexed (docs/code.md#indexing): the code files of the tree as
// files/walk.ts walks it (the project's .gitignore files applied), minus node_modules, .git and
// .graphiq below the root. The root itself may be anywhere, inside node_modules too. Symbolic
// links are not followed; a .gitignore is read as a document source reads one. The daemon's data
// directory is never entered, nor a file of it taken through a hard link (files/data-dir.ts). A
// folder the walk cannot take (it cannot be listed, or its .gitignore cannot be read so) is said,
// never dropped in silence: it is part of the project, and nothing in it is indexed.
import { lstatSync } from "node:fs";
import { relative, sep } from "node:path";
import { resolveDataDir } from "../../config/load";
import { DATA_DIR_REASON, DataDirFence } from "../files/data-dir";
import { walkTree, type TreeProblem } from "../files/walk";
import { errCode, kindOf } from "../sources/read";
import { readIgnoreFile } from "../sources/walk";
import { languageOf } from "./languages";

const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(["node_modules", ".git", ".graphiq"]);

export interface SourceFile {
  /** Relative to the root, with forward slashes. */
  path: string;
  size: number;
  mtimeMs: number;
  /** The file the listing saw: reading it checks that the file opened is this one. */
  dev: number;
  ino: number;
}

/** What the listing left out, relative to the root ("." for the root itself). */
export interface LeftOut {
  path: string;
  reason: string;
  /** The data directory, left out by design; otherwise a folder or file that could not be taken. */
  onPurpose: boolean;
}

/**
 * The code files under `root` (a real path) that are indexed, sorted by path, none of the data
 * directory `dataDir` (a fence, or its path: by default the one SIGNET_PATH names, as the CLI's).
 * What of it was left out, and why, is added to `leftOut`.
 */
export function listSourceFiles(root: string, dataDir: DataDirFence | string = resolveDataDir(), leftOut: LeftOut[] = []): SourceFile[] {
  const fence = typeof dataDir === "string" ? new DataDirFence(dataDir) : dataDir;
  const files: SourceFile[] = [];
  const rel = (path: string) => relative(root, path).split(sep).join("/") || ".";
  for (const item of walkTree(root, { skipDirs: ALWAYS_SKIPPED, readIgnoreFile: (path) => readIgnoreFile(path, root, fence), fence })) {
    if (item.kind !== "entry") {
      leftOut.push({ path: rel(item.path), reason: whyLeftOut(item), onPurpose: item.kind === "data-dir" });
      continue;
    }
    if (!item.dirent.isFile() || !languageOf(item.dirent.name)) continue;
    let stat;
    try {
      stat = lstatSync(item.path);
    } catch {
      continue; // gone since it was listed
    }
    if (!stat.isFile()) continue;
    // A hard link of one of the data directory's files is that file.
    if (fence.has(stat)) {
      leftOut.push({ path: item.relative, reason: DATA_DIR_REASON, onPurpose: true });
      continue;
    }
    files.push({ path: item.relative, size: stat.size, mtimeMs: stat.mtimeMs, dev: stat.dev, ino: stat.ino });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Why the walk left a folder out, as `failed` and doctor say it. */
function whyLeftOut(problem: TreeProblem): string {
  switch (problem.kind) {
    case "data-dir":
      return DATA_DIR_REASON;
    case "unreadable":
      return `the folder cannot be read (${errCode(problem.error)}): nothing in it is indexed`;
    case "not-a-directory":
      return `${kindOf(problem.stats)}, not a folder (it changed while the project was listed): nothing in it is indexed`;
    case "ignore-file":
      return `${(problem.error as Error).message}: nothing in its folder is indexed`;
  }
}
