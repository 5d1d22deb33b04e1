// The project of a memory stored through MCP (docs/mcp.md#the-project-of-a-stored-memory):
// signet-mcp, started by a harness in its working directory, files memory_store and
// signet_save_note under that directory, the project `signet hook` reports for the session, so
// session-start brings them; an explicit project is kept, null stores none, and /mcp (no working
// directory) fills in nothing. signet-mcp and the hook run from source against a test daemon.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { tempDir } from "../helpers/daemon";
import { McpClients, callTool } from "../helpers/mcp-client";
import { call, expectError, useTestDaemon } from "../helpers/memory-api";

const MAIN = resolve(import.meta.dir, "../../src/main.ts");
const AGENT = "mcp-project";

const daemon = useTestDaemon();
const http = new McpClients(() => daemon().url, "mcp-project");
let stdio: Client;
/** The harness's working directory, as a harness reports it (its own cwd: symlinks resolved). */
let project: string;

const env = () => ({
  PATH: process.env.PATH ?? "",
  HOME: daemon().dataDir,
  SIGNET_PATH: daemon().dataDir,
  SIGNET_DAEMON_URL: daemon().url,
  SIGNET_AUTOSTART: "false",
  SIGNET_AGENT_ID: AGENT,
});

beforeAll(async () => {
  project = realpathSync(tempDir("signet-project-"));
  stdio = new Client({ name: "mcp-project", version: "1.0.0" });
  await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, "mcp", "serve"], cwd: project, env: env(), stderr: "pipe" }));
  await stdio.listTools();
}, 30_000);

afterAll(async () => {
  await stdio?.close();
  await http.closeAll();
});

/** `signet hook session-start --harness claude-code` fed the hook JSON Claude Code writes: the context it injects. */
async function sessionStart(sessionId: string, cwd: string): Promise<string> {
  const proc = Bun.spawn([process.execPath, MAIN, "hook", "session-start", "--harness", "claude-code", "--data-dir", daemon().dataDir], {
    env: env(),
    stdin: new TextEncoder().encode(JSON.stringify({ session_id: sessionId, cwd, hook_event_name: "SessionStart", source: "startup" })),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  return stdout === "" ? "" : JSON.parse(stdout).hookSpecificOutput.additionalContext;
}

/** The lines of one `## heading` section of a session-start context ("" when it has none). */
function section(context: string, heading: string): string {
  const start = context.indexOf(`## ${heading}\n`);
  if (start < 0) return "";
  const end = context.indexOf("\n## ", start + 1);
  return context.slice(start, end < 0 ? undefined : end);
}

const store = async (client: Client, tool: string, args: Record<string, unknown>) => {
  const r = await callTool(client, tool, args);
  expect(r.isError).toBe(false);
  return r.structured as { id: string; project: string | null };
};

describe("the project of a memory stored through signet-mcp", () => {
  test("without project: the harness's working directory, which session-start in that directory brings", async () => {
    const memory = await store(stdio, "memory_store", { content: "This repository builds with make release", type: "fact" });
    const note = await store(stdio, "signet_save_note", { content: "Release checklist lives in docs/release.md", title: "Release" });
    expect(memory.project).toBe(project);
    expect(note.project).toBe(project);
    const ofProject = section(await sessionStart("project-s1", project), `Memories for ${project}`);
    expect(ofProject).toContain(`- ${memory.id} (fact) This repository builds with make release`);
    expect(ofProject).toContain(`- ${note.id} (note) Release`);
    // A session in another directory does not get them.
    const elsewhere = await sessionStart("project-s2", realpathSync(tempDir("signet-elsewhere-")));
    expect(elsewhere).not.toContain(memory.id);
    expect(elsewhere).not.toContain(note.id);
  }, 30_000);

  test("an explicit project is kept; null stores a memory of no project", async () => {
    const here = await store(stdio, "memory_store", { content: "Lint runs with make check" });
    expect((await store(stdio, "memory_store", { content: "The API gateway runs on port 8443", project: "/srv/gateway" })).project).toBe("/srv/gateway");
    expect((await store(stdio, "signet_save_note", { content: "Gateway certificates renew monthly", project: "gateway" })).project).toBe("gateway");
    const global = await store(stdio, "memory_store", { content: "The user writes British English", type: "preference", project: null });
    const globalNote = await store(stdio, "signet_save_note", { content: "The user prefers short commit messages", project: null });
    expect(global.project).toBeNull();
    expect(globalNote.project).toBeNull();
    // The project's memories are those filed under it, not the global ones nor another project's.
    const ofProject = section(await sessionStart("project-s3", project), `Memories for ${project}`);
    expect(ofProject).toContain(`- ${here.id} (fact) Lint runs with make check`);
    for (const content of ["British English", "short commit messages", "port 8443", "renew monthly"]) expect(ofProject).not.toContain(content);
  }, 30_000);

  test("an empty project is refused, naming it, and nothing is stored", async () => {
    const before = (await daemon().client(AGENT).memory.list({ limit: 1000 })).memories.length;
    for (const tool of ["memory_store", "signet_save_note"]) {
      const r = await callTool(stdio, tool, { content: "Never stored: an empty project", project: "  " });
      expect(r.isError).toBe(true);
      expect(r.text).toBe(`${tool} failed (invalid_input): project is empty: name the project (usually its directory), or pass null for a memory of no project`);
    }
    expect((await daemon().client(AGENT).memory.list({ limit: 1000 })).memories.length).toBe(before);
  });

  test("over /mcp, which has no working directory, no project is filled in", async () => {
    const client = await http.connect(AGENT);
    expect((await store(client, "memory_store", { content: "Stored over HTTP without a project" })).project).toBeNull();
    expect((await store(client, "signet_save_note", { content: "A note over HTTP without a project" })).project).toBeNull();
    expect((await store(client, "memory_store", { content: "Stored over HTTP with a project", project: "/srv/http" })).project).toBe("/srv/http");
  });
});

describe("POST /api/memory/note", () => {
  test("takes project as remember does: kept when given, refused when empty or longer than 1,000 characters", async () => {
    const note = (body: Record<string, unknown>) => call(daemon(), "POST", "/api/memory/note", { body: { content: "Note with a project", ...body }, agent: "note-project" });
    const stored = await note({ project: " /srv/notes " });
    expect(stored.status).toBe(201);
    expect(stored.body).toMatchObject({ type: "note", project: "/srv/notes" });
    expectError(await note({ project: "" }), 400, "invalid_input", "project");
    expectError(await note({ project: "p".repeat(1001) }), 400, "invalid_input", "project");
    expect((await daemon().client("note-project").memory.list({})).memories).toHaveLength(1);
  });
});
