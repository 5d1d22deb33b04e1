// The session tools through the MCP SDK's Client over /mcp (docs/mcp.md#session-tools):
// memory_feedback, session_search / signet_session_search (the connection's session key as the
// default current_session_key) and session_bypass, each with compact text and structuredContent.
import { afterAll, describe, expect, test } from "bun:test";
import { call, useTestDaemon } from "../helpers/memory-api";
import { eventually } from "../helpers/wait";
import { McpClients, callTool } from "../helpers/mcp-client";

const daemon = useTestDaemon();
const mcp = new McpClients(() => daemon().url, "mcp-session-tools");
afterAll(() => mcp.closeAll());
const connect = (agent: string, sessionKey?: string) => mcp.connect(agent, sessionKey);
const tool = callTool;

const hook = (event: string, body: Record<string, unknown>, agent: string) => call(daemon(), "POST", `/api/hooks/${event}`, { body, agent });

describe("session tools over MCP", () => {
  test("memory_feedback rates what the session saw and names what it ignored", async () => {
    const agent = "mcp-fb";
    const id = (await daemon().client(agent).memory.remember({ content: "MCP feedback canary: Dana Weber waters the office fern", pinned: true })).id;
    await hook("session-start", { sessionKey: "mcp-s1", harness: "claude-code" }, agent);
    const client = await connect(agent, "mcp-s1");
    const r = await tool(client, "memory_feedback", { session_key: "mcp-s1", ratings: { [id]: 0.9, "never-seen": -1 } });
    expect(r.isError).toBe(false);
    expect(r.structured).toEqual({ ok: true, recorded: 2, accepted: 1, rejected: 1, rejectedIds: ["never-seen"], propagated: 1 });
    expect(r.text).toBe("Recorded 1 of 2 ratings; 1 also moved the knowledge graph (the weights of what that memory is about). Ignored 1 (not injected or recalled in this session): never-seen.");
    const bad = await tool(client, "memory_feedback", { session_key: "mcp-s1", ratings: { [id]: 7 } });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain("ratings");
  });

  test("memory_search with the connection's session key records surfaced ids, which memory_feedback then accepts", async () => {
    const agent = "mcp-recall";
    const id = (await daemon().client(agent).memory.remember({ content: "The lighthouse keeper logs at dawn" })).id;
    const client = await connect(agent, "mcp-s2");
    const found = await tool(client, "memory_search", { query: "lighthouse keeper" });
    expect(found.structured.results.map((x: { id: string }) => x.id)).toContain(id);
    const db = daemon().daemon.context.stores.sqlite!;
    expect(await eventually(() => db.query("SELECT 1 FROM session_memories WHERE session_key = 'mcp-s2' AND memory_id = ?").get(id) !== null)).toBe(true);
    expect((await tool(client, "memory_feedback", { session_key: "mcp-s2", ratings: { [id]: 1 } })).structured).toMatchObject({ accepted: 1 });
  });

  test("session_search and signet_session_search: a sub-agent's connection searches its parent by default", async () => {
    const agent = "mcp-search";
    await hook("session-start", { sessionKey: "agent:mcp:main", harness: "openclaw" }, agent);
    await hook("user-prompt-submit", { sessionKey: "agent:mcp:main", harness: "openclaw", prompt: "rotate the quokka certificates on Friday" }, agent);
    await hook("session-end", { sessionKey: "elsewhere", harness: "openclaw", transcript: "user: quokka certificates elsewhere" }, agent);
    await hook("session-start", { sessionKey: "agent:mcp:subagent:k", harness: "openclaw" }, agent);
    const child = await connect(agent, "agent:mcp:subagent:k");
    for (const name of ["session_search", "signet_session_search"]) {
      const r = await tool(child, name, { query: "quokka certificates" });
      expect(r.isError).toBe(false);
      expect(r.structured.hits.map((h: { sessionKey: string }) => h.sessionKey)).toEqual(["agent:mcp:main"]);
      expect(r.text).toStartWith('1 transcript hit for "quokka certificates":\n1. agent:mcp:main · ');
      expect(r.text).toContain("quokka certificates on Friday");
    }
    // An explicit session_key wins; without a connection session every transcript of the agent is searched.
    const explicit = await tool(child, "session_search", { query: "quokka", session_key: "elsewhere" });
    expect(explicit.structured.hits.map((h: { sessionKey: string }) => h.sessionKey)).toEqual(["elsewhere"]);
    const all = await tool(await connect(agent), "session_search", { query: "quokka", limit: 50 });
    expect(all.structured.count).toBe(2);
    const none = await tool(child, "session_search", { query: "nonexistentword" });
    expect(none.structured).toEqual({ query: "nonexistentword", hits: [], count: 0 });
    expect(none.text).toContain("No session transcript matches");
  });

  test("session_bypass silences the hooks, tools keep working, and turns back off", async () => {
    const agent = "mcp-bypass";
    await hook("session-start", { sessionKey: "mcp-b", harness: "claude-code" }, agent);
    const client = await connect(agent, "mcp-b");
    const on = await tool(client, "session_bypass", { session_key: "session:mcp-b", enabled: true });
    expect(on.structured).toEqual({ key: "mcp-b", bypassed: true });
    expect(on.text).toBe("Hooks bypassed for session mcp-b: they inject nothing until bypass is turned off.");
    expect((await hook("user-prompt-submit", { sessionKey: "mcp-b", harness: "claude-code", prompt: "hi" }, agent)).body).toEqual({ bypassed: true });
    expect((await tool(client, "memory_store", { content: "stored while bypassed" })).isError).toBe(false);
    const off = await tool(client, "session_bypass", { session_key: "mcp-b", enabled: false });
    expect(off.structured).toEqual({ key: "mcp-b", bypassed: false });
    expect((await hook("user-prompt-submit", { sessionKey: "mcp-b", harness: "claude-code", prompt: "hi" }, agent)).body).toMatchObject({ window: 0 });
  });
});
