// References resolved to symbols, by name and import (docs/code.md#edges). A reference goes to the
// first of these that has candidates: what the file imports under that name, the same file, the same
// directory (a Go package), then the whole project; only within one language family (TypeScript,
// TSX and JavaScript are one). More than one candidate at that step: an edge to each, marked ambiguous.
import type { Database, Statement } from "bun:sqlite";
import { posix } from "node:path";
import { CREATE_EDGE_INDEXES, DROP_EDGE_INDEXES } from "./store";

/** A reference with more candidates than this gets none: a name that common says nothing. */
const MAX_CANDIDATES = 10;

interface Sym {
  id: number;
  fileId: number;
  name: string;
  kind: string;
  parentId: number | null;
  container: string | null;
}

interface FileInfo {
  id: number;
  path: string;
  family: string;
  dir: string;
}

interface Imp {
  file_id: number;
  source: string;
  name: string;
  alias: string;
}

/** A reference as file_refs stores it (store.ts): [from_id, name, qualifier, kind, line]. */
export type StoredRef = [number | null, string, string | null, "call" | "ref", number];

interface Ref {
  file_id: number;
  from_id: number | null;
  name: string;
  qualifier: string | null;
  kind: "call" | "ref";
  line: number;
}

const FAMILY: Record<string, string> = { typescript: "js", tsx: "js", javascript: "js", python: "python", go: "go", rust: "rust" };
const JS_EXTENSIONS = ["", ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx", "/index.js"];
const TYPE_KINDS = new Set(["class", "struct", "interface", "trait", "type", "enum"]);

/**
 * Methods of the languages' own types and standard libraries. `x.push()` on a receiver of unknown
 * type may be one of these as well as a project method of that name: such an edge is ambiguous even
 * with one project candidate.
 */
const LIBRARY_METHODS: Record<string, Set<string>> = {
  js: new Set(
    ("push pop shift unshift slice splice map filter reduce forEach find findIndex some every includes indexOf join split replace " +
      "replaceAll trim toString toLowerCase toUpperCase startsWith endsWith get set has delete clear add keys values entries then " +
      "catch finally apply call bind match test exec concat sort reverse fill at flat flatMap write end on once emit close read send " +
      "json text parse stringify next resolve reject assign log error warn info debug run all query prepare").split(" "),
  ),
  python: new Set(
    ("append extend insert remove pop clear index count sort reverse keys values items get update setdefault copy join split strip " +
      "replace format lower upper startswith endswith encode decode read write close add discard execute fetchall fetchone").split(" "),
  ),
  go: new Set("Close Write Read String Error Lock Unlock RLock RUnlock Wait Add Done Err Len Get Set Do Scan Exec Query".split(" ")),
  rust: new Set(
    ("push pop insert remove get get_mut len is_empty iter iter_mut into_iter map filter collect unwrap expect clone to_string " +
      "as_str as_ref borrow borrow_mut lock send recv contains extend join split trim parse ok err and_then unwrap_or map_err next " +
      "write read flush entry or_insert").split(" "),
  ),
};

interface Resolution {
  targets: Sym[];
  /** A candidate outside the project (a library method) is possible too. */
  unseen?: boolean;
}

class Resolver {
  private readonly files = new Map<number, FileInfo>();
  private readonly byPath = new Map<string, FileInfo>();
  private readonly filesByDir = new Map<string, FileInfo[]>();
  /** family → name → symbols of that name in files of that family. */
  private readonly byName = new Map<string, Map<string, Sym[]>>();
  private readonly symbols = new Map<number, Sym>();
  /** file id → local name → the import binding it. */
  private readonly bindings = new Map<number, Map<string, Imp>>();
  private readonly moduleCache = new Map<string, number[]>();

  constructor(db: Database) {
    for (const f of db.query<{ id: number; path: string; language: string }, []>("SELECT id, path, language FROM files").all()) {
      const info = { id: f.id, path: f.path, family: FAMILY[f.language] ?? f.language, dir: posix.dirname(f.path) };
      this.files.set(f.id, info);
      this.byPath.set(f.path, info);
      const inDir = this.filesByDir.get(info.dir) ?? [];
      inDir.push(info);
      this.filesByDir.set(info.dir, inDir);
    }
    const rows = db
      .query<Sym, []>("SELECT id, file_id AS fileId, name, kind, parent_id AS parentId, container FROM symbols")
      .all();
    for (const s of rows) {
      this.symbols.set(s.id, s);
      const family = this.files.get(s.fileId)!.family;
      let names = this.byName.get(family);
      if (!names) this.byName.set(family, (names = new Map()));
      const list = names.get(s.name);
      if (list) list.push(s);
      else names.set(s.name, [s]);
    }
    for (const imp of db.query<Imp, []>("SELECT file_id, source, name, alias FROM imports").all()) {
      const map = this.bindings.get(imp.file_id) ?? new Map<string, Imp>();
      map.set(imp.alias, imp);
      this.bindings.set(imp.file_id, map);
    }
  }

  /** The project files an import names, or [] when it is outside the project. */
  private moduleFiles(from: FileInfo, source: string): number[] {
    const key = `${from.dir}\0${from.family}\0${source}`;
    const cached = this.moduleCache.get(key);
    if (cached) return cached;
    const found = this.findModule(from, source);
    this.moduleCache.set(key, found);
    return found;
  }

  private findModule(from: FileInfo, source: string): number[] {
    const existing = (paths: string[]) => paths.map((p) => this.byPath.get(p)).filter((f): f is FileInfo => f !== undefined);
    switch (from.family) {
      case "js": {
        if (!source.startsWith(".")) return [];
        const base = posix.normalize(posix.join(from.dir, source));
        // TypeScript's ESM style imports "./x.js" for ./x.ts.
        const stem = base.replace(/\.(js|jsx|mjs|cjs)$/, "");
        const hit = existing([...JS_EXTENSIONS.map((e) => base + e), ...JS_EXTENSIONS.map((e) => stem + e)])[0];
        return hit ? [hit.id] : [];
      }
      case "python": {
        const dots = /^\.*/.exec(source)![0].length;
        const rest = source.slice(dots).replaceAll(".", "/");
        let dir = dots > 0 ? from.dir : ".";
        for (let i = 1; i < dots; i++) dir = posix.dirname(dir);
        const base = rest === "" ? dir : posix.join(dir, rest);
        const hits = existing([`${base}.py`, `${base}.pyi`, `${base}/__init__.py`].map((p) => posix.normalize(p)));
        if (hits.length > 0 || dots > 0) return hits.map((h) => h.id);
        // An absolute import may be rooted in any top-level folder of the project (src/ layouts).
        return [...this.byPath.values()].filter((f) => f.family === "python" && (f.path.endsWith(`/${rest}.py`) || f.path.endsWith(`/${rest}/__init__.py`))).map((f) => f.id);
      }
      case "go": {
        // A package is a directory: the one whose path (from the project root) ends the import path.
        for (const [dir, inDir] of this.filesByDir) {
          if (dir === "." || !(source === dir || source.endsWith(`/${dir}`))) continue;
          const goFiles = inDir.filter((f) => f.family === "go");
          if (goFiles.length > 0) return goFiles.map((f) => f.id);
        }
        return [];
      }
      default:
        // Rust `use` paths are matched by name (the project-wide step), not by module.
        return [];
    }
  }

  private named(name: string, family: string): Sym[] {
    return this.byName.get(family)?.get(name) ?? [];
  }

  /** The candidates of one reference. */
  resolve(ref: Ref): Resolution {
    const file = this.files.get(ref.file_id)!;
    const pool = this.named(ref.name, file.family);
    // `import { a as b }`: a call of `b` has no symbol of its own name, but the import resolves it.
    const renamed = ref.qualifier === null && this.bindings.get(file.id)?.has(ref.name);
    if (pool.length === 0 && !renamed) return { targets: [] };
    const targets = this.candidates(ref, file, pool);
    // A method called on a value of unknown type may be the library's as well as the project's.
    const q = ref.qualifier;
    const unknownReceiver = q !== null && q !== "this" && q !== "self" && !/^[A-Z]/.test(q) && !this.bindings.get(file.id)?.has(q);
    return { targets, unseen: unknownReceiver && LIBRARY_METHODS[file.family]?.has(ref.name) };
  }

  private candidates(ref: Ref, file: FileInfo, pool: Sym[]): Sym[] {
    const binding = this.bindings.get(file.id);
    const q = ref.qualifier;
    if (q !== null) {
      if (q === "this" || q === "self") {
        const from = ref.from_id === null ? undefined : this.symbols.get(ref.from_id);
        const owner = from?.parentId ?? null;
        const own = pool.filter((s) => owner !== null && s.parentId === owner);
        if (own.length > 0) return own;
        return pool.filter((s) => s.kind === "method");
      }
      const viaImport = binding?.get(q);
      if (viaImport) {
        const files = this.moduleFiles(file, viaImport.source);
        return pool.filter((s) => files.includes(s.fileId) && s.parentId === null);
      }
      // `Type.method` / `Type::new`: a type of the project, or something outside it.
      if (/^[A-Z]/.test(q)) return pool.filter((s) => s.container === q);
      return pool.filter((s) => s.kind === "method");
    }
    const imported = binding?.get(ref.name);
    if (imported) {
      const files = this.moduleFiles(file, imported.source);
      const wanted = imported.name === "default" || imported.name === "*" ? ref.name : imported.name;
      const target = this.named(wanted, file.family);
      return target.filter((s) => files.includes(s.fileId) && s.kind !== "method");
    }
    const wantKinds = (s: Sym) => (ref.kind === "ref" ? TYPE_KINDS.has(s.kind) : s.kind !== "method" || file.family === "rust");
    const candidates = pool.filter(wantKinds);
    const sameFile = candidates.filter((s) => s.fileId === file.id);
    if (sameFile.length > 0) return sameFile;
    const sameDir = candidates.filter((s) => this.files.get(s.fileId)!.dir === file.dir);
    if (sameDir.length > 0) return sameDir;
    return candidates;
  }
}

/** Rebuilds the edges table from file_refs; returns the number of edges. Run inside a transaction. */
export function resolveEdges(db: Database): number {
  // Sorting every edge into fresh indexes at the end costs less than inserting each into them.
  db.run(DROP_EDGE_INDEXES);
  db.run("DELETE FROM edges");
  const resolver = new Resolver(db);
  const insert = db.query("INSERT INTO edges (src_id, src_file_id, dst_id, kind, line, ambiguous) VALUES (?, ?, ?, ?, ?, ?)");
  let count = 0;
  const files = db.query<{ file_id: number; refs: string }, []>("SELECT file_id, refs FROM file_refs").all();
  for (const { file_id, refs } of files) {
    for (const [from_id, name, qualifier, kind, line] of JSON.parse(refs) as StoredRef[]) {
      count += resolveOne(resolver, insert, { file_id, from_id, name, qualifier, kind, line });
    }
  }
  db.run(CREATE_EDGE_INDEXES);
  return count;
}

/** Inserts the edges of one reference; returns how many. */
function resolveOne(resolver: Resolver, insert: Statement, ref: Ref): number {
  const { targets, unseen } = resolver.resolve(ref);
  if (targets.length === 0 || targets.length > MAX_CANDIDATES) return 0;
  const ambiguous = targets.length > 1 || unseen ? 1 : 0;
  let count = 0;
  for (const t of targets) {
    // A declaration naming itself (a recursive type) is not a dependency.
    if (t.id === ref.from_id && ref.kind === "ref") continue;
    insert.run(ref.from_id, ref.file_id, t.id, ref.kind, ref.line, ambiguous);
    count++;
  }
  return count;
}
