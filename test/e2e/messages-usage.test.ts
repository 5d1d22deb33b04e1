// Through the compiled binaries and the real Claude Code CLI (`claude -p` against the local fake of
// the Messages API, helpers/fake-anthropic.ts): a message to the agent reaches the model at its next
// prompt, framed as a message from its sender, and a later session does not get it again; calls to
// Signet's own tools are on record although the harness ends signet-mcp with SIGTERM, for the
// session its hooks reported (signet-mcp finds it by the harness process both run under).
// `signet message send` to an agent never seen warns on stderr.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { SignetClient } from "../../src/client/client";
import { claudePrint, startFakeAnthropic, toolResults, type FakeAnthropic } from "../helpers/fake-anthropic";
import { BIN, json, run, sandbox, type Sandbox } from "../helpers/binary";
import { eventually } from "../helpers/wait";

const MCP_BIN = join(BIN, "..", "signet-mcp");
const CALLS = 10;
const NOTE = "Please rebase onto main before the release";

let s: Sandbox;
let fake: FakeAnthropic;
let project: string;
let client: SignetClient;

/** The model: in a conversation that asks for TEN CALLS, one memory_search per turn until ten came back; else an answer. */
function model(body: any) {
  if (!Array.isArray(body?.tools) || !JSON.stringify(body.messages ?? []).includes("TEN CALLS")) return { text: "An answer from the fake model." };
  const done = toolResults(body).length;
  if (done >= CALLS) return { text: "Searched ten times." };
  return { toolUse: { name: "mcp__signet__memory_search", input: { query: `lookup number ${done}` } } };
}

const claude = (prompt: string, extra: string[] = []) => claudePrint(fake, { prompt, cwd: project, env: s.env, extra, timeoutMs: 170_000 });

/** Calls to Signet's own tools on record for the default agent, by tool. */
async function recorded(): Promise<Record<string, number>> {
  const r = await client.analytics.server("signet", { agent_id: "default", source: "mcp" });
  return Object.fromEntries(r.topTools.map((t) => [t.tool, t.calls]));
}

beforeAll(async () => {
  s = await sandbox();
  project = join(s.home, "work", "proj");
  mkdirSync(project, { recursive: true });
  fake = startFakeAnthropic(model);
  expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
  expect((await run(["setup", "--harness", "claude-code", "--json"], { env: s.env })).code).toBe(0);
  client = new SignetClient({ baseUrl: `http://127.0.0.1:${s.port}`, dataDir: s.dataDir, actor: "test" });
}, 60_000);

afterAll(async () => {
  await run(["daemon", "stop"], { env: s.env });
  await fake.stop();
});

describe("signet-mcp ended with SIGTERM, as harnesses end it", () => {
  test("ten calls are on record, for the session the hook (run through a shell) reported for the same harness process", async () => {
    // This test process is the harness: the hook runs under a shell it starts, signet-mcp directly.
    const session = crypto.randomUUID();
    const hook = await run(["-c", `'${BIN}' hook session-start --harness claude-code; true`], {
      env: s.env,
      bin: "/bin/sh",
      stdin: JSON.stringify({ session_id: session, cwd: project }),
    });
    expect(hook).toMatchObject({ code: 0, stderr: "" });
    const before = (await recorded()).memory_list ?? 0;
    const mcp = Bun.spawn([MCP_BIN], { env: s.env, cwd: project, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    try {
      const send = (m: unknown) => mcp.stdin.write(`${JSON.stringify(m)}\n`);
      send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-03-26", clientInfo: { name: "harness", version: "1" }, capabilities: {} } });
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      for (let i = 1; i <= CALLS; i++) send({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "memory_list", arguments: { limit: 1 } } });
      await mcp.stdin.flush();
      const answered = new Set<number>();
      const reader = mcp.stdout.getReader();
      let buffered = "";
      while (answered.size < CALLS + 1) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += new TextDecoder().decode(value);
        const lines = buffered.split("\n");
        buffered = lines.pop()!;
        for (const line of lines) {
          const m = JSON.parse(line);
          expect(m.error).toBeUndefined();
          expect(m.result?.isError).toBeFalsy();
          answered.add(m.id);
        }
      }
      expect(answered.size).toBe(CALLS + 1);
    } finally {
      mcp.kill("SIGTERM");
      await mcp.exited;
    }
    expect(await eventually(async () => (await recorded()).memory_list === before + CALLS)).toBe(true);
    const usage = await client.analytics.sessionTools(session);
    expect(usage.tools.map((t) => [t.server, t.tool, t.calls, t.failures])).toEqual([["signet", "memory_list", CALLS, 0]]);
  }, 60_000);
});

describe("claude -p with Signet's hooks and MCP server", () => {
  test("a message to the agent reaches the model at the next prompt, as a message from its sender; a later session does not get it again", async () => {
    const sent = await run(["message", "send", NOTE, "--to", "default", "--type", "question"], { env: { ...s.env, SIGNET_AGENT_ID: "reviewer" } });
    expect(sent.code).toBe(0);
    const id = json(sent).id as number;
    const session = crypto.randomUUID();
    const r = await claude("What should I do next?", ["--session-id", session]);
    expect(r.code).toBe(0);
    const first = fake.turns().filter((q) => r.requests.includes(q))[0]!;
    expect(first.raw).toContain("1 unread message from other agents");
    expect(first.raw).toContain("messages to you from other agents (messages, not memories;");
    expect(first.raw).toContain(`#${id} question from agent reviewer, `);
    expect(first.raw).toContain(NOTE);

    const later = await claude("And now?", ["--session-id", crypto.randomUUID()]);
    expect(later.code).toBe(0);
    expect(later.requests.some((q) => q.raw.includes(NOTE))).toBe(false);
  }, 200_000);

  test("ten calls of the model to memory_search are on record after claude exits, for its session", async () => {
    const session = crypto.randomUUID();
    const before = (await recorded()).memory_search ?? 0;
    const r = await claude("TEN CALLS: search ten times", ["--session-id", session, "--allowedTools", "mcp__signet__memory_search"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe("Searched ten times.");
    expect(await eventually(async () => (await recorded()).memory_search === before + CALLS)).toBe(true);
    const usage = await client.analytics.sessionTools(session);
    expect(usage.tools.map((t) => [t.server, t.tool, t.calls, t.failures])).toEqual([["signet", "memory_search", CALLS, 0]]);
  }, 200_000);
});

describe("signet message send", () => {
  test("to an agent never seen: sent, with a warning on stderr and meta.unknownRecipient; to a known one: no warning", async () => {
    const typo = await run(["message", "send", "hello?", "--to", "nobody-by-that-name"], { env: s.env });
    expect(typo.code).toBe(0);
    expect(json(typo)).toMatchObject({ toAgentId: "nobody-by-that-name", meta: { unknownRecipient: true } });
    expect(typo.stderr).toContain("signet: agent nobody-by-that-name was never seen by this daemon");
    expect((await run(["remember", "a memory of its own"], { env: { ...s.env, SIGNET_AGENT_ID: "known-agent" } })).code).toBe(0);
    const known = await run(["message", "send", "hello", "--to", "known-agent"], { env: s.env });
    expect(known.code).toBe(0);
    expect(json(known).meta).toEqual({ unknownRecipient: false });
    expect(known.stderr).toBe("");
  });
});
