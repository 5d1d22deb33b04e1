// /mcp, MCP Streamable HTTP (docs/mcp.md#streamable-http-mcp), against a real daemon on a free
// loopback port: the SDK's own Client and StreamableHTTPClientTransport for the protocol, raw fetch
// and raw TCP for what a client library would never send (bad Host/Origin, broken JSON, oversized
// bodies, a request held open).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { Elysia } from "elysia";
import { connect as tcpConnect, type Socket } from "node:net";
import { McpStreamHub } from "../../src/mcp/http";
import { mcpRoutes } from "../../src/server/routes/mcp";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { fakeStdio } from "../helpers/fake-server";

const ACCEPT = "application/json, text/event-stream";
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "mcp-http-test", version: "1" } },
};

let td: TestDaemon;
const clients: Client[] = [];

beforeAll(async () => {
  td = await startTestDaemon();
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await td.stop();
});

/** An SDK client on `${url}/mcp` plus `query`, sending `headers` on every request. */
async function connect(options: { query?: string; headers?: Record<string, string>; base?: string } = {}): Promise<Client> {
  const client = new Client({ name: "mcp-http-test", version: "1.0.0" });
  const url = new URL(`${options.base ?? td.url}/mcp${options.query ?? ""}`);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: options.headers ?? {} } }));
  clients.push(client);
  return client;
}

function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  const first = content[0];
  if (!first || first.type !== "text") throw new Error(`expected text content, got ${JSON.stringify(result)}`);
  return first.text;
}

/** The memory tools answer their record as structuredContent (the text is for the model). */
function structured(result: unknown): any {
  const value = (result as CallToolResult).structuredContent;
  if (value === undefined) throw new Error(`expected structuredContent, got ${JSON.stringify(result)}`);
  return value;
}

async function post(body: string, headers: Record<string, string> = {}, path = "/mcp"): Promise<Response> {
  return td.fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body,
  });
}

/** The JSON-RPC error shape every refusal on /mcp has. */
async function expectJsonRpcError(res: Response, status: number, code: number, mentions?: RegExp): Promise<void> {
  const body = (await res.json()) as any;
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type") ?? "").toContain("application/json");
  expect(body.jsonrpc).toBe("2.0");
  expect(body.id).toBeNull();
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  if (mentions) expect(body.error.message).toMatch(mentions);
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

// ---------------------------------------------------------------------------------------------

describe("the protocol through the SDK client", () => {
  test("initialize: server info, capabilities and instructions", async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe("signet");
    // When to search, store, modify and forget (docs/mcp.md#instructions).
    const instructions = client.getInstructions() ?? "";
    for (const words of ["memory_search", "at the start of a task", "preferences", "past decisions", "memory_store", "transient", "memory_modify", "memory_forget", "pinned: false"]) {
      expect({ words, present: instructions.includes(words) }).toEqual({ words, present: true });
    }
    const caps = client.getServerCapabilities();
    expect(caps?.tools).toBeDefined();
    expect(caps?.logging).toBeDefined();
    expect(await client.ping()).toEqual({});
  });

  test("tools/list is non-empty and has memory_store and memory_get with schemas", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const names = tools.map((t) => t.name);
    expect(names).toContain("memory_store");
    expect(names).toContain("memory_get");
    for (const tool of tools) {
      expect(tool.description?.length ?? 0).toBeGreaterThan(0);
      expect(tool.inputSchema.type).toBe("object");
    }
    const store = tools.find((t) => t.name === "memory_store")!;
    expect(store.inputSchema.required).toContain("content");
  });

  test("memory_store then memory_get: the round trip, with MCP provenance in the history", async () => {
    const client = await connect({ headers: { "x-signet-agent-id": "roundtrip" } });
    const stored = await client.callTool({ name: "memory_store", arguments: { content: "The staging database lives on port 5433", importance: 0.8 } });
    expect(stored.isError).toBeFalsy();
    const memory = structured(stored);
    expect(memory.id).toBeString();
    expect(memory.content).toBe("The staging database lives on port 5433");
    expect(memory.agentId).toBe("roundtrip");
    expect(memory.source).toBe("mcp-server");

    const got = await client.callTool({ name: "memory_get", arguments: { id: memory.id } });
    expect(got.isError).toBeFalsy();
    const full = structured(got);
    expect(full.id).toBe(memory.id);
    expect(full.content).toBe("The staging database lives on port 5433");
    expect(full.importance).toBe(0.8);
    expect(full.history[0].actor).toBe("mcp-server");
    expect(full.history[0].actorType).toBe("harness");

    // The same memory through the REST API: the MCP endpoint wrote to this daemon's own store.
    const viaApi = await td.client("roundtrip").memory.get(memory.id);
    expect(viaApi.content).toBe(memory.content);
  });

  test("tool errors are isError results, not protocol failures", async () => {
    const client = await connect();
    const missing = await client.callTool({ name: "memory_get", arguments: { id: "no-such-memory" } });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/not.?found/i);
    const unknown = await client.callTool({ name: "no_such_tool", arguments: {} });
    expect(unknown.isError).toBe(true);
    const invalid = await client.callTool({ name: "memory_store", arguments: { content: 42 } });
    expect(invalid.isError).toBe(true);
  });
});

describe("arguments that name what a request's path names must not be empty", () => {
  // Empty, they used to reach no route: "no route GET /api/memory/", "no route POST /api/sessions//bypass".
  const CASES: [string, Record<string, unknown>, string, string][] = [
    ["memory_get", { id: "" }, "id", "a memory id"],
    ["memory_modify", { id: "", reason: "r", content: "c" }, "id", "a memory id"],
    ["memory_forget", { id: "", reason: "r" }, "id", "a memory id"],
    ["session_bypass", { session_key: "", enabled: true }, "session_key", "a session key"],
    ["secret_exec_status", { jobId: "" }, "jobId", "a job id"],
    ["mcp_server_list", { server: "" }, "server", "an installed server's name"],
    ["mcp_server_call", { server: "", tool: "t" }, "server", "an installed server's name"],
  ];

  test("an empty one is an invalid-arguments error naming the argument; the route never shows", async () => {
    const client = await connect({ headers: { "x-signet-agent-id": "empty-args" } });
    for (const [tool, args, argument, what] of CASES) {
      const result = await client.callTool({ name: tool, arguments: args });
      const message = text(result);
      expect({ tool, isError: result.isError }).toEqual({ tool, isError: true });
      expect({ tool, message }).toEqual({
        tool,
        message: `MCP error -32602: Input validation error: Invalid arguments for tool ${tool}: expected ${what}, got an empty string at ${argument}`,
      });
    }
  });

  test("tools/list says so: minLength 1", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    for (const [tool, , argument] of CASES) {
      const schema = tools.find((t) => t.name === tool)!.inputSchema as { properties: Record<string, { minLength?: number }> };
      expect({ tool, argument, minLength: schema.properties[argument]!.minLength }).toEqual({ tool, argument, minLength: 1 });
    }
  });
});

describe("the tool table: titles, annotations, output schemas (docs/mcp.md#tools)", () => {
  // Every tool is in exactly the lists that name it; a new tool has to be placed here.
  // memory_search and signet_recall are not: aggregate mode saves its answer as a memory by default.
  const READ_ONLY = [
    "memory_get", "memory_list", "mcp_server_list", "session_search", "signet_session_search",
    "agent_peers", "agent_message_inbox",
    "signet_source_search",
    "secret_list", "secret_exec_status", "signet_code_search", "signet_code_context", "signet_code_blast",
    "signet_code_status", "signet_code_doctor", "signet_code_constants", "signet_code_briefing",
  ];
  const DESTRUCTIVE = ["memory_forget", "signet_code_clear", "secret_exec", "mcp_server_call"];
  const OPEN_WORLD = ["mcp_server_call", "mcp_server_list", "agent_message_send", "secret_exec"];
  const STRUCTURED = [
    "memory_search", "signet_recall", "mcp_server_list", "signet_source_search",
    "memory_store", "signet_save_note", "memory_get", "memory_list", "memory_modify", "memory_forget",
    "secret_list", "secret_exec", "secret_exec_status",
    "memory_feedback", "session_search", "signet_session_search", "session_bypass",
    "agent_peers", "agent_message_send", "agent_message_inbox",
  ];

  test("tools/list: every tool has a title and states its hints; the structured ones an output schema", async () => {
    const { tools } = await (await connect()).listTools();
    const names = tools.map((t) => t.name);
    for (const name of [...READ_ONLY, ...DESTRUCTIVE, ...OPEN_WORLD, ...STRUCTURED]) expect(names).toContain(name);
    for (const { name, title, annotations, outputSchema } of tools) {
      const readOnly = READ_ONLY.includes(name);
      expect({ name, title: (title?.length ?? 0) > 0 }).toEqual({ name, title: true });
      expect({ name, readOnlyHint: annotations?.readOnlyHint, openWorldHint: annotations?.openWorldHint }).toEqual({
        name,
        readOnlyHint: readOnly,
        openWorldHint: OPEN_WORLD.includes(name),
      });
      // Hints on writing only mean something for tools that write; those state both.
      expect({ name, destructiveHint: annotations?.destructiveHint, idempotent: typeof annotations?.idempotentHint }).toEqual({
        name,
        destructiveHint: readOnly ? undefined : DESTRUCTIVE.includes(name),
        idempotent: readOnly ? "undefined" : "boolean",
      });
      expect({ name, outputSchema: outputSchema?.type }).toEqual({ name, outputSchema: STRUCTURED.includes(name) ? "object" : undefined });
    }
  });

  test("structured answers validate against the listed output schemas; an isError answer carries none", async () => {
    const client = await connect({ headers: { "x-signet-agent-id": "structured" } });
    // Listing first also has the SDK client check every structured answer below against its schema.
    const { tools } = await client.listTools();
    const ajv = new AjvJsonSchemaValidator();
    const validate = (name: string, value: unknown) => {
      const { valid, errorMessage } = ajv.getValidator(tools.find((t) => t.name === name)!.outputSchema!)(value);
      return { name, valid, errorMessage };
    };
    const expectValid = (name: string, result: CallToolResult) => {
      expect(result.isError).toBeFalsy();
      expect(validate(name, result.structuredContent)).toEqual({ name, valid: true, errorMessage: undefined });
    };

    const stored = (await client.callTool({
      name: "memory_store",
      arguments: { content: "The release train leaves on Thursdays", structured: { train: { day: "Thursday" } }, hints: ["when do we ship?"] },
    })) as CallToolResult;
    expectValid("memory_store", stored);
    const id = (stored.structuredContent as any).id;
    expectValid("memory_store", (await client.callTool({ name: "memory_store", arguments: { content: "The release train leaves on Thursdays." } })) as CallToolResult);
    expectValid("signet_save_note", (await client.callTool({ name: "signet_save_note", arguments: { content: "a note", title: "T" } })) as CallToolResult);
    expectValid("memory_modify", (await client.callTool({ name: "memory_modify", arguments: { id, reason: "tag it", tags: "release" } })) as CallToolResult);
    expectValid("memory_list", (await client.callTool({ name: "memory_list", arguments: { limit: 1 } })) as CallToolResult);
    // The schemas are no formality: a memory without its version fails them.
    const { version: _version, ...versionless } = (stored.structuredContent as any);
    expect(validate("memory_store", versionless).valid).toBe(false);
    const found = (await client.callTool({ name: "memory_search", arguments: { query: "release train" } })) as CallToolResult;
    expect((found.structuredContent as any).results).toHaveLength(1);
    expectValid("memory_search", found);
    expectValid("signet_recall", (await client.callTool({ name: "signet_recall", arguments: { query: "release", score_min: 2 } })) as CallToolResult);
    // The schema is no formality: a recall answer without its meta fails it.
    expect(validate("memory_search", { results: [], supporting: [] }).valid).toBe(false);

    expectValid("mcp_server_list", (await client.callTool({ name: "mcp_server_list", arguments: {} })) as CallToolResult);
    await td.client().bridge.install({ name: "listed", transport: fakeStdio() });
    try {
      const listed = (await client.callTool({ name: "mcp_server_list", arguments: { server: "listed" } })) as CallToolResult;
      expect((listed.structuredContent as any).tools.map((t: any) => t.name)).toEqual(["text", "cwd"]);
      expectValid("mcp_server_list", listed);
    } finally {
      await td.client().bridge.remove("listed");
    }

    expectValid("memory_get", (await client.callTool({ name: "memory_get", arguments: { id } })) as CallToolResult);
    expectValid("memory_forget", (await client.callTool({ name: "memory_forget", arguments: { id, reason: "done" } })) as CallToolResult);
    expectValid("memory_get", (await client.callTool({ name: "memory_get", arguments: { id } })) as CallToolResult);

    expectValid(
      "memory_search",
      (await client.callTool({ name: "memory_search", arguments: { query: "release", aggregate: true, save_aggregate: false } })) as CallToolResult,
    );

    // A failure is text alone: neither the server nor the SDK client holds it to the schema.
    const refused = await client.callTool({ name: "memory_search", arguments: { query: "release", since: "yesterday" } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toBeUndefined();
    expect(text(refused)).toContain("memory_search failed (invalid_input): invalid recall request: since");
  });
});

describe("who is calling", () => {
  test("the agent from x-signet-agent-id: agent B cannot see agent A's memory", async () => {
    const a = await connect({ headers: { "x-signet-agent-id": "agent-a" } });
    const b = await connect({ headers: { "x-signet-agent-id": "agent-b" } });
    const memory = structured(await a.callTool({ name: "memory_store", arguments: { content: "agent A keeps this to itself" } }));
    expect(memory.agentId).toBe("agent-a");
    const asB = await b.callTool({ name: "memory_get", arguments: { id: memory.id } });
    expect(asB.isError).toBe(true);
    const asA = await a.callTool({ name: "memory_get", arguments: { id: memory.id } });
    expect(asA.isError).toBeFalsy();
  });

  test("the agent from ?agent_id=, which wins over the header", async () => {
    const a = await connect({ query: "?agent_id=query-a" });
    const b = await connect({ query: "?agent_id=query-b" });
    const memory = structured(await a.callTool({ name: "memory_store", arguments: { content: "stored by the agent named in the query" } }));
    expect(memory.agentId).toBe("query-a");
    expect((await b.callTool({ name: "memory_get", arguments: { id: memory.id } })).isError).toBe(true);
    expect((await a.callTool({ name: "memory_get", arguments: { id: memory.id } })).isError).toBeFalsy();

    const both = await connect({ query: "?agent_id=query-a", headers: { "x-signet-agent-id": "query-b" } });
    expect((await both.callTool({ name: "memory_get", arguments: { id: memory.id } })).isError).toBeFalsy();
  });

  test("no agent named: the daemon's default agent", async () => {
    const anon = await connect();
    const memory = structured(await anon.callTool({ name: "memory_store", arguments: { content: "nobody in particular wrote this" } }));
    expect(memory.agentId).toBe("default");
  });

  test("the session key from x-signet-session-key and from ?session_key= reaches the tools", async () => {
    const byHeader = await connect({ headers: { "x-signet-session-key": "sess-header-1" } });
    const m1 = structured(await byHeader.callTool({ name: "memory_store", arguments: { content: "said during the header session" } }));
    expect(m1.sessionKey).toBe("sess-header-1");
    const byQuery = await connect({ query: "?session_key=sess-query-2" });
    const m2 = structured(await byQuery.callTool({ name: "memory_store", arguments: { content: "said during the query session" } }));
    expect(m2.sessionKey).toBe("sess-query-2");
  });

  test("calls of several callers taking turns each act as their own caller (servers are kept per caller)", async () => {
    const callers = [
      { agent: "turn-a", session: "turn-session-1" },
      { agent: "turn-a", session: "turn-session-2" },
      { agent: "turn-b", session: "turn-session-1" },
    ];
    const clients = await Promise.all(
      callers.map(({ agent, session }) => connect({ headers: { "x-signet-agent-id": agent, "x-signet-session-key": session } })),
    );
    const stored: { id: string; agentId: string; sessionKey: string }[] = [];
    for (let turn = 0; turn < 3; turn++) {
      // In turn, and all at once: a caller's requests that overlap get servers of their own.
      for (const [i, client] of clients.entries()) {
        stored.push(structured(await client.callTool({ name: "memory_store", arguments: { content: `turn ${turn} of caller ${i}` } })));
      }
      const together = await Promise.all(
        clients.flatMap((client, i) => [0, 1].map((k) => client.callTool({ name: "memory_store", arguments: { content: `turn ${turn}.${k} of caller ${i}, at once` } }))),
      );
      stored.push(...together.map(structured));
    }
    const expected = [...Array(3)].flatMap(() => [...callers, ...callers.flatMap((c) => [c, c])]);
    expect(stored.map((m) => `${m.agentId} ${m.sessionKey}`)).toEqual(expected.map((c) => `${c.agent} ${c.session}`));
    // Agent B never reaches agent A's memories, whichever server answers it.
    const ofA = stored.find((m) => m.agentId === "turn-a")!;
    expect((await clients[2]!.callTool({ name: "memory_get", arguments: { id: ofA.id } })).isError).toBe(true);
    expect((await clients[1]!.callTool({ name: "memory_get", arguments: { id: ofA.id } })).isError).toBeFalsy();
  });

  test("an invalid agent id is a 400 JSON-RPC error", async () => {
    await expectJsonRpcError(await post(JSON.stringify(INIT), { "x-signet-agent-id": "no spaces allowed" }), 400, -32600, /agent id/);
    await expectJsonRpcError(await post(JSON.stringify(INIT), {}, "/mcp?agent_id=%24%28rm%29"), 400, -32600, /agent id/);
  });
});

describe("DNS rebinding protection", () => {
  test("a foreign Origin is 403", async () => {
    const res = await post(JSON.stringify(INIT), { origin: "http://evil.example.com" });
    await expectJsonRpcError(res, 403, -32000, /Origin/);
    await expectJsonRpcError(await post(JSON.stringify(INIT), { origin: "null" }), 403, -32000, /Origin/);
    await expectJsonRpcError(await post(JSON.stringify(INIT), { origin: "http://localhost.evil.example.com:3850" }), 403, -32000);
  });

  test("a foreign Host is 403, on every method", async () => {
    await expectJsonRpcError(await post(JSON.stringify(INIT), { host: "evil.example.com" }), 403, -32000, /Host/);
    await expectJsonRpcError(await post(JSON.stringify(INIT), { host: "evil.example.com:3850" }), 403, -32000, /Host/);
    await expectJsonRpcError(await td.fetch("/mcp", { method: "GET", headers: { host: "evil.example.com", accept: "text/event-stream" } }), 403, -32000);
    await expectJsonRpcError(await td.fetch("/mcp", { method: "DELETE", headers: { host: "evil.example.com" } }), 403, -32000);
  });

  test("loopback names with the daemon's port are accepted, in Host and Origin; other ports are not", async () => {
    const port = new URL(td.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const res = await post(JSON.stringify(INIT), { host, origin: `http://${host}` });
      expect({ host, status: res.status }).toEqual({ host, status: 200 });
      expect(((await res.json()) as any).result.serverInfo.name).toBe("signet");
    }
    // Another local web server's pages (the Inspector's UI on 6274, say) are other origins.
    await expectJsonRpcError(await post(JSON.stringify(INIT), { origin: "http://localhost:6274" }), 403, -32000, /Origin/);
    await expectJsonRpcError(await post(JSON.stringify(INIT), { host: "localhost" }), 403, -32000, /Host/);
    await expectJsonRpcError(await post(JSON.stringify(INIT), { host: "127.0.0.1:1" }), 403, -32000, /Host/);
  });

  test("the same endpoint answers at /mcp/ and with unrelated query parameters", async () => {
    for (const path of ["/mcp/", "/mcp?foo=bar"]) {
      const res = await post(JSON.stringify(INIT), {}, path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(((await res.json()) as any).result.serverInfo.name).toBe("signet");
    }
  });
});

describe("malformed requests", () => {
  test("invalid JSON is a 400 JSON-RPC parse error", async () => {
    await expectJsonRpcError(await post("{not json"), 400, -32700, /Parse error/);
    await expectJsonRpcError(await post(""), 400, -32700);
  });

  test("a body over daemon.maxBodyBytes is 413, declared or streamed", async () => {
    const big = JSON.stringify({ ...INIT, padding: "x".repeat(1024 * 1024 + 10) });
    await expectJsonRpcError(await post(big), 413, -32000, /maxBodyBytes/);
    // No Content-Length: the limit is enforced while reading the stream.
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 24) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await td.fetch("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT },
      body: stream,
    });
    await expectJsonRpcError(res, 413, -32000);
  });

  test("nothing malformed produces a 5xx", async () => {
    const cases: [string, Record<string, string>][] = [
      ["[]", {}],
      ["{}", {}],
      ["null", {}],
      ['"just a string"', {}],
      ["42", {}],
      [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 7 } }), {}],
      [JSON.stringify({ jsonrpc: "2.0", id: 2, method: "no/such/method" }), {}],
      [JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }))), {}],
      [JSON.stringify(INIT), { accept: "application/json" }],
      [JSON.stringify(INIT), { "content-type": "text/plain" }],
      [JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }), { "mcp-protocol-version": "1999-01-01" }],
      ['{"jsonrpc":"2.0","id":4,"method":"ping","params":{"\\ud800":"\\udfff"}}', {}],
    ];
    for (const [body, headers] of cases) {
      const res = await post(body, headers);
      expect({ body: body.slice(0, 60), status: res.status < 500 }).toEqual({ body: body.slice(0, 60), status: true });
      await res.body?.cancel();
    }
    for (const method of ["PUT", "PATCH"]) {
      const res = await td.fetch("/mcp", { method });
      await expectJsonRpcError(res, 405, -32000);
    }
    // The daemon is still there.
    expect((await td.fetch("/health")).status).toBe(200);
  });

  test("a notification alone is accepted with 202", async () => {
    const res = await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    expect(res.status).toBe(202);
  });
});

describe("cancelled requests (notifications/cancelled in the same POST)", () => {
  const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "memory_list", arguments: { limit: 1 } } });
  const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
  const cancel = (id: number) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "user pressed Esc" } });
  /** A POST that must be answered within 5 s: before the fix, these never were. */
  const postSoon = (messages: object[]) =>
    td.fetch("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT },
      body: JSON.stringify(messages),
      signal: AbortSignal.timeout(5000),
    });

  test("a batch whose requests are all cancelled is accepted at once (202, no body); 40 of them leave every slot free", async () => {
    // The daemon takes 32 POSTs at once; each of these used to hold one for good.
    for (let i = 1; i <= 40; i++) {
      const res = await postSoon(i % 2 ? [call(i), cancel(i)] : [ping(i), cancel(i)]);
      expect({ i, status: res.status, body: await res.text() }).toEqual({ i, status: 202, body: "" });
    }
    // The same at once, as a client pressing Esc repeatedly would send them (within the cap).
    const burst = await Promise.all(Array.from({ length: 31 }, (_, k) => postSoon([ping(100 + k), cancel(100 + k)])));
    expect(burst.map((r) => r.status)).toEqual(Array(31).fill(202));
    const res = await post(JSON.stringify(ping(99)));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 99, result: {} });
    // And through the SDK client, another caller.
    const client = await connect({ headers: { "x-signet-agent-id": "after-cancels" } });
    const listed = await client.callTool({ name: "memory_list", arguments: { limit: 1 } });
    expect(listed.isError).toBeFalsy();
  });

  test("a batch with some requests cancelled answers the others; the cancellation may come first", async () => {
    const res = await postSoon([ping(1), cancel(2), call(2), ping(3)]);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type") ?? "").toContain("application/json");
    expect(await res.json()).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 3, result: {} },
    ]);
    const one = await postSoon([ping(4), call(5), cancel(5)]);
    expect(await one.json()).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
  });

  test("a cancellation of a request the POST does not hold changes nothing: the request is answered", async () => {
    const res = await postSoon([ping(7), cancel(8)]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
    // requestId 0 and malformed cancellations are ignored by the SDK too.
    const zero = await postSoon([ping(0), cancel(0)]);
    expect(await zero.json()).toEqual({ jsonrpc: "2.0", id: 0, result: {} });
  });
});

describe("GET and DELETE", () => {
  test("GET opens a text/event-stream that the client can abort; the stream is released", async () => {
    const hub = td.daemon.context.mcpStreams;
    const before = hub.size;
    const abort = new AbortController();
    const res = await td.fetch("/mcp", { headers: { accept: "text/event-stream" }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toStartWith(":");
    expect(hub.size).toBe(before + 1);
    abort.abort();
    await reader.read().catch(() => {});
    await waitFor("the stream to be released", () => hub.size === before);
  });

  test("GET carries server notifications to every open stream", async () => {
    const hub = td.daemon.context.mcpStreams;
    const res = await td.fetch("/mcp", { headers: { accept: "text/event-stream" } });
    const reader = res.body!.getReader();
    await reader.read();
    await hub.toolsChanged();
    const { value } = await reader.read();
    const frame = new TextDecoder().decode(value);
    expect(frame).toContain("event: message");
    expect(frame).toContain('"method":"notifications/tools/list_changed"');
    await reader.cancel();
  });

  test(
    "a quiet stream outlives the daemon's idle timeout (daemon.idleTimeoutS), which closes a silent connection",
    async () => {
      const quick = await startTestDaemon({ yaml: "daemon:\n  idleTimeoutS: 2\n" });
      try {
        // Both at once: a connection silent after its request, and a stream as silent for longer.
        const { hostname, port } = new URL(quick.url);
        const closed = Promise.withResolvers<void>();
        const idle = await Bun.connect({ hostname, port: Number(port), socket: { data() {}, close: () => closed.resolve(), error: () => closed.resolve() } });
        idle.write(`GET /health HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
        const hub = quick.daemon.context.mcpStreams;
        const res = await quick.fetch("/mcp", { headers: { accept: "text/event-stream" } });
        const reader = res.body!.getReader();
        await reader.read();

        // The setting applies: Bun closes the silent connection (it checks every 4 s, so after ~4 s).
        const cut = await Promise.race([closed.promise.then(() => true), Bun.sleep(12_000).then(() => false)]);
        idle.end();
        expect(cut).toBe(true);
        // The stream stays open through more silence than that (its keep-alive comes every 15 s).
        await Bun.sleep(3_000);
        await hub.toolsChanged();
        const { value, done } = await reader.read();
        expect(done).toBe(false);
        expect(new TextDecoder().decode(value)).toContain("notifications/tools/list_changed");
        await reader.cancel();
      } finally {
        await quick.stop();
      }
    },
    30_000,
  );

  test("GET without Accept: text/event-stream is 406", async () => {
    await expectJsonRpcError(await td.fetch("/mcp", { headers: { accept: "application/json" } }), 406, -32000);
  });

  test("DELETE answers 204", async () => {
    const res = await td.fetch("/mcp", { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });

  test("the daemon stops promptly with a stream open, and the stream ends", async () => {
    const other = await startTestDaemon();
    try {
      const res = await other.fetch("/mcp", { headers: { accept: "text/event-stream" } });
      const reader = res.body!.getReader();
      await reader.read();
      expect(other.daemon.context.mcpStreams.size).toBe(1);
      const started = Date.now();
      await other.daemon.stop();
      expect(Date.now() - started).toBeLessThan(3000);
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
      }
      expect(other.daemon.context.mcpStreams.size).toBe(0);
      // A new stream is refused once stopping began (the hub no longer accepts).
      expect(other.daemon.context.mcpStreams.accepting).toBe(false);
    } finally {
      await other.stop();
    }
  });
});

describe("limits from the route factory", () => {
  // The real route on its own listener and stream hub, with a cap of one request in flight, two
  // streams, and fast keep-alives.
  let server: ReturnType<typeof Bun.serve>;
  let base: string;
  const hub = new McpStreamHub();
  beforeAll(() => {
    const ctx = { ...td.daemon.context, mcpStreams: hub, setIdleTimeout: undefined };
    const handle = (request: Request): Promise<Response> => app.handle(request);
    const app = new Elysia().use(mcpRoutes(ctx, { handle, maxInFlight: 1, maxStreams: 2, keepAliveMs: 50 }));
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => app.handle(request) });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await hub.closeAll();
    await server.stop(true);
  });

  function rawPost(port: number, body: string, sendBytes: number): Promise<{ socket: Socket; response: Promise<string> }> {
    return new Promise((resolve, reject) => {
      const socket = tcpConnect(port, "127.0.0.1", () => {
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: ${ACCEPT}\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, sendBytes)}`,
        );
        let received = "";
        const response = new Promise<string>((done) => {
          socket.on("data", (d) => (received += d.toString()));
          socket.on("close", () => done(received));
        });
        resolve({ socket, response });
      });
      socket.on("error", reject);
    });
  }

  test("past the concurrency cap a POST is a 503 JSON-RPC error; the held one still completes", async () => {
    const body = JSON.stringify(INIT);
    // A POST whose body has not all arrived holds the one slot.
    const held = await rawPost(server.port!, body, 10);
    // Poll: the held request takes the slot as soon as its headers reach the route.
    let refused: Response | undefined;
    const deadline = Date.now() + 5000;
    while (!refused && Date.now() < deadline) {
      const res = await fetch(`${base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: ACCEPT }, body });
      if (res.status === 503) refused = res;
      else await res.body?.cancel();
      await Bun.sleep(10);
    }
    expect(refused).toBeDefined();
    expect(refused!.headers.get("retry-after")).toBe("1");
    await expectJsonRpcError(refused!, 503, -32000, /busy/i);
    // The rest of the body arrives: the held request is answered normally.
    held.socket.write(body.slice(10));
    const answer = await held.response;
    expect(answer).toStartWith("HTTP/1.1 200");
    expect(answer).toContain('"serverInfo"');
    // And the slot is free again.
    const after = await fetch(`${base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: ACCEPT }, body });
    expect(after.status).toBe(200);
    await after.body?.cancel();
  });

  test("GET streams carry keep-alive comments, and past the stream cap a GET is 503", async () => {
    expect(hub.size).toBe(0);
    const abort = new AbortController();
    const res = await fetch(`${base}/mcp`, { headers: { accept: "text/event-stream" }, signal: abort.signal });
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes(": keepalive")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    expect(seen).toContain(": keepalive");
    // A second stream fills the cap of two; a third is refused.
    const second = new AbortController();
    const r2 = await fetch(`${base}/mcp`, { headers: { accept: "text/event-stream" }, signal: second.signal });
    await r2.body!.getReader().read();
    expect(hub.size).toBe(2);
    await expectJsonRpcError(await fetch(`${base}/mcp`, { headers: { accept: "text/event-stream" } }), 503, -32000, /streams/);
    abort.abort();
    second.abort();
    await waitFor("the streams to be released", () => hub.size === 0);
  });
});

describe("a POST whose answer does not come: the client leaves, or the deadline passes", () => {
  // The real route with one slot, whose tools reach an API that answers nothing but the memory
  // list: a memory_list call waits until the client's own timeout (daemon.requestTimeoutMs, 10 s).
  let server: ReturnType<typeof Bun.serve>;
  let base: string;
  let reached = Promise.withResolvers<void>();
  const hung: (() => void)[] = [];
  beforeAll(() => {
    const ctx = { ...td.daemon.context, mcpStreams: new McpStreamHub(), setIdleTimeout: undefined };
    const handle = (request: Request): Promise<Response> => {
      if (new URL(request.url).pathname !== "/api/memories") return app.handle(request);
      reached.resolve();
      return new Promise((resolve) => hung.push(() => resolve(Response.json({ error: { code: "gone", message: "test over" } }, { status: 503 }))));
    };
    // Deadline: only for POSTs that name it (?deadline), through a second route on the same handle.
    const app = new Elysia().use(mcpRoutes(ctx, { handle, maxInFlight: 1 }));
    const short = new Elysia().use(mcpRoutes(ctx, { handle, maxInFlight: 1, postDeadlineMs: 300 }));
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => (new URL(request.url).searchParams.has("deadline") ? short.handle(request) : app.handle(request)),
    });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    for (const release of hung.splice(0)) release();
    await server.stop(true);
  });

  const listCall = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory_list", arguments: {} } });
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
  const postTo = (query: string, body: string, signal?: AbortSignal) =>
    fetch(`${base}/mcp${query}`, { method: "POST", headers: { "content-type": "application/json", accept: ACCEPT }, body, signal });

  test("a client that disconnects frees its slot at once, its call still running", async () => {
    reached = Promise.withResolvers<void>();
    const abort = new AbortController();
    const pending = postTo("", listCall, abort.signal).catch((err: Error) => err);
    await reached.promise;
    // The one slot is held: another caller is refused.
    const refused = await postTo("", ping);
    await expectJsonRpcError(refused, 503, -32000, /busy/i);
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    // Freed without waiting for the call (which waits on for the client's 10-second timeout).
    let res: Response | undefined;
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline) {
      res = await postTo("", ping);
      if (res.status !== 503) break;
      await res.body?.cancel();
      await Bun.sleep(20);
    }
    expect(res!.status).toBe(200);
    expect(await res!.json()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect(hung.length).toBe(1);
  });

  test("past the deadline (postDeadlineMs) the unanswered requests get a timeout error and the slot is freed", async () => {
    reached = Promise.withResolvers<void>();
    const started = Date.now();
    const res = await postTo("?deadline", `[${listCall},${ping}]`);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.status).toBe(200);
    const answers = (await res.json()) as any[];
    expect(answers).toHaveLength(2);
    // In the body's order: the call, cut short, then the ping, answered.
    expect(answers[0].id).toBe(1);
    expect(answers[0].error.code).toBe(-32001);
    expect(answers[0].error.message).toContain("no answer within 300 ms");
    expect(answers[1]).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    const after = await postTo("?deadline", ping);
    expect(after.status).toBe(200);
    await after.body?.cancel();
  });
});
