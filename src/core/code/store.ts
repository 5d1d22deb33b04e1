// A project's code index on disk (docs/code.md#storage): <project>/.graphiq/graphiq.db (SQLite) and
// manifest.json beside it. The schema is created here; a database of another schema version is
// rebuilt by the next `signet index`.
import type { Database } from "bun:sqlite";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SignetError } from "../../contracts/errors";
import { openDatabase } from "../../db/open";
import { writeOwnerOnlyFile } from "../../os/owner-only-files";
import type { LanguageId } from "./grammars";

export const INDEX_VERSION = 3;

const indexDir = (project: string) => join(project, ".graphiq");
export const indexDbPath = (project: string) => join(indexDir(project), "graphiq.db");
const manifestPath = (project: string) => join(indexDir(project), "manifest.json");

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

/**
 * Opens (creating if needed) a project's index database. One of another schema version is emptied
 * first when `rebuild` (the indexer); readers (the daemon) get an error saying to re-index instead.
 */
export function openIndex(project: string, options: { rebuild: boolean } = { rebuild: true }): Database {
  const path = indexDbPath(project);
  let db = openDatabase(path);
  const version = schemaVersion(db);
  if (version !== null && version !== INDEX_VERSION) {
    db.close();
    if (!options.rebuild) {
      throw new SignetError("unavailable", `the code index of ${project} has schema version ${version}, not ${INDEX_VERSION}: run \`signet index ${project}\``);
    }
    removeIndexFiles(project);
    db = openDatabase(path);
  }
  db.run(SCHEMA);
  db.run("INSERT OR IGNORE INTO meta (key, value) VALUES ('version', ?)", [String(INDEX_VERSION)]);
  return db;
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

/** The manifest, or a reason it cannot be read. */
export function readManifest(project: string): { manifest: Manifest } | { problem: string } {
  const path = manifestPath(project);
  if (!existsSync(path)) return { problem: "manifest.json is missing" };
  try {
    const manifest = JSON.parse(readFileSync(path, "utf8")) as Manifest;
    if (typeof manifest?.files !== "object" || typeof manifest.version !== "number") return { problem: "manifest.json has no version or files" };
    return { manifest };
  } catch (err) {
    return { problem: `manifest.json is not valid JSON (${(err as Error).message})` };
  }
}
