// The ACP relay against a small ACP server of the test suite (test/helpers/fake-acp.ts): only to
// allowed origins, the run request's shape, delivered / failed / timed out recorded on the message.
// An agent token's agent wins over a forged x-signet-agent-id. The agent_* tools over /mcp with the
// SDK's Client: compact text, structuredContent checked against the output schemas, bad input.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { startFakeAcp, type FakeAcp } from "../helpers/fake-acp";
import { call, expectError } from "../helpers/memory-api";
import { McpClients, callTool } from "../helpers/mcp-client";

let acp: FakeAcp;
let td: TestDaemon;
beforeAll(async () => {
  acp = startFakeAcp();
  // Port 1 is allowed too: an allowed origin where nothing listens.
  td = await startTestDaemon({ yaml: `acp:\n  allowedOrigins: ["${acp.url}", "http://127.0.0.1:1"]\n` });
});
afterAll(async () => {
  await td.stop();
  await acp.stop();
});

const relay = (body: Record<string, unknown>, agent = "relayer") =>
  call(td, "POST", "/api/cross-agent/messages", { body: { content: "please summarise the diff", via: "acp", acpBaseUrl: acp.url, ...body }, agent });
const stored = (id: number) =>
  td.daemon.context.stores.sqlite!.query("SELECT delivery_status, delivery_error, acp_run_id FROM agent_messages WHERE id = ?").get(id) as any;

describe("ACP relay", () => {
  test("posts a run with agent_name and the content as a text part; delivered with the run id", async () => {
    const res = await relay({ acpTargetAgentName: "echo", type: "assist_request" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ via: "acp", deliveryStatus: "delivered", deliveryError: null, acpTargetAgentName: "echo", toAgentId: null });
    expect(res.body.acpRunId).toMatch(/^run-\d+$/);
    expect(acp.received.at(-1)).toEqual({ agentName: "echo", mode: "async", role: "user", contentType: "text/plain", text: "please summarise the diff" });
    expect(stored(res.body.id)).toEqual({ delivery_status: "delivered", delivery_error: null, acp_run_id: res.body.acpRunId });
    // Only the sender sees a message relayed to no local target.
    expect((await call(td, "GET", "/api/cross-agent/messages?include_sent=true", { agent: "relayer" })).body.items.map((m: any) => m.id)).toContain(res.body.id);
  });

  test("a local target receives the message too", async () => {
    const res = await relay({ acpTargetAgentName: "echo", toAgentId: "local-peer" });
    expect((await call(td, "GET", "/api/cross-agent/messages", { agent: "local-peer" })).body.items.map((m: any) => m.id)).toEqual([res.body.id]);
  });

  test("the server's failure answers are recorded on the message: a failed run, 404, 500, and a timeout", async () => {
    const failed = (await relay({ acpTargetAgentName: "failing" })).body;
    expect([failed.deliveryStatus, failed.deliveryError]).toEqual(["failed", "run failed: server_error: the agent crashed"]);
    const missing = (await relay({ acpTargetAgentName: "nobody" })).body;
    expect([missing.deliveryStatus, missing.deliveryError]).toEqual(["failed", "HTTP 404: not_found: agent nobody not found"]);
    const broken = (await relay({ acpTargetAgentName: "broken" })).body;
    expect([broken.deliveryStatus, broken.deliveryError]).toEqual(["failed", "HTTP 500: server_error: database on fire"]);
    const started = performance.now();
    const slow = (await relay({ acpTargetAgentName: "slow", acpTimeoutMs: 300 })).body;
    expect(performance.now() - started).toBeLessThan(5000);
    expect(slow.deliveryStatus).toBe("failed");
    expect(slow.deliveryError).toMatch(/^timeout: no answer from .*\/runs within 300 ms$/);
    expect(stored(slow.id).delivery_status).toBe("failed");
    const down = (await relay({ acpBaseUrl: "http://127.0.0.1:1/", acpTargetAgentName: "echo" })).body;
    expect([down.deliveryStatus, down.deliveryError]).toEqual(["failed", expect.stringMatching(/^unreachable: http:\/\/127\.0\.0\.1:1\/runs: /)]);
  });

  test("an origin outside acp.allowedOrigins is refused (403) and nothing is stored or sent", async () => {
    const before = acp.received.length;
    const count = () => (td.daemon.context.stores.sqlite!.query("SELECT COUNT(*) AS n FROM agent_messages").get() as any).n;
    const n = count();
    const other = acp.url.replace("127.0.0.1", "localhost");
    expectError(await relay({ acpBaseUrl: other, acpTargetAgentName: "echo" }), 403, "forbidden", /acp\.allowedOrigins/);
    expectError(await relay({ acpBaseUrl: "http://evil.example", acpTargetAgentName: "echo" }), 403, "forbidden", "acpBaseUrl");
    expectError(await relay({ acpTimeoutMs: 10, acpTargetAgentName: "echo" }), 400, "invalid_input", "acpTimeoutMs");
    expect(count()).toBe(n);
    expect(acp.received.length).toBe(before);
  });
});

test("SIGNET_ACP_ALLOWED_ORIGINS allows an origin like acp.allowedOrigins", async () => {
  const viaEnv = await startTestDaemon({ env: { SIGNET_ACP_ALLOWED_ORIGINS: `http://example.invalid, ${acp.url}` } });
  try {
    const res = await call(viaEnv, "POST", "/api/cross-agent/messages", {
      body: { content: "from env", via: "acp", acpBaseUrl: acp.url, acpTargetAgentName: "echo" },
      agent: "env-relayer",
    });
    expect(res.body.deliveryStatus).toBe("delivered");
    expect(acp.received.at(-1)!.text).toBe("from env");
  } finally {
    await viaEnv.stop();
  }
});

describe("agent tokens", () => {
  let team: TestDaemon;
  beforeAll(async () => {
    team = await startTestDaemon({ yaml: "auth:\n  mode: team\n" });
  });
  afterAll(() => team.stop());

  test("a token bound to an agent reads only that agent's inbox, whatever x-signet-agent-id or agent_id say", async () => {
    const token = async (agentId: string) => (await call(team, "POST", "/api/tokens", { body: { role: "agent", agentId }, headers: team.ownerHeaders })).body.token;
    const [ada, bob, eve] = [await token("tk-ada"), await token("tk-bob"), await token("tk-eve")];
    const as = (t: string, forged?: string) => ({ authorization: `Bearer ${t}`, ...(forged ? { "x-signet-agent-id": forged } : {}) });
    const sent = await call(team, "POST", "/api/cross-agent/messages", { body: { content: "tk secret", toAgentId: "tk-bob" }, headers: as(ada) });
    expect(sent.status).toBe(201);
    expect(sent.body.fromAgentId).toBe("tk-ada");
    expect((await call(team, "GET", "/api/cross-agent/messages", { headers: as(bob) })).body.items.map((m: any) => m.content)).toEqual(["tk secret"]);
    // Eve forges the header: still Eve.
    expect((await call(team, "GET", "/api/cross-agent/messages?include_sent=true", { headers: as(eve, "tk-bob") })).body.items).toEqual([]);
    expectError(await call(team, "GET", "/api/cross-agent/messages?agent_id=tk-bob", { headers: as(eve, "tk-bob") }), 403, "forbidden", "agent_id");
    // Eve cannot send as Ada either: the forged sender is refused, the forged header ignored.
    expectError(await call(team, "POST", "/api/cross-agent/messages", { body: { content: "x", toAgentId: "tk-bob", fromAgentId: "tk-ada" }, headers: as(eve) }), 403, "forbidden");
    const spoof = await call(team, "POST", "/api/cross-agent/messages", { body: { content: "who am i", toAgentId: "tk-bob" }, headers: as(eve, "tk-ada") });
    expect(spoof.body.fromAgentId).toBe("tk-eve");
    // Without a token: 401.
    expectError(await call(team, "GET", "/api/cross-agent/messages", { agent: "tk-bob" }), 401, "unauthorized");
    expectError(await call(team, "GET", "/api/cross-agent/stream", { agent: "tk-bob" }), 401, "unauthorized");
  });
});

describe("agent tools over /mcp", () => {
  const mcp = new McpClients(() => td.url, "agent-tools-test");
  afterAll(() => mcp.closeAll());
  const connect = (agent: string, sessionKey?: string) => mcp.connect(agent, sessionKey);
  const tool = callTool;

  test("agent_peers, agent_message_send and agent_message_inbox: text, structured content, the connection's session", async () => {
    await call(td, "POST", "/api/cross-agent/presence", { body: { sessionKey: "tool-ada-s", harness: "codex", project: "/p" }, agent: "tool-ada" });
    await call(td, "POST", "/api/cross-agent/presence", { body: { sessionKey: "tool-bob-s", harness: "claude-code", project: "/p" }, agent: "tool-bob" });
    const ada = await connect("tool-ada", "tool-ada-s");
    const bob = await connect("tool-bob", "tool-bob-s");
    const peers = await tool(ada, "agent_peers", { project: "/p" });
    expect(peers.isError).toBe(false);
    expect(peers.structured.sessions.map((s: any) => s.sessionKey)).toEqual(["tool-bob-s"]);
    expect(peers.text).toMatch(/^1 peer session:\n- tool-bob · session tool-bob-s · claude-code · \/p · seen /);
    // include_self adds the agent's other sessions; the caller's own session is never its peer.
    await call(td, "POST", "/api/cross-agent/presence", { body: { sessionKey: "tool-ada-2", harness: "codex", project: "/p" }, agent: "tool-ada" });
    const withSelf = await tool(ada, "agent_peers", { project: "/p", include_self: true });
    expect(withSelf.structured.sessions.map((s: any) => s.sessionKey).sort()).toEqual(["tool-ada-2", "tool-bob-s"]);
    expect(withSelf.text).not.toContain("tool-ada-s");
    await call(td, "DELETE", "/api/cross-agent/presence?session_key=tool-ada-2", { agent: "tool-ada" });

    const sent = await tool(ada, "agent_message_send", { content: "can you take the lexer?", to_session_key: "tool-bob-s", type: "question" });
    expect(sent.isError).toBe(false);
    expect(sent.structured).toMatchObject({ fromAgentId: "tool-ada", fromSessionKey: "tool-ada-s", toAgentId: "tool-bob", toSessionKey: "tool-bob-s", type: "question" });
    expect(sent.text).toBe(`Message ${sent.structured.id} (question) sent to tool-bob (session tool-bob-s).`);
    const relayed = await tool(ada, "agent_message_send", { content: "hi", via: "acp", acp_base_url: acp.url, acp_target_agent_name: "echo" });
    expect(relayed.text).toMatch(/Relayed to ACP agent echo \(run run-\d+\)/);

    const got = await tool(bob, "agent_message_inbox", {});
    expect(got.structured.items.map((m: any) => m.content)).toEqual(["can you take the lexer?"]);
    expect(got.text).toMatch(/^1 message:\n#\d+ .* question from tool-ada \[unread\]:\n   can you take the lexer\?$/);
    // A third agent's tools see nothing of it, whatever they name.
    const eve = await connect("tool-eve");
    expect((await tool(eve, "agent_message_inbox", { include_sent: true, session_key: "tool-bob-s" })).structured.items).toEqual([]);
    const forged = await tool(eve, "agent_message_inbox", { agent_id: "tool-bob" });
    expect(forged.isError).toBe(true);
    expect(forged.text).toContain("agent_id");
    expect((await tool(eve, "agent_message_inbox", {})).text).toBe("No messages.");
  });

  test("bad input comes back as isError naming the field", async () => {
    const c = await connect("tool-bad");
    const none = await tool(c, "agent_message_send", { content: "x" });
    expect(none.isError).toBe(true);
    expect(none.text).toContain("toAgentId: a target is required");
    const two = await tool(c, "agent_message_send", { content: "x", to_agent_id: "a", broadcast: true });
    expect(two.text).toContain("only one target");
    const type = await tool(c, "agent_message_send", { content: "x", to_agent_id: "a", type: "gossip" });
    expect(type.isError).toBe(true);
    expect(type.text).toContain("type");
    const since = await tool(c, "agent_message_inbox", { since: "last week" });
    expect(since.text).toContain("since");
    const limit = await tool(c, "agent_peers", { limit: 0 });
    expect(limit.text).toContain("limit");
  });
});
