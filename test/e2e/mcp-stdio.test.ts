// The MCP server with the SDK's own Client, over stdio (signet-mcp) and over the daemon's /mcp: the
// tool list as docs/mcp.md#tools names it, a full memory round trip; for stdio also EOF with
// a call in flight, SIGNET_DAEMON_URL validation and autostart (its refusals: test/e2e/autostart.test.ts).
import { Database } from "bun:sqlite";
import { SignetClient } from "../../src/client/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { alive } from "../../src/control/daemon-process";
import { BIN, json, run, sandbox, type Sandbox } from "../helpers/binary";
import { eventually } from "../helpers/wait";

const MCP_BIN = join(BIN, "..", "signet-mcp");
const KEYWORD_ONLY = "embedding:\n  provider: none\nanalytics:\n  flushMs: 100\n";

/** Every tool of docs/mcp.md#tools with its parameter names, the bridge tools included. */
const EXPECTED_TOOLS: Record<string, string[]> = {
  memory_search: [
    "query", "limit", "project", "type", "tags", "who", "since", "until", "keyword_query", "pinned",
    "importance_min", "min_score", "score_min", "aggregate", "aggregate_budget", "save_aggregate",
  ],
  signet_recall: [
    "query", "limit", "project", "type", "tags", "who", "since", "until", "keyword_query", "pinned",
    "importance_min", "min_score", "score_min", "aggregate", "aggregate_budget", "save_aggregate",
  ],
  signet_source_search: ["query", "limit", "path"],
  memory_store: ["content", "type", "importance", "tags", "pinned", "hints", "transcript", "structured", "reviewAfter", "project"],
  signet_save_note: ["content", "title", "tags", "project"],
  memory_get: ["id"],
  memory_list: ["limit", "offset", "type"],
  memory_modify: ["id", "reason", "content", "type", "importance", "tags", "pinned"],
  memory_forget: ["id", "reason"],
  memory_feedback: ["session_key", "ratings"],
  session_search: ["query", "session_key", "current_session_key", "agent_id", "project", "limit"],
  signet_session_search: ["query", "session_key", "current_session_key", "agent_id", "project", "limit"],
  agent_peers: ["agent_id", "session_key", "include_self", "project", "limit"],
  agent_message_send: [
    "content", "from_agent_id", "from_session_key", "to_agent_id", "to_session_key", "broadcast", "type", "via",
    "acp_base_url", "acp_target_agent_name", "acp_timeout_ms",
  ],
  agent_message_inbox: ["agent_id", "session_key", "since", "limit", "include_sent", "include_broadcast"],
  session_bypass: ["session_key", "enabled"],
  secret_list: [],
  secret_exec: ["command", "secrets", "timeoutSeconds"],
  secret_exec_status: ["jobId"],
  signet_code_search: ["query", "top", "file", "debug", "project"],
  signet_code_context: ["symbol", "project"],
  signet_code_blast: ["symbol", "depth", "direction", "project"],
  signet_code_status: ["project"],
  signet_code_doctor: ["project"],
  signet_code_constants: ["project"],
  signet_code_clear: ["confirm", "project"],
  signet_code_briefing: ["compact", "project"],
  mcp_server_list: ["server"],
  mcp_server_call: ["server", "tool", "arguments", "timeout_ms"],
};
const REQUIRED: Record<string, string[]> = {
  memory_search: ["query"],
  memory_store: ["content"],
  memory_get: ["id"],
  memory_modify: ["id", "reason"],
  memory_forget: ["id", "reason"],
  secret_exec: ["command", "secrets"],
  session_bypass: ["session_key", "enabled"],
  mcp_server_call: ["server", "tool"],
};

function connect(env: Record<string, string>): { client: Client; transport: StdioClientTransport } {
  const transport = new StdioClientTransport({ command: MCP_BIN, args: [], env, stderr: "pipe" });
  const client = new Client({ name: "signet-e2e", version: "1.0.0" });
  return { client, transport };
}

type TextResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: any };
const text = (r: unknown) => (r as TextResult).content.map((c) => c.text).join("\n");
/** The memory tools' record (their text is a rendering for the model). */
const structured = (r: unknown) => (r as TextResult).structuredContent;

const TRANSPORTS: [string, (s: Sandbox) => Transport][] = [
  ["stdio (signet-mcp)", (s) => connect({ ...s.env, SIGNET_AGENT_ID: "mcp-agent", SIGNET_SESSION_KEY: "sess-mcp" }).transport],
  [
    "Streamable HTTP (/mcp)",
    (s) =>
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${s.port}/mcp?session_key=sess-mcp`), {
        requestInit: { headers: { "x-signet-agent-id": "mcp-agent" } },
      }),
  ],
];

for (const [transportName, makeTransport] of TRANSPORTS) describe(`MCP over ${transportName}`, () => {
  let s: Sandbox;
  let client: Client;
  beforeAll(async () => {
    s = await sandbox(KEYWORD_ONLY);
    expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
    client = new Client({ name: "signet-e2e", version: "1.0.0" });
    await client.connect(makeTransport(s));
  });
  afterAll(async () => {
    await client?.close();
    await run(["daemon", "stop"], { env: s.env });
  });

  test("initialize carries instructions: when to search, store (with hints), modify and forget", async () => {
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toContain("Search (memory_search) at the start of a task");
    expect(instructions).toContain("preferences, past decisions or facts about this project");
    expect(instructions).toContain("Store (memory_store) durable facts, preferences and decisions");
    expect(instructions).toContain("hints: two or three questions or requests a developer might later make");
    expect(instructions).toContain("Do not store transient chatter");
    expect(instructions).toContain("memory_modify");
    expect(instructions).toContain("memory_forget");
  });

  test("tools/list names every tool of docs/mcp.md with its parameters", async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(Object.keys(EXPECTED_TOOLS).sort());
    for (const [name, params] of Object.entries(EXPECTED_TOOLS)) {
      const schema = byName[name]!.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
      expect({ name, params: Object.keys(schema.properties ?? {}).sort() }).toEqual({ name, params: [...params].sort() });
      expect(byName[name]!.description?.length ?? 0).toBeGreaterThan(10);
    }
    for (const [name, required] of Object.entries(REQUIRED)) {
      const schema = byName[name]!.inputSchema as { required?: string[] };
      expect({ name, required: [...(schema.required ?? [])].sort() }).toEqual({ name, required: [...required].sort() });
    }
  });

  test("store → search → get → modify → forget", async () => {
    const storeResult = await client.callTool({ name: "memory_store", arguments: { content: "The CI runs on Debian bookworm", tags: "ci,infra", importance: 0.9 } });
    const stored = structured(storeResult);
    expect(text(storeResult)).toStartWith(`Stored as a new memory:\n[${stored.id} · fact · v1 · `);
    expect(stored).toMatchObject({ agentId: "mcp-agent", source: "mcp-server", sessionKey: "sess-mcp", tags: ["ci", "infra"] });

    const found = (await client.callTool({ name: "memory_search", arguments: { query: "which Debian does CI use?" } })) as TextResult;
    expect(found.isError).toBeFalsy();
    expect(text(found)).toContain("Primary matches (1)");
    expect(text(found)).toContain(stored.id);
    expect(found.structuredContent.results[0].id).toBe(stored.id);

    // min_score is the alias of importance_min; score_min filters the returned rows.
    const alias = (await client.callTool({ name: "signet_recall", arguments: { query: "Debian", min_score: 0.95 } })) as TextResult;
    expect(alias.structuredContent.results).toEqual([]);
    const both = (await client.callTool({ name: "signet_recall", arguments: { query: "Debian", min_score: 0.95, importance_min: 0.5 } })) as TextResult;
    expect(both.structuredContent.results).toHaveLength(1);
    // score_min moves the daemon's cut (held to 1 here), which then says what it left out.
    const strict = (await client.callTool({ name: "memory_search", arguments: { query: "Debian", score_min: 1.01 } })) as TextResult;
    expect(strict.structuredContent.results).toEqual([]);
    expect(text(strict)).toContain("Nothing relevant");
    expect(text(strict)).toContain("under the minimum of 1");

    const got = structured(await client.callTool({ name: "memory_get", arguments: { id: stored.id } }));
    expect(got.history).toHaveLength(1);

    const modified = structured(
      await client.callTool({ name: "memory_modify", arguments: { id: stored.id, reason: "upgrade", content: "The CI runs on Debian trixie" } }),
    );
    expect(modified).toMatchObject({ version: 2, content: "The CI runs on Debian trixie" });

    const forgotten = structured(await client.callTool({ name: "memory_forget", arguments: { id: stored.id, reason: "moved to GitHub" } }));
    expect(forgotten.deletedAt).not.toBeNull();
    const gone = (await client.callTool({ name: "memory_search", arguments: { query: "Debian" } })) as TextResult;
    expect(gone.structuredContent.results).toEqual([]);
  });

  test("errors are isError results a model can act on", async () => {
    const missing = (await client.callTool({ name: "memory_get", arguments: { id: "no-such-id" } })) as TextResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain("not found");
    // An empty id or session key names the argument, never the route it would have missed.
    const noId = (await client.callTool({ name: "memory_get", arguments: { id: "" } })) as TextResult;
    expect(noId.isError).toBe(true);
    expect(text(noId)).toContain("memory_get: expected a memory id, got an empty string at id");
    const noKey = (await client.callTool({ name: "session_bypass", arguments: { session_key: "", enabled: true } })) as TextResult;
    expect(noKey.isError).toBe(true);
    expect(text(noKey)).toContain("session_bypass: expected a session key, got an empty string at session_key");
    expect(text(noId) + text(noKey)).not.toContain("no route");
    const message = (await client.callTool({ name: "agent_message_send", arguments: { content: "hi" } })) as TextResult;
    expect(message.isError).toBe(true);
    expect(text(message)).toContain("target");
    const code = (await client.callTool({ name: "signet_code_search", arguments: { query: "x" } })) as TextResult;
    // signet-mcp runs in this test's directory, which no index of the sandbox covers; /mcp knows no directory.
    const cwd = realpathSync(process.cwd());
    expect(text(code)).toBe(
      transportName.startsWith("stdio")
        ? `no code index for ${cwd}: run \`signet index ${cwd}\` (or on the project's root folder) to make one`
        : "no project indexed: run `signet index <path>`",
    );
    const invalid = (await client.callTool({ name: "memory_store", arguments: { content: "" } })) as TextResult;
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain("content");
  });

  test("calls to Signet's own tools are recorded (source mcp, server signet) with the real agent", async () => {
    await client.callTool({ name: "memory_get", arguments: { id: "recorded-miss" } });
    await client.callTool({ name: "signet_code_status", arguments: {} });
    const signet = new SignetClient({ baseUrl: `http://127.0.0.1:${s.port}` });
    let seen: any;
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      seen = await signet.analytics.server("signet", { agent_id: "mcp-agent", source: "mcp" });
      if (seen.topTools.some((t: any) => t.tool === "signet_code_status")) break;
      await Bun.sleep(50);
    }
    const byTool = Object.fromEntries(seen.topTools.map((t: any) => [t.tool, t]));
    expect(byTool.signet_code_status).toMatchObject({ calls: 1, failureCount: 1 });
    expect(byTool.memory_get.failureCount).toBeGreaterThanOrEqual(1);
    expect(seen.agents.map((a: any) => a.agentId)).toEqual(["mcp-agent"]);
  });
});

describe("signet-mcp over stdio", () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await sandbox(KEYWORD_ONLY);
    expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
  });
  afterAll(async () => {
    await run(["daemon", "stop"], { env: s.env });
  });

  test("stdin EOF with a call in flight still answers, then exits", async () => {
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", clientInfo: { name: "eof", version: "1" }, capabilities: {} },
    });
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "memory_store", arguments: { content: "written just before EOF" } },
    });
    const started = performance.now();
    const r = await run([], { env: s.env, bin: MCP_BIN, stdin: `${init}\n${call}\n` });
    expect(r.code).toBe(0);
    const replies = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(replies.map((m) => m.id)).toEqual([1, 2]);
    expect(replies[1].result.structuredContent.content).toBe("written just before EOF");
    expect(performance.now() - started).toBeLessThan(5000);
  });

  test("a request cancelled before EOF: exits 0 at once after EOF, without spinning a core", async () => {
    // What a harness sends when the user presses Esc during a call, then closes its end.
    const lines = (...messages: object[]) => `${messages.map((m) => JSON.stringify(m)).join("\n")}\n`;
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } };
    const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
    const cancel = (id: number) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "user pressed Esc" } });
    const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "memory_list", arguments: { limit: 1 } } });
    const inputs = [
      lines(init, initialized, list(2), cancel(2)),
      lines(init, initialized, { jsonrpc: "2.0", id: 2, method: "ping" }, cancel(2)),
      // The cancellation may come first in the same read; the SDK still drops the request.
      lines(init, initialized, cancel(2), list(2)),
      // One of two cancelled: the other is answered, then it ends.
      lines(init, initialized, list(2), list(3), cancel(2)),
    ];
    for (const [i, input] of inputs.entries()) {
      const started = performance.now();
      const proc = Bun.spawn([MCP_BIN], { env: s.env, stdin: new Blob([input]), stdout: "pipe", stderr: "pipe", timeout: 15_000 });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      const elapsed = performance.now() - started;
      const cpuMs = Number(proc.resourceUsage()!.cpuTime.total) / 1000;
      expect({ i, code, signal: proc.signalCode, stderr }).toEqual({ i, code: 0, signal: null, stderr: "" });
      expect(elapsed).toBeLessThan(5000);
      // Its start and one call: a spinning loop would have burned seconds.
      expect(cpuMs).toBeLessThan(2000);
      const ids = stdout.trim().split("\n").map((l) => JSON.parse(l).id);
      expect({ i, ids }).toEqual({ i, ids: i === 3 ? [1, 3] : [1] });
    }
  });

  test("initialize is answered once, whether or not it comes first; what comes before it is the SDK's to answer", async () => {
    const init = (id: number) => ({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: "2024-11-05", clientInfo: { name: "order", version: "1" }, capabilities: {} } });
    const lines = (...messages: object[]) => `${messages.map((m) => JSON.stringify(m)).join("\n")}\n`;
    const list = { jsonrpc: "2.0", id: 3, method: "tools/list" };
    const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
    const first = await run([], { env: s.env, bin: MCP_BIN, stdin: lines(init(1), initialized, list) });
    const second = await run([], { env: s.env, bin: MCP_BIN, stdin: lines({ jsonrpc: "2.0", id: 2, method: "ping" }, init(1), initialized, list) });
    for (const r of [first, second]) expect(r.code).toBe(0);
    const replies = (r: { stdout: string }) => r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(replies(first).map((m) => m.id)).toEqual([1, 3]);
    expect(replies(second).map((m) => m.id)).toEqual([2, 1, 3]);
    expect(replies(second)[0].result).toEqual({});
    expect(replies(second)[1]).toEqual(replies(first)[0]);
    expect(replies(first)[0].result.protocolVersion).toBe("2024-11-05");
    expect(replies(first)[1].result.tools.length).toBe(Object.keys(EXPECTED_TOOLS).length);
  });

  describe("with input it cannot take", () => {
    const lines = (...messages: (object | string)[]) => `${messages.map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join("\n")}\n`;
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } };
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    const replies = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l));

    test("a message over 10 MiB (the SDK's default) is still read: the call answers too_large, the next request is answered, it exits at the end", async () => {
      const big = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "memory_store", arguments: { content: "x".repeat(11 * 1024 * 1024) } } };
      const r = await run([], { env: s.env, bin: MCP_BIN, stdin: lines(init, big, ping(3)), timeoutMs: 30_000 });
      expect(r.code).toBe(0);
      // The ping may be answered before the call: by id.
      const got = replies(r.stdout).sort((a, b) => a.id - b.id);
      expect(got.map((m) => m.id)).toEqual([1, 2, 3]);
      expect(got[1].result.isError).toBe(true);
      expect(JSON.stringify(got[1].result.content)).toContain("too_large");
    });

    test("a line that is not JSON is -32700, a batch or a non-message -32600 (id null); the session goes on", async () => {
      const batch = JSON.stringify([ping(2), ping(3)]);
      const r = await run([], { env: s.env, bin: MCP_BIN, stdin: lines(init, "not json", batch, '{"hello":1}', ping(4)) });
      expect(r.code).toBe(0);
      const got = replies(r.stdout);
      expect(got.map((m) => [m.id, m.error?.code ?? "ok"])).toEqual([[1, "ok"], [null, -32700], [null, -32600], [null, -32600], [4, "ok"]]);
      expect(got[2].error.message).toContain("batch");
    });

    test("a message past what it reads (64 MiB) is answered as an invalid request with its id, unread, and the session goes on", async () => {
      const huge = `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"${"y".repeat(65 * 1024 * 1024)}"}}`;
      const r = await run([], { env: s.env, bin: MCP_BIN, stdin: lines(init, huge, ping(3)), timeoutMs: 30_000 });
      expect(r.code).toBe(0);
      const got = replies(r.stdout);
      expect(got.map((m) => [m.id, m.error?.code ?? "ok"])).toEqual([[1, "ok"], [2, -32600], [3, "ok"]]);
      expect(got[1].error.message).toContain("more than 67108864 bytes");
    });

    test("SIGNET_SESSION_KEY holding a line break is refused at start (exit 2, saying so), not a 'daemon not reachable' at every call", async () => {
      const r = await run([], { env: { ...s.env, SIGNET_SESSION_KEY: "a\nb" }, bin: MCP_BIN, stdin: lines(init) });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("SIGNET_SESSION_KEY");
      expect(r.stderr).toContain("control character");
    });
  });

  describe("a bridged call the agent cancels", () => {
    test("notifications/cancelled through signet-mcp cancels the call at the installed server, and it is recorded as cancelled", async () => {
      const marks = join(s.home, "marks");
      const server = join(import.meta.dir, "../helpers/hanging-stdio-server.mjs");
      expect((await run(["mcp", "add", "hanging", "--", Bun.which("node") ?? "node", server, marks], { env: s.env })).code).toBe(0);
      const marked = (word: string) => existsSync(marks) && readFileSync(marks, "utf8").includes(`${word} `);
      const { client, transport } = connect(s.env);
      await client.connect(transport);
      try {
        const abort = new AbortController();
        const pending = client.callTool({ name: "mcp_server_call", arguments: { server: "hanging", tool: "hang", timeout_ms: 600_000 } }, undefined, { signal: abort.signal });
        pending.catch(() => {});
        expect(await eventually(async () => marked("called"), 15_000)).toBe(true);
        abort.abort();
        expect(await eventually(async () => marked("cancelled"), 15_000)).toBe(true);
        // Analytics' rows keep a failure's text (read from the store: no answer shows it).
        const recorded = () => {
          const db = new Database(join(s.dataDir, "memory", "memories.db"), { readonly: true });
          try {
            return db.query<{ error_text: string | null }, []>("SELECT error_text FROM mcp_invocations WHERE server = 'hanging'").all();
          } finally {
            db.close();
          }
        };
        expect(await eventually(async () => recorded().some((r) => r.error_text?.includes("cancelled by its caller")), 15_000)).toBe(true);
      } finally {
        await client.close();
      }
    });
  });
});

describe("SIGNET_DAEMON_URL validation", () => {
  const rejected: [string, string][] = [
    ["http://127.0.0.1:3850/api", "path"],
    ["http://127.0.0.1:3850?x=1", "query"],
    ["http://127.0.0.1:3850#frag", "fragment"],
    ["http://user:pw@127.0.0.1:3850", "credentials"],
    ["ftp://127.0.0.1:3850", "scheme"],
    ["127.0.0.1:3850", "scheme"],
    ["http://127.0.0.1:0", "port"],
    ["http://127.0.0.1:70000", "port"],
    ["http://$(touch /tmp/pwned):3850", "not allowed"],
    ["http://127.0.0.1;rm -rf ~", "not allowed"],
  ];
  for (const [url, problem] of rejected) {
    test(`refuses ${url}`, async () => {
      const s = await sandbox(KEYWORD_ONLY);
      const r = await run([], { env: { ...s.env, SIGNET_DAEMON_URL: url }, bin: MCP_BIN, stdin: "" });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(problem);
    });
  }
});

describe("a daemon that is not running", () => {
  const call = (env: Record<string, string>) => {
    const c = connect(env);
    return (async () => {
      await c.client.connect(c.transport);
      try {
        return (await c.client.callTool({ name: "memory_list", arguments: {} })) as TextResult;
      } finally {
        await c.client.close();
      }
    })();
  };

  test("with autostart off: an error naming the URL and how to start it", async () => {
    const s = await sandbox(KEYWORD_ONLY);
    const r = await call({ ...s.env, SIGNET_AUTOSTART: "false" });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(`Signet daemon not reachable at http://127.0.0.1:${s.port}: start it with \`signet daemon start\``);
  });

  test("with no store and SIGNET_PATH unset, nothing is started or created, and stderr says why", async () => {
    const s = await sandbox();
    const env = { ...s.env };
    delete env.SIGNET_PATH;
    const messages = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "memory_list", arguments: {} } },
    ];
    const r = await run([], { env, bin: MCP_BIN, stdin: `${messages.map((m) => JSON.stringify(m)).join("\n")}\n` });
    expect(r.code).toBe(0);
    const answer = r.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((m) => m.id === 2);
    expect(answer.result.isError).toBe(true);
    const dataDir = join(s.home, ".agents");
    expect(r.stderr).toContain(`signet-mcp: no Signet daemon answers at http://127.0.0.1:${s.port}, and none was started: there is no Signet store at ${dataDir}`);
    expect(existsSync(dataDir)).toBe(false);
  });

  test("with a local URL, the first call starts the daemon", async () => {
    const s = await sandbox(KEYWORD_ONLY);
    try {
      const r = await call(s.env);
      expect(r.isError).toBeFalsy();
      expect(structured(r).memories).toEqual([]);
      expect(text(r)).toBe("No memories.");
      const status = json(await run(["daemon", "status"], { env: s.env }));
      expect(status.running).toBe(true);
      expect(alive(status.pid)).toBe(true);
    } finally {
      await run(["daemon", "stop"], { env: s.env });
    }
  });
});
