// The knowledge graph through the real daemon: extraction behind the writes, a Dreaming pass that
// merges, supersedes, relates and queues reviews, the reads, and who may do what.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { databasePath } from "../../src/config/paths";
import { GRAPH_API } from "../../src/contracts/graph";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call, expectError, useTestDaemon } from "../helpers/memory-api";
import { bearer, exactly, roleTokens } from "../helpers/operations";
import { eventually } from "../helpers/wait";

async function remember(td: TestDaemon, agent: string, body: Record<string, unknown>): Promise<string> {
  const res = await call(td, "POST", "/api/memory/remember", { agent, body: { type: "fact", ...body } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function dream(td: TestDaemon, body: Record<string, unknown> = {}) {
  const res = await call(td, "POST", "/api/graph/dream", { body, headers: td.ownerHeaders });
  expect(res.status).toBe(200);
  exactly(GRAPH_API.dream.response, res.body);
  return res.body.dream;
}

async function entities(td: TestDaemon, agent: string, query = "") {
  const res = await call(td, "GET", `/api/graph/entities?query=${encodeURIComponent(query)}&limit=50`, { agent });
  expect(res.status).toBe(200);
  exactly(GRAPH_API.entities.response, res.body);
  return res.body.entities as { id: string; name: string; type: string; aliases: string[]; mentions: number }[];
}

async function entity(td: TestDaemon, agent: string, ref: string) {
  const res = await call(td, "GET", `/api/graph/entities/${encodeURIComponent(ref)}`, { agent });
  expect(res.status).toBe(200);
  exactly(GRAPH_API.entity.response, res.body);
  return res.body;
}

describe("extraction and Dreaming", () => {
  const daemon = useTestDaemon();

  test("a lone name merges into the one full name it can be when the evidence ties them; two candidates stay apart", async () => {
    const td = daemon();
    await remember(td, "merge", { content: "Dana Weber leads the payments team and signs off releases.", project: "payments" });
    await remember(td, "merge", { content: "Dana approved the payments rollout for Thursday.", project: "payments" });
    await remember(td, "merge", { content: "Priya Raman owns the search service.", project: "search" });
    await remember(td, "merge", { content: "Priya Shah runs the design reviews.", project: "design" });
    await remember(td, "merge", { content: "Priya asked for the search latency numbers.", project: "search" });
    await td.daemon.context.graph.settled();
    const before = await entities(td, "merge", "dana");
    expect(before.map((e) => e.name).sort()).toEqual(["Dana", "Dana Weber"]);

    const dry = await dream(td, { agentId: "merge", dryRun: true });
    expect(dry.id).toBeNull();
    expect(dry.counts.merge).toBe(1);
    expect(await entities(td, "merge", "dana")).toHaveLength(2);

    const pass = await dream(td, { agentId: "merge" });
    expect(pass.id).toBeGreaterThan(0);
    expect(pass.actions.filter((a: { action: string }) => a.action === "merge").map((a: { detail: { fromName: string; intoName: string } }) => [a.detail.fromName, a.detail.intoName])).toEqual([
      ["Dana", "Dana Weber"],
    ]);
    const dana = await entities(td, "merge", "dana");
    expect(dana).toHaveLength(1);
    expect(dana[0]).toMatchObject({ name: "Dana Weber", type: "person", aliases: ["Dana"], mentions: 2 });
    // Two Priyas: "Priya" could be either, so it stays on its own.
    expect((await entities(td, "merge", "priya")).map((e) => e.name).sort()).toEqual(["Priya", "Priya Raman", "Priya Shah"]);
    // The merged name finds the entity it went into.
    expect((await entity(td, "merge", "Dana")).entity.name).toBe("Dana Weber");
    // The audit table holds what the pass did.
    const db = new Database(databasePath(td.dataDir), { readonly: true });
    try {
      const audit = db.query<{ action: string }, [number]>("SELECT action FROM graph_audit WHERE dream_id = ?").all(pass.id);
      expect(audit.filter((a) => a.action === "merge")).toHaveLength(1);
    } finally {
      db.close();
    }
  });

  test("newer evidence for the same slot supersedes the older claim, which stays with its dates", async () => {
    const td = daemon();
    const old = await remember(td, "slots", { content: "The staging DB is heron-7.", project: "orders" });
    const newer = await remember(td, "slots", { content: "Heads up: the staging DB is now heron-8 after the migration.", project: "orders" });
    await td.daemon.context.graph.settled();
    const pass = await dream(td, { agentId: "slots" });
    expect(pass.counts.supersede).toBe(1);
    const detail = await entity(td, "slots", "staging DB");
    const claims = detail.claims.filter((c: { slot: string }) => c.slot === "is");
    expect(claims.map((c: { value: string; status: string; memoryId: string }) => [c.value, c.status, c.memoryId])).toEqual([
      ["heron-8", "active", newer],
      ["heron-7", "superseded", old],
    ]);
    expect(claims[1].validUntil).toBe(claims[0].validFrom);
    expect(claims[1].supersededBy).toBe(claims[0].id);
    // In recall the superseded memory ranks below the one that superseded it, and each says what it is about.
    const recalled = await call(td, "POST", "/api/memory/recall", { agent: "slots", body: { query: "staging DB", minScore: 0 } });
    expect(recalled.body.results.map((r: { id: string }) => r.id)).toEqual([newer, old]);
    expect(recalled.body.results[0].entities).toEqual(["staging DB", "orders"]);
    // A second pass has nothing left to do with them.
    expect((await dream(td, { agentId: "slots" })).counts.supersede).toBe(0);
    // Forgetting the newer memory gives the slot back to the older value at the next pass.
    expect((await call(td, "DELETE", `/api/memory/${newer}`, { agent: "slots", body: { reason: "wrong" } })).status).toBe(200);
    await td.daemon.context.graph.settled();
    expect((await dream(td, { agentId: "slots" })).counts.reinstate).toBe(1);
    const after = (await entity(td, "slots", "staging DB")).claims.filter((c: { slot: string }) => c.slot === "is");
    expect(after.map((c: { value: string; status: string }) => [c.value, c.status])).toEqual([["heron-7", "active"]]);
  });

  test("a structured payload's attributes are claims of its entity; co-mentioned entities are related", async () => {
    const td = daemon();
    await remember(td, "structured", {
      content: "Kenji Sato runs on-call for the billing service.",
      project: "billing",
      structured: { entity: "Kenji Sato", entityType: "person", aliases: ["ksato"], attributes: { role: "on-call lead", timezone: "JST" } },
    });
    await td.daemon.context.graph.settled();
    await dream(td, { agentId: "structured" });
    const detail = await entity(td, "structured", "ksato");
    expect(detail.entity).toMatchObject({ name: "Kenji Sato", type: "person", aliases: ["ksato"] });
    expect(detail.aspects).toEqual([{ name: "attributes", weight: 1 }]);
    const attrs = Object.fromEntries(detail.claims.map((c: { slot: string; value: string }) => [c.slot, c.value]));
    expect(attrs).toEqual({ role: "on-call lead", timezone: "JST" });
    expect(detail.relations.map((r: { entity: { name: string }; type: string }) => [r.entity.name, r.type])).toEqual([["billing", "co-occurs"]]);
    expect(detail.memories).toHaveLength(1);
  });

  test("a memory whose reviewAfter has passed is queued for review once", async () => {
    const td = daemon();
    await remember(td, "review", { content: "Rotate the deploy key", reviewAfter: "2020-01-01T00:00:00.000Z" });
    await remember(td, "review", { content: "Renew the TLS cert", reviewAfter: "2999-01-01T00:00:00.000Z" });
    await td.daemon.context.graph.settled();
    const pass = await dream(td, { agentId: "review" });
    expect(pass.counts.review).toBe(1);
    expect(pass.actions.find((a: { action: string }) => a.action === "review").detail.dueAt).toBe("2020-01-01T00:00:00.000Z");
    expect((await dream(td, { agentId: "review" })).counts.review).toBe(0);
  });

  test("a due review is listed at one session start, with why, and not at the next", async () => {
    const td = daemon();
    const due = await remember(td, "reviews-at-start", { content: "The VPN certificate expires this month", reviewAfter: "2021-06-01T00:00:00.000Z" });
    await td.daemon.context.graph.settled();
    await dream(td, { agentId: "reviews-at-start" });
    const start = async (sessionKey: string) =>
      (await call(td, "POST", "/api/hooks/session-start", { agent: "reviews-at-start", body: { sessionKey, harness: "claude-code" } })).body;
    const first = await start("review-1");
    expect(first.context).toContain("## Due for review");
    expect(first.context).toContain(`- ${due} (fact) [reviewAfter 2021-06-01T00:00:00.000Z has passed] The VPN certificate expires this month`);
    expect((await start("review-2")).context ?? "").not.toContain("Due for review");
  });

  test("feedback moves the aspect weights on the rated memory's entity paths, and says so", async () => {
    const td = daemon();
    const agent = "propagation";
    const id = await remember(td, agent, {
      content: "Ravi Kumar is the payments on-call this week",
      structured: { entity: "Ravi Kumar", entityType: "person", aspect: "rota", attributes: { oncall: "payments" } },
      pinned: true,
    });
    await call(td, "POST", "/api/hooks/session-start", { agent, body: { sessionKey: "prop-1", harness: "claude-code" } });
    const rated = await call(td, "POST", "/api/memory/feedback", { agent, body: { sessionKey: "prop-1", ratings: { [id]: 1 } } });
    expect(rated.body).toMatchObject({ accepted: 1, propagated: 1 });
    const weights = (await entity(td, agent, "Ravi Kumar")).aspects;
    expect(weights).toEqual([{ name: "rota", weight: expect.closeTo(Math.exp(0.2), 6) }]);
    // The same rating again moves neither the memory's signal nor the graph.
    expect((await call(td, "POST", "/api/memory/feedback", { agent, body: { sessionKey: "prop-1", ratings: { [id]: 1 } } })).body).toMatchObject({ accepted: 1, propagated: 0 });
    expect((await entity(td, agent, "Ravi Kumar")).aspects[0].weight).toBeCloseTo(Math.exp(0.2), 6);
    // The session removed, its rating goes, from the graph too.
    expect((await call(td, "DELETE", "/api/sessions/prop-1", { headers: td.ownerHeaders })).status).toBe(200);
    expect((await entity(td, agent, "Ravi Kumar")).aspects[0].weight).toBeCloseTo(1, 6);
  });

  test("importance decays with time since last use, never a pinned memory's, and comes back with use or a change", async () => {
    const td = daemon();
    const agent = "decay";
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
    const stale = await remember(td, agent, { content: "old note about the quarterly audit", importance: 0.8, createdAt: daysAgo(390) });
    const pinned = await remember(td, agent, { content: "old pinned note about the audit", importance: 0.8, createdAt: daysAgo(390), pinned: true });
    const fresh = await remember(td, agent, { content: "new note about the audit", importance: 0.8 });
    const importance = async (id: string) => (await call(td, "GET", `/api/memory/${id}`, { agent })).body.importance;
    const version = async (id: string) => (await call(td, "GET", `/api/memory/${id}`, { agent })).body.version;
    const dry = await dream(td, { agentId: agent, dryRun: true });
    expect(dry.counts.decay).toBe(1);
    expect(await importance(stale)).toBe(0.8);
    const pass = await dream(td, { agentId: agent });
    // 360 days past the 30 unused ones: two half-lives, 0.8 → 0.2; the decay is upkeep, not an edit.
    expect(pass.actions.find((a: { action: string }) => a.action === "decay").detail).toEqual({ memory: stale, from: 0.8, to: 0.2 });
    expect([await importance(stale), await importance(pinned), await importance(fresh)]).toEqual([0.2, 0.8, 0.8]);
    expect(await version(stale)).toBe(1);
    expect((await dream(td, { agentId: agent })).counts.decay).toBe(0);
    // Used again (a recall returned it): the next pass gives its importance back.
    const used = await call(td, "POST", "/api/memory/recall", { agent, body: { query: "quarterly audit", minScore: 0 } });
    expect(used.body.results.map((r: { id: string }) => r.id)).toContain(stale);
    expect(
      await eventually(async () => {
        await dream(td, { agentId: agent });
        return (await importance(stale)) === 0.8;
      }),
    ).toBe(true);
  });

  test("another agent sees none of an agent's graph", async () => {
    const td = daemon();
    await remember(td, "owner-a", { content: "Marta Lind maintains the ingest pipeline.", project: "ingest" });
    await td.daemon.context.graph.settled();
    expect((await entities(td, "owner-a", "marta")).map((e) => e.name)).toEqual(["Marta Lind"]);
    expect(await entities(td, "owner-b", "marta")).toEqual([]);
    expectError(await call(td, "GET", `/api/graph/entities/${encodeURIComponent("Marta Lind")}`, { agent: "owner-b" }), 404, "not_found");
    const { entities: [marta] } = (await call(td, "GET", "/api/graph/entities?query=marta", { agent: "owner-a" })).body;
    expectError(await call(td, "GET", `/api/graph/entities/${marta.id}`, { agent: "owner-b" }), 404, "not_found");
    // A pass for owner-b touches nothing of owner-a's.
    const pass = await dream(td, { agentId: "owner-b" });
    expect(Object.values(pass.counts).every((n) => n === 0)).toBe(true);
  });

  test("bad input is refused and changes nothing", async () => {
    const td = daemon();
    expectError(await call(td, "GET", "/api/graph/entities?limit=0"), 400, "invalid_input", "limit");
    expectError(await call(td, "GET", "/api/graph/entities?bogus=1"), 400, "invalid_input");
    expectError(await call(td, "POST", "/api/graph/dream", { body: { dryRun: "yes" }, headers: td.ownerHeaders }), 400, "invalid_input", "dryRun");
    expectError(await call(td, "GET", "/api/graph/entities/nothing-here"), 404, "not_found");
  });
});

describe("what counts as evidence", () => {
  const daemon = useTestDaemon();

  const recall = async (td: TestDaemon, agent: string, body: Record<string, unknown>) => {
    const res = await call(td, "POST", "/api/memory/recall", { agent, body: { minScore: 0, ...body } });
    expect(res.status).toBe(200);
    return res.body;
  };
  const slot = async (td: TestDaemon, agent: string): Promise<[value: string, status: string, memoryId: string][]> =>
    (await entity(td, agent, "staging DB")).claims
      .filter((c: { slot: string }) => c.slot === "is")
      .map((c: { value: string; status: string; memoryId: string }) => [c.value, c.status, c.memoryId]);

  test("a saved aggregate quoting older and newer values is never evidence: the newer value stays current", async () => {
    const td = daemon();
    const agent = "aggregates";
    const old = await remember(td, agent, { content: "The staging DB is heron-7." });
    const newer = await remember(td, agent, { content: "The staging DB is heron-8." });
    await td.daemon.context.graph.settled();
    expect((await dream(td, { agentId: agent })).counts.supersede).toBe(1);
    // The extractive answer quotes both memories' sentences, the older one last, and is saved.
    const answered = await recall(td, agent, { query: "staging DB", aggregate: true });
    expect(answered.aggregate.mode).toBe("extractive");
    expect(answered.aggregate.answer).toContain("heron-7");
    const saved = answered.aggregate.saved.id as string;
    expect(saved).toBeString();
    await td.daemon.context.graph.settled();
    expect((await dream(td, { agentId: agent })).counts).toMatchObject({ supersede: 0, reinstate: 0 });
    expect(await slot(td, agent)).toEqual([
      ["heron-8", "active", newer],
      ["heron-7", "superseded", old],
    ]);
    // The aggregate is about nothing in the graph, and recall keeps the newer value first.
    const results = (await recall(td, agent, { query: "staging DB" })).results as { id: string; entities: string[] }[];
    expect(results.map((r) => r.id).filter((id) => id !== saved)).toEqual([newer, old]);
    expect(results.find((r) => r.id === saved)?.entities ?? []).toEqual([]);
  });

  test("a claim supersedes only claims of its own project; a global memory's stand apart", async () => {
    const td = daemon();
    const agent = "projects";
    const shop = await remember(td, agent, { content: "The staging DB is heron-7.", project: "/work/shop" });
    const blog = await remember(td, agent, { content: "The staging DB is osprey-2.", project: "/work/blog" });
    const global = await remember(td, agent, { content: "The staging DB is kite-1." });
    await td.daemon.context.graph.settled();
    expect((await dream(td, { agentId: agent })).counts.supersede).toBe(0);
    expect((await slot(td, agent)).map(([value, status]) => [value, status]).sort()).toEqual([
      ["heron-7", "active"],
      ["kite-1", "active"],
      ["osprey-2", "active"],
    ]);
    const results = (await recall(td, agent, { query: "what is the staging DB heron?" })).results as { id: string; score: number }[];
    expect(results[0]!.id).toBe(shop);
    // Within a project the newer value still supersedes the older.
    const moved = await remember(td, agent, { content: "The staging DB is heron-9.", project: "/work/shop" });
    await td.daemon.context.graph.settled();
    const pass = await dream(td, { agentId: agent });
    expect(pass.counts.supersede).toBe(1);
    expect(pass.actions.find((a: { action: string }) => a.action === "supersede").detail.value).toBe("heron-7");
    const current = (await slot(td, agent)).filter(([, status]) => status === "active").map(([, , id]) => id);
    expect(current.sort()).toEqual([moved, blog, global].sort());
  });
});

describe("a store an older version left", () => {
  test("an aggregate the graph read is taken out at start, and the next pass gives the slot back to its newest evidence", async () => {
    const td = await startTestDaemon();
    const agent = "upgrade";
    let newer: string, quoting: string;
    try {
      await remember(td, agent, { content: "The staging DB is heron-7." });
      newer = await remember(td, agent, { content: "The staging DB is heron-8." });
      // What an older version made of a saved aggregate: read as evidence, its last quote current.
      quoting = await remember(td, agent, { content: "Extractive summary: The staging DB is heron-8. The staging DB is heron-7." });
      await td.daemon.context.graph.settled();
      await dream(td, { agentId: agent });
      const heron8 = (await entity(td, agent, "staging DB")).claims.filter((c: { value: string }) => c.value === "heron-8");
      expect(heron8.map((c: { status: string; memoryId: string }) => [c.status, c.memoryId]).sort()).toEqual([["superseded", newer], ["superseded", quoting]].sort());
    } finally {
      await td.daemon.stop();
    }
    const db = new Database(databasePath(td.dataDir));
    db.query("UPDATE memories SET type = 'aggregate' WHERE id = ?").run(quoting);
    db.close();
    const again = await startTestDaemon({ dataDir: td.dataDir });
    try {
      const read = () => again.daemon.context.stores.sqlite!.query<{ n: number }, []>("SELECT count(*) AS n FROM graph_extracted").get()!.n;
      expect(await eventually(async () => (await again.daemon.context.graph.settled(), read() === 2))).toBe(true);
      expect((await dream(again, { agentId: agent })).counts.reinstate).toBe(1);
      const current = (await entity(again, agent, "staging DB")).claims.filter((c: { status: string }) => c.status === "active");
      expect(current.map((c: { value: string; memoryId: string }) => [c.value, c.memoryId])).toEqual([["heron-8", newer]]);
    } finally {
      await again.stop();
    }
  });
});

describe("who may do what", () => {
  test("a pass needs the owner's admin token; an agent's token reads only its own agent's graph", async () => {
    const td = await startTestDaemon({ yaml: "auth:\n  mode: team\n" });
    try {
      const tokens = await roleTokens(td, "team-agent");
      await call(td, "POST", "/api/memory/remember", { body: { content: "Noor Haddad reviews the schema changes.", type: "fact" }, headers: bearer(tokens.agent) });
      await td.daemon.context.graph.settled();
      // No credential, an agent's token, even an admin-role token: no pass.
      expectError(await call(td, "POST", "/api/graph/dream", { body: {} }), 401, "unauthorized");
      for (const token of [tokens.agent, tokens.admin]) {
        const res = await call(td, "POST", "/api/graph/dream", { body: { agentId: "team-agent" }, headers: bearer(token) });
        expect([401, 403]).toContain(res.status);
      }
      const own = await call(td, "GET", "/api/graph/entities?query=noor", { headers: bearer(tokens.agent) });
      expect(own.body.entities.map((e: { name: string }) => e.name)).toEqual(["Noor Haddad"]);
      // The agent's token is bound to its agent: asking for another agent's graph gives its own.
      const forged = await call(td, "GET", "/api/graph/entities?query=noor&agent_id=someone-else", { headers: bearer(tokens.agent) });
      expect(forged.body.entities.map((e: { name: string }) => e.name)).toEqual(["Noor Haddad"]);
      const other = await roleTokens(td, "other-agent");
      expect((await call(td, "GET", "/api/graph/entities?query=noor", { headers: bearer(other.agent) })).body.entities).toEqual([]);
      // The owner's pass runs.
      expect((await call(td, "POST", "/api/graph/dream", { body: { agentId: "team-agent" }, headers: td.ownerHeaders })).status).toBe(200);
    } finally {
      await td.stop();
    }
  });
});

describe("a web page cannot reach the graph", () => {
  const daemon = useTestDaemon();

  test("a foreign Origin, a simple text/plain POST and a rebound Host are refused before the route, and no pass runs", async () => {
    const td = daemon();
    const raw = (path: string, init: RequestInit) => fetch(`${td.url}${path}`, init);
    const body = JSON.stringify({});
    const withOwner = { ...td.ownerHeaders, "content-type": "application/json" };
    expect((await raw("/api/graph/dream", { method: "POST", body, headers: { ...withOwner, origin: "http://evil.example" } })).status).toBe(403);
    expect((await raw("/api/graph/dream", { method: "POST", body, headers: { ...td.ownerHeaders, "content-type": "text/plain" } })).status).toBe(415);
    expect((await raw("/api/graph/entities", { headers: { host: "evil.example" } })).status).toBe(403);
    expect((await raw("/api/graph/entities", { headers: { origin: "http://evil.example" } })).status).toBe(403);
    const passes = td.daemon.context.stores.sqlite!.query<{ n: number }, []>("SELECT count(*) AS n FROM graph_dreams").get()!.n;
    expect(passes).toBe(0);
  });
});

describe("what extraction has not read survives a restart", () => {
  test("a store whose extraction record was lost is read again at start", async () => {
    const td = await startTestDaemon();
    try {
      await remember(td, "default", { content: "Ines Duarte owns the release calendar.", project: "release" });
      await td.daemon.context.graph.settled();
      expect((await entities(td, "default", "ines")).map((e) => e.name)).toEqual(["Ines Duarte"]);
    } finally {
      await td.daemon.stop();
    }
    // As if the daemon died between the write's commit and extraction's: nothing of it in the graph.
    const db = new Database(databasePath(td.dataDir));
    db.run("DELETE FROM graph_mentions");
    db.run("DELETE FROM graph_extracted");
    db.close();
    const again = await startTestDaemon({ dataDir: td.dataDir });
    try {
      const deadline = Date.now() + 10_000;
      let names: string[] = [];
      while (Date.now() < deadline) {
        await again.daemon.context.graph.settled();
        names = (await entities(again, "default", "ines")).filter((e) => e.mentions > 0).map((e) => e.name);
        if (names.length > 0) break;
        await Bun.sleep(20);
      }
      expect(names).toEqual(["Ines Duarte"]);
    } finally {
      await again.stop();
    }
  });
});

describe("the model step, with an llm configured", () => {
  // A local fake speaking the OpenAI wire format: a real model cannot run here. It names the two
  // numbers the prompt gives "Postgres" and "PostgreSQL", or the staging DB's `is` and `host`
  // attributes, or fails when told to.
  let failing = false;
  const prompts: string[] = [];
  const llm = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { messages: { content: string }[] };
      const prompt = body.messages.map((m) => m.content).join("\n");
      prompts.push(prompt);
      if (failing) return new Response("overloaded", { status: 500 });
      const number = (name: string) => new RegExp(`\\[(\\d+)\\] ${name}`).exec(prompt)?.[1];
      const answer = prompt.includes("Attributes:")
        ? `${number("staging DB: general.is")}=${number("staging DB: attributes.host")}`
        : `${number("Postgres \\(")}=${number("PostgreSQL \\(")}`;
      return Response.json({ choices: [{ message: { content: answer } }] });
    },
  });
  afterAll(() => llm.stop(true));
  const daemon = useTestDaemon({ yaml: `llm:\n  provider: openai\n  model: fake\n  baseUrl: http://127.0.0.1:${llm.port}\n` });

  test("it proposes what the rules leave apart; the pass applies it only when told to", async () => {
    const td = daemon();
    await remember(td, "default", { content: "We run Postgres 15 for the orders service.", project: "orders" });
    await remember(td, "default", { content: "PostgreSQL backs the billing ledger.", project: "billing" });
    await td.daemon.context.graph.settled();
    const proposed = await dream(td);
    expect(proposed.llm).toEqual({ model: "openai/fake", status: "proposed" });
    expect(proposed.counts).toMatchObject({ merge: 0, propose: 1 });
    expect(proposed.actions[0]).toMatchObject({ action: "propose", detail: { fromName: "Postgres", intoName: "PostgreSQL", why: "proposed by openai/fake" } });
    expect(prompts.at(-1)).toContain("PostgreSQL (thing, 1 mentions)");
    expect((await entities(td, "default", "postgres")).map((e) => e.name).sort()).toEqual(["PostgreSQL", "Postgres"]);

    const applied = await dream(td, { apply: true });
    expect(applied.llm).toEqual({ model: "openai/fake", status: "applied" });
    expect(applied.actions.find((a: { action: string }) => a.action === "merge").detail).toMatchObject({ fromName: "Postgres", intoName: "PostgreSQL", why: "proposed by openai/fake" });
    expect(await entities(td, "default", "postgres")).toEqual([expect.objectContaining({ name: "PostgreSQL", aliases: ["Postgres"], mentions: 2 })]);
  });

  test("it says which of an entity's slots hold one attribute; applied, the newer value supersedes the older", async () => {
    const td = daemon();
    const agent = "slots-llm";
    const old = await remember(td, agent, { content: "The staging DB is heron-7." });
    await Bun.sleep(5);
    const newer = await remember(td, agent, { content: "Moved the staging database.", structured: { entity: "staging DB", attributes: { host: "heron-8" } } });
    await td.daemon.context.graph.settled();
    const proposed = await dream(td, { agentId: agent });
    expect(proposed.llm).toEqual({ model: "openai/fake", status: "proposed" });
    expect(proposed.actions.find((a: { action: string }) => a.action === "propose").detail).toMatchObject({ sameSlot: "staging DB", from: "general.is", into: "attributes.host" });
    const applied = await dream(td, { agentId: agent, apply: true });
    expect(applied.counts).toMatchObject({ rename: 1, supersede: 1 });
    const claims = (await entity(td, agent, "staging DB")).claims;
    expect(claims.map((c: { aspect: string; slot: string; value: string; status: string; memoryId: string }) => [`${c.aspect}.${c.slot}`, c.value, c.status, c.memoryId])).toEqual([
      ["attributes.host", "heron-8", "active", newer],
      ["attributes.host", "heron-7", "superseded", old],
    ]);
  });

  test("a failing model is reported and the rest of the pass runs", async () => {
    const td = daemon();
    failing = true;
    try {
      await remember(td, "llm-fails", { content: "We moved Postgres to version 16.", reviewAfter: "2020-01-01T00:00:00.000Z" });
      await remember(td, "llm-fails", { content: "PostgreSQL runs on the database host." });
      await td.daemon.context.graph.settled();
      const pass = await dream(td, { agentId: "llm-fails" });
      expect(pass.llm).toMatchObject({ model: "openai/fake", status: "failed" });
      expect(pass.llm.reason).toStartWith("refused");
      expect(pass.counts.review).toBe(1);
      // Without two look-alike names the model is not asked at all.
      const quiet = await dream(td, { agentId: "llm-quiet" });
      expect(quiet.llm).toBeUndefined();
    } finally {
      failing = false;
    }
  });
});
