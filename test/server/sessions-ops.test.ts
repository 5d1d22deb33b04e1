// The hook, session and memory feedback operations (src/contracts/session.ts) as the routes, the
// permission table, the client and the MCP tools take them from their declaration: each path needs
// the permission it always did, a token whose role has it reaches the operation through the typed
// client and the tools, a token whose role lacks it is refused, and the hooks' one route with an
// `:event` parameter answers like the five routes it stands for.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ApiError, SignetClient } from "../../src/client/client";
import { HOOK_EVENTS } from "../../src/contracts/hook-events";
import { permissionFor } from "../../src/server/permissions";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { roleTokens } from "../helpers/operations";
import { callTool, McpClients } from "../helpers/mcp-client";
import { call, expectError } from "../helpers/memory-api";

test("each hook, session and feedback path needs the permission it always did; deeper paths none", () => {
  const table: [string, string, string | undefined][] = [
    ...HOOK_EVENTS.map((event): [string, string, string] => ["POST", `/api/hooks/${event}`, "sessions"]),
    ["POST", "/api/memory/feedback", "sessions"],
    ["GET", "/api/sessions", "sessions-read"],
    ["HEAD", "/api/sessions", "sessions-read"],
    ["GET", "/api/sessions/abc", "sessions-read"],
    ["POST", "/api/sessions/search", "sessions-read"],
    ["POST", "/api/sessions/abc/bypass", "sessions"],
    ["DELETE", "/api/sessions/abc", "sessions"],
    ["GET", "/api/sessions/abc/tools", "sessions-read"],
    // Nothing serves these: no token may reach them (deny by default).
    ["POST", "/api/hooks/session-start/again", undefined],
    ["PUT", "/api/sessions/abc", undefined],
  ];
  expect(table.map(([m, p]) => [m, p, permissionFor(m, p)])).toEqual(table);
});

describe("the hooks' route", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(() => td.stop());

  test("an event no hook has is no route, a bad body is named with its event, and nothing is recorded", async () => {
    const body = { sessionKey: "ops-hook-1", harness: "claude-code" };
    expectError(await call(td, "POST", "/api/hooks/session-begin", { body }), 404, "not_found", "no route POST /api/hooks/session-begin");
    expectError(await call(td, "POST", "/api/hooks/session-start/again", { body }), 404, "not_found");
    expectError(await call(td, "POST", "/api/hooks/user-prompt-submit", { body: { ...body, prompt: 7 } }), 400, "invalid_input", "invalid user-prompt-submit hook request: prompt");
    const count = td.daemon.context.stores.sqlite!.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sessions WHERE key = 'ops-hook-1'").get()!.n;
    expect(count).toBe(0);
  });

  test("the client's fire and its shorthands reach each event's hook", async () => {
    const client = td.client("ops-hooks");
    const key = "ops-hook-2";
    expect(await client.hooks.sessionStart({ sessionKey: key, harness: "codex" })).toMatchObject({ context: expect.any(String), window: 0 });
    expect(await client.hooks.fire("compaction-complete", { sessionKey: key, harness: "codex" }, { timeoutMs: 5000 })).toMatchObject({ window: 1 });
    expect(await client.hooks.sessionEnd({ sessionKey: key, harness: "codex" })).toMatchObject({ transcriptStored: false, extraction: "skipped" });
    expect((await client.sessions.get(`session:${key}`)).endedAt).not.toBeNull();
  });
});

describe("with API tokens", () => {
  let td: TestDaemon;
  const tokens: Record<"agent" | "readonly", string> = { agent: "", readonly: "" };
  const mcpClients = new McpClients(() => td.url, "sessions-ops");
  const asToken = (token: string) => new SignetClient({ baseUrl: td.url, token });
  const mcp = (token: string) => mcpClients.withToken(token);
  async function refused(promise: Promise<unknown>, mentions: string): Promise<void> {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect({ status: (err as ApiError).status, message: (err as ApiError).message }).toEqual({ status: 403, message: expect.stringContaining(mentions) });
  }

  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "auth:\n  mode: team\n" });
    Object.assign(tokens, await roleTokens(td, "ada"));
  });
  afterAll(async () => {
    await mcpClients.closeAll();
    await td.stop();
  });

  test("an agent token reports hooks and rates what reached its session; a readonly token reads sessions and nothing more", async () => {
    const ada = asToken(tokens.agent);
    const { id } = await ada.memory.remember({ content: "ops canary: the staging database lives in Oslo", pinned: true });
    const started = await ada.hooks.sessionStart({ sessionKey: "ada-ops-1", harness: "codex" });
    expect("memoryIds" in started && started.memoryIds).toEqual([id]);
    expect(await ada.sessions.feedback({ sessionKey: "ada-ops-1", ratings: { [id]: 1 } })).toMatchObject({ ok: true, accepted: 1, rejected: 0 });
    expect(await ada.sessions.bypass("ada-ops-1", { enabled: true })).toEqual({ key: "ada-ops-1", bypassed: true });

    const readonly = asToken(tokens.readonly);
    expect((await readonly.sessions.list({ agent_id: "ada" })).sessions.map((x) => [x.key, x.bypassed])).toEqual([["ada-ops-1", true]]);
    expect(await readonly.sessions.search({ query: "Oslo" })).toMatchObject({ count: 0 });
    await refused(readonly.sessions.feedback({ sessionKey: "ada-ops-1", ratings: { [id]: -1 } }), "needs permission sessions");
    await refused(readonly.hooks.userPromptSubmit({ sessionKey: "ada-ops-1", harness: "codex", prompt: "Oslo?" }), "needs permission sessions");
    await refused(readonly.sessions.bypass("ada-ops-1", { enabled: false }), "needs permission sessions");
    const rating = td.daemon.context.stores.sqlite!.query<{ r: number }, [string]>("SELECT relevance_score AS r FROM session_memories WHERE memory_id = ?").get(id)!.r;
    expect(rating).toBe(1);
  });

  test("removing a session takes the owner's admin token, which the owner's client sends; a token is refused", async () => {
    const ada = asToken(tokens.agent);
    await ada.hooks.sessionStart({ sessionKey: "ada-ops-2", harness: "codex" });
    await refused(ada.sessions.remove("ada-ops-2"), "admin.token");
    expect(await td.client().sessions.remove("session:ada-ops-2")).toMatchObject({ key: "ada-ops-2", agentId: "ada", removed: { session: 1 } });
  });

  test("over /mcp, each session tool runs for a token whose role has its operation's permission", async () => {
    const ada = asToken(tokens.agent);
    const { id } = await ada.memory.remember({ content: "ops canary over mcp: the build cache is warm", pinned: true });
    await ada.hooks.sessionStart({ sessionKey: "ada-ops-3", harness: "codex" });

    const readonly = await mcp(tokens.readonly);
    const search = await callTool(readonly, "session_search", { query: "warm cache" });
    expect({ isError: search.isError, count: search.structured?.count }).toEqual({ isError: false, count: 0 });
    for (const [name, args] of [
      ["memory_feedback", { session_key: "ada-ops-3", ratings: { [id]: 1 } }],
      ["session_bypass", { session_key: "ada-ops-3", enabled: true }],
    ] as const) {
      const r = await callTool(readonly, name, args);
      expect({ isError: r.isError, text: r.text }).toEqual({ isError: true, text: `${name} needs permission sessions, which a readonly token does not have` });
    }

    const agent = await mcp(tokens.agent);
    const rated = await callTool(agent, "memory_feedback", { session_key: "ada-ops-3", ratings: { [id]: 1 } });
    expect({ isError: rated.isError, accepted: rated.structured?.accepted }).toEqual({ isError: false, accepted: 1 });
  });
});
