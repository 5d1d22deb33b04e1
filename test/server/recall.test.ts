// POST /api/memory/recall over real HTTP: filters, fusion, supporting context, bookkeeping, and
// the embedding provider going down and coming back (a local fake service stands in for it).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { RecallResponse } from "../../src/contracts/recall";
import { API } from "../../src/contracts/api";
import type { BodyOf } from "../../src/contracts/operation";
import { rmSync } from "node:fs";
import { SignetClient } from "../../src/client/client";
import { loadConfig } from "../../src/config/load";
import { startDaemon } from "../../src/server/daemon";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { eventually } from "../helpers/wait";
import { startFakeEmbedder, type FakeEmbedder } from "../helpers/fake-embedder";

type RecallBody = BodyOf<typeof API.recall.recall>;
type RememberBody = BodyOf<typeof API.memory.remember>;

async function recall(td: TestDaemon, body: RecallBody, agent = "default"): Promise<RecallResponse> {
  return td.client(agent).memory.recall(body);
}

/**
 * Every candidate, however weak: the fake embedder's bag-of-words cosines sit under the ramp of a
 * model Signet has not measured (docs/api.md#scores), and these tests are about the vectors' plumbing.
 */
async function recallAll(td: TestDaemon, body: RecallBody): Promise<RecallResponse> {
  return recall(td, { minScore: 0, ...body });
}

async function remember(td: TestDaemon, body: RememberBody, agent = "default"): Promise<string> {
  return (await td.client(agent).memory.remember(body)).id;
}

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  if (!(await eventually(check, timeoutMs))) throw new Error("condition not met in time");
}

describe("keyword recall (provider none)", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(async () => {
    await td.stop();
  });

  test("a natural-language question is an OR of its terms, ranked by BM25", async () => {
    const a = await remember(td, { content: "Caroline went to the LGBTQ support group on 7 May 2023" });
    await remember(td, { content: "Melanie painted a sunrise over the lake last year" });
    const r = await recall(td, { query: "When did Caroline go to the LGBTQ support group?" });
    expect(r.results[0]!.id).toBe(a);
    expect(r.results[0]!.matchedBy).toBe("keyword");
    expect(r.meta).toMatchObject({ method: "keyword", embedding: "disabled" });
    expect(r.results[0]!.score).toBeGreaterThan(0);
    expect(r.results[0]!.score).toBeLessThanOrEqual(1);
  });

  test("stemming, code identifiers, paths, error codes and CJK text", async () => {
    const ids = {
      stem: await remember(td, { content: "She paints landscapes every weekend" }),
      ident: await remember(td, { content: "getUserName throws when the session expired" }),
      path: await remember(td, { content: "Config lives in src/config/schema.ts" }),
      code: await remember(td, { content: "The daemon failed with ECONNREFUSED on port 3850" }),
      cjk: await remember(td, { content: "我喜欢在周末喝咖啡" }),
    };
    const top = async (query: string) => (await recall(td, { query, limit: 3 })).results.map((x) => x.id);
    expect(await top("painting")).toContain(ids.stem);
    expect(await top("user name")).toContain(ids.ident);
    expect(await top("getUserName")).toContain(ids.ident);
    expect(await top("schema.ts")).toContain(ids.path);
    expect(await top("ECONNREFUSED")).toContain(ids.code);
    expect(await top("咖啡")).toContain(ids.cjk);
    expect(await top("咖")).toContain(ids.cjk);
  });

  test("filters narrow candidates before ranking, never after truncation", async () => {
    // 60 strong matches elsewhere would push the one in project "rare" out of any top-50 cut.
    for (let i = 0; i < 60; i++) {
      await remember(td, { content: `deploy pipeline deploy pipeline note ${i}`, project: "busy", tags: ["ops"] });
    }
    const rare = await remember(td, { content: "the deploy pipeline is documented in the wiki", project: "rare", tags: ["ops", "docs"] });
    const r = await recall(td, { query: "deploy pipeline", project: "rare" });
    expect(r.results.map((x) => x.id)).toEqual([rare]);
    const tagged = await recall(td, { query: "deploy pipeline", tags: "docs,ops" });
    expect(tagged.results.map((x) => x.id)).toEqual([rare]);
    expect((await recall(td, { query: "deploy pipeline", tags: "doc" })).results).toEqual([]);
  });

  test("every filter: type, who, since, until, pinned, importanceMin", async () => {
    const base = { content: "filterable widget configuration" };
    const pref = await remember(td, { ...base, content: "filterable widget configuration preference", type: "preference", who: "ana" });
    const old = await remember(td, { ...base, content: "filterable widget configuration from 2020", createdAt: "2020-01-01T00:00:00Z" });
    const pinned = await remember(td, { ...base, content: "filterable widget configuration pinned", pinned: true, importance: 0.9 });
    const ids = async (extra: Partial<RecallBody>) => (await recall(td, { query: "filterable widget configuration", ...extra })).results.map((x) => x.id);
    expect(await ids({ type: "preference" })).toEqual([pref]);
    expect(await ids({ who: "ana" })).toEqual([pref]);
    expect(await ids({ until: "2021-01-01" })).toEqual([old]);
    expect(await ids({ since: "2021-01-01" })).not.toContain(old);
    expect(await ids({ pinned: true })).toEqual([pinned]);
    expect(await ids({ importanceMin: 0.8 })).toEqual([pinned]);
    expect((await ids({ limit: 2 })).length).toBe(2);
  });

  test("keywordQuery replaces the query for the keyword leg", async () => {
    const id = await remember(td, { content: "zebra crossing near the office" });
    const r = await recall(td, { query: "something unrelated entirely", keywordQuery: "zebra" });
    expect(r.results.map((x) => x.id)).toEqual([id]);
  });

  test("same-session neighbours come back as supporting context", async () => {
    const s = "chat-42";
    const before = await remember(td, { content: "I adopted a dog last week", sessionKey: s, createdAt: "2024-01-01T10:00:00Z" });
    const hit = await remember(td, { content: "His name is Biscuit", sessionKey: s, createdAt: "2024-01-01T10:01:00Z" });
    const after = await remember(td, { content: "He loves long walks", sessionKey: s, createdAt: "2024-01-01T10:02:00Z" });
    const r = await recall(td, { query: "Biscuit", limit: 1 });
    expect(r.results.map((x) => x.id)).toEqual([hit]);
    const sup = Object.fromEntries(r.supporting.map((x) => [x.relation, x]));
    expect(sup["previous-in-session"]).toMatchObject({ id: before, supports: hit });
    expect(sup["next-in-session"]).toMatchObject({ id: after, supports: hit });
  });

  test("sessionKey records surfaced ids before the answer; access counts are bumped after it", async () => {
    const id = await remember(td, { content: "quasar telescope calibration notes" });
    const r = await recall(td, { query: "quasar telescope", sessionKey: "sess-rec" });
    expect(r.results[0]!.id).toBe(id);
    const db = td.daemon.context.stores.sqlite!;
    const row = db
      .query<{ source: string; rank: number; agent_id: string }, [string]>(
        "SELECT source, rank, agent_id FROM session_memories WHERE memory_id = ?",
      )
      .get(id);
    expect(row).toEqual({ source: "recall", rank: 1, agent_id: "default" });
    await waitFor(async () => (await td.client().memory.get(id)).accessCount === 1);
  });

  test("agents only recall what they may read", async () => {
    await remember(td, { content: "private nebula coordinates" }, "alice");
    expect((await recall(td, { query: "nebula coordinates" }, "bob")).results).toEqual([]);
    expect((await recall(td, { query: "nebula coordinates" }, "alice")).results).toHaveLength(1);
  });

  test("the keyword index is loaded from the store at start and follows every change", async () => {
    const own = await startTestDaemon();
    const a = await remember(own, { content: "The zeppelin hangar floods every spring", project: "airship" });
    await remember(own, { content: "Zeppelin parts ship from Friedrichshafen", project: "airship" });
    await remember(own, { content: "The zeppelin museum opens at nine", project: "tours" });
    await own.daemon.stop();
    const config = loadConfig({ env: { SIGNET_PATH: own.dataDir, HOME: own.dataDir } });
    const again = await startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } });
    try {
      const client = new SignetClient({ baseUrl: again.url });
      await waitFor(() => again.context.recall.keywordIndexSize === 3);
      const scoped = await client.memory.recall({ query: "zeppelin", project: "airship" });
      expect(scoped.results.map((r) => r.content).sort()).toEqual([
        "The zeppelin hangar floods every spring",
        "Zeppelin parts ship from Friedrichshafen",
      ]);
      await client.memory.modify(a, { reason: "renamed", content: "The blimp hangar floods every spring" });
      expect((await client.memory.recall({ query: "blimp" })).results.map((r) => r.id)).toEqual([a]);
      expect((await client.memory.recall({ query: "zeppelin" })).results.map((r) => r.id)).not.toContain(a);
      await client.memory.forget(a, { reason: "gone" });
      expect((await client.memory.recall({ query: "blimp" })).results).toEqual([]);
      expect(again.context.recall.keywordIndexSize).toBe(2);
    } finally {
      await again.stop();
      rmSync(own.dataDir, { recursive: true, force: true });
    }
  });

  test("forgotten memories are not recalled; recovered ones are", async () => {
    const id = await remember(td, { content: "ephemeral marmalade recipe" });
    await td.client().memory.forget(id, { reason: "test" });
    expect((await recall(td, { query: "marmalade" })).results).toEqual([]);
    await td.client().memory.recover(id, {});
    expect((await recall(td, { query: "marmalade" })).results.map((x) => x.id)).toEqual([id]);
  });

  test("bad requests are 400 naming the field", async () => {
    for (const [body, field] of [
      [{}, "query"],
      [{ query: "" }, "query"],
      [{ query: "x", limit: 0 }, "limit"],
      [{ query: "x", limit: 101 }, "limit"],
      [{ query: "x", importanceMin: 2 }, "importanceMin"],
      [{ query: "x", since: "yesterday" }, "since"],
      [{ query: "x", bogus: 1 }, "bogus"],
      [{ query: "x", aggregate: true, aggregateBudget: "huge" }, "aggregateBudget"],
    ] as const) {
      const res = await td.fetch("/api/memory/recall", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      const err = (await res.json()) as { error: string; code: string };
      expect(err.code).toBe("invalid_input");
      expect(err.error).toContain(field);
    }
  });
});

describe("hybrid recall with an embedding provider", () => {
  let fake: FakeEmbedder;
  let td: TestDaemon;
  beforeAll(async () => {
    fake = startFakeEmbedder();
    td = await startTestDaemon({ yaml: `embedding:\n  provider: openai\n  model: fake-embed\n  baseUrl: ${fake.url}\n` });
  });
  afterAll(async () => {
    await td.stop();
    await fake.stop();
  });
  afterEach(() => {
    fake.down = false;
    fake.refuse = undefined;
  });
  const drained = async () => {
    const h = await td.client().health();
    return h.embedding.pending === 0 && h.embedding.ok;
  };

  test("keyword and vector legs fuse; matchedBy tells which leg found each row", async () => {
    const both = await remember(td, { content: "my car needs new tyres" });
    const vectorOnly = await remember(td, { content: "the automobile is parked outside" });
    await remember(td, { content: "bananas are yellow" });
    await waitFor(drained);
    const r = await recallAll(td, { query: "car" });
    const byId = Object.fromEntries(r.results.map((x) => [x.id, x]));
    expect(r.meta).toMatchObject({ method: "hybrid", embedding: "ok" });
    expect(byId[both]!.matchedBy).toBe("hybrid");
    expect(byId[vectorOnly]!.matchedBy).toBe("vector");
    expect(r.results[0]!.id).toBe(both);
    const h = await td.client().health();
    expect(h.embedding).toMatchObject({ provider: "openai", model: "fake-embed", ok: true, pending: 0 });
  });

  test("vectors follow modify, forget and recover", async () => {
    const id = await remember(td, { content: "the kitten sleeps all day" });
    await waitFor(drained);
    expect((await recallAll(td, { query: "cat" })).results.map((x) => x.id)).toContain(id);

    await td.client().memory.modify(id, { reason: "changed", content: "the vehicle sleeps all day" });
    await waitFor(drained);
    expect(fake.embedded).toContain("the vehicle sleeps all day");
    const asCat = (await recallAll(td, { query: "cat" })).results.find((x) => x.id === id);
    expect(asCat?.matchedBy ?? "absent").not.toBe("vector");
    const asCar = (await recallAll(td, { query: "car" })).results.find((x) => x.id === id);
    expect(asCar?.matchedBy).toBe("vector");

    await td.client().memory.forget(id, { reason: "gone" });
    expect((await recallAll(td, { query: "car" })).results.map((x) => x.id)).not.toContain(id);
    const embeddedBefore = fake.embedded.length;
    await td.client().memory.recover(id, {});
    expect((await recallAll(td, { query: "car" })).results.map((x) => x.id)).toContain(id);
    // Recovering reuses the stored vector instead of embedding the text again.
    expect(fake.embedded.length).toBe(embeddedBefore);
  });

  test("a text the provider refuses is found and set aside; the rest of its batch is embedded", async () => {
    fake.refuse = "POISON";
    // Held back while the provider is down, the four go out as one batch when it is back.
    fake.down = true;
    const good = [];
    for (const n of ["one", "two", "three"]) good.push(await remember(td, { content: `kitten number ${n} naps` }));
    const bad = await remember(td, { content: "a POISON kitten text" });
    await waitFor(async () => !(await td.client().health()).embedding.ok);
    const refusedBefore = fake.refusals;
    fake.down = false;
    await waitFor(async () => (await td.client().health()).embedding.pending === 0);
    const h = await td.client().health();
    expect(h.embedding).toMatchObject({ ok: true, pending: 0, rejected: 1 });
    // The batch of four was refused, then the poisoned text alone.
    expect(fake.refusals - refusedBefore).toBe(2);
    const r = await recallAll(td, { query: "cat" });
    const vectorIds = r.results.filter((x) => x.matchedBy === "vector").map((x) => x.id);
    expect(vectorIds).toEqual(expect.arrayContaining(good));
    expect(vectorIds).not.toContain(bad);
    // Its text changed: it is tried again, and embedded.
    fake.refuse = undefined;
    await td.client().memory.modify(bad, { reason: "cleaned", content: "a clean kitten text" });
    await waitFor(async () => (await td.client().health()).embedding.pending === 0);
    expect((await td.client().health()).embedding.rejected).toBeUndefined();
    expect((await recallAll(td, { query: "cat" })).results.find((x) => x.id === bad)?.matchedBy).toBe("vector");
  });

  test("a provider that is down never blocks a write; recall falls back to keyword and recovers", async () => {
    fake.down = true;
    const id = await remember(td, { content: "the feline chased a laser pointer" });
    await waitFor(async () => !(await td.client().health()).embedding.ok);
    const h = await td.client().health();
    expect(h.embedding.pending).toBeGreaterThan(0);
    const r = await recallAll(td, { query: "laser pointer" });
    expect(r.meta.embedding).toBe("unavailable");
    expect(r.meta.method).toBe("keyword");
    expect(r.results.map((x) => x.id)).toContain(id);

    fake.down = false;
    await waitFor(drained, 20_000);
    const after = await recallAll(td, { query: "cat" });
    expect(after.meta.embedding).toBe("ok");
    expect(after.results.map((x) => x.id)).toContain(id);
  }, 30_000);
});

describe("Ollama provider shape", () => {
  test("vectors come from POST /api/embed", async () => {
    const fake = startFakeEmbedder();
    const td = await startTestDaemon({ yaml: `embedding:\n  provider: ollama\n  model: fake\n  baseUrl: ${fake.url}\n` });
    try {
      const id = await remember(td, { content: "the automobile is red" });
      await waitFor(async () => (await td.client().health()).embedding.pending === 0 && fake.embedded.length > 0);
      const r = await recallAll(td, { query: "car" });
      expect(r.results.map((x) => x.id)).toEqual([id]);
      expect(r.results[0]!.matchedBy).toBe("vector");
    } finally {
      await td.stop();
      await fake.stop();
    }
  });
});
