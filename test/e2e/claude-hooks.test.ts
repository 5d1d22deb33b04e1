// The real Claude Code CLI (`claude -p`, a dev dependency) running Signet's hooks and MCP server,
// installed by `signet setup --harness claude-code` into a temporary HOME, with the compiled
// binary as hook and MCP command. The model is a local fake of the Messages API
// (helpers/fake-anthropic.ts: the real API is paid and out of reach), so every request Claude
// Code sends can be read: what the hooks injected, and the tool results the MCP server returned.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { SignetClient } from "../../src/client/client";
import { claudePrint, lastUserText, startFakeAnthropic, toolResults, type FakeAnthropic } from "../helpers/fake-anthropic";
import { json, run, sandbox, type Sandbox } from "../helpers/binary";

const FACT = "The staging database lives on host orca-7 behind the bastion";
const STORED = "The build cache for Signet lives in /var/cache/bld-42";

let s: Sandbox;
let fake: FakeAnthropic;
let project: string;
let client: SignetClient;

/** The model: stores a memory when asked to (STORE:), acknowledges a tool result, else answers. */
function model(body: any) {
  const messages: any[] = body?.messages ?? [];
  const last = messages.at(-1);
  if (Array.isArray(last?.content) && last.content.some((b: any) => b?.type === "tool_result")) return { text: "Stored it." };
  if (lastUserText(body).includes("STORE:")) return { toolUse: { name: "mcp__signet__memory_store", input: { content: STORED, tags: "e2e" } } };
  return { text: "An answer from the fake model." };
}

const claude = (prompt: string, extra: string[] = []) => claudePrint(fake, { prompt, cwd: project, env: s.env, extra, timeoutMs: 90_000 });

const sessionId = () => crypto.randomUUID();

beforeAll(async () => {
  s = await sandbox();
  project = join(s.home, "work", "proj");
  mkdirSync(project, { recursive: true });
  fake = startFakeAnthropic(model);
  expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
  const setup = await run(["setup", "--harness", "claude-code", "--json"], { env: s.env });
  expect(setup.code).toBe(0);
  client = new SignetClient({ baseUrl: `http://127.0.0.1:${s.port}`, dataDir: s.dataDir, actor: "test" });
  expect((await run(["remember", FACT, "--tags", "infra"], { env: s.env })).code).toBe(0);
}, 60_000);

afterAll(async () => {
  await run(["daemon", "stop"], { env: s.env });
  await fake.stop();
});

describe("claude -p with Signet's hooks and MCP server", () => {
  test("the prompt hook injects the stored memory into the request the model receives", async () => {
    const id = sessionId();
    const r = await claude("Where does the staging database live?", ["--session-id", id]);
    expect(r.code).toBe(0);
    const turns = r.requests.filter((q) => q.path === "/v1/messages");
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.some((q) => q.raw.includes("orca-7"))).toBe(true);
    // Session end stored the transcript: the session is known, and searchable by what was said.
    const session = await client.sessions.get(id);
    expect(session.hasTranscript).toBe(true);
    expect(session.memories.length).toBeGreaterThan(0);
    const found = await client.sessions.search({ query: "staging database" });
    expect(found.hits.map((h) => h.sessionKey)).toContain(id);
  }, 120_000);

  test("the model's memory_store call goes through Signet's MCP server; its id comes back in the tool result", async () => {
    const r = await claude("STORE: remember where the build cache is", ["--allowedTools", "mcp__signet__memory_store"]);
    expect(r.code).toBe(0);
    const results = r.requests.flatMap((q) => toolResults(q.body));
    expect(results.length).toBeGreaterThan(0);
    const listed = json(await run(["list", "--tags", "e2e", "--json"], { env: s.env }));
    const memory = listed.memories.find((m: { content: string }) => m.content === STORED);
    expect(memory).toBeDefined();
    expect(results.some((text) => text.includes(memory.id))).toBe(true);
  }, 120_000);

  test("bypass on: the hooks add nothing to that session; off again: they do", async () => {
    const id = sessionId();
    expect((await claude("hello", ["--session-id", id])).code).toBe(0);
    await client.sessions.bypass(id, { enabled: true });
    const quiet = await claude("Where does the staging database live?", ["--resume", id]);
    expect(quiet.code).toBe(0);
    expect(quiet.requests.some((q) => q.raw.includes("orca-7"))).toBe(false);
    await client.sessions.bypass(id, { enabled: false });
    const loud = await claude("Where does the staging database live?", ["--resume", id]);
    expect(loud.requests.some((q) => q.raw.includes("orca-7"))).toBe(true);
  }, 200_000);

  test("with the daemon down, claude -p still answers, and the hook exits 0 with nothing printed within 1 s", async () => {
    expect((await run(["daemon", "stop"], { env: s.env })).code).toBe(0);
    try {
      const r = await claude("Where does the staging database live?");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).result).toBe("An answer from the fake model.");
      const started = performance.now();
      const hook = await run(["hook", "user-prompt-submit", "--harness", "claude-code"], {
        env: s.env,
        stdin: JSON.stringify({ session_id: "down", cwd: project, prompt: "anything" }),
      });
      const elapsed = performance.now() - started;
      expect(hook).toMatchObject({ code: 0, stdout: "" });
      // The contract's bound for the hook process alone (docs/hooks.md), generous for a busy machine.
      expect(elapsed).toBeLessThan(1000);
    } finally {
      expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
    }
  }, 120_000);
});
