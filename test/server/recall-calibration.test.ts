// What a recall score means (docs/api.md#scores), over real HTTP: questions with no answer in a store
// of coding memories get no strong result with the builtin model (weak ones, labelled so, at most),
// while questions about stored memories still find them first, strong; the keyword leg's calibration in small stores;
// the conservative ramp of a model Signet has not measured; and FTS5 and the keyword index agreeing
// on every score.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { RememberRequestSchema } from "../../src/contracts/memory";
import { RECALL_STRONG_SCORE } from "../../src/contracts/scores";
import { RecallRequestSchema, type RecallResponse } from "../../src/contracts/recall";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService } from "../../src/core/memory/service";
import { AccessLog, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import { RecallService } from "../../src/core/recall/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { recallBrief } from "../../src/present/recall";
import { makeGenerator } from "../../scripts/lib/content";
import { NO_ANSWER_QUERIES } from "../../scripts/lib/no-answer";
import { loadDevStore } from "../../scripts/lib/devstore";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { startFakeEmbedder } from "../helpers/fake-embedder";
import { recordingLogger } from "../helpers/log";
import { eventually } from "../helpers/wait";
import { API } from "../../src/contracts/api";
import type { BodyOf } from "../../src/contracts/operation";

type RecallBody = BodyOf<typeof API.recall.recall>;
type RememberBody = BodyOf<typeof API.memory.remember>;

async function drained(td: TestDaemon): Promise<void> {
  const ok = await eventually(async () => {
    const { embedding } = await td.client().health();
    return embedding.ok && embedding.model !== null && embedding.pending === 0;
  }, 120_000);
  if (!ok) throw new Error("the embedding backlog did not drain in time");
}

/** Scores never rise down the list, and each is at least the minimum applied. */
function expectOrdered(r: RecallResponse, minScore: number): void {
  const scores = r.results.map((x) => x.score);
  expect(scores).toEqual([...scores].sort((a, b) => b - a));
  for (const s of scores) expect(s).toBeGreaterThanOrEqual(minScore);
}

// Memories a question below is about, among generated ones on the same subjects.
const ANSWERS = {
  release: "The release script needs GITHUB_TOKEN in the environment; without it the upload step fails silently.",
  tabs: "Zoltan prefers tabs over spaces and wants one focused change per commit.",
  redis: "We moved session state from Redis to SQLite in March because Redis kept evicting keys under memory pressure.",
  lint: "Run the linter before pushing: CI rejects any knip warning about unused exports.",
  rotate: "The staging database password rotates every 30 days; the rotation job lives in infra/cron/rotate.sh.",
};
const QUESTIONS: [string, keyof typeof ANSWERS][] = [
  ["Why does the release upload fail?", "release"],
  ["Does Zoltan like tabs or spaces?", "tabs"],
  ["Why did we switch from Redis to SQLite?", "redis"],
  ["What do I have to run before pushing?", "lint"],
  ["How often does the staging password rotate?", "rotate"],
];

describe("the builtin model: a store of coding memories", () => {
  let td: TestDaemon;
  const ids = {} as Record<keyof typeof ANSWERS, string>;
  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "embedding:\n  provider: builtin\n" });
    const gen = makeGenerator(7);
    for (let i = 0; i < 150; i++) await td.client().memory.remember(JSON.parse(gen()) as RememberBody);
    for (const [key, content] of Object.entries(ANSWERS)) ids[key as keyof typeof ANSWERS] = (await td.client().memory.remember({ content })).id;
    await drained(td);
  }, 180_000);
  afterAll(async () => {
    await td.stop();
  });

  test(`${NO_ANSWER_QUERIES.length} questions it has no answer to get no strong result; what they get is labelled weak`, async () => {
    for (const query of NO_ANSWER_QUERIES) {
      const r = await td.client().memory.recall({ query });
      const strong = r.results.filter((x) => x.confidence === "strong");
      expect({ query, strong: strong.map((x) => `${x.score} ${x.content}`) }).toEqual({ query, strong: [] });
      for (const x of r.results) expect(x.score).toBeLessThan(RECALL_STRONG_SCORE);
      expect(r.meta).toMatchObject({ minScore: 0, embedding: "ok" });
      // The vector leg always has candidates: they come, labelled, and the brief says none is strong.
      expect(r.results.length).toBeGreaterThan(0);
      expect(r.meta.belowMinScore).toBe(0);
      expect(recallBrief(query, r)).toMatch(/^No strong match for/);
    }
  });

  test("questions about stored memories still find them first", async () => {
    for (const [query, key] of QUESTIONS) {
      const r = await td.client().memory.recall({ query });
      expect({ query, first: r.results[0]?.id, confidence: r.results[0]?.confidence }).toEqual({ query, first: ids[key], confidence: "strong" });
      expectOrdered(r, 0);
    }
  });

  test("minScore cuts the ranked list at one place; 0 returns every candidate in the same order", async () => {
    const query = "why does the job queue hang after a daemon restart?";
    const all = await td.client().memory.recall({ query, minScore: 0, limit: 100 });
    expect(all.meta.belowMinScore).toBe(0);
    expect(all.results.length).toBe(all.meta.candidates);
    expectOrdered(all, 0);
    // Each recall bumps its results' access counts, which move later scores by up to 3% (the access
    // factor runs 0.97-1): rows that far from the cut may land on either side of it.
    const DRIFT = 0.03;
    for (const minScore of [RECALL_STRONG_SCORE, 0.4, 0.6]) {
      const cut = await td.client().memory.recall({ query, minScore, limit: 100 });
      expectOrdered(cut, minScore);
      expect(cut.results.length + (cut.meta.belowMinScore ?? 0)).toBe(cut.meta.candidates);
      const ids = cut.results.map((x) => x.id);
      const clearlyIn = all.results.filter((x) => x.score * (1 - DRIFT) >= minScore).map((x) => x.id);
      const clearlyOut = all.results.filter((x) => x.score * (1 + DRIFT) < minScore).map((x) => x.id);
      expect(ids).toEqual(expect.arrayContaining(clearlyIn));
      for (const id of clearlyOut) expect(ids).not.toContain(id);
    }
  });
});

describe("keyword scores (provider none)", () => {
  let td: TestDaemon;
  const recall = (body: RecallBody) => td.client().memory.recall(body);
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(async () => {
    await td.stop();
  });

  test("in a store of three memories, a full match is relevant and a match on one word of a question is not", async () => {
    const tabs = (await td.client().memory.remember({ content: "Prefer tabs over spaces in this repository" })).id;
    await td.client().memory.remember({ content: "The project builds with Bun", pinned: true, importance: 1 });
    await td.client().memory.remember({ content: "Deploys go through the staging cluster first" });

    const full = await recall({ query: "tabs or spaces?" });
    expect(full.results.map((x) => x.id)).toEqual([tabs]);
    expect(full.results[0]!.score).toBeGreaterThan(0.7);

    // "project" is one of four terms: a weak match, though the memory is pinned and as important as can be.
    const loose = await recall({ query: "Which project owns the capital budget?" });
    expect(loose.results.map((x) => x.confidence)).toEqual(["weak"]);
    expect(loose.results[0]!.score).toBeLessThan(RECALL_STRONG_SCORE);
    expect(loose.meta).toMatchObject({ candidates: 1, belowMinScore: 0, minScore: 0 });
    expect(recallBrief("Which project owns the capital budget?", loose)).toContain('No strong match for "Which project owns the capital budget?"; 1 weak match');
    const cut = await recall({ query: "Which project owns the capital budget?", minScore: RECALL_STRONG_SCORE });
    expect(cut.results).toEqual([]);
    expect(cut.meta).toMatchObject({ candidates: 1, belowMinScore: 1, minScore: RECALL_STRONG_SCORE });
    expect(recallBrief("Which project owns the capital budget?", cut)).toContain(`scoring under the minimum of ${RECALL_STRONG_SCORE}`);

    const nothing = await recall({ query: "What is the capital of France?" });
    expect(nothing.meta).toMatchObject({ candidates: 0, belowMinScore: 0 });
    expect(recallBrief("What is the capital of France?", nothing)).toContain('Nothing relevant to "What is the capital of France?" is stored');
  });

  test("memory_search labels a loose match weak; score_min cuts it, over /mcp", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const client = new Client({ name: "calibration-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${td.url}/mcp`)));
    try {
      const search = async (args: Record<string, unknown>) =>
        (await client.callTool({ name: "memory_search", arguments: { query: "Which project owns the capital budget?", ...args } }))
          .structuredContent as RecallResponse;
      const loose = await search({});
      expect(loose.results.map((x) => x.confidence)).toEqual(["weak"]);
      expect(loose.meta.minScore).toBe(0);
      expect((await search({ score_min: RECALL_STRONG_SCORE })).results).toEqual([]);
    } finally {
      await client.close();
    }
  });

  test("a word most memories hold counts for little beside a rare one", async () => {
    for (let i = 0; i < 20; i++) await td.client().memory.remember({ content: `deploy note ${i}: the service restarted cleanly`, project: "ops" });
    const rare = (await td.client().memory.remember({ content: "the service leaks file descriptors", project: "ops" })).id;
    const r = await recall({ query: "service descriptors", project: "ops", minScore: 0, limit: 100 });
    expect(r.results[0]!.id).toBe(rare);
    expect(r.results[0]!.score).toBeGreaterThan(0.6);
    // The other 20 match only "service", which 21 of the store's memories hold.
    for (const x of r.results.slice(1)) expect(x.score).toBeLessThan(0.15);
  });

  test("minScore out of range is 400 naming it", async () => {
    for (const minScore of [-0.1, 1.5, "high"]) {
      const res = await td.fetch("/api/memory/recall", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "x", minScore }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain("minScore");
    }
  });
});

describe("the builtin model: a store of one kind (a developer's memories, scripts/data/devstore.json)", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "embedding:\n  provider: builtin\n" });
    for (const m of loadDevStore().memories) {
      await td.client().memory.remember({ content: m.content, type: m.type, tags: m.tags, createdAt: m.createdAt, ...(m.project ? { project: m.project } : {}) });
    }
    await drained(td);
  }, 180_000);
  afterAll(async () => {
    await td.stop();
  });

  test("an unrelated question is no strong match for a memory that holds one common word of it and is no closer than the rest", async () => {
    // Each of these once came back strong at 0.21-0.23: "rules", "language", "say", "plot".
    for (const query of NO_ANSWER_QUERIES) {
      const r = await td.client().memory.recall({ query });
      expect({ query, strong: r.results.filter((x) => x.confidence === "strong").map((x) => `${x.score} ${x.content}`) }).toEqual({ query, strong: [] });
    }
  });

  test("a question in the memory's own words is still a strong match", async () => {
    const strongFirst = async (query: string, about: string) => {
      const first = (await td.client().memory.recall({ query })).results[0];
      expect({ query, first: first?.content.toLowerCase().includes(about), confidence: first?.confidence }).toEqual({ query, first: true, confidence: "strong" });
    };
    await strongFirst("which indentation do I like?", "indentation");
    await strongFirst("polars or pandas for the new transformations?", "polars");
    await strongFirst("where are the alert rules kept?", "grafana");
  });
});

describe("a model Signet has not measured", () => {
  test("a middling cosine is no answer on its own: the vector leg's match comes as weak; a close one is strong", async () => {
    const fake = startFakeEmbedder();
    const td = await startTestDaemon({ yaml: `embedding:\n  provider: openai\n  model: fake-embed\n  baseUrl: ${fake.url}\n` });
    try {
      // Bag of words: "car" and "automobile" share a slot, so the cosine is 1/√4 = 0.5.
      const id = (await td.client().memory.remember({ content: "the automobile is red" })).id;
      await drained(td);
      const r = await td.client().memory.recall({ query: "car" });
      expect(r.results.map((x) => [x.id, x.matchedBy, x.score, x.confidence])).toEqual([[id, "vector", 0, "weak"]]);
      expect(r.meta).toMatchObject({ method: "vector", candidates: 1, belowMinScore: 0 });
      expect((await td.client().memory.recall({ query: "car", minScore: RECALL_STRONG_SCORE })).results).toEqual([]);
      // A close one is: the same words give a cosine of 1.
      const close = await td.client().memory.recall({ query: "the car is red", keywordQuery: "zzz" });
      expect(close.results.map((x) => [x.id, x.confidence])).toEqual([[id, "strong"]]);
    } finally {
      await td.stop();
      await fake.stop();
    }
  });
});

describe("FTS5 and the keyword index", () => {
  test("give every memory the same score, while the index loads and after", async () => {
    const dir = tempDir("signet-recall-calibration-");
    const db = openDatabase(join(dir, "memories.db"));
    migrate(db);
    const memory = new MemoryService(new SqliteMemoryStore(db), {});
    // Access counts weigh in the scores: none is written until both rounds are asked.
    const accessLog = new AccessLog(new SqliteAccessWrites(db), recordingLogger().log, 3_600_000);
    const recall = new RecallService(new SqliteRecallStore(db), memory, null, accessLog);
    const caller = { agentId: "default", actor: "test", actorType: null, runtimePath: null };
    try {
      const gen = makeGenerator(3);
      await Promise.all(Array.from({ length: 300 }, () => memory.remember(caller, RememberRequestSchema.parse(JSON.parse(gen())))));
      const queries = ["why does the job queue hang after a daemon restart", "retry retries backoff", "sqlite busy timeout capital"];
      const ask = async () =>
        Promise.all(
          queries.map(async (query) => {
            const r = await recall.recall(caller, RecallRequestSchema.parse({ query, minScore: 0, limit: 50 }));
            return r.results.map((x) => [x.id, x.score]);
          }),
        );
      // Before start() the keyword index is empty and every recall goes to FTS5.
      expect(recall.keywordIndexSize).toBeNull();
      const fromFts = await ask();
      await recall.start();
      expect(recall.keywordIndexSize).toBe(300);
      expect(await ask()).toEqual(fromFts);
      expect(fromFts.flat().length).toBeGreaterThan(30);
    } finally {
      accessLog.flush();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
