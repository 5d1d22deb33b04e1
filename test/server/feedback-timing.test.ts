// Feedback right after a search (docs/api.md#post-apimemoryfeedback): what a recall surfaced in a
// session is on record before the recall answers, so the session may rate it at once, over HTTP
// and over MCP, with nothing in between; a memory never given to the session is still refused.
import { afterAll, describe, expect, test } from "bun:test";
import { call, useTestDaemon } from "../helpers/memory-api";
import { McpClients, callTool } from "../helpers/mcp-client";

const daemon = useTestDaemon();
const mcp = new McpClients(() => daemon().url, "feedback-timing");
afterAll(() => mcp.closeAll());

const remember = async (agent: string, content: string) => (await daemon().client(agent).memory.remember({ content })).id;
const recall = (agent: string, body: Record<string, unknown>) => call(daemon(), "POST", "/api/memory/recall", { body, agent });
const feedback = (agent: string, sessionKey: string, ratings: Record<string, number>) =>
  call(daemon(), "POST", "/api/memory/feedback", { body: { sessionKey, ratings }, agent });

describe("feedback right after a search", () => {
  test("HTTP: recall, then feedback at once, counts; memories the session was not given are rejected", async () => {
    const agent = "ft-http";
    const shown = await remember(agent, "The harbour crane lifts containers at low tide");
    const elsewhere = await remember(agent, "The ferry timetable changes in spring");
    const never = await remember(agent, "Unrelated: the bakery opens at six");
    // `elsewhere` reaches another session only.
    expect((await recall(agent, { query: "ferry timetable", sessionKey: "ft-other" })).body.results.map((r: { id: string }) => r.id)).toEqual([elsewhere]);
    const found = await recall(agent, { query: "harbour crane containers", sessionKey: "session:ft-1" });
    expect(found.status).toBe(200);
    const ids = found.body.results.map((r: { id: string }) => r.id);
    expect(ids).toEqual([shown]);
    const rated = await feedback(agent, "ft-1", { [shown]: 1, [never]: 1, [elsewhere]: -1 });
    expect(rated.status).toBe(200);
    expect(rated.body).toEqual({ ok: true, recorded: 3, accepted: 1, rejected: 2, rejectedIds: [never, elsewhere], propagated: 0 });
    // The rating is on the session's record of the memory.
    const row = daemon().daemon.context.stores.sqlite!.query("SELECT via, relevance_score FROM session_memories WHERE session_key = 'ft-1' AND memory_id = ?").get(shown);
    expect(row).toEqual({ via: "recall", relevance_score: 1 });
  });

  test("MCP: memory_search, then memory_feedback at once in the same session, is accepted", async () => {
    const agent = "ft-mcp";
    const shown = await remember(agent, "The observatory dome opens after dusk");
    const never = await remember(agent, "The garden hose is green");
    const client = await mcp.connect(agent, "ft-mcp-session");
    const found = await callTool(client, "memory_search", { query: "observatory dome" });
    expect(found.structured.results.map((r: { id: string }) => r.id)).toEqual([shown]);
    const r = await callTool(client, "memory_feedback", { session_key: "ft-mcp-session", ratings: { [shown]: 0.5, [never]: 1 } });
    expect(r.isError).toBe(false);
    expect(r.structured).toEqual({ ok: true, recorded: 2, accepted: 1, rejected: 1, rejectedIds: [never], propagated: 0 });
    // A connection of another session cannot rate what this one was shown.
    const other = await mcp.connect(agent, "ft-mcp-elsewhere");
    const refused = await callTool(other, "memory_feedback", { session_key: "ft-mcp-elsewhere", ratings: { [shown]: 1 } });
    expect(refused.structured).toMatchObject({ accepted: 0, rejectedIds: [shown] });
  });
});
