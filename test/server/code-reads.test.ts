// What the daemon reads of an indexed project at query time, over HTTP (docs/security.md#the-data-directory-is-never-indexed,
// docs/code.md#the-tools): a file swapped after `signet index` for a link, a hard link of the admin
// token or a named pipe is not read (`signet code context` names the file and why, none of its
// content; `signet code doctor` likewise for the manifest), and the daemon keeps answering. A list of
// indexed projects that cannot be read is a 503 naming it, never "no code index"; and an index file
// that is not a database is named, with a fix that works: `signet index` makes it again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { linkSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codeProjectsPath, daemonFiles } from "../../src/config/paths";
import { indexProject } from "../../src/core/code/indexer";
import { readIndexedProjects, recordIndexedProject } from "../../src/core/code/projects";
import { DATA_DIR_REASON } from "../../src/core/files/data-dir";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { openFilePaths } from "../helpers/open-files";

let d: TestDaemon;
let token: string;
let tokenPath: string;
const writers: Bun.Subprocess[] = [];

beforeAll(async () => {
  d = await startTestDaemon();
  tokenPath = daemonFiles(d.dataDir).adminToken;
  token = d.daemon.context.credentials.adminToken;
  expect(readFileSync(tokenPath, "utf8")).toContain(token);
});

afterAll(async () => {
  for (const w of writers) w.kill("SIGKILL");
  await d.stop();
});

/** A project of one file, `src/a.ts` defining `target`, indexed and recorded for the daemon. */
async function indexedProject(): Promise<string> {
  const project = join(realpathSync(tempDir("signet-code-reads-")), "project");
  mkdirSync(join(project, "src"), { recursive: true });
  writeFileSync(join(project, "src", "a.ts"), "export function target(): number {\n  return 1;\n}\n");
  const run = await indexProject(project, undefined, d.dataDir);
  recordIndexedProject(codeProjectsPath(d.dataDir), { project, indexedAt: run.startedAt });
  return project;
}

async function context(project: string): Promise<{ status: number; text: string; body: any }> {
  const res = await d.fetch("/api/code/context", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ symbol: "target", project }) });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

async function doctor(project: string): Promise<{ status: number; text: string; body: any }> {
  const res = await d.fetch(`/api/code/doctor?project=${encodeURIComponent(project)}`);
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

function mkfifo(path: string): void {
  const r = Bun.spawnSync(["mkfifo", path]);
  if (r.exitCode !== 0) throw new Error(`mkfifo ${path}: ${r.stderr.toString()}`);
}

/**
 * A writer that opens the pipe a few seconds from now: a daemon that reads the pipe is held until
 * then and answers with what was written, rather than hanging the test for good. One that does not
 * read it never meets the writer, which is killed at the end.
 */
function eventualWriter(pipe: string): void {
  writers.push(Bun.spawn(["sh", "-c", `sleep 3; echo 'written-to-the-pipe' > '${pipe}'`], { stdout: "ignore", stderr: "ignore" }));
}

describe("signet code context reads a symbol's file as the index reads it", () => {
  test("the file is the source, as long as it is the file", async () => {
    const project = await indexedProject();
    const r = await context(project);
    expect(r.status).toBe(200);
    expect(r.body.definition).toMatchObject({ path: "src/a.ts", source: "export function target(): number {\n  return 1;\n}", stale: false });
  });

  test("swapped for a link to the admin token: named, not followed, no token", async () => {
    const project = await indexedProject();
    rmSync(join(project, "src", "a.ts"));
    symlinkSync(tokenPath, join(project, "src", "a.ts"));
    const r = await context(project);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(token);
    expect(r.body.definition).toMatchObject({ source: "(not read: src/a.ts: a symbolic link (not followed))", stale: true });
  });

  test("swapped for a hard link of the admin token: the data directory's file, not read", async () => {
    const project = await indexedProject();
    rmSync(join(project, "src", "a.ts"));
    linkSync(tokenPath, join(project, "src", "a.ts"));
    const r = await context(project);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(token);
    expect(r.body.definition).toMatchObject({ source: `(not read: src/a.ts: ${DATA_DIR_REASON})`, stale: true });
  });

  test("a folder on its way swapped for a link to a folder outside the project: not read", async () => {
    const project = await indexedProject();
    const outside = tempDir("signet-code-outside-");
    writeFileSync(join(outside, "a.ts"), "export function target(): string {\n  return 'outside-the-project';\n}\n");
    rmSync(join(project, "src"), { recursive: true });
    symlinkSync(outside, join(project, "src"));
    const r = await context(project);
    expect(r.text).not.toContain("outside-the-project");
    expect(r.body.definition).toMatchObject({ source: "(not read: src/a.ts: reached through a symbolic link to outside the project (not followed))", stale: true });
  });

  test("swapped for a named pipe: refused at once, and the daemon goes on answering", async () => {
    const project = await indexedProject();
    const pipe = join(project, "src", "a.ts");
    rmSync(pipe);
    mkfifo(pipe);
    eventualWriter(pipe);
    const r = await context(project);
    expect(r.status).toBe(200);
    expect(r.body.definition).toMatchObject({ source: "(not read: src/a.ts: a named pipe, not a regular file)", stale: true });
    expect((await d.fetch("/health")).status).toBe(200);
  });
});

describe("signet code doctor reads the manifest as the index reads a file", () => {
  const manifestCheck = (body: any) => body.checks.find((c: { name: string }) => c.name === "manifest");

  test("a link to the admin token: named, not followed, no token in the answer", async () => {
    const project = await indexedProject();
    const manifest = join(project, ".graphiq", "manifest.json");
    rmSync(manifest);
    symlinkSync(tokenPath, manifest);
    const r = await doctor(project);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(token);
    expect(manifestCheck(r.body)).toEqual({ name: "manifest", ok: false, detail: "manifest.json is not read: a symbolic link (not followed)" });
  });

  test("a hard link of the admin token: not read", async () => {
    const project = await indexedProject();
    const manifest = join(project, ".graphiq", "manifest.json");
    rmSync(manifest);
    linkSync(tokenPath, manifest);
    const r = await doctor(project);
    expect(r.text).not.toContain(token);
    expect(manifestCheck(r.body)).toEqual({ name: "manifest", ok: false, detail: `manifest.json is not read: ${DATA_DIR_REASON}` });
  });

  test("a named pipe: refused at once", async () => {
    const project = await indexedProject();
    const manifest = join(project, ".graphiq", "manifest.json");
    rmSync(manifest);
    mkfifo(manifest);
    eventualWriter(manifest);
    const r = await doctor(project);
    expect(r.status).toBe(200);
    expect(manifestCheck(r.body)).toEqual({ name: "manifest", ok: false, detail: "manifest.json is not read: a named pipe, not a regular file" });
  });
});

describe("an index file that is not a database", () => {
  test("is named by every route; doctor's fix, `signet index`, makes it again", async () => {
    const project = await indexedProject();
    const dbPath = join(project, ".graphiq", "graphiq.db");
    writeFileSync(dbPath, crypto.getRandomValues(new Uint8Array(65536)));
    for (const suffix of ["-wal", "-shm"]) rmSync(dbPath + suffix, { force: true });

    const r = await context(project);
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ code: "unavailable" });
    expect(r.body.error).toStartWith(`${dbPath} is not a SQLite database`);

    // Not one connection to it left open per request.
    for (let i = 0; i < 20; i++) expect((await context(project)).status).toBe(503);
    expect(openFilePaths((path) => path.startsWith(dbPath))).toEqual([]);

    const doc = await doctor(project);
    expect(doc.status).toBe(200);
    expect(doc.body.ok).toBe(false);
    expect(doc.body.checks[0]).toMatchObject({ name: "database", ok: false });
    expect(doc.body.checks[0].detail).toStartWith(`${dbPath} is not a SQLite database`);
    expect(doc.body.problems[0].fix).toBe(`run \`signet index ${project}\`: it makes the index again`);

    const run = await indexProject(project, undefined, d.dataDir);
    expect(run).toMatchObject({ parsed: ["src/a.ts"], failed: [] });
    const again = await context(project);
    expect([again.status, again.body.definition?.source]).toEqual([200, "export function target(): number {\n  return 1;\n}"]);
  });
});

describe("the index itself is never a file of the data directory", () => {
  test("a graphiq.db that is a hard link of the memory store: refused, the store untouched", async () => {
    const project = await indexedProject();
    const store = join(d.dataDir, "memory", "memories.db");
    const dbPath = join(project, ".graphiq", "graphiq.db");
    rmSync(dbPath);
    linkSync(store, dbPath);
    const r = await context(project);
    expect(r.status).toBe(503);
    expect(r.body.error).toBe(`the code index ${dbPath} leads into the Signet data directory: ${DATA_DIR_REASON}`);
    const err = await indexProject(project, undefined, d.dataDir).catch((e) => e);
    expect(err.message).toBe(`the code index ${dbPath} leads into the Signet data directory: ${DATA_DIR_REASON}`);
    const tables = new Database(store, { readonly: true });
    try {
      expect(tables.query("SELECT name FROM sqlite_master WHERE name IN ('symbols', 'edges')").all()).toEqual([]);
    } finally {
      tables.close();
    }
  });

  test("a .graphiq that is a link into the data directory: signet index refuses, writing nothing there", async () => {
    const project = await indexedProject();
    const target = join(d.dataDir, "elsewhere");
    mkdirSync(target);
    rmSync(join(project, ".graphiq"), { recursive: true });
    symlinkSync(target, join(project, ".graphiq"));
    const err = await indexProject(project, undefined, d.dataDir).catch((e) => e);
    expect(err.message).toBe(`the code index ${join(project, ".graphiq", "graphiq.db")} leads into the Signet data directory: ${DATA_DIR_REASON}`);
    expect(readdirSync(target)).toEqual([]);
  });
});

// Last: these make the list of indexed projects unreadable for every project of this daemon.
describe("a list of indexed projects that cannot be read", () => {
  test("is a 503 naming it, not 'no code index'; recording refuses to write over it", async () => {
    const project = await indexedProject();
    const list = codeProjectsPath(d.dataDir);
    const kept = `${list}.kept`;
    renameSync(list, kept);
    try {
      // A read that fails for another reason than absence (here EISDIR; EMFILE when out of descriptors).
      mkdirSync(list);
      const status = await d.fetch(`/api/code/status?project=${encodeURIComponent(project)}`);
      expect(status.status).toBe(503);
      const body = (await status.json()) as { error: string; code: string };
      expect(body.code).toBe("unavailable");
      expect(body.error).toStartWith(`the list of indexed projects ${list} cannot be read (EISDIR`);
      rmSync(list, { recursive: true });

      const damaged = '{"projects": [{"project": "/somewhere", "indexedAt": "2024-01-01T00:00:00.000Z"}';
      writeFileSync(list, damaged);
      const search = await d.fetch("/api/code/search", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "target" }) });
      expect(search.status).toBe(503);
      expect(((await search.json()) as { error: string }).error).toStartWith(`the list of indexed projects ${list} is damaged: it is not valid JSON`);
      expect(() => recordIndexedProject(list, { project, indexedAt: new Date().toISOString() })).toThrow(`${project} was indexed but not recorded among the indexed projects: the list of indexed projects ${list} is damaged`);
      expect(readFileSync(list, "utf8")).toBe(damaged);
    } finally {
      rmSync(list, { recursive: true, force: true });
      renameSync(kept, list);
    }
    expect(readIndexedProjects(list).map((p) => p.project)).toContain(project);
  });
});
