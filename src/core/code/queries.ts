// Reading a project's code index (docs/code.md#the-tools): a symbol's context, its blast radius,
// shared constants and the architecture briefing (search is search.ts).
import type { Database } from "bun:sqlite";
import type { DataDirFence } from "../files/data-dir";
import { contentHash } from "./content-hash";
import { MAX_FILE_BYTES, NotReadable, readProjectFile } from "./project-file";
import type {
  CodeBlastNode,
  CodeBlastRequest,
  CodeBlastResponse,
  CodeBriefingResponse,
  CodeConstant,
  CodeConstantsQuery,
  CodeConstantsResponse,
  CodeContextResponse,
  CodeEdge,
  CodeImport,
  CodeSymbolRef,
} from "../../contracts/code";

const MAX_SOURCE_LINES = 400;

/** A symbol's row as the queries read it (SYMBOL_COLUMNS), where it is and what it is. */
export interface SymbolRow {
  id: number;
  name: string;
  kind: string;
  container: string | null;
  signature: string;
  path: string;
  startLine: number;
  endLine: number;
}

const SYMBOL_COLUMNS = `s.id, s.name, s.kind, s.container, s.signature, f.path, s.start_line AS startLine, s.end_line AS endLine`;

function ref(row: SymbolRow): CodeSymbolRef {
  return { id: row.id, name: row.name, kind: row.kind, container: row.container, signature: row.signature, path: row.path, startLine: row.startLine, endLine: row.endLine };
}

/** Every symbol with that id, with its file. */
function symbolById(db: Database, id: number): SymbolRow | null {
  return db.query<SymbolRow, [number]>(`SELECT ${SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?`).get(id);
}

/**
 * The symbols a name stands for: `name`, `Container.name` (or `::`), or `path:name` (a path suffix).
 * Sorted so the first is the most likely (exported, then a type or function before a method).
 */
function findSymbols(db: Database, spec: string): SymbolRow[] {
  let name = spec.trim();
  let path: string | null = null;
  let container: string | null = null;
  const colon = /^(.+\.[A-Za-z0-9]+):([^:].*)$/.exec(name);
  if (colon) [, path, name] = colon as unknown as [string, string, string];
  const qualified = /^(.+?)(?:::|\.)([^.:]+)$/.exec(name);
  if (qualified && !path) [, container, name] = qualified as unknown as [string, string, string];
  let rows = db
    .query<SymbolRow & { exported: number }, [string]>(
      `SELECT ${SYMBOL_COLUMNS}, s.exported FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ? ORDER BY s.exported DESC, f.path, s.start_line`,
    )
    .all(name);
  if (path) rows = rows.filter((r) => r.path === path || r.path.endsWith(`/${path}`));
  if (container) rows = rows.filter((r) => r.container === container);
  return rows;
}

// ---- context ----

function edgesOf(db: Database, id: number, direction: "in" | "out"): CodeEdge[] {
  const [mine, other] = direction === "in" ? ["dst_id", "src_id"] : ["src_id", "dst_id"];
  const rows = db
    .query<{ other: number | null; path: string; line: number; kind: "call" | "ref"; ambiguous: number }, [number]>(
      `SELECT e.${other} AS other, f.path, e.line, e.kind, e.ambiguous FROM edges e JOIN files f ON f.id = e.src_file_id
       WHERE e.${mine} = ? ORDER BY f.path, e.line`,
    )
    .all(id);
  return rows.map((r) => {
    const row = r.other === null ? null : symbolById(db, r.other);
    return { symbol: row ? ref(row) : null, path: r.path, line: r.line, kind: r.kind, ambiguous: r.ambiguous === 1 };
  });
}

/**
 * A symbol's lines as the file holds them now, read as the index reads every file (project-file.ts).
 * A file that is not read so (a link, a pipe, one of the data directory) is named with the reason in
 * place of its source, and none of its content.
 */
function sourceOf(project: string, path: string, startLine: number, endLine: number, hash: string, fence: DataDirFence | null): { source: string; stale: boolean } {
  let bytes: Uint8Array;
  try {
    bytes = readProjectFile(project, path, MAX_FILE_BYTES, fence);
  } catch (err) {
    if (!(err instanceof NotReadable)) throw err;
    return { source: `(not read: ${err.message})`, stale: true };
  }
  const stale = contentHash(bytes) !== hash;
  const lines = new TextDecoder().decode(bytes).split("\n");
  const end = Math.min(endLine, startLine + MAX_SOURCE_LINES - 1);
  const cut = end < endLine ? `\n… (${endLine - end} more lines)` : "";
  return { source: lines.slice(startLine - 1, end).join("\n") + cut, stale };
}

/** `fence`: the data directory no source is read from (the daemon's). */
export function symbolContext(db: Database, project: string, spec: string, fence: DataDirFence | null = null): CodeContextResponse {
  const found = findSymbols(db, spec);
  if (found.length === 0) return { project, symbol: spec, candidates: [] };
  if (found.length > 1) return { project, symbol: spec, candidates: found.map(ref) };
  const row = found[0]!;
  const extra = db
    .query<{ doc: string; exported: number; parentId: number | null; hash: string; fileId: number }, [number]>(
      "SELECT s.doc, s.exported, s.parent_id AS parentId, f.hash, f.id AS fileId FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.id = ?",
    )
    .get(row.id)!;
  const parent = extra.parentId === null ? null : symbolById(db, extra.parentId);
  const imports = db
    .query<CodeImport, [number]>("SELECT source, name, alias, line FROM imports WHERE file_id = ? ORDER BY line, rowid")
    .all(extra.fileId);
  return {
    project,
    symbol: spec,
    definition: { ...ref(row), doc: extra.doc, exported: extra.exported === 1, ...sourceOf(project, row.path, row.startLine, row.endLine, extra.hash, fence) },
    container: parent ? ref(parent) : null,
    callers: edgesOf(db, row.id, "in"),
    callees: edgesOf(db, row.id, "out"),
    imports,
  };
}

// ---- blast ----

export function blastRadius(db: Database, project: string, req: CodeBlastRequest): CodeBlastResponse {
  const started = performance.now();
  const found = findSymbols(db, req.symbol);
  const base = { project, symbol: req.symbol, depth: req.depth, direction: req.direction, nodes: [] as CodeBlastNode[], files: [] as string[], ambiguousSkipped: 0 };
  if (found.length !== 1) return { ...base, candidates: found.map(ref), tookMs: 0 };
  const root = found[0]!;
  const backward = db.query<{ next: number | null; ambiguous: number }, [number]>("SELECT src_id AS next, ambiguous FROM edges WHERE dst_id = ?");
  const forward = db.query<{ next: number | null; ambiguous: number }, [number]>("SELECT dst_id AS next, ambiguous FROM edges WHERE src_id = ?");
  const nodes: CodeBlastNode[] = [];
  let ambiguousSkipped = 0;
  const directions = req.direction === "both" ? (["backward", "forward"] as const) : ([req.direction] as const);
  for (const direction of directions) {
    const step = direction === "backward" ? backward : forward;
    const seen = new Set<number>([root.id]);
    let frontier = [root.id];
    for (let depth = 1; depth <= req.depth && frontier.length > 0; depth++) {
      const next: number[] = [];
      for (const id of frontier) {
        for (const e of step.all(id)) {
          if (e.next === null || seen.has(e.next)) continue;
          if (e.ambiguous) {
            ambiguousSkipped++;
            continue;
          }
          seen.add(e.next);
          next.push(e.next);
          const row = symbolById(db, e.next);
          if (row) nodes.push({ ...ref(row), depth, direction, via: id });
        }
      }
      frontier = next;
    }
  }
  const files = [...new Set(nodes.map((n) => n.path))].sort();
  return { ...base, root: ref(root), nodes, files, ambiguousSkipped, tookMs: Math.round((performance.now() - started) * 100) / 100 };
}

// ---- constants ----

export function sharedConstants(db: Database, project: string, q: CodeConstantsQuery): CodeConstantsResponse {
  const groups = db
    .query<{ kind: "string" | "number"; value: string; files: number; occurrences: number }, [number, number]>(
      `SELECT kind, value, COUNT(DISTINCT file_id) AS files, COUNT(*) AS occurrences FROM literals
       GROUP BY kind, value HAVING files >= ? ORDER BY files DESC, occurrences DESC, kind, value LIMIT ?`,
    )
    .all(q.min_files, q.limit);
  const where = db.query<{ path: string; line: number; symbol: string | null }, [string, string]>(
    `SELECT f.path, l.line, s.name AS symbol FROM literals l JOIN files f ON f.id = l.file_id LEFT JOIN symbols s ON s.id = l.symbol_id
     WHERE l.kind = ? AND l.value = ? ORDER BY f.path, l.line LIMIT 10`,
  );
  const constants: CodeConstant[] = groups.map((g) => ({ ...g, locations: where.all(g.kind, g.value) }));
  return { project, constants };
}

// ---- briefing ----

/** A file's subsystem: its folder, two levels deep (`src/core`, `test/unit`), or `.` at the root. */
function folderOf(path: string): string {
  const parts = path.split("/").slice(0, -1);
  return parts.length === 0 ? "." : parts.slice(0, 2).join("/");
}

export function totalsOf(db: Database): CodeBriefingResponse["totals"] {
  const count = (table: string) => db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n;
  return { files: count("files"), symbols: count("symbols"), edges: count("edges"), imports: count("imports"), literals: count("literals") };
}

export function briefing(db: Database, project: string, compact: boolean): CodeBriefingResponse {
  const files = db.query<{ id: number; path: string; language: string }, []>("SELECT id, path, language FROM files").all();
  const folderOfFile = new Map(files.map((f) => [f.id, folderOf(f.path)]));
  const subsystems = new Map<string, { folder: string; files: number; symbols: number; languages: Set<string>; links: Map<string, number> }>();
  const entry = (folder: string) => {
    let s = subsystems.get(folder);
    if (!s) subsystems.set(folder, (s = { folder, files: 0, symbols: 0, languages: new Set(), links: new Map() }));
    return s;
  };
  for (const f of files) {
    const s = entry(folderOfFile.get(f.id)!);
    s.files++;
    s.languages.add(f.language);
  }
  for (const r of db.query<{ fileId: number; n: number }, []>("SELECT file_id AS fileId, COUNT(*) AS n FROM symbols GROUP BY file_id").all()) {
    entry(folderOfFile.get(r.fileId)!).symbols += r.n;
  }
  const crossing = db
    .query<{ srcFile: number; dstFile: number; n: number }, []>(
      `SELECT e.src_file_id AS srcFile, s.file_id AS dstFile, COUNT(*) AS n FROM edges e JOIN symbols s ON s.id = e.dst_id
       WHERE e.ambiguous = 0 AND e.src_file_id != s.file_id GROUP BY e.src_file_id, s.file_id`,
    )
    .all();
  for (const c of crossing) {
    const from = folderOfFile.get(c.srcFile)!;
    const to = folderOfFile.get(c.dstFile)!;
    if (from !== to) entry(from).links.set(to, (entry(from).links.get(to) ?? 0) + c.n);
  }
  const limit = compact ? { folders: 8, links: 3, api: 8, hubs: 5 } : { folders: 40, links: 10, api: 25, hubs: 15 };
  const publicApi = db
    .query<SymbolRow & { dependents: number }, [number]>(
      `SELECT ${SYMBOL_COLUMNS}, COUNT(DISTINCT e.src_file_id) AS dependents FROM symbols s JOIN files f ON f.id = s.file_id
       JOIN edges e ON e.dst_id = s.id AND e.ambiguous = 0 AND e.src_file_id != s.file_id
       WHERE s.exported = 1 GROUP BY s.id ORDER BY dependents DESC, s.name LIMIT ?`,
    )
    .all(limit.api)
    .map((r) => ({ ...ref(r), dependents: r.dependents }));
  const hubs = db
    .query<SymbolRow & { incoming: number; outgoing: number }, [number]>(
      `WITH inc AS (SELECT dst_id AS id, COUNT(*) AS n FROM edges WHERE ambiguous = 0 GROUP BY dst_id),
            outg AS (SELECT src_id AS id, COUNT(*) AS n FROM edges WHERE ambiguous = 0 AND src_id IS NOT NULL GROUP BY src_id)
       SELECT ${SYMBOL_COLUMNS}, COALESCE(inc.n, 0) AS incoming, COALESCE(outg.n, 0) AS outgoing
       FROM symbols s JOIN files f ON f.id = s.file_id LEFT JOIN inc ON inc.id = s.id LEFT JOIN outg ON outg.id = s.id
       WHERE inc.n IS NOT NULL ORDER BY incoming + outgoing DESC, s.name LIMIT ?`,
    )
    .all(limit.hubs)
    .map((r) => ({ ...ref(r), incoming: r.incoming, outgoing: r.outgoing }));
  return {
    project,
    compact,
    totals: totalsOf(db),
    subsystems: [...subsystems.values()]
      .sort((a, b) => b.symbols - a.symbols || a.folder.localeCompare(b.folder))
      .slice(0, limit.folders)
      .map((s) => ({
        folder: s.folder,
        files: s.files,
        symbols: s.symbols,
        languages: [...s.languages].sort(),
        links: [...s.links.entries()]
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .slice(0, limit.links)
          .map(([to, edges]) => ({ to, edges })),
      })),
    publicApi,
    hubs,
  };
}
