// The code index over HTTP (/api/code/*) and MCP (the signet_code_* tools through the SDK's Client):
// "no project indexed" before `signet index`, the known answers of test/fixtures/code-project after
// it, bad input, the guard (forged Host and Origin, clear without the owner's credential), and, for a
// caller that names no project (/mcp knows no working directory), the project indexed last
// (test/server/code-projects.test.ts: each project answering for itself).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { codeProjectsPath } from "../../src/config/paths";
import { NO_PROJECT_MESSAGE } from "../../src/contracts/code";
import { indexProject } from "../../src/core/code/indexer";
import { recordIndexedProject } from "../../src/core/code/projects";
import { CODE_TOOL_CALLS as CODE_TOOLS, codeProjectCopy } from "../helpers/code-project";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";

let d: TestDaemon;
let project: string;
let mcp: Client;
const projects: string[] = [];

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "code-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  return { isError: result.isError === true, text, structured: result.structuredContent as any };
}

async function index(path: string): Promise<void> {
  const run = await indexProject(path);
  recordIndexedProject(codeProjectsPath(d.dataDir), { project: path, indexedAt: run.startedAt });
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  d.fetch(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

beforeAll(async () => {
  d = await startTestDaemon();
  mcp = await connect();
  project = codeProjectCopy();
  projects.push(project);
});

afterAll(async () => {
  await mcp.close();
  await d.stop();
  for (const p of projects) rmSync(dirname(p), { recursive: true, force: true });
});

describe("before any project is indexed", () => {
  test("every code route answers 404 no project indexed", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/code/status"],
      ["GET", "/api/code/doctor"],
      ["GET", "/api/code/constants"],
      ["GET", "/api/code/briefing"],
      ["POST", "/api/code/search", { query: "x" }],
      ["POST", "/api/code/context", { symbol: "x" }],
      ["POST", "/api/code/blast", { symbol: "x" }],
    ] as const) {
      const res = await d.fetch(path, method === "GET" ? {} : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: NO_PROJECT_MESSAGE, code: "not_found" });
    }
  });

  test("every signet_code_* tool answers no project indexed", async () => {
    const owner = await connect(d.ownerHeaders);
    try {
      for (const [name, args] of CODE_TOOLS) {
        const r = await call(owner, name, args);
        expect(r).toMatchObject({ isError: true, text: NO_PROJECT_MESSAGE });
      }
    } finally {
      await owner.close();
    }
  });
});

describe("an indexed project", () => {
  beforeAll(async () => {
    await index(project);
  });

  test("search over HTTP and MCP: ranked symbols with path, lines, snippet; debug adds the score parts", async () => {
    const res = await post("/api/code/search", { query: "open store", top: 3, debug: true });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.hits).toHaveLength(3);
    expect(body.hits[0]).toMatchObject({ name: "openStore", path: "src/store.ts", startLine: 24, endLine: 26, snippet: "function openStore(): RecordStore" });
    expect(body.hits[0].debug).toBeDefined();
    const tool = await call(mcp, "signet_code_search", { query: "open store", top: 3 });
    expect(tool.isError).toBe(false);
    expect(tool.structured.hits.map((h: any) => h.name)).toEqual(body.hits.map((h: any) => h.name));
    expect(tool.structured.hits[0].debug).toBeUndefined();
    expect(tool.text).toContain("1. function openStore (src/store.ts:24-26)");
  });

  test("context: source, container, exact callers and callees, imports", async () => {
    const r = await call(mcp, "signet_code_context", { symbol: "RecordStore.addRecord" });
    expect(r.isError).toBe(false);
    const c = r.structured;
    expect(c.definition).toMatchObject({ name: "addRecord", kind: "method", path: "src/store.ts", startLine: 15, endLine: 17, doc: "Adds one record.", stale: false });
    expect(c.definition.source).toBe("  addRecord(record: Record): void {\n    this.items.push(record);\n  }");
    expect(c.container).toMatchObject({ name: "RecordStore", kind: "class" });
    expect(c.callers.map((e: any) => [e.symbol.name, e.path, e.line, e.kind, e.ambiguous])).toEqual([["saveRecord", "src/service.ts", 8, "call", false]]);
    expect(c.callees.map((e: any) => [e.symbol.name, e.kind])).toEqual([["Record", "ref"]]);
    const imports = await call(mcp, "signet_code_context", { symbol: "saveRecord" });
    expect(imports.structured.imports.map((i: any) => `${i.name} from ${i.source}`)).toEqual([
      "openStore from ./store",
      "STORE_NAME from ./store",
      "Record from ./store",
      "formatRecord from ./format",
    ]);
  });

  test("blast to depth 2 backward by default; forward and both", async () => {
    const back = await call(mcp, "signet_code_blast", { symbol: "openStore" });
    expect(back.structured.nodes.map((n: any) => `${n.depth} ${n.name}`)).toEqual(["1 saveRecord", "2 describe"]);
    const both = await call(mcp, "signet_code_blast", { symbol: "Describe", depth: 2, direction: "both" });
    expect(both.structured.nodes.map((n: any) => `${n.direction} ${n.depth} ${n.name}`)).toEqual(["backward 1 main", "forward 1 Batch", "forward 1 Size"]);
  });

  test("status, doctor, constants and briefing", async () => {
    const status = (await call(mcp, "signet_code_status", {})).structured;
    expect(status.project).toBe(project);
    expect(status.totals.files).toBe(9);
    expect(status.languages.find((l: any) => l.language === "python")).toEqual({ language: "python", files: 3, symbols: 6 });
    expect(status.lastRun.parsed).toBe(9);
    expect(status.stale).toEqual({ changed: [], added: [], removed: [] });

    const doctor = await call(mcp, "signet_code_doctor", {});
    expect(doctor.structured.ok).toBe(true);
    expect(doctor.structured.checks.filter((c: any) => c.name.startsWith("grammar ")).length).toBe(6);

    const constants = (await call(mcp, "signet_code_constants", {})).structured.constants;
    expect(constants.map((c: any) => `${c.kind} ${c.value} ${c.files}`)).toEqual(["number 50 4", "string records-store 4"]);

    const briefing = (await call(mcp, "signet_code_briefing", { compact: true })).structured;
    expect(briefing.compact).toBe(true);
    expect(briefing.subsystems.map((s: any) => s.folder).sort()).toEqual(["go", "py", "rust", "src"]);
    expect(briefing.subsystems.find((s: any) => s.folder === "src").languages).toEqual(["javascript", "tsx", "typescript"]);
    expect(briefing.hubs.length).toBeGreaterThan(0);
    const res = await d.fetch("/api/code/briefing?compact=false");
    expect(((await res.json()) as any).compact).toBe(false);
  });

  test("an ambiguous or unknown symbol lists its candidates", async () => {
    writeFileSync(join(project, "src", "twice.ts"), "export function describe(): void {}\n");
    await index(project);
    const r = await call(mcp, "signet_code_context", { symbol: "describe" });
    expect(r.structured.definition).toBeUndefined();
    expect(r.structured.candidates.map((c: any) => c.path)).toEqual(["src/service.ts", "src/twice.ts"]);
    expect(r.text).toContain('"describe" names 2 symbols');
    const one = await call(mcp, "signet_code_context", { symbol: "src/twice.ts:describe" });
    expect(one.structured.definition.path).toBe("src/twice.ts");
    const none = await call(mcp, "signet_code_blast", { symbol: "noSuchThing" });
    expect(none.structured.candidates).toEqual([]);
    rmSync(join(project, "src", "twice.ts"));
    await index(project);
  });

  test("doctor names each problem with its fix", async () => {
    writeFileSync(join(project, "src", "format.js"), "export function formatRecord(r) { return String(r); }\n");
    rmSync(join(project, ".graphiq", "manifest.json"));
    const doctor = (await call(mcp, "signet_code_doctor", {})).structured;
    expect(doctor.ok).toBe(false);
    expect(doctor.problems).toEqual([
      { problem: "manifest: manifest.json is missing", fix: `run \`signet index ${project}\`` },
      { problem: "freshness: 1 changed, 0 new, 0 removed since the last run", fix: `run \`signet index ${project}\`` },
    ]);
    const status = (await call(mcp, "signet_code_status", {})).structured;
    expect(status.stale.changed).toEqual(["src/format.js"]);
    await index(project);
    expect((await call(mcp, "signet_code_doctor", {})).structured.ok).toBe(true);
  });

  test("bad input: 400 naming the field", async () => {
    const cases: [string, unknown, string][] = [
      ["/api/code/search", {}, "query: is required"],
      ["/api/code/search", { query: "x", top: 0 }, "top: must be at least 1"],
      ["/api/code/search", { query: "x", extra: 1 }, "unknown field extra"],
      ["/api/code/blast", { symbol: "x", direction: "sideways" }, "direction: must be one of backward, forward, both"],
      ["/api/code/blast", { symbol: "x", depth: 11 }, "depth: must be at most 10"],
      ["/api/code/context", { symbol: "" }, "symbol: cannot be empty"],
    ];
    for (const [path, body, message] of cases) {
      const res = await post(path, body);
      expect(res.status).toBe(400);
      const err = (await res.json()) as any;
      expect(err.code).toBe("invalid_input");
      expect(err.error).toContain(message);
    }
    const q = await d.fetch("/api/code/constants?limit=abc");
    expect(q.status).toBe(400);
    expect(((await q.json()) as any).error).toContain("limit: must be a whole number");
    const tool = await call(mcp, "signet_code_blast", { symbol: "x", direction: "sideways" });
    expect(tool.isError).toBe(true);
  });

  test("the guard: a forged Host or a foreign Origin is refused", async () => {
    const forgedHost = await d.fetch("/api/code/search", {
      method: "POST",
      headers: { "content-type": "application/json", host: "evil.example" },
      body: JSON.stringify({ query: "x" }),
    });
    expect(forgedHost.status).toBe(403);
    const foreign = await d.fetch("/api/code/status", { headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    const textBody = await d.fetch("/api/code/search", { method: "POST", headers: { "content-type": "text/plain" }, body: JSON.stringify({ query: "x" }) });
    expect(textBody.status).toBe(415);
  });

  test("clear needs the owner's credential and confirm: true, then leaves an empty index", async () => {
    const dbPath = join(project, ".graphiq", "graphiq.db");
    const none = await post("/api/code/clear", { confirm: true });
    expect(none.status).toBe(401);
    const wrong = await post("/api/code/clear", { confirm: true }, { authorization: "Bearer not-the-token" });
    expect(wrong.status).toBe(403);
    const spelled = await post("/API/code//clear/", { confirm: true });
    expect([401, 404]).toContain(spelled.status);
    const unconfirmed = await post("/api/code/clear", { confirm: false }, d.ownerHeaders);
    expect(unconfirmed.status).toBe(400);
    expect(((await unconfirmed.json()) as any).error).toContain("confirm: must be true");
    expect(statSync(dbPath).size).toBeGreaterThan(0);
    expect((await call(mcp, "signet_code_status", {})).structured.totals.files).toBe(9);

    // An agent without the owner's token cannot clear through MCP either.
    const agentClear = await call(mcp, "signet_code_clear", { confirm: true });
    expect(agentClear.isError).toBe(true);
    expect(agentClear.text).toContain("unauthorized");
    const owner = await connect(d.ownerHeaders);
    try {
      const refused = await call(owner, "signet_code_clear", { confirm: false });
      expect(refused).toMatchObject({ isError: true });
      expect(refused.text).toContain("pass confirm: true");
      expect((await call(mcp, "signet_code_status", {})).structured.totals.files).toBe(9);
      const cleared = await call(owner, "signet_code_clear", { confirm: true });
      expect(cleared.isError).toBe(false);
      expect(cleared.structured).toEqual({ project, cleared: true });
    } finally {
      await owner.close();
    }
    expect(existsSync(join(project, ".graphiq", "manifest.json"))).toBe(false);
    const status = (await call(mcp, "signet_code_status", {})).structured;
    expect(status.totals.files).toBe(0);
    expect(status.lastRun).toBeNull();
    expect(status.stale.added).toHaveLength(9);
    await index(project);
  });

  test("a caller naming no project is answered from the project indexed last, which the answer names", async () => {
    const second = codeProjectCopy();
    projects.push(second);
    rmSync(join(second, "rust"), { recursive: true });
    await index(second);
    const status = await call(mcp, "signet_code_status", {});
    expect(status.structured.project).toBe(second);
    expect(status.structured.totals.files).toBe(8);
    expect(status.text).toContain(`Project: ${second}`);
    const queue = await call(mcp, "signet_code_context", { symbol: "Queue" });
    expect(queue.structured.candidates).toEqual([]);
    expect(queue.text).toContain(`in the index of ${second}`);
    // Named, the first project still answers for itself.
    expect((await call(mcp, "signet_code_status", { project })).structured.project).toBe(project);
  });
});
