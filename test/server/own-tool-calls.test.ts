// Calls to Signet's own tools are recorded by the daemon as it answers the request each call makes
// (docs/api.md#analytics): once per call, with the caller's agent and session, over /mcp as over
// signet-mcp (test/e2e/messages-usage.test.ts); a tag names a Signet tool or is ignored, and a
// session another agent holds is not taken. signet-mcp finds its session by its harness process
// (GET /api/sessions?harness_process=), which answers only the caller's own sessions.
import { afterAll, describe, expect, test } from "bun:test";
import type { TestDaemon } from "../helpers/daemon";
import { callTool, McpClients } from "../helpers/mcp-client";
import { call, expectError, useTestDaemon, type Res } from "../helpers/memory-api";

async function ok(res: Promise<Res>, status = 200): Promise<any> {
  const r = await res;
  expect({ status: r.status, text: r.text }).toEqual({ status, text: expect.any(String) });
  return r.body;
}

interface Row {
  tool: string;
  agent_id: string;
  session_key: string | null;
  success: number;
  error_text: string | null;
}

/** The rows of `agent`, once the recorder wrote them (it writes every analytics.flushMs). */
async function rows(td: TestDaemon, agent: string): Promise<Row[]> {
  await td.daemon.context.analytics.flush();
  return td.daemon.context.stores.sqlite!
    .query<Row, [string]>("SELECT tool, agent_id, session_key, success, error_text FROM mcp_invocations WHERE agent_id = ? AND server = 'signet' AND source = 'mcp' ORDER BY id")
    .all(agent);
}

describe("local mode", () => {
  const daemon = useTestDaemon();
  const mcp = new McpClients(() => daemon().url, "own-tool-calls");
  afterAll(() => mcp.closeAll());

  test("each call is recorded once with its session, failures with their error; a tagged request too; a foreign tag or session is not taken", async () => {
    const td = daemon();
    await ok(call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "own-1", harness: "codex" }, agent: "own-ada" }));
    await ok(call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "other-1", harness: "codex" }, agent: "own-bob" }));
    const ada = await mcp.connect("own-ada", "own-1");
    expect((await callTool(ada, "memory_search", { query: "anything" })).isError).toBe(false);
    expect((await callTool(ada, "memory_list", {})).isError).toBe(false);
    expect((await callTool(ada, "memory_get", { id: "no-such-memory" })).isError).toBe(true);
    // Refused before any request is made: recorded all the same.
    expect((await callTool(ada, "signet_code_clear", { confirm: false })).isError).toBe(true);
    expect((await rows(td, "own-ada")).map((r) => [r.tool, r.session_key, r.success])).toEqual([
      ["memory_search", "own-1", 1],
      ["memory_list", "own-1", 1],
      ["memory_get", "own-1", 0],
      ["signet_code_clear", "own-1", 0],
    ]);
    expect((await rows(td, "own-ada"))[2]!.error_text).toStartWith("not_found: ");

    // A request of the API tagged by hand is one call of that tool; an unknown name or another
    // agent's session is not taken from the tag.
    const tagged = (headers: Record<string, string>) => ok(call(td, "GET", "/api/memories", { agent: "own-cy", headers }));
    await tagged({ "x-signet-tool": "memory_list", "x-signet-session-key": "session:own-cy-1" });
    await tagged({ "x-signet-tool": "not_a_signet_tool" });
    await tagged({ "x-signet-tool": "memory_list", "x-signet-session-key": "other-1" });
    expect((await rows(td, "own-cy")).map((r) => [r.tool, r.session_key])).toEqual([
      ["memory_list", "own-cy-1"],
      ["memory_list", null],
    ]);
  });

  test("GET /api/sessions?harness_process= answers the caller's active session of that process, the latest; bad values are 400", async () => {
    const td = daemon();
    const start = (agent: string, sessionKey: string, harnessProcess: string) =>
      ok(call(td, "POST", "/api/hooks/session-start", { body: { sessionKey, harness: "claude-code", harnessProcess }, agent }));
    const find = (agent: string, harness: string) => call(td, "GET", `/api/sessions?active=true&limit=1&harness_process=${encodeURIComponent(harness)}`, { agent });
    await start("hp-ada", "hp-old", "4242:777");
    await start("hp-ada", "hp-new", "4242:777");
    await start("hp-ada", "hp-elsewhere", "4243:777");
    expect((await ok(find("hp-ada", "4242:777"))).sessions.map((s: any) => s.key)).toEqual(["hp-new"]);
    // The same pid with another start time is another process.
    expect((await ok(find("hp-ada", "4242:778"))).sessions).toEqual([]);
    // A session that ended is not the current one.
    await ok(call(td, "POST", "/api/hooks/session-end", { body: { sessionKey: "hp-new", harness: "claude-code" }, agent: "hp-ada" }));
    expect((await ok(find("hp-ada", "4242:777"))).sessions.map((s: any) => s.key)).toEqual(["hp-old"]);
    // Another agent finds nothing of hp-ada's, even naming hp-ada in the header of a local caller's request.
    expect((await ok(find("hp-eve", "4242:777"))).sessions).toEqual([]);
    for (const bad of ["", "4242", "abc:1", "0:1", `1:${"x".repeat(65)}`, "1:\u0001"]) {
      expectError(await find("hp-ada", bad), 400, "invalid_input", "harness_process");
    }
    expectError(
      await call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "hp-bad", harness: "codex", harnessProcess: "me" }, agent: "hp-ada" }),
      400,
      "invalid_input",
      "harnessProcess",
    );
    expect(td.daemon.context.stores.sqlite!.query("SELECT 1 FROM sessions WHERE key = 'hp-bad'").get()).toBeNull();
  });
});

describe("team mode", () => {
  const daemon = useTestDaemon({ yaml: "auth:\n  mode: team\n" });

  test("another agent's token neither finds a session by its harness process nor records a call into it", async () => {
    const td = daemon();
    const tokens: Record<string, string> = {};
    for (const agentId of ["t-ada", "t-eve"]) {
      tokens[agentId] = (await ok(call(td, "POST", "/api/tokens", { body: { role: "agent", agentId }, headers: td.ownerHeaders }), 201)).token;
    }
    const ada = { authorization: `Bearer ${tokens["t-ada"]}` };
    const eve = { authorization: `Bearer ${tokens["t-eve"]}`, "x-signet-agent-id": "t-ada" };
    await ok(call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "t-ada-1", harness: "codex", harnessProcess: "5151:99" }, headers: ada }));
    const query = "/api/sessions?active=true&harness_process=5151:99";
    expect((await ok(call(td, "GET", query, { headers: ada }))).sessions.map((s: any) => s.key)).toEqual(["t-ada-1"]);
    expect((await ok(call(td, "GET", `${query}&agent_id=t-ada`, { headers: eve }))).sessions).toEqual([]);
    // Eve's tagged request is eve's call, and ada's session is not taken.
    await ok(call(td, "GET", "/api/memories", { headers: { ...eve, "x-signet-tool": "memory_list", "x-signet-session-key": "t-ada-1" } }));
    expect((await rows(td, "t-eve")).map((r) => [r.tool, r.session_key])).toEqual([["memory_list", null]]);
    expect(await rows(td, "t-ada")).toEqual([]);
  });
});
