// The code indexer on a project whose answers are known (test/fixtures/code-project): symbols in five
// languages, exact callers, the blast radius to depth 2, shared constants, .gitignore, incremental
// runs and files that cannot be indexed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { CodeBlastRequestSchema, CodeSearchRequestSchema, type CodeEdge, type CodeSymbolRef } from "../../src/contracts/code";
import { indexProject, type IndexRun } from "../../src/core/code/indexer";
import { identifierParts } from "../../src/core/code/names";
import { blastRadius, sharedConstants, symbolContext } from "../../src/core/code/queries";
import { searchSymbols } from "../../src/core/code/search";
import { openIndex, readManifest } from "../../src/core/code/store";
import { codeProjectCopy } from "../helpers/code-project";

let project: string;
let first: IndexRun;
let db: Database;

beforeAll(async () => {
  project = codeProjectCopy();
  first = await indexProject(project);
  db = openIndex(project);
});

afterAll(() => {
  db.close();
  rmSync(dirname(project), { recursive: true, force: true });
});

const named = (s: CodeSymbolRef | null) => (s ? `${s.container ? `${s.container}.` : ""}${s.name}` : "(module)");
const callers = (symbol: string) => (symbolContext(db, project, symbol).callers ?? []).map((e: CodeEdge) => `${e.kind} ${named(e.symbol)} ${e.path}:${e.line}`);
const callees = (symbol: string) => (symbolContext(db, project, symbol).callees ?? []).map((e: CodeEdge) => `${e.kind} ${named(e.symbol)} ${e.path}:${e.line}`);

describe("indexing the fixture", () => {
  test("finds every code file but the ignored ones, in five languages", () => {
    expect(first.failed).toEqual([]);
    expect(first.parsed.sort()).toEqual([
      "go/main.go",
      "py/__init__.py",
      "py/helpers.py",
      "py/worker.py",
      "rust/lib.rs",
      "src/format.js",
      "src/service.ts",
      "src/store.ts",
      "src/view.tsx",
    ]);
    const manifest = readManifest(project);
    if (!("manifest" in manifest)) throw new Error(manifest.problem);
    expect(manifest.manifest.languages).toEqual({ go: 1, python: 3, rust: 1, javascript: 1, typescript: 2, tsx: 1 });
    expect(Object.keys(manifest.manifest.files)).toHaveLength(9);
  });

  test("records symbols with kind, container, lines, signature, doc and export", () => {
    const rows = db
      .query<{ name: string; kind: string; container: string | null; lines: string; exported: number }, []>(
        "SELECT s.name, s.kind, s.container, f.path || ':' || s.start_line || '-' || s.end_line AS lines, s.exported FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.start_line, s.name",
      )
      .all()
      .map((r) => `${r.kind} ${r.container ? `${r.container}.` : ""}${r.name} ${r.lines}${r.exported ? " exported" : ""}`);
    expect(rows).toEqual([
      "constant Limit go/main.go:6-6 exported",
      "struct Batch go/main.go:9-11 exported",
      "method Batch.Size go/main.go:14-16 exported",
      "function Describe go/main.go:18-20 exported",
      "function main go/main.go:22-24",
      "function normalize py/helpers.py:1-3 exported",
      "constant MAX_RETRIES py/worker.py:3-3 exported",
      "constant QUEUE py/worker.py:4-4 exported",
      "class Worker py/worker.py:7-14 exported",
      "method Worker.run py/worker.py:10-11",
      "method Worker.handle py/worker.py:13-14",
      "constant MAX_BATCH rust/lib.rs:2-2 exported",
      "struct Queue rust/lib.rs:4-6 exported",
      "method Queue.new rust/lib.rs:9-11 exported",
      "method Queue.enqueue rust/lib.rs:14-18 exported",
      "function fill rust/lib.rs:21-23 exported",
      "function label rust/lib.rs:25-27",
      "function formatRecord src/format.js:2-4 exported",
      "function saveRecord src/service.ts:5-10 exported",
      "function makeId src/service.ts:12-14",
      "function describe src/service.ts:16-18 exported",
      "constant STORE_NAME src/store.ts:2-2 exported",
      "constant DEFAULT_LIMIT src/store.ts:3-3 exported",
      "interface Record src/store.ts:5-8 exported",
      "class RecordStore src/store.ts:11-22 exported",
      "method RecordStore.addRecord src/store.ts:15-17",
      "method RecordStore.list src/store.ts:19-21",
      "function openStore src/store.ts:24-26 exported",
      "function RecordView src/view.tsx:3-5 exported",
    ]);
    const add = symbolContext(db, project, "RecordStore.addRecord").definition!;
    expect(add.signature).toBe("addRecord(record: Record): void");
    expect(add.doc).toBe("Adds one record.");
    expect(add.source).toBe("  addRecord(record: Record): void {\n    this.items.push(record);\n  }");
    expect(symbolContext(db, project, "Worker").definition!.doc).toBe("Processes queued records.");
    expect(symbolContext(db, project, "Size").definition!.doc).toBe("Size counts the items.");
    expect(symbolContext(db, project, "MAX_BATCH").definition!.doc).toBe("The largest batch.");
  });

  test("records imports as written, with their local names", () => {
    expect(symbolContext(db, project, "saveRecord").imports).toEqual([
      { source: "./store", name: "openStore", alias: "openStore", line: 1 },
      { source: "./store", name: "STORE_NAME", alias: "STORE_NAME", line: 1 },
      { source: "./store", name: "Record", alias: "Record", line: 1 },
      { source: "./format", name: "formatRecord", alias: "formatRecord", line: 2 },
    ]);
    expect(symbolContext(db, project, "Worker").imports).toEqual([{ source: ".helpers", name: "normalize", alias: "normalize", line: 1 }]);
    expect(symbolContext(db, project, "Describe").imports).toEqual([{ source: "fmt", name: "*", alias: "fmt", line: 3 }]);
  });

  test("the exact callers of each function, across files and languages", () => {
    expect(callers("openStore")).toEqual(["call saveRecord src/service.ts:6"]);
    expect(callers("RecordStore.addRecord")).toEqual(["call saveRecord src/service.ts:8"]);
    expect(callers("saveRecord")).toEqual(["call describe src/service.ts:17"]);
    expect(callers("formatRecord")).toEqual(["call describe src/service.ts:17"]);
    expect(callers("describe")).toEqual(["call RecordView src/view.tsx:4"]);
    expect(callers("makeId")).toEqual(["call saveRecord src/service.ts:7"]);
    expect(callers("normalize")).toEqual(["call Worker.handle py/worker.py:14"]);
    expect(callers("Worker.handle")).toEqual(["call Worker.run py/worker.py:11"]);
    expect(callers("Batch.Size")).toEqual(["call Describe go/main.go:19"]);
    expect(callers("Describe")).toEqual(["call main go/main.go:23"]);
    expect(callers("Queue.enqueue")).toEqual(["call fill rust/lib.rs:22"]);
    expect(callers("label")).toEqual(["call fill rust/lib.rs:22"]);
    expect(callers("RecordStore")).toEqual(["ref openStore src/store.ts:24", "call openStore src/store.ts:25"]);
    // Calls of what the project does not define (fmt.Sprintf, Vec::new, String::from) resolve to nothing.
    expect(callees("Describe")).toEqual(["ref Batch go/main.go:18", "call Batch.Size go/main.go:19"]);
    expect(callees("Queue.new")).toEqual([]);
    expect(callees("describe")).toEqual(["call formatRecord src/service.ts:17", "call saveRecord src/service.ts:17"]);
  });

  test("the blast radius to depth 2, backward, forward and both", () => {
    const blast = (symbol: string, depth: number, direction: "backward" | "forward" | "both") =>
      blastRadius(db, project, CodeBlastRequestSchema.parse({ symbol, depth, direction })).nodes.map((n) => `${n.direction} ${n.depth} ${named(n)}`);
    expect(blast("openStore", 2, "backward")).toEqual(["backward 1 saveRecord", "backward 2 describe"]);
    expect(blast("openStore", 3, "backward")).toEqual(["backward 1 saveRecord", "backward 2 describe", "backward 3 RecordView"]);
    expect(blast("describe", 2, "forward").sort()).toEqual(
      ["forward 1 formatRecord", "forward 1 saveRecord", "forward 2 Record", "forward 2 openStore", "forward 2 makeId", "forward 2 RecordStore.addRecord"].sort(),
    );
    expect(blast("Batch.Size", 2, "both")).toEqual(["backward 1 Describe", "backward 2 main", "forward 1 Batch"]);
    const files = blastRadius(db, project, CodeBlastRequestSchema.parse({ symbol: "openStore" })).files;
    expect(files).toEqual(["src/service.ts"]);
  });

  test("literals shared across files, with where they occur", () => {
    const shared = sharedConstants(db, project, { limit: 50, min_files: 2 });
    expect(shared.constants.map((c) => ({ kind: c.kind, value: c.value, files: c.files, occurrences: c.occurrences }))).toEqual([
      { kind: "number", value: "50", files: 4, occurrences: 4 },
      { kind: "string", value: "records-store", files: 4, occurrences: 4 },
    ]);
    expect(shared.constants[1]!.locations).toEqual([
      { path: "py/worker.py", line: 4, symbol: "QUEUE" },
      { path: "rust/lib.rs", line: 26, symbol: "label" },
      { path: "src/format.js", line: 3, symbol: "formatRecord" },
      { path: "src/store.ts", line: 2, symbol: "STORE_NAME" },
    ]);
  });

  test("search ranks by name parts; file narrows; debug shows the score parts", () => {
    const search = (query: string, extra: Record<string, unknown> = {}) => searchSymbols(db, project, CodeSearchRequestSchema.parse({ query, ...extra }));
    expect(search("record store").hits[0]!.name).toBe("RecordStore");
    expect(search("save_record").hits[0]!.name).toBe("saveRecord");
    expect(search("max batch").hits[0]!.name).toBe("MAX_BATCH");
    const inPython = search("record", { file: "py/" }).hits;
    expect(inPython.length).toBeGreaterThan(0);
    expect(inPython.every((h) => h.path.startsWith("py/"))).toBe(true);
    const hit = search("openStore", { debug: true, top: 1 }).hits;
    expect(hit).toHaveLength(1);
    expect(hit[0]!).toMatchObject({ name: "openStore", path: "src/store.ts", startLine: 24, endLine: 26, parts: ["open", "store"], snippet: "function openStore(): RecordStore" });
    expect(Object.keys(hit[0]!.debug!)).toEqual(["coverage", "bm25", "nameMatch", "kindWeight", "testFile", "exported"]);
    expect(search("zzzz nothing").hits).toEqual([]);
  });
});

describe("which files", () => {
  test("ignored and node_modules files are left out; a path inside node_modules may be indexed explicitly", async () => {
    const paths = db.query<{ path: string }, []>("SELECT path FROM files").all().map((r) => r.path);
    expect(paths.some((p) => p.startsWith("generated/") || p.startsWith("node_modules/"))).toBe(false);
    const inside = join(project, "node_modules", "dep");
    const run = await indexProject(inside);
    expect(run.parsed).toEqual(["index.js"]);
    rmSync(join(inside, ".graphiq"), { recursive: true });
  });
});

describe("incremental runs", () => {
  test("only the changed file is parsed again; a touched but unchanged file is not", async () => {
    const settled = await indexProject(project);
    expect(settled.parsed).toEqual([]);
    expect(settled.unchanged).toBe(9);

    const helpers = join(project, "py", "helpers.py");
    const later = new Date(Date.now() + 5000);
    utimesSync(helpers, later, later);
    const touched = await indexProject(project);
    expect(touched.parsed).toEqual([]);

    appendFileSync(helpers, "\n\ndef denormalize(item):\n    return normalize(item)\n");
    const edited = await indexProject(project);
    expect(edited.parsed).toEqual(["py/helpers.py"]);
    expect(edited.unchanged).toBe(8);
    // Edges are rebuilt from every file's references: the new caller is there, the old ones stay.
    expect(callers("normalize")).toEqual(["call denormalize py/helpers.py:7", "call Worker.handle py/worker.py:14"]);
  });

  test("a removed file leaves the index; a name defined twice becomes ambiguous", async () => {
    writeFileSync(join(project, "src", "other.ts"), "export function describe(x: number): string {\n  return String(x);\n}\n");
    const run = await indexProject(project);
    expect(run.parsed).toEqual(["src/other.ts"]);
    const ctx = symbolContext(db, project, "describe");
    expect(ctx.definition).toBeUndefined();
    expect(ctx.candidates!.map((c) => c.path)).toEqual(["src/other.ts", "src/service.ts"]);
    // view.tsx imports describe from ./service: the import decides, so the edge is not ambiguous.
    expect(symbolContext(db, project, "src/service.ts:describe").callers!.map((e) => [named(e.symbol), e.ambiguous])).toEqual([["RecordView", false]]);
    rmSync(join(project, "src", "other.ts"));
    const after = await indexProject(project);
    expect(after.removed).toEqual(["src/other.ts"]);
    expect(symbolContext(db, project, "describe").definition?.path).toBe("src/service.ts");
  });

  test("a library method name on a receiver of unknown type is ambiguous even with one project candidate", async () => {
    writeFileSync(
      join(project, "src", "stack.ts"),
      "export class Stack {\n  push(x: number): void {}\n}\nexport function fill(a: number[], s: Stack): void {\n  a.push(1);\n  s.pushAll();\n}\n",
    );
    await indexProject(project);
    // `this.items.push(record)` in RecordStore is an array's push, but that is only known from types.
    expect(symbolContext(db, project, "Stack.push").callers!.map((e) => [named(e.symbol), e.line, e.ambiguous])).toEqual([
      ["fill", 5, true],
      ["RecordStore.addRecord", 16, true],
    ]);
    // Not followed by blast.
    const blast = blastRadius(db, project, CodeBlastRequestSchema.parse({ symbol: "Stack.push" }));
    expect(blast.nodes).toEqual([]);
    expect(blast.ambiguousSkipped).toBe(2);
    rmSync(join(project, "src", "stack.ts"));
    await indexProject(project);
  });

  test("a call through an import renamed with `as` reaches the imported function", async () => {
    writeFileSync(join(project, "src", "alias.ts"), 'import { formatRecord as show } from "./format";\nexport function render(r: unknown): string {\n  return show(r);\n}\n');
    await indexProject(project);
    expect(callers("formatRecord")).toContain("call render src/alias.ts:3");
    expect(symbolContext(db, project, "render").callees!.map((e) => [named(e.symbol), e.ambiguous])).toEqual([["formatRecord", false]]);
    rmSync(join(project, "src", "alias.ts"));
    await indexProject(project);
  });

  test("a file that cannot be indexed is counted and named, and the run goes on", async () => {
    writeFileSync(join(project, "src", "binary.ts"), Buffer.from([0x65, 0x00, 0x66, 0x00]));
    const run = await indexProject(project);
    expect(run.failed).toEqual([{ path: "src/binary.ts", reason: "binary content (NUL bytes): not indexed" }]);
    expect(run.symbols).toBeGreaterThan(25);
    rmSync(join(project, "src", "binary.ts"));
  });

  test("the manifest follows the database", async () => {
    const manifest = JSON.parse(readFileSync(join(project, ".graphiq", "manifest.json"), "utf8"));
    const hashes = Object.fromEntries(db.query<{ path: string; hash: string }, []>("SELECT path, hash FROM files").all().map((r) => [r.path, r.hash]));
    expect(manifest.files).toEqual(hashes);
  });
});

test("identifiers split into their words", () => {
  expect(identifierParts("parseHTTPRequest")).toEqual(["parse", "http", "request"]);
  expect(identifierParts("MAX_BODY_BYTES")).toEqual(["max", "body", "bytes"]);
  expect(identifierParts("src/core/code-index.ts")).toEqual(["src", "core", "code", "index", "ts"]);
});

test("a question in a developer's words: body words, stems, words of the same meaning, tests below the code; names first", async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "signet-code-question-")));
  try {
    mkdirSync(join(root, "src"));
    mkdirSync(join(root, "test"));
    const guard = [
      'export const SESSION_COOKIE = "sid";',
      "",
      "/** Who the request acts for. */",
      "export function identify(request: Request, expected: string): string {",
      "  // Compares the presented admin token with the owner's, in constant time.",
      '  return sameSecret(request.headers.get("authorization"), expected) ? "owner" : "anonymous";',
      "}",
      "",
      "/** Ends a whole group. */",
      "export function terminateGroup(leader: number): void {",
      "  // every child the server spawned goes with it",
      "  process.kill(-leader);",
      "}",
      "",
    ].join("\n");
    writeFileSync(join(root, "src", "guard.ts"), guard);
    writeFileSync(join(root, "test", "guard.test.ts"), guard.replace("identify", "identifyAgain").replace("terminateGroup", "terminateAgain"));
    await indexProject(root);
    const index = openIndex(root);
    try {
      const names = (query: string) => searchSymbols(index, root, CodeSearchRequestSchema.parse({ query })).hits.map((h) => `${h.path}:${h.name}`);
      // Only its body holds "admin token" and "compares" (stemmed, it meets "compared"); the test's copy comes after it.
      expect(names("where is the admin token compared").slice(0, 2)).toEqual(["src/guard.ts:identify", "test/guard.test.ts:identifyAgain"]);
      // "stop" meets "ends", "kill" and "terminate" (words of the same meaning); "spawns" meets "spawned" (stems).
      expect(names("stop the server and everything it spawns")[0]).toBe("src/guard.ts:terminateGroup");
      // A name asked for as written, or in its words, comes first, constants too.
      expect(names("SESSION_COOKIE")[0]).toBe("src/guard.ts:SESSION_COOKIE");
      expect(names("session cookie")[0]).toBe("src/guard.ts:SESSION_COOKIE");
    } finally {
      index.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
