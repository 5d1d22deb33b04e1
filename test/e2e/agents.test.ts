// Agents talking through the compiled binaries (docs/api.md#cross-agent): two agents exchange
// messages through two real signet-mcp processes (SIGNET_AGENT_ID set) driven by the SDK's Client;
// a third agent's signet-mcp reads none of them. `signet agents` and `signet message send | inbox |
// watch` (watch ended by SIGINT, exit 0), JSON and readable output, usage errors.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { join } from "node:path";
import { BIN, json, requireBinary, run, sandbox, type Sandbox } from "../helpers/binary";

const MCP_BIN = join(BIN, "..", "signet-mcp");
let s: Sandbox;
const clients: Client[] = [];

beforeAll(async () => {
  requireBinary();
  s = await sandbox("embedding:\n  provider: none\n");
  expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await run(["daemon", "stop"], { env: s.env });
});

async function mcpAs(agent: string, sessionKey: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: MCP_BIN, args: [], env: { ...s.env, SIGNET_AGENT_ID: agent, SIGNET_SESSION_KEY: sessionKey }, stderr: "pipe" });
  const client = new Client({ name: "agents-e2e", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  clients.push(client);
  return client;
}

type Result = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: any };
const callTool = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as Result;
const as = (agent: string) => ({ ...s.env, SIGNET_AGENT_ID: agent });

/**
 * `signet message watch` as `agent` (its env with `extra` on top), connected: `text` is sent to it
 * by `sender` until a whole line of its stdout holds it (a message sent before it subscribed is not
 * a live one). The caller ends the process (SIGKILL in its finally).
 */
async function connectedWatch(agent: string, sender: string, text: string, extra: Record<string, string> = {}) {
  const proc = Bun.spawn([BIN, "message", "watch"], { env: { ...as(agent), ...extra }, stdout: "pipe", stderr: "pipe" });
  const stderr = new Response(proc.stderr).text();
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let out = "";
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      out += decoder.decode(value, { stream: true });
    }
  })();
  const shown = () => out.split("\n").slice(0, -1).some((line) => line.includes(text));
  try {
    for (const deadline = Date.now() + 15_000; !shown() && Date.now() < deadline; await Bun.sleep(300)) {
      await run(["message", "send", text, "--to", agent], { env: as(sender) });
    }
  } catch (err) {
    proc.kill("SIGKILL");
    throw err;
  }
  return { proc, stderr, reading, output: () => out };
}

describe("two agents through two signet-mcp processes", () => {
  test("they exchange messages; a third agent reads none of them by any tool parameter", async () => {
    const ada = await mcpAs("e2e-ada", "ada-session");
    const bob = await mcpAs("e2e-bob", "bob-session");
    const eve = await mcpAs("e2e-eve", "eve-session");
    // Presence, as the session-start hook registers it.
    for (const [agent, key] of [["e2e-ada", "ada-session"], ["e2e-bob", "bob-session"], ["e2e-eve", "eve-session"]]) {
      const r = await fetch(`http://127.0.0.1:${s.port}/api/hooks/session-start`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-signet-agent-id": agent! },
        body: JSON.stringify({ sessionKey: key, harness: "claude-code", project: "/e2e" }),
      });
      expect(r.status).toBe(200);
    }
    const peers = await callTool(ada, "agent_peers", {});
    expect(peers.structuredContent.sessions.map((p: any) => p.agentId).sort()).toEqual(["e2e-bob", "e2e-eve"]);

    const ask = await callTool(ada, "agent_message_send", { content: "bob: can you review the lexer?", to_agent_id: "e2e-bob", type: "assist_request" });
    expect(ask.isError).toBeFalsy();
    expect(ask.structuredContent).toMatchObject({ fromAgentId: "e2e-ada", fromSessionKey: "ada-session", toAgentId: "e2e-bob" });
    const bobInbox = await callTool(bob, "agent_message_inbox", {});
    expect(bobInbox.structuredContent.items.map((m: any) => [m.fromAgentId, m.content])).toEqual([["e2e-ada", "bob: can you review the lexer?"]]);
    const reply = await callTool(bob, "agent_message_send", { content: "ada: done, two nits", to_session_key: "ada-session", type: "info" });
    expect(reply.structuredContent).toMatchObject({ fromAgentId: "e2e-bob", toAgentId: "e2e-ada", toSessionKey: "ada-session" });
    const adaInbox = await callTool(ada, "agent_message_inbox", {});
    expect(adaInbox.structuredContent.items.map((m: any) => m.content)).toEqual(["ada: done, two nits"]);

    // Eve, through her own signet-mcp, by every parameter the tool has.
    const tries: Record<string, unknown>[] = [
      {},
      { include_sent: true },
      { session_key: "bob-session" },
      { session_key: "ada-session", include_sent: true },
      { since: "2000-01-01T00:00:00Z", include_broadcast: true },
      { agent_id: "e2e-bob" },
      { agent_id: "e2e-ada", include_sent: true },
    ];
    for (const args of tries) {
      const r = await callTool(eve, "agent_message_inbox", args);
      const items = (r.structuredContent?.items ?? []) as any[];
      expect({ args, leaked: items.map((m) => m.content) }).toEqual({ args, leaked: [] });
      if (args.agent_id !== undefined) expect(r.isError).toBe(true);
    }
    // Nor by the CLI as Eve.
    const cli = json(await run(["message", "inbox", "--json", "--sent"], { env: as("e2e-eve") }));
    expect(cli.items).toEqual([]);
  });
});

describe("signet agents and signet message", () => {
  test("send, inbox (--ack, --unread), agents; JSON off a terminal, readable with --pretty", async () => {
    await fetch(`http://127.0.0.1:${s.port}/api/cross-agent/presence`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-signet-agent-id": "cli-bob" },
      body: JSON.stringify({ sessionKey: "cli-bob-s", harness: "codex", project: "/cli" }),
    });
    const agents = await run(["agents", "--project", "/cli"], { env: as("cli-ada") });
    expect(agents.code).toBe(0);
    expect(json(agents).sessions.map((p: any) => p.sessionKey)).toEqual(["cli-bob-s"]);
    const pretty = await run(["agents", "--project", "/cli", "--pretty"], { env: as("cli-ada") });
    expect(pretty.stdout).toMatch(/agent\s+session\s+harness\s+project\s+last seen/);
    expect(pretty.stdout).toContain("cli-bob-s");

    const sent = await run(["message", "send", "ship it?", "--to", "cli-bob", "--type", "question"], { env: as("cli-ada") });
    expect(sent.code).toBe(0);
    expect(json(sent)).toMatchObject({ content: "ship it?", type: "question", fromAgentId: "cli-ada", toAgentId: "cli-bob" });
    const inbox = await run(["message", "inbox", "--pretty", "--ack"], { env: as("cli-bob") });
    expect(inbox.code).toBe(0);
    expect(inbox.stdout).toMatch(/#\d+ .* question cli-ada -> cli-bob \*\n  ship it\?/);
    expect(json(await run(["message", "inbox", "--unread"], { env: as("cli-bob") })).items).toEqual([]);
  });

  test("usage errors exit 2 naming the field; nothing sent", async () => {
    const none = await run(["message", "send", "hello"], { env: as("cli-ada") });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("toAgentId");
    const two = await run(["message", "send", "hello", "--to", "x", "--broadcast"], { env: as("cli-ada") });
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("only one target");
    const type = await run(["message", "send", "hello", "--to", "x", "--type", "gossip"], { env: as("cli-ada") });
    expect(type.code).toBe(2);
    expect(type.stderr).toContain("type");
    expect((await run(["agents", "--limit", "many"], { env: as("cli-ada") })).code).toBe(2);
    expect(json(await run(["message", "inbox"], { env: as("x") })).items).toEqual([]);
  });

  test("flags the daemon refuses: exit 2, the refusal naming the field", async () => {
    for (const [args, field] of [
      [["agents", "--limit", "0"], "limit"],
      [["agents", "--project", ""], "project"],
      [["message", "inbox", "--since", "yesterday"], "since"],
      [["message", "watch", "--session", ""], "session_key"],
      [["message", "send", "hello", "--to", "x", "--via", "carrier-pigeon"], "via"],
    ] as [string[], string][]) {
      const r = await run(args, { env: as("cli-ada") });
      expect({ args, code: r.code, named: r.stderr.includes(`${field}:`) }).toEqual({ args, code: 2, named: true });
    }
  });

  test("watch prints a message as it arrives, one JSON line each, and ends with exit 0 on Ctrl-C", async () => {
    const { proc, reading, output } = await connectedWatch("watch-bob", "watch-ada", "watched");
    try {
      const first = JSON.parse(output().split("\n")[0]!);
      expect(first).toMatchObject({ content: "watched", fromAgentId: "watch-ada", toAgentId: "watch-bob" });
      proc.kill("SIGINT");
      expect(await proc.exited).toBe(0);
      await reading;
    } finally {
      proc.kill("SIGKILL");
    }
  });

  test("a watch whose token is revoked ends with exit 4, saying so; the daemon runs on", async () => {
    const made = json(await run(["token", "create", "--role", "agent", "--agent", "revoked-bob"], { env: s.env }));
    const { proc, stderr, reading } = await connectedWatch("revoked-bob", "revoked-ada", "before the revocation", { SIGNET_TOKEN: made.token });
    try {
      expect((await run(["token", "revoke", made.id], { env: s.env })).code).toBe(0);
      expect(await proc.exited).toBe(4);
      await reading;
      expect(await stderr).toContain("was revoked");
      expect(await stderr).not.toContain("not running");
    } finally {
      proc.kill("SIGKILL");
    }
  });

  // Last: it stops the daemon.
  test("a watch whose daemon stops ends with exit 3, saying so", async () => {
    const { proc, stderr, reading, output } = await connectedWatch("gone-bob", "gone-ada", "last words");
    try {
      expect(output()).toContain("last words");
      expect((await run(["daemon", "stop"], { env: s.env })).code).toBe(0);
      expect(await proc.exited).toBe(3);
      await reading;
      expect(await stderr).toContain("the daemon ended the stream, and no longer answers");
    } finally {
      proc.kill("SIGKILL");
    }
  });
});
