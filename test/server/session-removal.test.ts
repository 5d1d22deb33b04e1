// DELETE /api/sessions/:key (docs/api.md, `signet doctor` removes its dry-run sessions with it): the
// owner's admin token alone removes a session, whichever agent holds it, with its transcript, what
// reached it, its presence and the messages given to it; every other caller (no credential, the
// holder's agent, the instance key, API tokens of any role, forged callers) is refused and nothing
// is removed. Other sessions stay as they were.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call, expectError, forgedCallers } from "../helpers/memory-api";

const hook = (td: TestDaemon, event: string, agent: string, body: Record<string, unknown>) =>
  call(td, "POST", `/api/hooks/${event}`, { body: { harness: "claude-code", project: "/work/p", ...body }, agent });

/** A session as the hooks leave it: started (presence, the pinned memory injected), one prompt (transcript), one message given. */
async function hookedSession(td: TestDaemon, agent: string, key: string): Promise<void> {
  expect((await call(td, "POST", "/api/memory/remember", { body: { content: `${agent} always deploys on Tuesdays`, type: "fact", pinned: true }, agent })).status).toBe(201);
  const start = await hook(td, "session-start", agent, { sessionKey: key });
  expect(start.body.memoryIds.length).toBe(1);
  expect((await hook(td, "user-prompt-submit", agent, { sessionKey: key, prompt: "when do the zebras deploy" })).status).toBe(200);
  td.daemon.context.stores.sqlite!
    .query("INSERT INTO agent_message_deliveries (message_id, agent_id, session_key, delivered_at) VALUES (?, ?, ?, ?)")
    .run(1, agent, key, new Date().toISOString());
}

const rows = (td: TestDaemon, key: string) => {
  const count = (sql: string) => td.daemon.context.stores.sqlite!.query<{ n: number }, [string]>(sql).get(key)!.n;
  return {
    session: count("SELECT COUNT(*) AS n FROM sessions WHERE key = ?"),
    transcript: count("SELECT COUNT(*) AS n FROM session_transcripts_fts WHERE rowid IN (SELECT seq FROM sessions WHERE key = ?)"),
    memories: count("SELECT COUNT(*) AS n FROM session_memories WHERE session_key = ?"),
    presence: count("SELECT COUNT(*) AS n FROM agent_presence WHERE session_key = ?"),
    messages: count("SELECT COUNT(*) AS n FROM agent_message_deliveries WHERE session_key = ?"),
  };
};
const ALL_THERE = { session: 1, transcript: 1, memories: 1, presence: 1, messages: 1 };
const NONE_LEFT = { session: 0, transcript: 0, memories: 0, presence: 0, messages: 0 };

describe("DELETE /api/sessions/:key in local mode", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
    await hookedSession(td, "ada", "ada-s1");
    await hookedSession(td, "bob", "bob-s1");
  });
  afterAll(() => td.stop());

  test("without the owner's admin token it is refused, however the caller or the path is spelled, and nothing is removed", async () => {
    const del = (path: string, headers: Record<string, string> = {}) => call(td, "DELETE", path, { headers });
    expectError(await del("/api/sessions/ada-s1"), 401, "unauthorized", "admin.token");
    // The holder's own agent is no owner.
    expectError(await call(td, "DELETE", "/api/sessions/ada-s1", { agent: "ada" }), 401, "unauthorized", "admin.token");
    expectError(await del("/api/sessions/ada-s1", { "x-signet-instance-key": td.ownerHeaders["x-signet-instance-key"]! }), 403, "forbidden", "admin.token");
    expectError(await del("/api/sessions/ada-s1", { authorization: "Bearer not-the-admin-token" }), 403, "forbidden", "admin.token");
    for (const path of ["/API/Sessions/ada-s1", "/api/sessions//ada-s1", "/api/sessions/ada-s1/", "/api/sessions/%61da-s1"]) {
      expect([401, 403]).toContain((await del(path)).status);
    }
    // Forged callers are refused before their credential counts.
    for (const forged of forgedCallers(td)) expect((await del("/api/sessions/ada-s1", { ...td.ownerHeaders, ...forged })).status).toBe(403);
    expect(rows(td, "ada-s1")).toEqual(ALL_THERE);
  });

  test("the owner removes another agent's session with everything recorded under its key; other sessions stay", async () => {
    const res = await call(td, "DELETE", "/api/sessions/ada-s1", { headers: td.ownerHeaders });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ key: "ada-s1", agentId: "ada", removed: ALL_THERE });
    expect(rows(td, "ada-s1")).toEqual(NONE_LEFT);
    expectError(await call(td, "GET", "/api/sessions/ada-s1", { agent: "ada" }), 404, "not_found");
    expect((await call(td, "POST", "/api/sessions/search", { body: { query: "zebras" }, agent: "ada" })).body.hits).toEqual([]);
    const peers = await call(td, "GET", "/api/cross-agent/presence", { agent: "cy" });
    expect(peers.body.sessions.map((s: any) => s.sessionKey)).toEqual(["bob-s1"]);
    // The memory the session was given is the agent's, not the session's.
    expect((await call(td, "GET", "/api/memories", { agent: "ada" })).body.memories.length).toBe(1);
    expect(rows(td, "bob-s1")).toEqual(ALL_THERE);
    expect((await call(td, "POST", "/api/sessions/search", { body: { query: "zebras" }, agent: "bob" })).body.hits.map((h: any) => h.sessionKey)).toEqual(["bob-s1"]);
  });

  test("a key with nothing recorded is 404; `session:<key>` names the same session; a bad key is 400", async () => {
    expectError(await call(td, "DELETE", "/api/sessions/ada-s1", { headers: td.ownerHeaders }), 404, "not_found", "session ada-s1");
    const res = await call(td, "DELETE", "/api/sessions/session%3Abob-s1", { headers: td.ownerHeaders });
    expect(res.status).toBe(200);
    expect(res.body.key).toBe("bob-s1");
    expect(rows(td, "bob-s1")).toEqual(NONE_LEFT);
    expectError(await call(td, "DELETE", `/api/sessions/${"k".repeat(501)}`, { headers: td.ownerHeaders }), 400, "invalid_input", "session key");
    expectError(await call(td, "DELETE", "/api/sessions/%20%20", { headers: td.ownerHeaders }), 400, "invalid_input", "session key");
  });
});

describe("DELETE /api/sessions/:key in team mode", () => {
  let td: TestDaemon;
  const token = async (body: Record<string, unknown>) => (await call(td, "POST", "/api/tokens", { body, headers: td.ownerHeaders })).body.token as string;
  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "auth:\n  mode: team\n" });
  });
  afterAll(() => td.stop());

  test("API tokens of every role are refused, the holder's agent token included; the owner's admin token removes it", async () => {
    const agent = await token({ role: "agent", agentId: "ada" });
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    const started = await call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "ada-t1", harness: "codex" }, headers: bearer(agent) });
    expect(started.status).toBe(200);
    expectError(await call(td, "DELETE", "/api/sessions/ada-t1"), 401, "unauthorized");
    expectError(await call(td, "DELETE", "/api/sessions/ada-t1", { headers: bearer(agent) }), 403, "forbidden", "admin.token");
    for (const role of ["admin", "operator", "readonly"]) {
      const res = await call(td, "DELETE", "/api/sessions/ada-t1", { headers: bearer(await token({ role })) });
      expect({ role, status: res.status }).toEqual({ role, status: 403 });
    }
    expect(rows(td, "ada-t1").session).toBe(1);
    const removed = await call(td, "DELETE", "/api/sessions/ada-t1", { headers: td.ownerHeaders });
    expect(removed.body).toEqual({ key: "ada-t1", agentId: "ada", removed: { session: 1, transcript: 0, memories: 0, presence: 1, messages: 0 } });
  });
});
