// The index against the disk (docs/code.md#status-and-doctor): which files changed since the last
// run, and the doctor's checks, each problem with its fix. Files are read as the index reads them
// (project-file.ts): never through a link, never one of the daemon's data directory.
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import type { CodeDoctorResponse, CodeLastRun, CodeProblem, CodeStatusResponse } from "../../contracts/code";
import { resolveDataDir } from "../../config/load";
import { DataDirFence } from "../files/data-dir";
import { errCode } from "../sources/read";
import { GRAMMAR_FILES, loadLanguage, type LanguageId } from "./grammars";
import { listSourceFiles, type LeftOut, type SourceFile } from "./ignore";
import { MAX_FILE_BYTES, readProjectFile } from "./project-file";
import { totalsOf } from "./queries";
import { INDEX_VERSION, getMeta, indexDbPath, readManifest } from "./store";
import { contentHash } from "./content-hash";

/** The data directory as a fence: the one given, or by default the one SIGNET_PATH names. */
const fenceFrom = (dataDir: DataDirFence | string | undefined) => (dataDir instanceof DataDirFence ? dataDir : new DataDirFence(dataDir ?? resolveDataDir()));

/** The content hash of the file the listing saw, or null when it cannot be read as the index reads it. */
function hashOf(project: string, file: SourceFile, fence: DataDirFence): string | null {
  try {
    return contentHash(readProjectFile(project, file.path, MAX_FILE_BYTES, fence, file));
  } catch {
    return null;
  }
}

/**
 * Indexed files whose content changed, code files not indexed yet, and indexed files gone from disk;
 * the data directory is left out as a run leaves it out (ignore.ts). What the listing left out is
 * added to `leftOut`.
 */
function staleFiles(db: Database, project: string, fence: DataDirFence, leftOut: LeftOut[] = []): CodeStatusResponse["stale"] {
  const indexed = new Map(
    db.query<{ path: string; hash: string; size: number; mtime: number }, []>("SELECT path, hash, size, mtime_ms AS mtime FROM files").all().map((r) => [r.path, r]),
  );
  const failed = new Set(db.query<{ path: string }, []>("SELECT path FROM failures").all().map((r) => r.path));
  const changed: string[] = [];
  const added: string[] = [];
  for (const file of listSourceFiles(project, fence, leftOut)) {
    const known = indexed.get(file.path);
    indexed.delete(file.path);
    if (!known) {
      if (!failed.has(file.path)) added.push(file.path);
      continue;
    }
    // Size and time unchanged: taken as unchanged without reading the file.
    if (known.size === file.size && known.mtime === file.mtimeMs) continue;
    if (hashOf(project, file, fence) !== known.hash) changed.push(file.path);
  }
  return { changed, added, removed: [...indexed.keys()].sort() };
}

function lastRunOf(db: Database): CodeLastRun | null {
  const raw = getMeta(db, "last_run");
  if (!raw) return null;
  try {
    const { project: _, ...run } = JSON.parse(raw) as CodeLastRun & { project?: string };
    return run;
  } catch {
    return null;
  }
}

/** `dataDir`: the data directory left out (a fence, or its path; by default the one SIGNET_PATH names). */
export function indexStatus(db: Database, project: string, dataDir?: DataDirFence | string): CodeStatusResponse {
  const languages = db
    .query<{ language: string; files: number; symbols: number }, []>(
      `SELECT f.language, COUNT(DISTINCT f.id) AS files, COUNT(s.id) AS symbols FROM files f LEFT JOIN symbols s ON s.file_id = f.id
       GROUP BY f.language ORDER BY files DESC, f.language`,
    )
    .all();
  return { project, indexPath: indexDbPath(project), languages, totals: totalsOf(db), lastRun: lastRunOf(db), stale: staleFiles(db, project, fenceFrom(dataDir)) };
}

/**
 * SQLite's quick_check on a connection of its own: on a long-lived connection, FTS5 checks its table
 * against structure it cached before another process's writes, and reports corruption that is not there.
 */
function quickCheck(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ quick_check: string }, []>("PRAGMA quick_check").all().map((r) => r.quick_check);
  } catch (err) {
    return [(err as Error).message];
  } finally {
    db.close();
  }
}

const reindex = (project: string) => `run \`signet index ${project}\``;

/** Why the project folder cannot be used, or null when it is there. */
function projectProblem(project: string): string | null {
  try {
    return statSync(project).isDirectory() ? null : `${project} is not a folder`;
  } catch (err) {
    return errCode(err) === "ENOENT" ? `${project} does not exist` : `${project} cannot be read (${errCode(err)})`;
  }
}

/**
 * The doctor's checks. `db` is null when the database file is missing. `dataDir`: the data directory
 * left out (a fence, or its path; by default the one SIGNET_PATH names).
 */
export async function diagnose(db: Database | null, project: string, dataDir?: DataDirFence | string): Promise<CodeDoctorResponse> {
  const fence = fenceFrom(dataDir);
  const checks: CodeDoctorResponse["checks"] = [];
  const problems: CodeProblem[] = [];
  const check = (name: string, ok: boolean, detail: string, fix?: string) => {
    checks.push({ name, ok, detail });
    if (!ok && fix) problems.push({ problem: `${name}: ${detail}`, fix });
  };

  const missing = projectProblem(project);
  check("project", missing === null, missing ?? project, "index an existing path with `signet index <path>`, or restore the project");

  if (!db) {
    check("database", false, `${indexDbPath(project)} is missing`, reindex(project));
  } else {
    const integrity = quickCheck(indexDbPath(project));
    const intact = integrity.length === 1 && integrity[0] === "ok";
    check("database", intact, intact ? "integrity ok" : integrity.slice(0, 5).join("; "), `run \`signet code clear --confirm\`, then ${reindex(project)}`);
    const version = Number(getMeta(db, "version"));
    check("schema", version === INDEX_VERSION, `version ${version} (this signet writes ${INDEX_VERSION})`, `${reindex(project)}: it rebuilds an index of another version`);

    const read = readManifest(project, fence);
    if ("problem" in read) {
      check("manifest", false, read.problem, reindex(project));
    } else {
      const indexed = new Map(db.query<{ path: string; hash: string }, []>("SELECT path, hash FROM files").all().map((r) => [r.path, r.hash]));
      const listed = Object.entries(read.manifest.files);
      const disagree = listed.filter(([path, hash]) => indexed.get(path) !== hash).length + [...indexed.keys()].filter((p) => !(p in read.manifest.files)).length;
      check("manifest", disagree === 0, disagree === 0 ? `${listed.length} files, as in the database` : `${disagree} files differ between manifest.json and the database`, reindex(project));
    }

    const leftOut: LeftOut[] = [];
    const stale = staleFiles(db, project, fence, leftOut);
    const count = stale.changed.length + stale.added.length + stale.removed.length;
    check(
      "freshness",
      count === 0,
      count === 0 ? "the index matches the files on disk" : `${stale.changed.length} changed, ${stale.added.length} new, ${stale.removed.length} removed since the last run`,
      reindex(project),
    );
    // What the last run could not index, and what the listing cannot reach now (a folder that cannot
    // be read, a .gitignore that cannot be read so): the data directory is left out on purpose.
    const failures = db.query<{ path: string; reason: string }, []>("SELECT path, reason FROM failures ORDER BY path").all();
    const recorded = new Set(failures.map((f) => f.path));
    for (const left of leftOut) if (!left.onPurpose && !recorded.has(left.path)) failures.push({ path: left.path, reason: left.reason });
    check(
      "files",
      failures.length === 0,
      failures.length === 0 ? "every code file was indexed" : failures.slice(0, 10).map((f) => `${f.path}: ${f.reason}`).join("; "),
      "these files and folders are left out of the index: fix or .gitignore them, then re-index",
    );
  }

  for (const language of Object.keys(GRAMMAR_FILES) as LanguageId[]) {
    try {
      await loadLanguage(language);
      check(`grammar ${language}`, true, "loaded");
    } catch (err) {
      check(`grammar ${language}`, false, `cannot be loaded (${(err as Error).message})`, "reinstall signet: the grammars are embedded in the binary");
    }
  }
  return { project, ok: problems.length === 0, checks, problems };
}
