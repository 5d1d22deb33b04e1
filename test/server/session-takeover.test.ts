// A session belongs to the agent that holds it (docs/security.md#who-a-request-acts-for): another
// agent that learns its key (presence lists every present session) cannot act on it through the
// hooks (403, as for presence), cannot squat on a key with a bypass, and none of what the session
// carries (transcript, injected and carried memories) reaches it. Played twice: with two agent
// tokens in team mode, and with the agent header in local mode.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { HOOK_EVENTS } from "../../src/contracts/hook-events";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call, expectError, expectForgedRefused, useTestDaemon, type Res } from "../helpers/memory-api";

type Headers = Record<string, string>;

async function ok(res: Promise<Res>, status = 200): Promise<any> {
  const r = await res;
  expect({ status: r.status, text: r.text }).toEqual({ status, text: expect.any(String) });
  return r.body;
}

/** Alice works in a session; bob, who sees its key in presence, tries everything on it. */
async function takeoverRefused(td: TestDaemon, alice: Headers, bob: Headers, tag: string): Promise<void> {
  const as = (headers: Headers, method: string, path: string, body?: unknown) => call(td, method, path, { body, headers });
  const hook = (headers: Headers, event: string, body: Record<string, unknown>) =>
    as(headers, "POST", `/api/hooks/${event}`, { harness: "claude-code", ...body });
  const key = `${tag}-alice-1`;
  const secret = `alice keeps the vault combination ${tag} under the quasar mural`;

  const memory = await ok(as(alice, "POST", "/api/memory/remember", { content: secret, pinned: true }), 201);
  const start = await ok(hook(alice, "session-start", { sessionKey: key, project: "/work/vault" }));
  expect(start.memoryIds).toContain(memory.id);
  await ok(hook(alice, "user-prompt-submit", { sessionKey: key, prompt: "where is the zeppelin hangar key kept?" }));
  const pre = await ok(hook(alice, "pre-compaction", { sessionKey: key }));
  expect(pre.memoryIds).toContain(memory.id);

  // Bob learns the key from presence.
  const peers = await ok(as(bob, "GET", "/api/cross-agent/presence"));
  expect(peers.sessions.map((s: any) => [s.agentId, s.sessionKey])).toContainEqual(["alice", key]);

  // Every hook on alice's session is refused, however the key is spelled, and says nothing of hers.
  for (const event of HOOK_EVENTS) {
    for (const sessionKey of [key, `session:${key}`]) {
      const res = await hook(bob, event, { sessionKey, prompt: "zeppelin hangar quasar vault", transcript: "user: bob was here" });
      expectError(res, 403, "forbidden", `session ${key} belongs to another agent`);
      expect(res.text).not.toContain("quasar");
    }
  }

  // Nothing of alice's session reaches bob by any other route either.
  expect((await ok(as(bob, "POST", "/api/sessions/search", { query: "zeppelin" }))).hits).toEqual([]);
  expect((await ok(as(bob, "POST", "/api/sessions/search", { query: "zeppelin", sessionKey: key }))).hits).toEqual([]);
  expectError(await as(bob, "GET", `/api/sessions/${key}`), 404, "not_found");
  expect(await ok(as(bob, "POST", "/api/memory/feedback", { sessionKey: key, ratings: { [memory.id]: 1 } }))).toMatchObject({ accepted: 0 });
  const child = await ok(hook(bob, "session-start", { sessionKey: `${tag}-bob-child`, parentSessionKey: key }));
  expect(child.context).not.toContain("zeppelin");
  expect(child.context).not.toContain("quasar");

  // The session is still alice's, untouched: not ended, same window, presence hers, carry intact.
  const mine = await ok(as(alice, "GET", `/api/sessions/${key}`));
  expect(mine).toMatchObject({ key, agentId: "alice", harness: "claude-code", endedAt: null, window: 0 });
  const present = (await ok(as(alice, "GET", "/api/cross-agent/presence?include_self=true"))).sessions.find((s: any) => s.sessionKey === key);
  expect(present).toMatchObject({ agentId: "alice", harness: "claude-code" });
  const after = await ok(hook(alice, "compaction-complete", { sessionKey: key }));
  expect(after.memoryIds).toEqual([memory.id]);
  expect(after.context).toContain("quasar");
  expect((await ok(as(alice, "POST", "/api/sessions/search", { query: "zeppelin" }))).hits.map((h: any) => h.sessionKey)).toEqual([key]);
  const transcript = td.daemon.context.stores.sqlite!
    .query<{ content: string }, [string]>("SELECT t.content FROM session_transcripts_fts t JOIN sessions s ON s.seq = t.rowid WHERE s.key = ?")
    .get(key);
  expect(transcript?.content).not.toContain("bob was here");

  // A session known only from presence is held too: hooks of another agent are refused on it ...
  const presentOnly = `${tag}-alice-present`;
  await ok(as(alice, "POST", "/api/cross-agent/presence", { sessionKey: presentOnly, harness: "codex" }));
  expectError(await hook(bob, "session-start", { sessionKey: presentOnly }), 403, "forbidden", "belongs to another agent");
  // ... and no other agent can squat on it with a bypass (which would silence its owner's hooks).
  expectError(await as(bob, "POST", `/api/sessions/${presentOnly}/bypass`, { enabled: true }), 404, "not_found");
  const owners = await ok(hook(alice, "session-start", { sessionKey: presentOnly }));
  expect(owners.bypassed).toBeUndefined();
  expect(await ok(as(alice, "GET", `/api/sessions/${presentOnly}`))).toMatchObject({ agentId: "alice", bypassed: false });
}

describe("team mode: two agent tokens", () => {
  let td: TestDaemon;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "auth:\n  mode: team\n" });
    for (const agentId of ["alice", "bob"]) {
      const res = await call(td, "POST", "/api/tokens", { body: { role: "agent", agentId }, headers: td.ownerHeaders });
      expect(res.status).toBe(201);
      tokens[agentId] = res.body.token;
    }
  });
  afterAll(() => td.stop());

  test("bob's token cannot take over, read or squat on alice's session, even naming alice in the header and body", async () => {
    const bearer = (agent: string) => ({ authorization: `Bearer ${tokens[agent]}` });
    // The forged part: bob's token with the header naming alice. The token's agent wins.
    await takeoverRefused(td, bearer("alice"), { ...bearer("bob"), "x-signet-agent-id": "alice" }, "team");
    expectError(
      await call(td, "POST", "/api/hooks/user-prompt-submit", {
        body: { sessionKey: "team-alice-1", harness: "codex", agentId: "alice", prompt: "zeppelin" },
        headers: bearer("bob"),
      }),
      403,
      "forbidden",
      "belongs to another agent",
    );
    await expectForgedRefused(td, "POST", "/api/hooks/session-start", { sessionKey: "team-alice-1", harness: "codex" });
  });
});

describe("local mode: the agent header", () => {
  const daemon = useTestDaemon();

  test("an agent naming itself in the header cannot take over, read or squat on another agent's session", async () => {
    const td = daemon();
    await takeoverRefused(td, { "x-signet-agent-id": "alice" }, { "x-signet-agent-id": "bob" }, "local");
    await expectForgedRefused(td, "POST", "/api/hooks/pre-compaction", { sessionKey: "local-alice-1", harness: "codex" });
  });
});

describe("reads behind a hook", () => {
  const daemon = useTestDaemon();

  test("a carry holding another agent's memory id (as one written before sessions stayed with their agent) injects only the caller's", async () => {
    const td = daemon();
    const agent = (id: string) => ({ "x-signet-agent-id": id });
    const hers = (await ok(call(td, "POST", "/api/memory/remember", { body: { content: "carol's private pager rota", pinned: true }, headers: agent("carol") }), 201)).id;
    const mine = (await ok(call(td, "POST", "/api/memory/remember", { body: { content: "dave's build uses ninja", pinned: true }, headers: agent("dave") }), 201)).id;
    await ok(call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "dave-1", harness: "codex" }, headers: agent("dave") }));
    td.daemon.context.stores.sqlite!.query("UPDATE sessions SET carry = ? WHERE key = 'dave-1'").run(JSON.stringify([hers, mine]));
    const after = await ok(call(td, "POST", "/api/hooks/compaction-complete", { body: { sessionKey: "dave-1", harness: "codex" }, headers: agent("dave") }));
    expect(after.memoryIds).toEqual([mine]);
    expect(after.context).not.toContain("pager rota");
  });
});
