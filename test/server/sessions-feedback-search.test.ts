// Memory feedback and session transcript search over real HTTP (docs/api.md#memory-feedback,
// docs/api.md#session-search): which ratings are accepted, how they move recall's order (bounded,
// scores never lifted), recall recording surfaced ids; search scoping, clamping and parent lookup.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RECALL_STRONG_SCORE } from "../../src/contracts/scores";
import type { FeedbackResponse, SessionSearchResponse } from "../../src/contracts/session";
import { API } from "../../src/contracts/api";
import type { BodyOf } from "../../src/contracts/operation";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call, expectError } from "../helpers/memory-api";
import { eventually } from "../helpers/wait";

let td: TestDaemon;
beforeAll(async () => {
  td = await startTestDaemon();
});
afterAll(async () => {
  await td.stop();
});

const remember = async (body: BodyOf<typeof API.memory.remember>, agent = "default") => (await td.client(agent).memory.remember(body)).id;
const hook = (event: string, body: Record<string, unknown>, agent = "default") => call(td, "POST", `/api/hooks/${event}`, { body, agent });
const feedback = (body: Record<string, unknown>, agent = "default") => call(td, "POST", "/api/memory/feedback", { body, agent });
/** Waits until recall's bookkeeping (written just after the answer) has recorded the session's ids. */
async function surfacedIn(session: string, ids: string[]): Promise<void> {
  const db = td.daemon.context.stores.sqlite!;
  const seen = () => {
    const rows = db.query<{ memory_id: string }, [string]>("SELECT memory_id FROM session_memories WHERE session_key = ?").all(session);
    return ids.every((id) => rows.some((r) => r.memory_id === id));
  };
  if (!(await eventually(seen, 10_000))) throw new Error("recall did not record the surfaced ids");
}

describe("memory feedback", () => {
  test("accepts ratings only for memories injected or surfaced in that session, for that agent", async () => {
    // Each is about its project, so a rating that moves its signal also moves the knowledge graph (propagated).
    const injected = await remember({ content: "Feedback probe: the build uses ninja", pinned: true, project: "forge" });
    const surfaced = await remember({ content: "Feedback probe: deployments happen on Tuesdays", project: "forge" });
    const stranger = await remember({ content: "Feedback probe: never shown anywhere" });
    await hook("session-start", { sessionKey: "fb-1", harness: "claude-code" });
    // Strong matches only: a recall without a minimum would surface the stranger too, as a weak match.
    const recalled = await td.client().memory.recall({ query: "deployments Tuesdays", sessionKey: "session:fb-1", minScore: RECALL_STRONG_SCORE });
    expect(recalled.results.map((r) => r.id)).toContain(surfaced);
    await surfacedIn("fb-1", [surfaced]);

    const res = await feedback({ sessionKey: "fb-1", ratings: { [injected]: 1, [surfaced]: -0.5, [stranger]: 1, "not-an-id": 0 } });
    expect(res.status).toBe(200);
    const body = res.body as FeedbackResponse;
    expect(body).toMatchObject({ ok: true, recorded: 4, accepted: 2, rejected: 2, propagated: 2 });
    expect(body.rejectedIds.sort()).toEqual([stranger, "not-an-id"].sort());
    // Rated again with the same values: accepted, but no signal changes.
    expect((await feedback({ sessionKey: "session:fb-1", ratings: { [injected]: 1 } })).body).toMatchObject({ accepted: 1, propagated: 0 });
    // Another agent cannot rate this session's memories.
    expect((await feedback({ sessionKey: "fb-1", ratings: { [injected]: -1 } }, "intruder")).body).toMatchObject({ accepted: 0, rejected: 1 });
    const signal = td.daemon.context.stores.sqlite!.query("SELECT signal, ratings FROM memory_feedback WHERE memory_id = ?").get(injected);
    expect(signal).toEqual({ signal: 1, ratings: 1 });
    const detail = await td.client().sessions.get("fb-1");
    expect(detail.memories.find((m) => m.memoryId === surfaced)).toMatchObject({ via: "recall", rating: -0.5 });
  });

  test("bad input is a 400 naming the field and records nothing", async () => {
    expectError(await feedback({ ratings: { a: 1 } }), 400, "invalid_input", "sessionKey");
    expectError(await feedback({ sessionKey: "fb-1" }), 400, "invalid_input", "ratings");
    expectError(await feedback({ sessionKey: "fb-1", ratings: {} }), 400, "invalid_input", "ratings");
    expectError(await feedback({ sessionKey: "fb-1", ratings: { a: 2 } }), 400, "invalid_input", "ratings.a");
    expectError(await feedback({ sessionKey: "fb-1", ratings: { a: "good" } }), 400, "invalid_input", "ratings.a");
    expectError(await feedback({ sessionKey: "fb-1", ratings: { a: 1 }, extra: true }), 400, "invalid_input", "extra");
  });
});

describe("feedback moves recall's order, within bounds", () => {
  test("for one query, a memory rated -1 drops, one rated +1 rises, and neither passes a clearly better match", async () => {
    const agent = "ranker";
    // Three equally matching memories (same words, same length), and one that matches the query far
    // better. The three are a second apart: stored in one millisecond, their order would be a tie.
    const secondsAgo = (n: number) => new Date(Date.now() - n * 1000).toISOString();
    const a = await remember({ content: "orchid watering schedule alpha", createdAt: secondsAgo(3) }, agent);
    const b = await remember({ content: "orchid watering schedule bravo", createdAt: secondsAgo(2) }, agent);
    const c = await remember({ content: "orchid watering schedule charlie", createdAt: secondsAgo(1) }, agent);
    const best = await remember({ content: "orchid greenhouse humidity watering schedule misting" }, agent);
    const query = { query: "orchid greenhouse humidity misting watering schedule", limit: 10, minScore: 0 };
    const before = await td.client(agent).memory.recall(query);
    const order = (r: typeof before) => r.results.map((x) => x.id);
    expect(order(before)[0]).toBe(best);

    // The equal three come newest first: c, b, a. Rate the first -1 and the last +1.
    expect(order(before).slice(1)).toEqual([c, b, a]);
    await td.client(agent).memory.recall({ ...query, sessionKey: "rank-1" });
    await surfacedIn("rank-1", [a, c]);
    // They are about no entity, so nothing of the knowledge graph moves.
    expect(await td.client(agent).sessions.feedback({ sessionKey: "rank-1", ratings: { [c]: -1, [a]: 1 } })).toMatchObject({ accepted: 2, propagated: 0 });

    const after = await td.client(agent).memory.recall(query);
    expect(order(after)).toEqual([best, a, b, c]);
    const scoresAfter = Object.fromEntries(after.results.map((r) => [r.id, r.score]));
    // Scores stay honest: a, rated +1, ranks above b, whose text matches as well, but scores no
    // higher; c, rated -1, scores lower than b; the better match keeps the best score.
    expect(scoresAfter[a]).toBe(scoresAfter[b]!);
    expect(scoresAfter[c]).toBeLessThan(scoresAfter[b]!);
    expect(scoresAfter[best]).toBeGreaterThan(scoresAfter[a]!);

    // The clearly better match rated -1 and a weak one +1 in another session: the order holds.
    await td.client(agent).memory.recall({ ...query, sessionKey: "rank-2" });
    await surfacedIn("rank-2", [best, b]);
    await td.client(agent).sessions.feedback({ sessionKey: "rank-2", ratings: { [best]: -1, [b]: 1 } });
    expect(order(await td.client(agent).memory.recall(query))[0]).toBe(best);
  });
});

describe("session search", () => {
  beforeAll(async () => {
    for (let i = 0; i < 25; i++) {
      await hook("session-end", { sessionKey: `many-${i}`, harness: "codex", project: i % 2 ? "/odd" : "/even", transcript: `user: talk about zeppelin number ${i}` });
    }
    await hook("session-end", { sessionKey: "other-agent", harness: "codex", transcript: "user: zeppelin secrets of another agent" }, "other");
  });

  test("limit defaults to 10, larger limits are clamped to 20, hits are ranked", async () => {
    const d = (await call(td, "POST", "/api/sessions/search", { body: { query: "zeppelin" } })).body as SessionSearchResponse;
    expect(d.count).toBe(10);
    const big = (await call(td, "POST", "/api/sessions/search", { body: { query: "zeppelin", limit: 500 } })).body as SessionSearchResponse;
    expect(big.count).toBe(20);
    expect(big.hits.map((h) => h.rank)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(big.hits[0]).toEqual({ sessionKey: expect.any(String), project: expect.any(String), updatedAt: expect.any(String), excerpt: expect.stringContaining("zeppelin"), rank: 1 });
    expect(big.query).toBe("zeppelin");
  });

  test("an agent searches only its own agent's transcripts; project and session filters apply", async () => {
    const mine = (await call(td, "POST", "/api/sessions/search", { body: { query: "zeppelin secrets", limit: 20 } })).body as SessionSearchResponse;
    expect(mine.hits.map((h) => h.sessionKey)).not.toContain("other-agent");
    const theirs = (await call(td, "POST", "/api/sessions/search", { body: { query: "zeppelin secrets" }, agent: "other" })).body as SessionSearchResponse;
    expect(theirs.hits.map((h) => h.sessionKey)).toEqual(["other-agent"]);
    const odd = (await call(td, "POST", "/api/sessions/search", { body: { query: "zeppelin", project: "/odd", limit: 20 } })).body as SessionSearchResponse;
    expect(odd.count).toBe(12);
    expect(odd.hits.every((h) => h.project === "/odd")).toBe(true);
    const one = (await call(td, "POST", "/api/sessions/search", { body: { query: "zeppelin", sessionKey: "session:many-7" } })).body as SessionSearchResponse;
    expect(one.hits.map((h) => h.sessionKey)).toEqual(["many-7"]);
  });

  test("currentSessionKey finds the parent's transcript: recorded parent, or agent:<id>:subagent:<x>", async () => {
    await hook("session-start", { sessionKey: "agent:orca:main", harness: "openclaw" });
    await hook("user-prompt-submit", { sessionKey: "agent:orca:main", harness: "openclaw", prompt: "the trunk ports move to 8443 tonight" });
    await hook("session-end", { sessionKey: "unrelated", harness: "openclaw", transcript: "user: trunk ports elsewhere" });
    await hook("session-start", { sessionKey: "agent:orca:subagent:x1", harness: "openclaw" });
    const derived = (await call(td, "POST", "/api/sessions/search", { body: { query: "trunk ports", currentSessionKey: "agent:orca:subagent:x1" } }))
      .body as SessionSearchResponse;
    expect(derived.hits.map((h) => h.sessionKey)).toEqual(["agent:orca:main"]);
    await hook("session-start", { sessionKey: "kid", parentSessionKey: "unrelated", harness: "claude-code" });
    const recorded = (await call(td, "POST", "/api/sessions/search", { body: { query: "trunk ports", currentSessionKey: "kid" } })).body as SessionSearchResponse;
    expect(recorded.hits.map((h) => h.sessionKey)).toEqual(["unrelated"]);
  });
});
