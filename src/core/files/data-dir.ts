// The daemon's data directory (SIGNET_PATH) is never read by a tree walk (docs/security.md#the-data-directory-is-never-indexed):
// it holds the admin token, the instance key, the secret store's key and ciphertext, the tokens
// given to harnesses, the database and the log, and what a document source or the code index takes
// becomes searchable by every caller with recall. A source or project that is a parent of it (the
// home directory, where it lives by default) must leave it out, however it is reached: under its
// own path or another spelling of it, through a link, or through a bind mount of it elsewhere.
//
// So the directory is known by its real path and by device and inode, its own and those of what is
// in it (a bind of a directory inside it, a hard link of a file in it): a walk enters no directory
// with one of those identities, and a reader opens no file that has one or whose real path, or a
// directory on whose way, is the data directory.
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isWithin } from "../../os/path-within";

/** Why something in the data directory was left out, as `skipped` and the code index's `failed` say it. */
export const DATA_DIR_REASON = "the Signet data directory is never indexed";

/** Entries of the data directory whose identities are noted at most (it is small: files, logs, tokens, the database). */
const MAX_NOTED = 4096;

/** A file's identity, device and inode, as one key. */
export const fileIdentity = (st: { dev: number; ino: number }) => `${st.dev}:${st.ino}`;

/** The data directory's paths: as configured (absolute) and its real path, when they differ. No walk. */
export function dataDirPaths(dataDir: string): string[] {
  const given = resolve(dataDir);
  try {
    const real = realpathSync(given);
    return real === given ? [given] : [given, real];
  } catch {
    // not there (yet): only its path is known
    return [given];
  }
}

/** Whether the absolute `path` is, as written, one of `paths` or below it (no I/O). */
export function underAny(path: string, paths: readonly string[]): boolean {
  return paths.some((p) => isWithin(path, p));
}

/**
 * The data directory as one pass (an add, a sync, an index run) sees it: its identities are taken
 * when the fence is made, so a fence lives for one pass.
 */
export class DataDirFence {
  /** The directory as configured (absolute) and its real path, when they differ. */
  readonly paths: string[];
  /** Device and inode of the directory itself, null when it does not exist. */
  private readonly own: string | null;
  /** Device and inode of the directory and of what is in it (not through links), up to MAX_NOTED entries. */
  private readonly noted = new Set<string>();
  /** Directories already looked at by `holds`, and whether they are the data directory or inside it. */
  private readonly seen = new Map<string, boolean>();

  constructor(readonly dataDir: string) {
    this.paths = dataDirPaths(dataDir);
    const real = this.paths.at(-1)!;
    let own: string | null = null;
    try {
      const st = statSync(real);
      if (st.isDirectory()) {
        own = fileIdentity(st);
        this.note(real, st);
      }
    } catch {
      // not there (yet): only its path is known
    }
    this.own = own;
  }

  /** Notes the identities under `root` (a directory), breadth first, not through links. */
  private note(root: string, st: Stats): void {
    this.noted.add(fileIdentity(st));
    const queue = [root];
    while (queue.length > 0 && this.noted.size < MAX_NOTED) {
      const dir = queue.shift()!;
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (this.noted.size >= MAX_NOTED) break;
        const path = join(dir, name);
        let entry: Stats;
        try {
          entry = lstatSync(path);
        } catch {
          continue;
        }
        if (entry.isSymbolicLink()) continue;
        this.noted.add(fileIdentity(entry));
        if (entry.isDirectory()) queue.push(path);
      }
    }
  }

  /** Whether what `st` describes (lstat or fstat of a directory or file) is the data directory or in it. */
  has(st: { dev: number; ino: number }): boolean {
    return this.noted.has(fileIdentity(st));
  }

  /** Whether `st` is the data directory itself. */
  isDataDir(st: { dev: number; ino: number }): boolean {
    return this.own !== null && fileIdentity(st) === this.own;
  }

  /** Whether the absolute `path` is, as written, the data directory or below it (no I/O). */
  under(path: string): boolean {
    return underAny(path, this.paths);
  }

  /**
   * Whether `path` leads into the data directory: as written, or through what is on its way (a
   * link, a bind mount), each directory looked at once per fence. `real`: the path is known to be
   * free of links already (the kernel's name of an open file), so it is not resolved again.
   */
  holds(path: string, real = false): boolean {
    const abs = resolve(path);
    if (this.under(abs)) return true;
    if (!real) {
      try {
        if (this.under(realpathSync(abs))) return true;
      } catch {
        // does not resolve: what is on its way is looked at below
      }
    }
    const chain: string[] = [];
    let answer = false;
    for (let at = abs; ; at = dirname(at)) {
      const known = this.seen.get(at);
      if (known !== undefined) {
        answer = known;
        break;
      }
      chain.push(at);
      let st: Stats | null = null;
      try {
        st = statSync(at);
      } catch {
        // gone or unreachable: its parents decide
      }
      if (st && this.has(st)) {
        answer = true;
        break;
      }
      if (dirname(at) === at) break;
    }
    // A directory whose own identity is not noted takes its parents' answer (the path itself, often
    // a file, is not kept: one entry per directory).
    for (const dir of chain.slice(1)) this.seen.set(dir, answer);
    return answer;
  }
}

/**
 * Why `shown` (resolved: `path`), a source to add or a project to index, is refused: it is the data
 * directory or leads into it (`fence.holds(path)`).
 */
export function dataDirRefusal(shown: string, path: string, fence: DataDirFence): string {
  let itself = false;
  try {
    itself = fence.isDataDir(statSync(path));
  } catch {
    // gone meanwhile: it was in it
  }
  const what = itself ? "the Signet data directory" : `in the Signet data directory ${fence.paths.at(-1)}`;
  return `${shown === path ? shown : `${shown} (${path})`} is ${what}, which holds the daemon's secrets (its admin token, instance key and secret store) and is never indexed`;
}

/** The fence of `dataDir`, or null when there is none to keep out (a service made without one). */
export function fenceOf(dataDir: string | null | undefined): DataDirFence | null {
  return dataDir ? new DataDirFence(dataDir) : null;
}
