// Which files of a project are indexed (docs/code.md#indexing): the code files of the tree as
// files/walk.ts walks it (the project's .gitignore files applied), minus node_modules, .git and
// .graphiq below the root. The root itself may be anywhere, inside node_modules too. Symbolic
// links are not followed; a .gitignore is read as a document source reads one. The daemon's data
// directory is never entered, nor a file of it taken through a hard link (files/data-dir.ts).
import { lstatSync } from "node:fs";
import { relative, sep } from "node:path";
import { resolveDataDir } from "../../config/load";
import { DATA_DIR_REASON, DataDirFence } from "../files/data-dir";
import { walkTree } from "../files/walk";
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

/** What the listing left out on purpose, relative to the root: the data directory. */
export interface LeftOut {
  path: string;
  reason: string;
}

/**
 * The code files under `root` (a real path) that are indexed, sorted by path, none of the data
 * directory `dataDir` (a fence, or its path: by default the one SIGNET_PATH names, as the CLI's).
 * What of it was left out is added to `leftOut`.
 */
export function listSourceFiles(root: string, dataDir: DataDirFence | string = resolveDataDir(), leftOut: LeftOut[] = []): SourceFile[] {
  const fence = typeof dataDir === "string" ? new DataDirFence(dataDir) : dataDir;
  const files: SourceFile[] = [];
  const rel = (path: string) => relative(root, path).split(sep).join("/") || ".";
  for (const item of walkTree(root, { skipDirs: ALWAYS_SKIPPED, readIgnoreFile: (path) => readIgnoreFile(path, root, fence), fence })) {
    if (item.kind === "data-dir") leftOut.push({ path: rel(item.path), reason: DATA_DIR_REASON });
    // A directory that cannot be listed, or whose .gitignore cannot be read, has nothing indexed.
    if (item.kind !== "entry" || !item.dirent.isFile() || !languageOf(item.dirent.name)) continue;
    let stat;
    try {
      stat = lstatSync(item.path);
    } catch {
      continue; // gone since it was listed
    }
    if (!stat.isFile()) continue;
    // A hard link of one of the data directory's files is that file.
    if (fence.has(stat)) {
      leftOut.push({ path: item.relative, reason: DATA_DIR_REASON });
      continue;
    }
    files.push({ path: item.relative, size: stat.size, mtimeMs: stat.mtimeMs, dev: stat.dev, ino: stat.ino });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
