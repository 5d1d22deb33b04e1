// The code index follows the caller's project (docs/code.md#which-project-answers). Two projects are
// indexed into one data directory with `signet index` (its command, in this process); signet-mcp runs
// from source with its working directory in one project, in a folder inside the other, or in a folder
// no index covers, as a harness starts it. Each answers from its own project's index and names it;
// the folder without one is told how to make one. Over HTTP a request names its project; a folder
// with an index on disk that `signet index` never recorded is not read. `signet index` keeps the
// index out of git through .git/info/exclude, once, and never touches .gitignore.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { indexCommand } from "../../src/cli/code-index";
import { indexProject } from "../../src/core/code/indexer";
import { cliOutput } from "../helpers/cli-in-process";
import { CODE_TOOL_CALLS, codeProjectCopy } from "../helpers/code-project";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { callTool } from "../helpers/mcp-client";

const MAIN = resolve(import.meta.dir, "../../src/main.ts");

let d: TestDaemon;
/** Two projects: `a` the fixture, `b` the fixture without its Rust folder. */
let a: string;
let b: string;
/** A folder no index covers. */
let elsewhere: string;
const clients: Client[] = [];

/** `signet index <path> --json` as the CLI runs it, for this daemon's data directory: its JSON output. */
const signetIndex = async (path: string): Promise<any> => JSON.parse(await cliOutput(d, indexCommand, [path, "--json"], false));

/** signet-mcp over stdio, started in `cwd` as a harness starts it for a session working there. */
async function mcpIn(cwd: string): Promise<Client> {
  const client = new Client({ name: "code-projects", version: "1.0.0" });
  const env = { PATH: process.env.PATH ?? "", HOME: d.dataDir, SIGNET_PATH: d.dataDir, SIGNET_DAEMON_URL: d.url, SIGNET_AUTOSTART: "false" };
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, "mcp", "serve"], cwd, env, stderr: "pipe" }));
  clients.push(client);
  return client;
}

const noIndex = (folder: string) => `no code index for ${folder}: run \`signet index ${folder}\` (or on the project's root folder) to make one`;

beforeAll(async () => {
  d = await startTestDaemon();
  a = codeProjectCopy();
  b = codeProjectCopy();
  rmSync(join(b, "rust"), { recursive: true });
  elsewhere = realpathSync(tempDir("signet-unindexed-"));
  await signetIndex(a);
  await signetIndex(b);
}, 30_000);

afterAll(async () => {
  for (const c of clients) await c.close();
  await d.stop();
  for (const p of [a, b]) rmSync(dirname(p), { recursive: true, force: true });
});

describe("signet-mcp answers from the index of the project it works in", () => {
  test("each session gets its own project's index, and the answer names the project", async () => {
    const inA = await mcpIn(a);
    const inB = await mcpIn(join(b, "src")); // a folder inside project b
    const statusA = await callTool(inA, "signet_code_status", {});
    const statusB = await callTool(inB, "signet_code_status", {});
    expect(statusA).toMatchObject({ isError: false, structured: { project: a, totals: { files: 9 } } });
    expect(statusB).toMatchObject({ isError: false, structured: { project: b, totals: { files: 8 } } });
    expect(statusA.text).toContain(`Project: ${a}`);
    expect(statusB.text).toContain(`Project: ${b}`);

    // Only a's index holds the Rust Queue.
    const queueA = await callTool(inA, "signet_code_context", { symbol: "Queue" });
    expect(queueA.structured).toMatchObject({ project: a, definition: { name: "Queue", path: "rust/lib.rs" } });
    expect(queueA.text).toContain(` in ${a}`);
    const queueB = await callTool(inB, "signet_code_context", { symbol: "Queue" });
    expect(queueB.structured).toMatchObject({ project: b, candidates: [] });
    expect(queueB.text).toBe(`No symbol named "Queue" in the index of ${b}. Try signet_code_search to find its exact name.`);

    const searchB = await callTool(inB, "signet_code_search", { query: "open store" });
    expect(searchB.structured.project).toBe(b);
    expect(searchB.text).toContain(`for "open store" in ${b}`);
    // A project named relative to the session's folder.
    expect((await callTool(inB, "signet_code_status", { project: "../py" })).structured.project).toBe(b);
    expect((await callTool(inB, "signet_code_status", { project: relative(join(b, "src"), a) })).structured.project).toBe(a);
    const briefingA = await callTool(inA, "signet_code_briefing", { compact: true });
    expect(briefingA.structured.project).toBe(a);
    expect(briefingA.text.startsWith(`Architecture of ${a}:`)).toBe(true);
  }, 30_000);

  test("a session in a folder no index covers is told so and how to make one, by every tool", async () => {
    const outside = await mcpIn(elsewhere);
    for (const [tool, args] of CODE_TOOL_CALLS) {
      const r = await callTool(outside, tool, args);
      expect({ tool, isError: r.isError, text: r.text }).toEqual({ tool, isError: true, text: noIndex(elsewhere) });
    }
    // Naming a project answers from it.
    expect((await callTool(outside, "signet_code_status", { project: a })).structured.project).toBe(a);
  }, 30_000);
});

describe("the HTTP API takes a project", () => {
  const get = async (path: string) => {
    const res = await d.fetch(path);
    return { status: res.status, body: (await res.json()) as any };
  };

  test("each project answers for itself, also through a link; a folder inside one answers for it; none named: the project indexed last", async () => {
    expect((await get(`/api/code/status?project=${encodeURIComponent(a)}`)).body.project).toBe(a);
    expect((await get(`/api/code/status?project=${encodeURIComponent(join(b, "py"))}`)).body.project).toBe(b);
    expect((await get("/api/code/status")).body.project).toBe(b);
    // A link to a project's folder names that project.
    symlinkSync(a, join(elsewhere, "link-to-a"));
    expect((await get(`/api/code/status?project=${encodeURIComponent(join(elsewhere, "link-to-a", "src"))}`)).body.project).toBe(a);
    const search = await d.fetch("/api/code/search", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "queue", project: a, top: 1 }),
    });
    expect(((await search.json()) as any).hits[0]).toMatchObject({ name: "Queue", path: "rust/lib.rs" });
    const briefing = await get(`/api/code/briefing?compact=true&project=${encodeURIComponent(a)}`);
    expect(briefing.body).toMatchObject({ project: a, compact: true });
  });

  test("a folder no index covers is 404 naming it; a relative project is 400; nothing else is read", async () => {
    expect(await get(`/api/code/constants?project=${encodeURIComponent(elsewhere)}`)).toEqual({
      status: 404,
      body: { error: noIndex(elsewhere), code: "not_found" },
    });
    const relative = await get("/api/code/doctor?project=src");
    expect(relative.status).toBe(400);
    expect(relative.body.error).toContain("project: must be an absolute path");
    // An index on disk that `signet index` never recorded for this data directory is not read.
    const unrecorded = codeProjectCopy();
    try {
      await indexProject(unrecorded);
      expect(await get(`/api/code/status?project=${encodeURIComponent(unrecorded)}`)).toEqual({
        status: 404,
        body: { error: noIndex(unrecorded), code: "not_found" },
      });
    } finally {
      rmSync(dirname(unrecorded), { recursive: true, force: true });
    }
  });
});

describe("signet index keeps the index out of git", () => {
  const git = (cwd: string, ...args: string[]) => {
    const r = Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
    if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
    return r.stdout.toString();
  };

  test("in a repository: .graphiq/ added to .git/info/exclude once, .gitignore untouched, git status clean of it", async () => {
    const repo = codeProjectCopy();
    try {
      git(repo, "init", "-q");
      const exclude = join(repo, ".git", "info", "exclude");
      const gitignore = readFileSync(join(repo, ".gitignore"), "utf8");
      const first = await signetIndex(repo);
      expect(first.gitExclude).toEqual({ path: exclude, added: true });
      const again = await signetIndex(repo);
      expect(again.gitExclude).toEqual({ path: exclude, added: false });
      // A folder of the repository indexed as a project of its own: the same file, still once.
      expect((await signetIndex(join(repo, "src"))).gitExclude).toEqual({ path: exclude, added: false });
      expect(readFileSync(exclude, "utf8").split("\n").filter((l) => l === ".graphiq/")).toHaveLength(1);
      expect(readFileSync(join(repo, ".gitignore"), "utf8")).toBe(gitignore);
      const untracked = git(repo, "status", "--porcelain", "--untracked-files=all");
      expect(untracked).not.toContain(".graphiq");
      expect(untracked).toContain("src/store.ts");
    } finally {
      rmSync(dirname(repo), { recursive: true, force: true });
    }
  }, 30_000);

  test("in a worktree: the repository's shared info/exclude, where git reads it", async () => {
    const repo = codeProjectCopy();
    const worktree = join(dirname(repo), "worktree");
    try {
      git(repo, "init", "-q");
      git(repo, "add", ".");
      git(repo, "-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "fixture");
      git(repo, "worktree", "add", "-q", worktree);
      expect((await signetIndex(worktree)).gitExclude).toEqual({ path: join(repo, ".git", "info", "exclude"), added: true });
      expect(git(worktree, "status", "--porcelain", "--untracked-files=all")).toBe("");
    } finally {
      rmSync(dirname(repo), { recursive: true, force: true });
    }
  }, 30_000);

  test("outside a repository nothing is written but the index", async () => {
    const plain = codeProjectCopy();
    try {
      expect((await signetIndex(plain)).gitExclude).toBeNull();
      expect(existsSync(join(plain, ".git"))).toBe(false);
    } finally {
      rmSync(dirname(plain), { recursive: true, force: true });
    }
  });
});
