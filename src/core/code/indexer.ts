// `signet index <path>` (docs/code.md#indexing): lists the project's code files, re-parses those
// whose content hash changed (on worker threads: parse-pool.ts), drops the ones gone, rebuilds the
// reference edges and writes the manifest. A file that cannot be indexed is named in the result and
// the run goes on. The daemon's data directory is never indexed (files/data-dir.ts): a project in it
// is refused, and one holding it leaves it out and says so in `failed`. One run of a project at a
// time: another one started meanwhile is refused (.graphiq/index.lock).
import type { Database } from "bun:sqlite";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDir } from "../../config/load";
import { SignetError, invalidInput } from "../../contracts/errors";
import { DataDirFence, dataDirRefusal } from "../files/data-dir";
import type { FileFacts } from "./extract";
import { takeLock, type HeldLock } from "./file-lock";
import type { LanguageId } from "./grammars";
import { listSourceFiles, type LeftOut, type SourceFile } from "./ignore";
import { languageOf } from "./languages";
import { identifierParts } from "./names";
import type { ParseJob } from "./parse-file";
import { parseInWorkers } from "./parse-pool";
import { MAX_FILE_BYTES, NotReadable, readProjectFile } from "./project-file";
import { resolveEdges, type StoredRef } from "./resolve";
import { INDEX_VERSION, indexDbPath, openIndex, refuseDataDirIndex, setMeta, UnusableIndex, writeManifest, type Manifest } from "./store";
import { contentHash } from "./content-hash";
/** Files written per transaction: a killed run keeps what it committed; the next run finishes the rest. */
const BATCH = 50;

export interface IndexProgress {
  done: number;
  total: number;
  path: string;
}

export interface IndexRun {
  project: string;
  /** Code files found (after .gitignore). */
  files: number;
  /** Files parsed in this run (new or changed). */
  parsed: string[];
  unchanged: number;
  removed: string[];
  failed: { path: string; reason: string }[];
  symbols: number;
  edges: number;
  tookMs: number;
  startedAt: string;
}

interface FileRow {
  id: number;
  path: string;
  hash: string;
}

/**
 * Indexes `project` (an absolute, real path) into its .graphiq directory. `dataDir`: the data
 * directory that is never indexed (by default the one SIGNET_PATH names, as the CLI's); a project
 * that is it or in it is refused (invalid_input) before anything is written. While another run of
 * the same project holds its lock, this one is refused (unavailable) and changes nothing.
 */
export async function indexProject(project: string, onProgress?: (p: IndexProgress) => void, dataDir: string = resolveDataDir()): Promise<IndexRun> {
  const fence = new DataDirFence(dataDir);
  if (fence.holds(project)) throw invalidInput(dataDirRefusal(project, project, fence));
  refuseDataDirIndex(project, fence);
  const lock = lockProject(project);
  try {
    const db = openIndex(project, { rebuild: true }, fence);
    try {
      return await indexInto(db, project, fence, onProgress);
    } catch (err) {
      throw namingTheIndex(project, err);
    } finally {
      db.close();
    }
  } finally {
    lock.release();
  }
}

/** The project's run lock, taken without waiting: a run takes seconds to minutes, and the second would redo the first. */
function lockProject(project: string): HeldLock {
  const path = join(project, ".graphiq", "index.lock");
  const lock = takeLock(path, 0);
  if (!lock) throw new SignetError("unavailable", `another \`signet index\` of ${project} is running (it holds ${path}): run this one again when it has finished`);
  return lock;
}

/** SQLite's errors in a run say nothing of the file: they are said with it. */
function namingTheIndex(project: string, err: unknown): unknown {
  if ((err as { name?: string }).name !== "SQLiteError") return err;
  const path = indexDbPath(project);
  return new UnusableIndex("database", `the code index ${path} cannot be used: ${(err as Error).message}`, `delete ${join(project, ".graphiq")} and run \`signet index ${project}\``);
}

async function indexInto(db: Database, project: string, fence: DataDirFence, onProgress?: (p: IndexProgress) => void): Promise<IndexRun> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const known = new Map(db.query<FileRow, []>("SELECT id, path, hash FROM files").all().map((r) => [r.path, r]));
  // What a file opened must be inside: the project as the kernel names it.
  const root = realpathSync(project);
  const leftOut: LeftOut[] = [];
  const onDisk = listSourceFiles(project, fence, leftOut);
  const run: IndexRun = { project, files: onDisk.length, parsed: [], unchanged: 0, removed: [], failed: [], symbols: 0, edges: 0, tookMs: 0, startedAt };
  const writer = new FileWriter(db);
  let pending: (() => void)[] = [];
  const flush = () => {
    db.transaction(() => {
      for (const write of pending) write();
    })();
    pending = [];
  };
  const queue = (write: () => void) => {
    pending.push(write);
    if (pending.length >= BATCH) flush();
  };
  // Failures and parsed files by their place in onDisk: workers answer in no set order.
  const failedAt: IndexRun["failed"] = [];
  const parsedAt: string[] = [];
  const fail = (i: number, previous: FileRow | undefined, reason: string) => {
    const { path } = onDisk[i]!;
    failedAt[i] = { path, reason };
    queue(() => writer.fail(previous?.id, path, reason));
  };

  // Hashing decides what to parse; the parsing threads read the files again (parse-file.ts).
  const jobs: ParseJob[] = [];
  const changed = new Map<number, { previous: FileRow | undefined; hash: string; language: LanguageId }>();
  for (const [i, file] of onDisk.entries()) {
    const previous = known.get(file.path);
    known.delete(file.path);
    const outcome = check(root, file, previous?.hash, fence);
    if (outcome.kind === "unchanged") {
      run.unchanged++;
      queue(() => writer.touch(previous!.id, file));
    } else if (outcome.kind === "failed") {
      fail(i, previous, outcome.reason);
    } else {
      const language = languageOf(file.path)!;
      changed.set(i, { previous, hash: outcome.hash, language });
      jobs.push({ id: i, path: join(project, file.path), language, hash: outcome.hash });
    }
  }
  let done = onDisk.length - jobs.length;
  onProgress?.({ done, total: onDisk.length, path: "" });
  await parseInWorkers(jobs, (result) => {
    const file = onDisk[result.id]!;
    const { previous, hash, language } = changed.get(result.id)!;
    onProgress?.({ done: ++done, total: onDisk.length, path: file.path });
    if ("failure" in result) return fail(result.id, previous, result.failure);
    parsedAt[result.id] = file.path;
    queue(() => writer.replace(previous?.id, file, { language, hash, lines: result.lines, facts: result.facts }));
  });
  for (const gone of known.values()) {
    run.removed.push(gone.path);
    pending.push(() => writer.remove(gone.id, gone.path));
  }
  const failedFiles = failedAt.filter((f) => f !== undefined);
  // What of the data directory was left out is said, not recorded as a failure: it is left out by
  // design. A folder that could not be taken is, so doctor names it until it can be.
  const problems = leftOut.filter((l) => !l.onPurpose).map(({ path, reason }) => ({ path, reason }));
  pending.push(() => writer.failuresAre([...failedFiles, ...problems]));
  flush();
  run.parsed = parsedAt.filter((p) => p !== undefined);
  run.failed = [...failedFiles, ...leftOut.map(({ path, reason }) => ({ path, reason }))];

  run.edges = db.transaction(() => resolveEdges(db))();
  run.symbols = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM symbols").get()!.n;
  run.tookMs = Math.round(performance.now() - started);
  setMeta(db, "last_run", JSON.stringify({ ...run, parsed: run.parsed.length, removed: run.removed.length }));
  writeManifest(project, manifestOf(db, project, startedAt));
  return run;
}

type Check = { kind: "unchanged" } | { kind: "failed"; reason: string } | { kind: "changed"; hash: string };

/**
 * Whether `file` needs parsing: its size, readability, content hash against the index's, and no NUL
 * bytes. It is read as the index reads every file (project-file.ts): not through a link, the file
 * the listing saw, a regular file reached inside the project (`root`, its real path) and outside the
 * data directory.
 */
function check(root: string, file: SourceFile, previousHash: string | undefined, fence: DataDirFence): Check {
  if (file.size > MAX_FILE_BYTES) return { kind: "failed", reason: `larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB: not indexed` };
  let bytes: Uint8Array;
  try {
    bytes = readProjectFile(root, file.path, MAX_FILE_BYTES, fence, file);
  } catch (err) {
    if (err instanceof NotReadable) return { kind: "failed", reason: `not read: ${err.reason}` };
    throw err;
  }
  const hash = contentHash(bytes);
  if (hash === previousHash) return { kind: "unchanged" };
  if (bytes.includes(0)) return { kind: "failed", reason: "binary content (NUL bytes): not indexed" };
  return { kind: "changed", hash };
}

interface Parsed {
  language: LanguageId;
  hash: string;
  lines: number;
  facts: FileFacts;
}

/** The writes of one file's rows; each call runs inside the caller's transaction. */
class FileWriter {
  private readonly insertFile;
  private readonly insertSymbol;
  private readonly insertFts;
  private readonly insertImport;
  private readonly insertRefs;
  private readonly insertLiteral;

  constructor(private readonly db: Database) {
    this.insertFile = db.query("INSERT INTO files (path, language, hash, size, mtime_ms, lines) VALUES (?, ?, ?, ?, ?, ?) RETURNING id");
    this.insertSymbol = db.query(
      `INSERT INTO symbols (file_id, name, kind, parent_id, container, start_line, end_line, signature, doc, exported)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    );
    this.insertFts = db.query("INSERT INTO symbols_fts (rowid, name, parts, signature, doc, path, body) VALUES (?, ?, ?, ?, ?, ?, ?)");
    this.insertImport = db.query("INSERT INTO imports (file_id, source, name, alias, line) VALUES (?, ?, ?, ?, ?)");
    this.insertRefs = db.query("INSERT INTO file_refs (file_id, refs) VALUES (?, ?)");
    this.insertLiteral = db.query("INSERT INTO literals (file_id, symbol_id, kind, value, line) VALUES (?, ?, ?, ?, ?)");
  }

  touch(id: number, file: SourceFile): void {
    this.db.run("UPDATE files SET size = ?, mtime_ms = ? WHERE id = ?", [file.size, file.mtimeMs, id]);
    this.db.run("DELETE FROM failures WHERE path = ?", [file.path]);
  }

  remove(id: number, path: string): void {
    this.db.run("DELETE FROM symbols_fts WHERE rowid IN (SELECT id FROM symbols WHERE file_id = ?)", [id]);
    this.db.run("DELETE FROM files WHERE id = ?", [id]);
    this.db.run("DELETE FROM failures WHERE path = ?", [path]);
  }

  /** The failures of this run, and no other: a file fixed or gone since an earlier run is not one any more. */
  failuresAre(failures: { path: string; reason: string }[]): void {
    this.db.run("DELETE FROM failures");
    for (const f of failures) this.db.run("INSERT INTO failures (path, reason) VALUES (?, ?) ON CONFLICT(path) DO NOTHING", [f.path, f.reason]);
  }

  fail(id: number | undefined, path: string, reason: string): void {
    if (id !== undefined) this.remove(id, path);
    this.db.run("INSERT INTO failures (path, reason) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET reason = excluded.reason", [path, reason]);
  }

  replace(id: number | undefined, file: SourceFile, parsed: Parsed): void {
    if (id !== undefined) this.remove(id, file.path);
    const { facts } = parsed;
    const fileId = (this.insertFile.get(file.path, parsed.language, parsed.hash, file.size, file.mtimeMs, parsed.lines) as { id: number }).id;
    const ids: number[] = [];
    const pathParts = identifierParts(file.path).join(" ");
    for (const s of facts.symbols) {
      const parentId = s.parent >= 0 ? ids[s.parent]! : null;
      const row = this.insertSymbol.get(fileId, s.name, s.kind, parentId, s.containerName, s.startLine, s.endLine, s.signature, s.doc, s.exported ? 1 : 0) as { id: number };
      ids.push(row.id);
      this.insertFts.run(row.id, s.name, s.parts, s.signature, s.doc, pathParts, s.body);
    }
    // A Go method or Rust impl function names its type: link it when the type is in this file.
    for (const [i, s] of facts.symbols.entries()) {
      if (s.parent >= 0 || !s.containerName) continue;
      const owner = facts.symbols.findIndex((o) => o.name === s.containerName && o.kind !== "method" && o.kind !== "function");
      if (owner >= 0) this.db.run("UPDATE symbols SET parent_id = ? WHERE id = ?", [ids[owner]!, ids[i]!]);
    }
    for (const imp of facts.imports) this.insertImport.run(fileId, imp.source, imp.name, imp.alias, imp.line);
    const refs: StoredRef[] = facts.refs.map((r) => [r.from >= 0 ? ids[r.from]! : null, r.name, r.qualifier, r.kind, r.line]);
    this.insertRefs.run(fileId, JSON.stringify(refs));
    for (const l of facts.literals) this.insertLiteral.run(fileId, l.from >= 0 ? ids[l.from]! : null, l.kind, l.value, l.line);
  }
}

function manifestOf(db: Database, project: string, indexedAt: string): Manifest {
  const rows = db.query<{ path: string; hash: string; language: LanguageId }, []>("SELECT path, hash, language FROM files ORDER BY path").all();
  const languages: Manifest["languages"] = {};
  const files: Record<string, string> = {};
  for (const r of rows) {
    languages[r.language] = (languages[r.language] ?? 0) + 1;
    files[r.path] = r.hash;
  }
  return { version: INDEX_VERSION, project, indexedAt, languages, files };
}
