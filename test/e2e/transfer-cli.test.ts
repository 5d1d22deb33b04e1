// `signet export|import|backup`, `list --forgotten`, short ids and the dedupe message, run as a user
// would: the compiled binary against two real daemons (docs/api.md#export-import-and-backup).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";
import { exportHeader, exportRecord } from "../helpers/export-record";

let a: Sandbox;
let b: Sandbox;
let work: string;
const on = (s: Sandbox) => (args: string[], cwd?: string) => run(args, { env: s.env, cwd });

beforeAll(async () => {
  a = await sandbox("embedding:\n  provider: none\n");
  b = await sandbox("embedding:\n  provider: none\n");
  for (const s of [a, b]) await startDaemonIn(s);
  work = join(a.home, "work");
  mkdirSync(work, { recursive: true });
});

afterAll(async () => {
  for (const s of [a, b]) await on(s)(["daemon", "stop"]);
});

const records = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => JSON.parse(l));

describe("export → import → export", () => {
  let file: string;

  test("signet export -o writes a new 0600 file; it never overwrites one", async () => {
    const cli = on(a);
    const m = json(await cli(["remember", "The build uses Bun", "--tags", "tooling,build", "--importance", "0.8"]));
    expect((await cli(["modify", m.id, "--reason", "precise", "--content", "The build uses Bun 1.4"])).code).toBe(0);
    const gone = json(await cli(["remember", "A passing thought", "--agent", "other"]));
    expect((await cli(["forget", gone.id, "--reason", "wrong", "--agent", "other"])).code).toBe(0);
    file = join(work, "all.jsonl");
    const out = await cli(["export", "--forgotten", "-o", "all.jsonl"], work);
    expect(out.code).toBe(0);
    expect(json(out)).toEqual({ path: file, count: 2, forgotten: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const [header] = readFileSync(file, "utf8").split("\n");
    expect(JSON.parse(header!)).toMatchObject({ kind: "signet-export", version: 1, count: 2, forgotten: true });
    expect(records(file).map((r) => [r.content, r.history.length, r.deletedAt === null])).toEqual([
      ["The build uses Bun 1.4", 2, true],
      ["A passing thought", 2, false],
    ]);
    const again = await cli(["export", "-o", file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already exists");
    // An export holds every agent's memories: --agent would narrow nothing, so it is no flag of export.
    const agent = await cli(["export", "--agent", "other"]);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain("unknown option --agent");
    // To stdout, live memories only.
    const live = (await cli(["export"])).stdout.trim().split("\n");
    expect(live.map((l) => JSON.parse(l).kind)).toEqual(["signet-export", "memory"]);
  });

  test("signet import into an empty store, twice: everything, then nothing; exporting again gives the same records", async () => {
    const cli = on(b);
    const first = await cli(["import", file]);
    expect(first.code).toBe(0);
    expect(json(first)).toMatchObject({ format: "signet", imported: 2, skipped: 0, duplicates: [], conflicts: [], rejected: [] });
    const second = await cli(["import", file, "--pretty"]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("imported 0 · skipped 2 (already stored) · duplicates 0 · conflicts 0");
    const back = join(work, "back.jsonl");
    expect((await cli(["export", "--forgotten", "-o", back])).code).toBe(0);
    expect(records(back)).toEqual(records(file));
  });

  test("a file with a bad line imports nothing and names the line (exit 2)", async () => {
    const bad = join(work, "bad.jsonl");
    const lines = readFileSync(file, "utf8").trim().split("\n");
    const broken = { ...JSON.parse(lines[1]!), id: crypto.randomUUID(), content: "never imported", importance: 7 };
    writeFileSync(bad, [lines[0], JSON.stringify(broken), lines[2]].join("\n"));
    const res = await on(b)(["import", bad]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${bad}:2`);
    expect(res.stderr).toContain("importance");
    expect(json(await on(b)(["list"])).memories.map((m: any) => m.content)).not.toContain("never imported");
    const cut = join(work, "cut.jsonl");
    writeFileSync(cut, lines.slice(0, 2).join("\n"));
    const short = await on(b)(["import", cut]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("holds 1 memories but its header counts 2");
  });

  test("a conflict is reported and exits 1; the stored memory stays", async () => {
    const [build] = records(file);
    const cli = on(b);
    expect((await cli(["modify", build.id.slice(0, 8), "--reason", "mine", "--content", "Ours differs"])).code).toBe(0);
    const ahead = { ...build, version: 3, history: [...build.history, { ...build.history[1], version: 3, content: "Theirs" }], content: "Theirs" };
    const lines = readFileSync(file, "utf8").trim().split("\n");
    const conflicting = join(work, "conflict.jsonl");
    writeFileSync(conflicting, `${JSON.stringify({ ...JSON.parse(lines[0]!), count: 1 })}\n${JSON.stringify(ahead)}\n`);
    const res = await cli(["import", conflicting, "--pretty"]);
    expect(res.code).toBe(1);
    // Both went on from version 2, each its own way.
    expect(res.stdout).toContain(`conflict: memory ${build.id} exists and its content at version 3 differs from the file's`);
    expect(json(await cli(["get", build.id])).content).toBe("Ours differs");
  });
});

describe("foreign formats", () => {
  test("--from server-memory: observations and relations become memories; again: all skipped", async () => {
    const graph = join(work, "memory.jsonl");
    writeFileSync(
      graph,
      [
        { type: "entity", name: "Grace Hopper", entityType: "person", observations: ["Wrote the first compiler", "Coined the word debugging"] },
        { type: "entity", name: "COBOL", entityType: "language", observations: ["Designed for business data"] },
        { type: "relation", from: "Grace Hopper", to: "COBOL", relationType: "influenced" },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n"),
    );
    const cli = on(b);
    const first = await cli(["import", "--from", "server-memory", graph, "--agent", "graph"]);
    expect(first.code).toBe(0);
    expect(json(first)).toMatchObject({ imported: 4, skipped: 0 });
    const grace = json(await cli(["list", "--tags", "Grace Hopper", "--agent", "graph"])).memories.map((m: any) => m.content).sort();
    expect(grace).toEqual(["Grace Hopper influenced COBOL", "Grace Hopper: Coined the word debugging", "Grace Hopper: Wrote the first compiler"]);
    expect(json(await cli(["import", "--from", "server-memory", graph, "--agent", "graph"]))).toMatchObject({ imported: 0, skipped: 4 });
    writeFileSync(join(work, "bad-graph.jsonl"), `${JSON.stringify({ type: "entity", name: "X", entityType: "y", observations: [""] })}\n`);
    const bad = await cli(["import", "--from", "server-memory", join(work, "bad-graph.jsonl")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bad-graph.jsonl:1");
  });

  test("--from basic-memory reads a directory of notes (hidden directories left out); again: all skipped", async () => {
    const notes = join(work, "notes");
    mkdirSync(join(notes, "projects"), { recursive: true });
    mkdirSync(join(notes, ".basic-memory"), { recursive: true });
    writeFileSync(
      join(notes, "projects", "search.md"),
      "---\ntitle: Search Design\ntags:\n  - search\n  - design\npermalink: search-design\n---\n\n## Observations\n- [decision] Use BM25 for keywords #ranking\n- [risk] Vectors may be slow\n\n## Relations\n- implements [[Recall]]\n",
    );
    writeFileSync(join(notes, "idea.md"), "An idea without structure.\r\nSecond line.\r\n");
    writeFileSync(join(notes, ".basic-memory", "hidden.md"), "- [fact] never read\n");
    writeFileSync(join(notes, "readme.txt"), "not a note");
    const cli = on(b);
    const first = await cli(["import", "--from", "basic-memory", notes, "--agent", "notes"]);
    expect(first.code).toBe(0);
    expect(json(first)).toMatchObject({ imported: 4, skipped: 0, rejected: [] });
    const all = json(await cli(["list", "--agent", "notes"])).memories;
    expect(all.map((m: any) => m.content).sort()).toEqual([
      "Search Design implements Recall",
      "Use BM25 for keywords #ranking",
      "Vectors may be slow",
      "idea\n\nAn idea without structure.\r\nSecond line.",
    ]);
    expect(all.find((m: any) => m.type === "decision")).toMatchObject({ tags: ["search", "design", "ranking", "Search Design"], structured: { path: "projects/search.md" } });
    expect(json(await cli(["import", "--from", "basic-memory", notes, "--agent", "notes"]))).toMatchObject({ imported: 0, skipped: 4 });
  });
});

describe("a target that cannot be the new file is refused in words, exit 2, before anything is written", () => {
  test("signet export -o and signet backup", async () => {
    const cli = on(a);
    const dir = join(work, "targets");
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(dir, "nowhere.jsonl"), join(dir, "dangling"));
    writeFileSync(join(dir, "there"), "mine");
    const cases: [string[], string][] = [
      [["export", "-o", "/nonexistent/x.jsonl"], "cannot create /nonexistent/x.jsonl: the directory /nonexistent does not exist"],
      [["export", "-o", "dangling"], `${join(dir, "dangling")} is a symbolic link: refusing to write through a symbolic link, give a new file name`],
      [["export", "-o", ""], "give a file name: an export is written to a new file"],
      [["export", "-o", "."], `${dir} is a directory: give a file name`],
      [["export", "-o", "there"], `${join(dir, "there")} already exists: an export never overwrites a file, give a new file name`],
      [["export", "-o", "there/x"], `cannot create ${join(dir, "there", "x")}: ${join(dir, "there")} is not a directory`],
      [["backup", ""], "give a file name: a backup is written to a new file"],
      [["backup", "/nonexistent/x.db"], "cannot create /nonexistent/x.db: the directory /nonexistent does not exist"],
      [["backup", "dangling"], `${join(dir, "dangling")} is a symbolic link (refusing to write through it): a backup never overwrites a file, give a new file name`],
      [["backup", "there"], `${join(dir, "there")} already exists: a backup never overwrites a file, give a new file name`],
    ];
    for (const [args, said] of cases) {
      const r = await cli(args, dir);
      expect({ args, code: r.code, stderr: r.stderr.trim() }).toEqual({ args, code: 2, stderr: `signet: ${said}` });
    }
    expect(readdirSync(dir).sort()).toEqual(["dangling", "there"]);
    expect(readFileSync(join(dir, "there"), "utf8")).toBe("mine");
  });
});

describe("backup", () => {
  test("signet backup <relative file>: a 0600 copy in the current directory; never over an existing file (exit 2)", async () => {
    const cli = on(a);
    const res = await cli(["backup", "copy.db"], work);
    expect(res.code).toBe(0);
    const path = join(work, "copy.db");
    expect(json(res)).toMatchObject({ path, memories: 2 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const db = new (await import("bun:sqlite")).Database(path, { readonly: true });
    expect(db.query("SELECT content FROM memories ORDER BY seq").all()).toEqual([{ content: "The build uses Bun 1.4" }, { content: "A passing thought" }]);
    db.close();
    const again = await cli(["backup", path]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("never overwrites");
  });
});

describe("finding memories", () => {
  test("signet list --forgotten shows the forgotten ones, newest deletion first", async () => {
    const cli = on(a);
    const listed = json(await cli(["list", "--forgotten", "--agent", "other"])).memories;
    expect(listed.map((m: any) => m.content)).toEqual(["A passing thought"]);
    expect(json(await cli(["list", "--agent", "other"])).memories).toEqual([]);
  });

  test("short ids: a unique prefix works for get/modify/forget/recover/history; ambiguous and too short exit 2, unknown 1", async () => {
    const cli = on(b);
    const file = join(work, "short.jsonl");
    const lines = [exportHeader(2), exportRecord("a74c5561-0000-4000-8000-000000000001", "first", "short"), exportRecord("a74c5562-0000-4000-8000-000000000002", "second", "short")];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n"));
    expect(json(await cli(["import", file]))).toMatchObject({ imported: 2 });
    const as = ["--agent", "short"];
    expect(json(await cli(["get", "a74c5561", ...as])).content).toBe("first");
    expect(json(await cli(["modify", "a74c5562", "--reason", "r", "--content", "second, changed", ...as])).version).toBe(2);
    expect(json(await cli(["history", "a74c5562", ...as])).history).toHaveLength(2);
    expect((await cli(["forget", "a74c5561", "--reason", "r", ...as])).code).toBe(0);
    expect(json(await cli(["recover", "a74c5561", ...as])).deletedAt).toBeNull();
    const ambiguous = await cli(["get", "a74c556", ...as]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("ambiguous");
    expect(ambiguous.stderr).toContain("a74c5561-0000-4000-8000-000000000001");
    expect(ambiguous.stderr).toContain("a74c5562-0000-4000-8000-000000000002");
    const short = await cli(["get", "a74c5", ...as]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("first 6 characters");
    const unknown = await cli(["get", "0000aaaa", ...as]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no memory has an id starting with 0000aaaa");
  });

  test("remembering a text again with new tags says what it did not apply", async () => {
    const cli = on(a);
    await cli(["remember", "Prefer tabs", "--tags", "style"]);
    const again = await cli(["remember", "prefer tabs", "--tags", "style,editor", "--importance", "0.9", "--pretty"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("already remembered; not applied: importance, tags");
  });
});
