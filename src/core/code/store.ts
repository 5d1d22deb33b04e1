// A project's code index on disk (docs/code.md#storage): <project>/.graphiq/graphiq.db (SQLite) and
// manifest.json beside it. The schema is created here; a database of another schema version, or a
// file that is not a database at all, is rebuilt by the next `signet index`. Neither file is ever one
// of the daemon's data directory, through a link or a hard link (files/data-dir.ts).
import type { Database } from "bun:sqlite";
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SignetError } from "../../contracts/errors";
import { openDatabase } from "../../db/open";
import { writeOwnerOnlyFile } from "../../os/owner-only-files";
import { DATA_DIR_REASON, type DataDirFence } from "../files/data-dir";
import type { LanguageId } from "./grammars";
import { NotReadable, readProjectFile } from "./project-file";

export const INDEX_VERSION = 3;

const indexDir = (project: string) => join(project, ".graphiq");
export const indexDbPath = (project: string) => join(indexDir(project), "graphiq.db");
const MANIFEST = ".graphiq/manifest.json";
const manifestPath = (project: string) => join(project, MANIFEST);
/** A manifest names every file with its hash: some 100 bytes a file. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** The edges' indexes, name and column: resolve.ts drops them while it rewrites every edge and builds them again after. */
const EDGE_INDEXES = [
  ["edges_dst", "dst_id"],
  ["edges_src", "src_id"],
] as const;
export const CREATE_EDGE_INDEXES = EDGE_INDEXES.map(([name, column]) => `CREATE INDEX IF NOT EXISTS ${name} ON edges(${column});`).join("\n");
export const DROP_EDGE_INDEXES = EDGE_INDEXES.map(([name]) => `DROP INDEX IF EXISTS ${name};`).join("\n");

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  language TEXT NOT NULL,
  hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  lines INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS symbols (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  parent_id INTEGER,
  container TEXT,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  signature TEXT NOT NULL,
  doc TEXT NOT NULL,
  exported INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name);
-- A name as search compares it (search.ts nameKey): \`MAX_BODY_BYTES\` and \`maxBodyBytes\` alike.
CREATE INDEX IF NOT EXISTS symbols_key ON symbols(lower(replace(name, '_', '')));
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
-- Prefix indexes: search asks for every word as a prefix (search.ts). Porter stemming: a question's
-- "checked" meets a body's "check".
CREATE VIRTUAL TABLE IF NOT EXISTS symbols_fts USING fts5(name, parts, signature, doc, path, body, prefix = '2 3 4', tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS imports (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  name TEXT NOT NULL,
  alias TEXT NOT NULL,
  line INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS imports_file ON imports(file_id);
-- A file's references as written, JSON [[from_id, name, qualifier, kind, line], ...]. Only resolve.ts
-- reads them, all at once: one row per file costs a tenth of one row per reference to write.
CREATE TABLE IF NOT EXISTS file_refs (
  file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
  refs TEXT NOT NULL
);
-- Rebuilt from file_refs, symbols and imports after every run (resolve.ts).
CREATE TABLE IF NOT EXISTS edges (
  src_id INTEGER,
  src_file_id INTEGER NOT NULL,
  dst_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  line INTEGER NOT NULL,
  ambiguous INTEGER NOT NULL
);
${CREATE_EDGE_INDEXES}
CREATE TABLE IF NOT EXISTS literals (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  symbol_id INTEGER,
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  line INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS literals_value ON literals(kind, value);
CREATE INDEX IF NOT EXISTS literals_file ON literals(file_id);
-- Files the last run could not index, with the reason.
CREATE TABLE IF NOT EXISTS failures (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
`;

/** An index that cannot be used as it is, with the doctor's check it fails and the fix. */
export class UnusableIndex extends SignetError {
  constructor(
    readonly check: "database" | "schema",
    message: string,
    readonly fix: string,
  ) {
    super("unavailable", message);
  }
}

const reindex = (project: string) => `run \`signet index ${project}\``;

/**
 * Opens (creating if needed) a project's index database. One of another schema version, or a file
 * that is not a SQLite database, is emptied first when `rebuild` (the indexer); readers (the daemon)
 * get an UnusableIndex saying to re-index instead. `fence`: the data directory, whose files are never
 * opened as an index (a `.graphiq` that is a link into it, a hard link of its database).
 */
export function openIndex(project: string, options: { rebuild: boolean } = { rebuild: true }, fence: DataDirFence | null = null): Database {
  const path = indexDbPath(project);
  refuseDataDirIndex(project, fence);
  let db: Database;
  let version: number | null;
  try {
    refuseNotADatabase(path);
    db = openDatabase(path);
    try {
      version = schemaVersion(db);
    } catch (err) {
      db.close();
      throw err;
    }
  } catch (err) {
    if (!isNotADatabase(err)) throw cannotUse(project, err);
    if (!options.rebuild) {
      throw new UnusableIndex("database", `${path} is not a SQLite database (${(err as Error).message}): ${reindex(project)}`, `${reindex(project)}: it makes the index again`);
    }
    removeIndexFiles(project);
    db = openOrName(project);
    version = null;
  }
  if (version !== null && version !== INDEX_VERSION) {
    db.close();
    if (!options.rebuild) {
      throw new UnusableIndex(
        "schema",
        `the code index of ${project} has schema version ${version}, not ${INDEX_VERSION}: ${reindex(project)}`,
        `${reindex(project)}: it rebuilds an index of another version`,
      );
    }
    removeIndexFiles(project);
    db = openOrName(project);
  }
  try {
    db.run(SCHEMA);
    db.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('version', ?)", [String(INDEX_VERSION)]);
  } catch (err) {
    db.close();
    throw cannotUse(project, err);
  }
  return db;
}

/** SQLite's answer for a file that is not a database, or whose pages are damaged. */
function isNotADatabase(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT";
}

const SQLITE_HEADER = "SQLite format 3\0";

/**
 * Throws SQLite's own "not a database" for a file whose first bytes are not SQLite's header, before
 * SQLite opens it: a connection that fails there stays open until it is collected, one a request.
 */
function refuseNotADatabase(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return; // not there (it is made), or a link: openDatabase says so
  }
  try {
    if (!fstatSync(fd).isFile()) return; // openDatabase refuses what is not a file
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, head, 0, head.length, 0);
    if (read === 0) return; // empty: a new database
    if (head.subarray(0, read).toString("latin1") !== SQLITE_HEADER) throw Object.assign(new Error("file is not a database"), { code: "SQLITE_NOTADB" });
  } finally {
    closeSync(fd);
  }
}

function openOrName(project: string): Database {
  try {
    return openDatabase(indexDbPath(project));
  } catch (err) {
    throw cannotUse(project, err);
  }
}

/** Why the index database of `project` cannot be used, naming the file (SQLite's messages do not). */
function cannotUse(project: string, err: unknown): UnusableIndex {
  const path = indexDbPath(project);
  return new UnusableIndex(
    "database",
    `the code index ${path} cannot be used: ${(err as Error).message}`,
    `check the file and its folder's permissions, or delete ${indexDir(project)} and ${reindex(project)}`,
  );
}

/** Refuses an index folder that leads into the data directory, and a database file that is one of its files. */
export function refuseDataDirIndex(project: string, fence: DataDirFence | null): void {
  if (!fence) return;
  const path = indexDbPath(project);
  let inside = fence.holds(indexDir(project));
  try {
    inside ||= fence.has(lstatSync(path));
  } catch {
    // not there yet: it is made in the folder just checked
  }
  if (inside) throw new UnusableIndex("database", `the code index ${path} leads into the Signet data directory: ${DATA_DIR_REASON}`, `delete ${indexDir(project)} and ${reindex(project)}`);
}

function schemaVersion(db: Database): number | null {
  const table = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!table) return null;
  const row = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'version'").get();
  return row ? Number(row.value) : null;
}

/** The database, its WAL files and the manifest; the .graphiq directory stays. */
export function removeIndexFiles(project: string): void {
  const db = indexDbPath(project);
  for (const path of [db, `${db}-wal`, `${db}-shm`, manifestPath(project)]) rmSync(path, { force: true });
}

export function getMeta(db: Database, key: string): string | undefined {
  return db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value;
}

export function setMeta(db: Database, key: string, value: string): void {
  db.run("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, value]);
}

export interface Manifest {
  version: number;
  project: string;
  indexedAt: string;
  /** Files per language. */
  languages: Partial<Record<LanguageId, number>>;
  /** Relative path → sha256 of its content. */
  files: Record<string, string>;
}

export function writeManifest(project: string, manifest: Manifest): void {
  writeOwnerOnlyFile(manifestPath(project), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The manifest, or a reason it cannot be read; read as the index reads a project's files (project-file.ts). */
export function readManifest(project: string, fence: DataDirFence | null = null): { manifest: Manifest } | { problem: string } {
  let text: string;
  try {
    text = new TextDecoder().decode(readProjectFile(project, MANIFEST, MAX_MANIFEST_BYTES, fence));
  } catch (err) {
    if (!(err instanceof NotReadable)) throw err;
    return { problem: err.reason === "missing" ? "manifest.json is missing" : `manifest.json is not read: ${err.reason}` };
  }
  try {
    const manifest = JSON.parse(text) as Manifest;
    if (typeof manifest?.files !== "object" || typeof manifest.version !== "number") return { problem: "manifest.json has no version or files" };
    return { manifest };
  } catch (err) {
    return { problem: `manifest.json is not valid JSON (${(err as Error).message})` };
  }
}
