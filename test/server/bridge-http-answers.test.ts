// A bridged Streamable HTTP server whose JSON answer to a request holds no response to it (another
// id, a notification, an empty batch): the call fails at once, saying what the server sent, instead
// of waiting out bridge.callTimeoutMs (set here far beyond the test's own timeout) (src/core/bridge/http-answers.ts). The server here is a small
// HTTP MCP server of the test's own that answers the handshake and tools/list properly, and each
// tools/call in the way its tool's name says; the daemon and its bridge are the real ones.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { answeringFetch } from "../../src/core/bridge/http-answers";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";

/** Longer than the test waits: a call that waited for it would fail the test by its own timeout. */
const TIMEOUT_MS = 300_000;
let d: TestDaemon;
let server: ReturnType<typeof Bun.serve>;

type Message = { jsonrpc: "2.0"; id?: number | string; method?: string; params?: { name?: string } };

/** What the server answers a tools/call of `name` with `id`. */
function misanswer(name: string, id: number | string): unknown {
  if (name === "wrong-id") return { jsonrpc: "2.0", id: typeof id === "number" ? id + 1000 : `${id}-other`, result: { content: [] } };
  if (name === "notification") return { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working on it" } };
  if (name === "empty-batch") return [];
  return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "fine" }] } };
}

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (req.method !== "POST") return new Response(null, { status: 405 });
      const m = (await req.json()) as Message;
      if (m.id === undefined) return new Response(null, { status: 202 });
      const tools = ["wrong-id", "notification", "empty-batch", "fine"].map((name) => ({ name, inputSchema: { type: "object" } }));
      if (m.method === "initialize") {
        return Response.json({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "misanswering", version: "1" } } });
      }
      if (m.method === "tools/list") return Response.json({ jsonrpc: "2.0", id: m.id, result: { tools } });
      return Response.json(misanswer(m.params?.name ?? "", m.id));
    },
  });
  d = await startTestDaemon({ yaml: `bridge:\n  callTimeoutMs: ${TIMEOUT_MS}\n` });
  const installed = await d.fetch("/api/marketplace/servers", {
    method: "POST",
    headers: { "content-type": "application/json", ...d.ownerHeaders },
    body: JSON.stringify({ name: "misanswering", transport: { type: "http", url: `http://127.0.0.1:${server.port}/mcp` } }),
  });
  expect(installed.status).toBe(201);
});

afterAll(async () => {
  await d?.stop();
  server?.stop(true);
});

async function call(tool: string) {
  const res = await d.fetch("/api/marketplace/servers/misanswering/call", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tool, arguments: {} }),
  });
  return { status: res.status, body: (await res.json()) as { error?: string; code?: string; content?: unknown[] } };
}

describe("a JSON answer without a response to the request", () => {
  test("another id, a notification alone, an empty batch: each call fails at once, quoting the answer", async () => {
    for (const [tool, quoted] of [
      ["wrong-id", '"id":'],
      ["notification", "notifications/message"],
      ["empty-batch", "[]"],
    ] as const) {
      const r = await call(tool);
      expect({ tool, status: r.status }).toEqual({ tool, status: 503 });
      expect(r.body.error).toContain("the server's answer held no response to this request");
      expect(r.body.error).toContain(quoted);
    }
  }, 60_000);

  test("the server goes on serving the calls it answers", async () => {
    const r = await call("fine");
    expect(r.status).toBe(200);
    expect(r.body.content).toEqual([{ type: "text", text: "fine" }]);
  });
});

describe("answeringFetch on its own", () => {
  const post = (body: unknown) => ({ method: "POST", body: JSON.stringify(body) });
  const answered = (answer: Response, init: RequestInit) => answeringFetch(async () => answer)("http://127.0.0.1/mcp", init);

  test("an answer with the response, a stream, another status or no JSON goes through unchanged, headers and all", async () => {
    const request = { jsonrpc: "2.0", id: 7, method: "tools/list" };
    const good = await answered(Response.json({ jsonrpc: "2.0", id: 7, result: {} }, { headers: { "mcp-session-id": "s1" } }), post(request));
    expect(await good.json()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
    expect(good.headers.get("mcp-session-id")).toBe("s1");
    const stream = new Response("data: {}\n\n", { headers: { "content-type": "text/event-stream" } });
    expect(await answered(stream, post(request))).toBe(stream);
    const refused = new Response("no", { status: 500, headers: { "content-type": "application/json" } });
    expect(await answered(refused, post(request))).toBe(refused);
    expect(await (await answered(new Response("not json", { headers: { "content-type": "application/json" } }), post(request))).text()).toBe("not json");
    // A notification sent expects no response.
    const accepted = new Response(null, { status: 202 });
    expect(await answered(accepted, post({ jsonrpc: "2.0", method: "notifications/initialized" }))).toBe(accepted);
  });

  test("of a batch, only the requests left unanswered get an error response; the server's messages stay", async () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "a" },
      { jsonrpc: "2.0", id: "two", method: "b" },
      { jsonrpc: "2.0", method: "notifications/x" },
    ];
    const answer = await answered(Response.json([{ jsonrpc: "2.0", id: 1, result: { ok: true } }]), post(batch));
    const messages = (await answer.json()) as { jsonrpc: string; id: unknown; result?: unknown; error?: { code: number; message: string } }[];
    expect(messages).toHaveLength(2);
    expect(messages[0]).toEqual({ jsonrpc: "2.0", id: 1, result: { ok: true } });
    expect(messages[1]).toMatchObject({ jsonrpc: "2.0", id: "two", error: { code: -32603 } });
    expect(messages[1]!.error!.message).toContain('[{"jsonrpc":"2.0","id":1');
  });
});
