// The cross-agent operations as declared once (src/contracts/agents.ts): the typed client's methods
// against a real daemon, each answer exactly its operation's response schema (the stream's events
// too, which the daemon's answer check does not see), the permission every route and agent_* tool
// takes from its operation, and a path under the area that no operation declares.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { z } from "zod";
import { AGENTS_API } from "../../src/contracts/agents";
import { fillPath, type Operation } from "../../src/contracts/operation";
import { permissionFor } from "../../src/server/permissions";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { bearer, exactly, roleTokens } from "../helpers/operations";
import { callTool, McpClients } from "../helpers/mcp-client";
import { call, expectError } from "../helpers/memory-api";

describe("the typed client", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(() => td.stop());

  test("heartbeat, presence, send, inbox, ack, leave and watch each answer what their operation declares", async () => {
    const ada = td.client("ops-ada");
    const bob = td.client("ops-bob");

    const entry = await ada.agents.heartbeat({ sessionKey: "ops-ada-1", harness: "codex", project: "/ops" });
    expect(entry).toMatchObject({ agentId: "ops-ada", sessionKey: "ops-ada-1", harness: "codex", project: "/ops" });
    exactly(AGENTS_API.heartbeat.response, entry);
    const peers = await bob.agents.presence({ project: "/ops" });
    expect(peers.sessions.map((s) => s.sessionKey)).toEqual(["ops-ada-1"]);
    exactly(AGENTS_API.presence.response, peers);

    const sent = await ada.agents.send({ content: "typed hello", toAgentId: "ops-bob", type: "question" });
    expect(sent).toMatchObject({ content: "typed hello", fromAgentId: "ops-ada", toAgentId: "ops-bob", type: "question", via: "local" });
    exactly(AGENTS_API.send.response, sent);

    const unread = await bob.agents.inbox({ unread: true });
    expect(unread.items.map((m) => m.id)).toEqual([sent.id]);
    exactly(AGENTS_API.inbox.response, unread);
    const acked = await bob.agents.ack({ ids: [sent.id, sent.id + 1000] });
    expect(acked).toEqual({ acked: [sent.id], unknown: [sent.id + 1000] });
    exactly(AGENTS_API.ack.response, acked);
    expect((await bob.agents.inbox({ unread: true })).count).toBe(0);

    // The stream replays what follows the given event id: the message, as one event of the stream's schema.
    const events = bob.agents.watch({ last_event_id: sent.id - 1 }, 5000);
    const first = await events.next();
    await events.return(undefined);
    expect(first.value).toMatchObject({ id: sent.id, content: "typed hello", acked: true });
    exactly(AGENTS_API.watch.response, first.value);

    const left = await ada.agents.leave({ session_key: "ops-ada-1" });
    expect(left).toEqual({ sessionKey: "ops-ada-1", removed: true });
    exactly(AGENTS_API.leave.response, left);
    expect((await bob.agents.presence({ project: "/ops" })).count).toBe(0);
  });
});

describe("permissions from the operations", () => {
  let td: TestDaemon;
  const tokens: Record<"agent" | "readonly" | "admin", string> = { agent: "", readonly: "", admin: "" };
  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "auth:\n  mode: team\n" });
    Object.assign(tokens, await roleTokens(td, "ops-agent"));
  });
  afterAll(() => td.stop());

  const ops: [string, Operation][] = Object.entries(AGENTS_API);
  const bodies: Record<string, unknown> = { heartbeat: { sessionKey: "ops-s" }, send: { content: "hi", toAgentId: "ops-peer" }, ack: { ids: [1] } };
  const queries: Record<string, string> = { leave: "?session_key=ops-s" };
  const request = (name: string, op: Operation, token: string) =>
    call(td, op.method, `${fillPath(op.path, [])}${queries[name] ?? ""}`, { body: bodies[name], headers: bearer(token) });

  test("every cross-agent route needs messages: a readonly token is refused on each, an agent token is let through", async () => {
    expect(ops.map(([, op]) => permissionFor(op.method, op.path))).toEqual(ops.map(() => "messages"));
    for (const [name, op] of ops) {
      expectError(await request(name, op, tokens.readonly), 403, "forbidden", "needs permission messages, which a readonly token does not have");
    }
    // The stream would stay open: the others answer the agent token.
    for (const [name, op] of ops.filter(([, op]) => op.stream === undefined)) {
      const res = await request(name, op, tokens.agent);
      expect([res.status, name]).toEqual([op === AGENTS_API.send ? 201 : 200, name]);
    }
  });

  test("a path under the area that no operation declares is refused to every token", async () => {
    for (const path of ["/api/cross-agent/nope", "/api/cross-agent/messages/purge", "/api/Cross-Agent/Stream/extra"]) {
      expectError(await call(td, "GET", path, { headers: bearer(tokens.admin) }), 403, "forbidden", "not open to tokens");
    }
    expectError(await call(td, "PUT", "/api/cross-agent/presence", { body: {}, headers: bearer(tokens.admin) }), 403, "forbidden", "not open to tokens");
  });

  test("the agent_* tools take their permission from the operation they call, and list its answer as their output", async () => {
    const mcp = new McpClients(() => td.url, "agents-ops-test");
    const readonly = await mcp.withToken(tokens.readonly);
    const agent = await mcp.withToken(tokens.agent);
    try {
      const listed = (await agent.listTools()).tools;
      const outputs: Record<string, z.ZodObject> = {
        agent_peers: AGENTS_API.presence.response,
        agent_message_send: AGENTS_API.send.response,
        agent_message_inbox: AGENTS_API.inbox.response,
      };
      for (const [name, schema] of Object.entries(outputs)) {
        const tool = listed.find((t) => t.name === name);
        expect(Object.keys(tool?.outputSchema?.properties ?? {}).sort()).toEqual(Object.keys(schema.shape).sort());
        const refused = await callTool(readonly, name, name === "agent_message_send" ? { content: "x", to_agent_id: "ops-peer" } : {});
        expect(refused).toMatchObject({ isError: true, text: `${name} needs permission messages, which a readonly token does not have` });
      }
      const sent = await callTool(agent, "agent_message_send", { content: "over mcp", to_agent_id: "ops-peer" });
      expect(sent.isError).toBe(false);
      expect(sent.structured).toMatchObject({ fromAgentId: "ops-agent", toAgentId: "ops-peer", meta: { unknownRecipient: true } });
      expect((await callTool(agent, "agent_message_inbox", { include_sent: true })).structured.items.map((m: { content: string }) => m.content)).toContain("over mcp");
    } finally {
      await mcp.closeAll();
    }
  });
});
