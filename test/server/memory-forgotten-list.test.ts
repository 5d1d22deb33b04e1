// GET /api/memories?forgotten=true (docs/api.md#get-apimemories): forgotten memories only, the most
// recently forgotten first, within the caller's scope, with the other filters; recall still never
// shows them.
import { describe, expect, test } from "bun:test";
import { call, expectError, freshAgent, listIds, remember, useTestDaemon } from "../helpers/memory-api";

const td = useTestDaemon({ yaml: "agents:\n  team:\n    readPolicy: shared\n" });

const forget = (agent: string, id: string) => call(td(), "DELETE", `/api/memory/${id}`, { agent, body: { reason: "test" } });

describe("forgotten=true", () => {
  test("only forgotten memories, newest deletion first (not newest creation)", async () => {
    const agent = freshAgent();
    const older = await remember(td(), agent, { content: "created first", createdAt: "2024-01-01T00:00:00Z" });
    const newer = await remember(td(), agent, { content: "created second" });
    const live = await remember(td(), agent, { content: "still here" });
    await forget(agent, newer.id);
    await Bun.sleep(5);
    await forget(agent, older.id);
    expect(await listIds(td(), agent, "forgotten=true")).toEqual([older.id, newer.id]);
    expect(await listIds(td(), agent, "forgotten=1")).toEqual([older.id, newer.id]);
    expect(await listIds(td(), agent)).toEqual([live.id]);
    expect(await listIds(td(), agent, "forgotten=false")).toEqual([live.id]);
    // Recovered, it leaves the forgotten list and comes back to the live one.
    await call(td(), "POST", `/api/memory/${older.id}/recover`, { agent, body: {} });
    expect(await listIds(td(), agent, "forgotten=true")).toEqual([newer.id]);
  });

  test("within the caller's scope: its own and shared agents' forgotten memories, never another's private ones", async () => {
    const agent = freshAgent();
    const other = freshAgent();
    const mine = await remember(td(), agent, { content: "mine, forgotten" });
    const theirs = await remember(td(), other, { content: "theirs, forgotten" });
    const team = await remember(td(), "team", { content: `team's, forgotten ${agent}` });
    await forget(agent, mine.id);
    await forget(other, theirs.id);
    await forget("team", team.id);
    const ids = await listIds(td(), agent, "forgotten=true");
    expect(ids).toContain(mine.id);
    expect(ids).toContain(team.id);
    expect(ids).not.toContain(theirs.id);
  });

  test("combines with the other filters and with paging", async () => {
    const agent = freshAgent();
    const a = await remember(td(), agent, { content: "a decision", type: "decision", tags: ["x"] });
    const b = await remember(td(), agent, { content: "a fact", tags: ["x"] });
    const c = await remember(td(), agent, { content: "another decision", type: "decision" });
    for (const m of [a, b, c]) await forget(agent, m.id);
    expect(await listIds(td(), agent, "forgotten=true&type=decision")).toEqual([c.id, a.id]);
    expect(await listIds(td(), agent, "forgotten=true&tags=x")).toEqual([b.id, a.id]);
    const page = (await call(td(), "GET", "/api/memories?forgotten=true&limit=1&offset=1", { agent })).body;
    expect({ ids: page.memories.map((m: any) => m.id), hasMore: page.hasMore }).toEqual({ ids: [b.id], hasMore: true });
  });

  test("recall still never finds a forgotten memory", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "zanzibar lighthouse keeper" });
    await forget(agent, m.id);
    const res = await call(td(), "POST", "/api/memory/recall", { agent, body: { query: "zanzibar lighthouse" } });
    expect(res.body.results).toEqual([]);
  });

  test("a value other than true/false/1/0 is a 400 naming the parameter", async () => {
    expectError(await call(td(), "GET", "/api/memories?forgotten=yes"), 400, "invalid_input", "forgotten");
  });
});
