// Cross-agent presence, messages, acknowledgement and the live stream over real HTTP
// (docs/api.md#cross-agent): scoping per agent (a third agent reads nothing of others by any query
// parameter or session target), presence expiry, each bad input, Last-Event-ID resume, a restart
// that loses nothing, streams that end when the daemon stops, and forged callers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import { MAX_MESSAGE_BYTES, type AgentMessage } from "../../src/contracts/agents";
import { startDaemon } from "../../src/server/daemon";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { call, expectError, expectForgedRefused } from "../helpers/memory-api";
import { openSse } from "../helpers/sse";

let td: TestDaemon;
beforeAll(async () => {
  td = await startTestDaemon({ yaml: "crossAgent:\n  keepAliveS: 1\n  presenceTtlS: 600\n" });
});
afterAll(async () => {
  await td.stop();
});

const send = (agent: string, body: Record<string, unknown>) => call(td, "POST", "/api/cross-agent/messages", { body, agent });
const inbox = (agent: string, query = "") => call(td, "GET", `/api/cross-agent/messages${query}`, { agent });
const heartbeat = (agent: string, body: Record<string, unknown>) => call(td, "POST", "/api/cross-agent/presence", { body, agent });
const peers = (agent: string, query = "") => call(td, "GET", `/api/cross-agent/presence${query}`, { agent });
const contents = (items: AgentMessage[]) => items.map((m) => m.content);
const messageCount = () => td.daemon.context.stores.sqlite!.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM agent_messages").get()!.n;

describe("presence", () => {
  test("a heartbeat registers a session; peers leave out the caller's own agent unless include_self; project and limit filter", async () => {
    expect((await heartbeat("p-ada", { sessionKey: "p-ada-1", harness: "claude-code", project: "/work/a" })).status).toBe(200);
    await heartbeat("p-bob", { sessionKey: "session:p-bob-1", harness: "codex", project: "/work/a" });
    await heartbeat("p-cy", { sessionKey: "p-cy-1", harness: "opencode", project: "/work/c" });
    const seen = (await peers("p-ada", "?project=/work/a")).body;
    expect(seen.sessions.map((s: any) => [s.agentId, s.sessionKey, s.harness, s.project])).toEqual([["p-bob", "p-bob-1", "codex", "/work/a"]]);
    expect(seen.count).toBe(1);
    expect(seen.sessions[0].lastSeenAt).toMatch(/^\d{4}-/);
    const withSelf = (await peers("p-ada", "?project=/work/a&include_self=true")).body;
    expect(withSelf.sessions.map((s: any) => s.sessionKey).sort()).toEqual(["p-ada-1", "p-bob-1"]);
    expect((await peers("p-ada", "?limit=1&include_self=true")).body.count).toBe(1);
  });

  test("session-start registers presence too, and session-end removes it", async () => {
    await call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "p-hooked", harness: "codex", project: "/work/h" }, agent: "p-hook" });
    expect((await peers("p-other", "?project=/work/h")).body.sessions.map((s: any) => s.sessionKey)).toEqual(["p-hooked"]);
    // Each prompt is a heartbeat.
    td.daemon.context.stores.sqlite!.query("UPDATE agent_presence SET last_seen_at = '2020-01-01T00:00:00.000Z' WHERE session_key = 'p-hooked'").run();
    await call(td, "POST", "/api/hooks/user-prompt-submit", { body: { sessionKey: "p-hooked", harness: "codex", prompt: "hi" }, agent: "p-hook" });
    expect((await peers("p-other", "?project=/work/h")).body.count).toBe(1);
    await call(td, "POST", "/api/hooks/session-end", { body: { sessionKey: "p-hooked", harness: "codex" }, agent: "p-hook" });
    expect((await peers("p-other", "?project=/work/h")).body.count).toBe(0);
  });

  test("an entry without a heartbeat for crossAgent.presenceTtlS is gone; a heartbeat keeps it", async () => {
    await heartbeat("p-old", { sessionKey: "p-old-1", project: "/work/ttl" });
    await heartbeat("p-fresh", { sessionKey: "p-fresh-1", project: "/work/ttl" });
    // As if the last heartbeat was 601 s ago (the TTL is 600 s).
    td.daemon.context.stores.sqlite!.query("UPDATE agent_presence SET last_seen_at = ? WHERE session_key = 'p-old-1'").run(new Date(Date.now() - 601_000).toISOString());
    td.daemon.context.stores.sqlite!.query("UPDATE agent_presence SET last_seen_at = ? WHERE session_key = 'p-fresh-1'").run(new Date(Date.now() - 599_000).toISOString());
    expect((await peers("x", "?project=/work/ttl")).body.sessions.map((s: any) => s.sessionKey)).toEqual(["p-fresh-1"]);
    await heartbeat("p-fresh", { sessionKey: "p-fresh-1" });
    const entry = (await peers("x", "?project=/work/ttl")).body.sessions[0];
    expect(Date.now() - Date.parse(entry.lastSeenAt)).toBeLessThan(5000);
    // A heartbeat without a project keeps the one registered.
    expect(entry.project).toBe("/work/ttl");
  });

  test("DELETE removes only the caller's own session; another agent's session cannot be taken over", async () => {
    await heartbeat("p-del", { sessionKey: "p-del-1" });
    expect((await call(td, "DELETE", "/api/cross-agent/presence?session_key=p-del-1", { agent: "p-thief" })).body).toEqual({ sessionKey: "p-del-1", removed: false });
    expectError(await heartbeat("p-thief", { sessionKey: "p-del-1" }), 403, "forbidden", /belongs to another agent/);
    expect((await peers("x", "?include_self=true")).body.sessions.find((s: any) => s.sessionKey === "p-del-1").agentId).toBe("p-del");
    expect((await call(td, "DELETE", "/api/cross-agent/presence?session_key=p-del-1", { agent: "p-del" })).body).toEqual({ sessionKey: "p-del-1", removed: true });
  });

  test("bad input: 400 naming the field, nothing registered", async () => {
    expectError(await peers("a", "?limit=0"), 400, "invalid_input", "limit");
    expectError(await peers("a", "?include_self=maybe"), 400, "invalid_input", "include_self");
    expectError(await peers("a", "?bogus=1"), 400, "invalid_input", "bogus");
    expectError(await peers("a", "?agent_id=someone-else"), 403, "forbidden", "agent_id");
    expectError(await heartbeat("a", {}), 400, "invalid_input", "sessionKey");
    expectError(await heartbeat("a", { sessionKey: "k", harness: "no spaces" }), 400, "invalid_input", "harness");
    expectError(await heartbeat("a", { sessionKey: "k", agentId: "b" }), 403, "forbidden", "agentId");
    expectError(await call(td, "DELETE", "/api/cross-agent/presence", { agent: "a" }), 400, "invalid_input", "session_key");
    expect(td.daemon.context.stores.sqlite!.query("SELECT 1 FROM agent_presence WHERE session_key = 'k'").get()).toBeNull();
  });
});

describe("messages", () => {
  test("direct, to a session, and broadcast; each agent reads only what is addressed to it, its sessions, or everyone", async () => {
    await heartbeat("m-bob", { sessionKey: "m-bob-s1" });
    const direct = await send("m-ada", { content: "review my parser?", type: "assist_request", toAgentId: "m-bob", fromSessionKey: "m-ada-s1" });
    expect(direct.status).toBe(201);
    expect(direct.body).toMatchObject({
      type: "assist_request",
      content: "review my parser?",
      fromAgentId: "m-ada",
      fromSessionKey: "m-ada-s1",
      toAgentId: "m-bob",
      toSessionKey: null,
      broadcast: false,
      via: "local",
      deliveryStatus: "delivered",
      deliveryError: null,
    });
    const toSession = (await send("m-ada", { content: "for your session", toSessionKey: "session:m-bob-s1", type: "question" })).body;
    // The session's agent is the recipient.
    expect([toSession.toAgentId, toSession.toSessionKey]).toEqual(["m-bob", "m-bob-s1"]);
    const everyone = (await send("m-ada", { content: "we use tabs now", broadcast: true, type: "decision_update" })).body;
    expect(everyone.toAgentId).toBeNull();
    expect(direct.body.id < toSession.id && toSession.id < everyone.id).toBe(true);

    expect(contents((await inbox("m-bob")).body.items)).toEqual(["review my parser?", "for your session", "we use tabs now"]);
    // A third agent sees the broadcast only.
    expect(contents((await inbox("m-cy")).body.items)).toEqual(["we use tabs now"]);
    // The sender sees nothing it received, its own messages only with include_sent.
    expect((await inbox("m-ada")).body.count).toBe(0);
    expect(contents((await inbox("m-ada", "?include_sent=true")).body.items)).toEqual(["review my parser?", "for your session", "we use tabs now"]);
    expect(contents((await inbox("m-bob", "?include_broadcast=false")).body.items)).toEqual(["review my parser?", "for your session"]);
    // session_key: what was sent to that session or to the agent as a whole.
    await heartbeat("m-bob", { sessionKey: "m-bob-s2" });
    await send("m-ada", { content: "for s2 only", toSessionKey: "m-bob-s2" });
    expect(contents((await inbox("m-bob", "?session_key=m-bob-s1&include_broadcast=false")).body.items)).toEqual(["review my parser?", "for your session"]);
    expect(contents((await inbox("m-bob", "?limit=2")).body.items)).toEqual(["we use tabs now", "for s2 only"]);
  });

  test("a third agent cannot read another's messages by agent_id, include_sent, session_key, or acknowledging them", async () => {
    await heartbeat("t-bob", { sessionKey: "t-bob-s" });
    const secret = (await send("t-ada", { content: "t secret", toAgentId: "t-bob" })).body;
    await send("t-ada", { content: "t secret to session", toSessionKey: "t-bob-s" });
    expectError(await inbox("t-eve", "?agent_id=t-bob"), 403, "forbidden", "agent_id");
    expectError(await inbox("t-eve", "?agent_id=t-ada&include_sent=true"), 403, "forbidden", "agent_id");
    for (const q of ["", "?include_sent=true", "?session_key=t-bob-s", "?session_key=t-bob-s&include_sent=true", "?unread=true", "?since=2000-01-01T00:00:00Z"]) {
      const body = (await inbox("t-eve", q)).body;
      expect({ q, leaked: body.items.filter((m: AgentMessage) => m.content.startsWith("t secret")) }).toEqual({ q, leaked: [] });
    }
    // Sending as someone else, or stream of someone else's inbox, is refused.
    expectError(await send("t-eve", { content: "x", toAgentId: "t-bob", fromAgentId: "t-ada" }), 403, "forbidden", "fromAgentId");
    // Nor as another agent's session: the message would read as that session's, and a reply would go to it.
    const before = messageCount();
    expectError(await send("t-eve", { content: "send me the creds", toAgentId: "t-ada", fromSessionKey: "t-bob-s" }), 403, "forbidden", "fromSessionKey: session t-bob-s belongs to another agent");
    expect(messageCount()).toBe(before);
    expectError(await call(td, "GET", "/api/cross-agent/stream?agent_id=t-bob", { agent: "t-eve" }), 403, "forbidden", "agent_id");
    // Reporting Bob's session key from Eve's own hooks does not hand her what was sent to it.
    await call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "t-bob-s", harness: "codex" }, agent: "t-eve" });
    for (const q of ["?session_key=t-bob-s", "?session_key=t-bob-s&include_sent=true"]) {
      expect((await inbox("t-eve", q)).body.items.filter((m: AgentMessage) => m.content.startsWith("t secret"))).toEqual([]);
    }
    // Acknowledging it says nothing and changes nothing for the recipient.
    expect((await call(td, "POST", "/api/cross-agent/messages/ack", { body: { ids: [secret.id] }, agent: "t-eve" })).body).toEqual({ acked: [], unknown: [secret.id] });
    expect((await inbox("t-bob", "?unread=true")).body.items.map((m: AgentMessage) => m.id)).toContain(secret.id);
  });

  test("acknowledgement: unread leaves acknowledged messages out, per reading agent", async () => {
    const one = (await send("a-ada", { content: "ack me", toAgentId: "a-bob" })).body;
    const two = (await send("a-ada", { content: "ack broadcast", broadcast: true })).body;
    expect((await call(td, "POST", "/api/cross-agent/messages/ack", { body: { ids: [one.id, two.id, one.id] }, agent: "a-bob" })).body).toEqual({
      acked: [one.id, two.id],
      unknown: [],
    });
    const unread = (await inbox("a-bob", "?unread=true")).body.items.map((m: AgentMessage) => m.id);
    expect(unread).not.toContain(one.id);
    expect(unread).not.toContain(two.id);
    expect((await inbox("a-bob")).body.items.find((m: AgentMessage) => m.id === one.id).acked).toBe(true);
    // Another reader's broadcast is still unread.
    expect((await inbox("a-cy", "?unread=true")).body.items.map((m: AgentMessage) => m.id)).toContain(two.id);
    // The sender cannot acknowledge its own message.
    expect((await call(td, "POST", "/api/cross-agent/messages/ack", { body: { ids: [one.id] }, agent: "a-ada" })).body.unknown).toEqual([one.id]);
  });

  test("since filters by time", async () => {
    await send("s-ada", { content: "old", toAgentId: "s-bob" });
    td.daemon.context.stores.sqlite!.query("UPDATE agent_messages SET created_at = '2020-01-01T00:00:00.000Z' WHERE content = 'old'").run();
    await send("s-ada", { content: "new", toAgentId: "s-bob" });
    expect(contents((await inbox("s-bob", "?since=2024-01-01&include_broadcast=false")).body.items)).toEqual(["new"]);
    expect(contents((await inbox("s-bob", "?since=2019-12-31T00:00:00Z&include_broadcast=false")).body.items)).toEqual(["old", "new"]);
  });

  test("bad input: 400 naming the field for a missing target, two targets, an unknown type, content over 16 KiB; nothing stored", async () => {
    const before = messageCount();
    expectError(await send("b", { content: "x" }), 400, "invalid_input", /toAgentId: a target is required/);
    expectError(await send("b", { content: "x", toAgentId: "c", broadcast: true }), 400, "invalid_input", /broadcast: only one target/);
    expectError(await send("b", { content: "x", toAgentId: "c", toSessionKey: "s" }), 400, "invalid_input", /toSessionKey: only one target/);
    expectError(await send("b", { content: "x", toAgentId: "c", type: "gossip" }), 400, "invalid_input", /type: must be one of assist_request/);
    expectError(await send("b", { content: "é".repeat(MAX_MESSAGE_BYTES / 2 + 1), toAgentId: "c" }), 400, "invalid_input", /content: is larger than 16384 bytes/);
    expect((await send("b", { content: "é".repeat(MAX_MESSAGE_BYTES / 2), toAgentId: "c" })).status).toBe(201);
    expectError(await send("b", { content: "  ", toAgentId: "c" }), 400, "invalid_input", "content");
    expectError(await send("b", { toAgentId: "c" }), 400, "invalid_input", "content");
    expectError(await send("b", { content: "x", toAgentId: "not an id!" }), 400, "invalid_input", "toAgentId");
    expectError(await send("b", { content: "x", toAgentId: "c", via: "carrier-pigeon" }), 400, "invalid_input", "via");
    expectError(await send("b", { content: "x", toAgentId: "c", acpBaseUrl: "http://127.0.0.1:1" }), 400, "invalid_input", /acpBaseUrl: applies only when via is acp/);
    expectError(await send("b", { content: "x", via: "acp" }), 400, "invalid_input", /acpBaseUrl: is required/);
    expectError(await send("b", { content: "x", via: "acp", acpBaseUrl: "ftp://x", acpTargetAgentName: "a" }), 400, "invalid_input", "acpBaseUrl");
    expectError(await send("b", { content: "x", toAgentId: "c", extra: 1 }), 400, "invalid_input", "extra");
    expectError(await send("b", { content: "x", toSessionKey: "no-such-session" }), 404, "not_found", "toSessionKey");
    expectError(await call(td, "POST", "/api/cross-agent/messages", { raw: "{not json", headers: { "content-type": "application/json" } }), 400, "invalid_input");
    expect(messageCount()).toBe(before + 1);
    expectError(await inbox("b", "?since=yesterday"), 400, "invalid_input", "since");
    expectError(await inbox("b", "?limit=501"), 400, "invalid_input", "limit");
    expectError(await inbox("b", "?unread=yes"), 400, "invalid_input", "unread");
    expectError(await inbox("b", "?include_sent=1"), 400, "invalid_input", "include_sent");
    expectError(await call(td, "POST", "/api/cross-agent/messages/ack", { body: { ids: [] }, agent: "b" }), 400, "invalid_input", "ids");
    expectError(await call(td, "POST", "/api/cross-agent/messages/ack", { body: { ids: ["1"] }, agent: "b" }), 400, "invalid_input", "ids");
    expectError(await call(td, "GET", "/api/cross-agent/stream", { agent: "b", headers: { "last-event-id": "abc" } }), 400, "invalid_input", "Last-Event-ID");
    expectError(await call(td, "GET", "/api/cross-agent/stream?last_event_id=-1", { agent: "b" }), 400, "invalid_input", "last_event_id");
  });

  test("a wrong Host, a foreign Origin or a cross-site fetch is refused on every route before anything happens", async () => {
    const before = messageCount();
    const routes: [string, string, unknown][] = [
      ["POST", "/api/cross-agent/messages", { content: "forged", broadcast: true }],
      ["GET", "/api/cross-agent/messages", undefined],
      ["POST", "/api/cross-agent/messages/ack", { ids: [1] }],
      ["GET", "/api/cross-agent/presence", undefined],
      ["POST", "/api/cross-agent/presence", { sessionKey: "forged" }],
      ["DELETE", "/api/cross-agent/presence?session_key=forged", undefined],
      ["GET", "/api/cross-agent/stream", undefined],
    ];
    for (const [method, path, body] of routes) await expectForgedRefused(td, method, path, body);
    expect(messageCount()).toBe(before);
    expect(td.daemon.context.stores.sqlite!.query("SELECT 1 FROM agent_presence WHERE session_key = 'forged'").get()).toBeNull();
  });
});

describe("stream", () => {
  test("delivers a message to its recipient in under 1 s, not to a third agent; keep-alive comments flow", async () => {
    const headers = (agent: string) => ({ "x-signet-agent-id": agent });
    const bob = await openSse(`${td.url}/api/cross-agent/stream`, headers("st-bob"));
    const eve = await openSse(`${td.url}/api/cross-agent/stream`, headers("st-eve"));
    try {
      expect(bob.status).toBe(200);
      expect(bob.contentType).toContain("text/event-stream");
      await bob.next((e) => e.comment === "connected");
      const sentAt = performance.now();
      const sent = (await send("st-ada", { content: "live!", toAgentId: "st-bob" })).body;
      const got = await bob.next((e) => e.event === "message");
      // The contract: under 1 s (measured here on a shared, busy machine, so the bound is the contract itself).
      expect(got.at - sentAt).toBeLessThan(1000);
      expect(got.id).toBe(String(sent.id));
      expect(JSON.parse(got.data!)).toMatchObject({ id: sent.id, content: "live!", fromAgentId: "st-ada", toAgentId: "st-bob" });
      // crossAgent.keepAliveS is 1 here.
      await bob.next((e) => e.comment === "keep-alive", 3000);
      await eve.next((e) => e.comment === "keep-alive", 3000);
      expect(eve.seen.filter((e) => e.event === "message")).toEqual([]);
    } finally {
      bob.close();
      eve.close();
    }
  });

  test("Last-Event-ID replays only what was missed, then continues live", async () => {
    const first = (await send("r-ada", { content: "r1", toAgentId: "r-bob" })).body;
    await send("r-ada", { content: "r2", toAgentId: "r-bob" });
    await send("r-ada", { content: "r-other", toAgentId: "r-cy" });
    await send("r-ada", { content: "r3", toAgentId: "r-bob" });
    const bob = await openSse(`${td.url}/api/cross-agent/stream`, { "x-signet-agent-id": "r-bob", "last-event-id": String(first.id) });
    try {
      const replayed = [await bob.next((e) => e.event === "message"), await bob.next((e) => e.event === "message")];
      expect(replayed.map((e) => JSON.parse(e.data!).content)).toEqual(["r2", "r3"]);
      await send("r-ada", { content: "r4", toAgentId: "r-bob" });
      expect(JSON.parse((await bob.next((e) => e.event === "message")).data!).content).toBe("r4");
      expect(bob.seen.filter((e) => e.event === "message").length).toBe(3);
    } finally {
      bob.close();
    }
  });
});

describe("durability", () => {
  test("a restart loses no message; resuming with Last-Event-ID replays only what was missed; stop ends open streams", async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, "agent.yaml"), "embedding:\n  provider: none\n");
    const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: dataDir } });
    const start = () => startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } });
    const post = (url: string, content: string) =>
      fetch(`${url}/api/cross-agent/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-signet-agent-id": "d-ada" },
        body: JSON.stringify({ content, toAgentId: "d-bob" }),
      }).then((r) => r.json() as Promise<AgentMessage>);
    try {
      let daemon = await start();
      const stream = await openSse(`${daemon.url}/api/cross-agent/stream`, { "x-signet-agent-id": "d-bob" });
      await post(daemon.url, "before-1");
      const seenLast = JSON.parse((await stream.next((e) => e.event === "message")).data!) as AgentMessage;
      // stop() must not hang on the open stream, and the stream ends.
      const stopping = performance.now();
      await daemon.stop();
      expect(performance.now() - stopping).toBeLessThan(5000);
      await stream.ended;
      daemon = await start();
      try {
        await post(daemon.url, "while-away-1");
        await post(daemon.url, "while-away-2");
        const inboxBody = (await (await fetch(`${daemon.url}/api/cross-agent/messages`, { headers: { "x-signet-agent-id": "d-bob" } })).json()) as any;
        expect(contents(inboxBody.items)).toEqual(["before-1", "while-away-1", "while-away-2"]);
        const resumed = await openSse(`${daemon.url}/api/cross-agent/stream`, { "x-signet-agent-id": "d-bob", "last-event-id": String(seenLast.id) });
        try {
          const got = [await resumed.next((e) => e.event === "message"), await resumed.next((e) => e.event === "message")];
          expect(got.map((e) => JSON.parse(e.data!).content)).toEqual(["while-away-1", "while-away-2"]);
          const after = await post(daemon.url, "after-restart");
          expect(Number((await resumed.next((e) => e.event === "message")).id)).toBe(after.id);
          expect(after.id).toBeGreaterThan(seenLast.id);
        } finally {
          resumed.close();
        }
      } finally {
        await daemon.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
