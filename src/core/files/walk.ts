// The files of a directory tree that git would not ignore (docs/code.md#indexing,
// docs/api.md#sources), shared by document sources and the code index: every .gitignore in the tree
// applies to its directory and below (gitignore.ts), and directories with a name the caller skips
// are not entered below the root. Directories are entered only as what they are (never through a
// link), each once, in name order; everything else in them (files, links, pipes, devices, sockets)
// is handed to the caller, which decides what it takes and how it reads it. A .gitignore is read
// by the caller's reader too, so both read it with the care they read any file with. The daemon's
// data directory is never entered, whatever path leads to it (data-dir.ts). Paths are strings here:
// a name that is not UTF-8 has none that opens it, so a directory named so is reported, not
// entered, and a file named so is handed over marked as such (the caller may not want it anyway).
import { lstatSync, readdirSync, type Dirent, type Stats } from "node:fs";
import { join } from "node:path";
import type { Ignore } from "ignore";
import { fileIdentity, type DataDirFence } from "./data-dir";
import { withGitignore } from "./gitignore";

/** A directory entry that is not a directory and that no .gitignore excludes. */
export interface TreeEntry {
  kind: "entry";
  path: string;
  /** Relative to the root, with `/` between names. */
  relative: string;
  /** What the directory listing said it is: a file, a link, a pipe, a device or a socket. */
  dirent: Dirent;
  /** Its name is not valid UTF-8: `path` holds U+FFFD for each bad byte, and opens nothing. */
  notUtf8?: true;
}

/**
 * A directory that is not walked: it cannot be listed (one whose name is not UTF-8 with a
 * NameNotUtf8 error), it is not a directory (any more), its .gitignore cannot be read, or it is the
 * daemon's data directory (or in it).
 */
export type TreeProblem =
  | { kind: "unreadable"; path: string; error: unknown }
  | { kind: "not-a-directory"; path: string; stats: Stats }
  | { kind: "ignore-file"; path: string; error: unknown }
  | { kind: "data-dir"; path: string };

export interface WalkOptions {
  /** Directory names never entered below the root. */
  skipDirs: ReadonlySet<string>;
  /**
   * The text of the .gitignore at `path`, or null to take it as absent. A throw skips its
   * directory: its lines say what must not be taken, and without them nothing there is.
   */
  readIgnoreFile: (path: string) => string | null;
  /**
   * The daemon's data directory: never entered, the root included (a root inside it, or reached
   * through a link to it, is not walked at all), and its entries never handed over.
   */
  fence?: DataDirFence | null;
}

/**
 * The error of a directory whose name is not valid UTF-8 (EILSEQ, an illegal byte sequence): listed
 * as a string its bad bytes become U+FFFD, and that string opens nothing.
 */
export class NameNotUtf8 extends Error {
  readonly code = "EILSEQ";
  constructor() {
    super("its name is not valid UTF-8");
  }
}

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The names listed in `dir` (as `entries`) that stand for a name that is not UTF-8: they hold U+FFFD
 * where a bad byte was, and no name read as bytes decodes to them. Listed again as bytes only when
 * a name holds U+FFFD, which a valid name rarely does.
 */
function namesNotUtf8(dir: string, entries: Dirent[]): Set<string> {
  const suspects = entries.filter((e) => e.name.includes("\uFFFD"));
  if (suspects.length === 0) return new Set();
  const valid = new Set<string>();
  for (const raw of readdirSync(dir, { encoding: "buffer" })) {
    try {
      valid.add(strictUtf8.decode(raw));
    } catch {
      // Not UTF-8: the listing's name for it is not among the valid ones.
    }
  }
  return new Set(suspects.map((e) => e.name).filter((name) => !valid.has(name)));
}

/** The entries under `root` (a directory), depth first in name order, and the directories left out. */
export function* walkTree(root: string, options: WalkOptions): Generator<TreeEntry | TreeProblem> {
  // Directories entered, by device and inode: one swapped for a link to another is not walked twice.
  const entered = new Set<string>();
  // The directories being walked, innermost last, each with its entries and the next one to look at.
  const open: { relative: string; dir: string; rules: Ignore | null; entries: Dirent[]; notUtf8: Set<string>; next: number }[] = [];

  /** Opens `dir` for the walk, or says why it is left out. */
  const enter = (dir: string, relative: string, inherited: Ignore | null): TreeProblem | undefined => {
    let st: Stats;
    try {
      st = lstatSync(dir);
    } catch (error) {
      return { kind: "unreadable", path: dir, error };
    }
    // A directory replaced by a link (or anything else) after its parent was listed.
    if (!st.isDirectory()) return { kind: "not-a-directory", path: dir, stats: st };
    const fence = options.fence;
    // By device and inode, so another spelling of its path or a bind mount of it is caught too.
    if (fence && (fence.has(st) || (relative === "" && fence.holds(dir)))) return { kind: "data-dir", path: dir };
    const key = fileIdentity(st);
    if (entered.has(key)) return;
    entered.add(key);
    let entries: Dirent[];
    let notUtf8: Set<string>;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
      notUtf8 = namesNotUtf8(dir, entries);
    } catch (error) {
      return { kind: "unreadable", path: dir, error };
    }
    let rules = inherited;
    if (entries.some((e) => e.name === ".gitignore" && !e.isDirectory())) {
      const path = join(dir, ".gitignore");
      let text: string | null;
      try {
        text = options.readIgnoreFile(path);
      } catch (error) {
        return { kind: "ignore-file", path, error };
      }
      if (text !== null) rules = withGitignore(rules, relative, text);
    }
    open.push({ relative, dir, rules, entries: entries.sort(byName), notUtf8, next: 0 });
  };

  const problem = enter(root, "", null);
  if (problem) yield problem;
  while (open.length > 0) {
    const at = open[open.length - 1]!;
    const entry = at.entries[at.next++];
    if (!entry) {
      open.pop();
      continue;
    }
    const path = at.relative === "" ? entry.name : `${at.relative}/${entry.name}`;
    const notUtf8 = at.notUtf8.has(entry.name);
    if (entry.isDirectory()) {
      // The package tells a directory by its trailing slash: `name/` patterns match only those.
      if (options.skipDirs.has(entry.name) || at.rules?.ignores(`${path}/`)) continue;
      if (notUtf8) yield { kind: "unreadable", path: join(at.dir, entry.name), error: new NameNotUtf8() };
      else {
        const left = enter(join(at.dir, entry.name), path, at.rules);
        if (left) yield left;
      }
    } else if (!at.rules?.ignores(path)) {
      yield { kind: "entry", path: join(at.dir, entry.name), relative: path, dirent: entry, ...(notUtf8 && { notUtf8: true }) };
    }
  }
}
