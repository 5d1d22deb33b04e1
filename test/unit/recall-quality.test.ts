// Recall quality mechanisms on a real database, with the real builtin model or keyword-only (no
// mocks): query-adaptive fusion (fusion.ts), session neighbours in the order and the lifts they are
// lent with (neighbours.ts), the named author's lift and own memories (scoring.ts, service.ts),
// keyword-leg expansion (expansion.ts) and the keyword leg's statistics of the memories searched
// (keyword-index.ts). Each store is built so that the answer a test expects is found only through
// its mechanism: without it the test fails.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { RememberRequestSchema } from "../../src/contracts/memory";
import { RecallRequestSchema } from "../../src/contracts/recall";
import { createBuiltinEmbedder } from "../../src/core/embed/builtin";
import { SqliteEmbeddingStore } from "../../src/core/embed/sqlite-store";
import { EmbeddingWorker } from "../../src/core/embed/worker";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { AccessLog, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { EXPANSION_WEIGHT, expands, feedbackTerms, WEAK_KEYWORD_EVIDENCE } from "../../src/core/recall/expansion";
import { vectorWeight } from "../../src/core/search/fusion";
import { KeywordIndex } from "../../src/core/search/keyword-index";
import { NEIGHBOURS, withNeighbours, type NeighbourPolicy } from "../../src/core/recall/neighbours";
import { asksOnly } from "../../src/core/recall/adjustment";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import { RecallService } from "../../src/core/recall/service";
import { keywordColumns } from "../../src/core/search/text";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { makeGenerator } from "../../scripts/lib/content";
import { tempDir } from "../helpers/daemon";
import { recordingLogger } from "../helpers/log";

const caller: Caller = { agentId: "default", actor: "test", actorType: null, runtimePath: null };

describe("vectorWeight (fusion.ts)", () => {
  test("weak keyword evidence hands the order to the vector leg; a full or identifier match keeps it with keywords", () => {
    const none = vectorWeight({ best: 0, identifier: false });
    const half = vectorWeight({ best: 0.5, identifier: false });
    const full = vectorWeight({ best: 1, identifier: false });
    expect(none).toBeGreaterThan(half);
    expect(half).toBeGreaterThan(full);
    expect(full).toBeGreaterThan(0);
    expect(vectorWeight({ best: 0, identifier: true })).toBe(full);
  });

  test("a caller's range moves both ends: the weight runs from its max with no keyword evidence to its min", () => {
    const range = { min: 0.3, max: 0.6 };
    expect(vectorWeight({ best: 0, identifier: false }, range)).toBeCloseTo(0.6, 10);
    expect(vectorWeight({ best: 0.5, identifier: false }, range)).toBeCloseTo(0.45, 10);
    expect(vectorWeight({ best: 1, identifier: false }, range)).toBeCloseTo(0.3, 10);
    expect(vectorWeight({ best: 0, identifier: true }, range)).toBeCloseTo(0.3, 10);
    expect(vectorWeight({ best: 0.5, identifier: false }, range)).toBeGreaterThan(vectorWeight({ best: 0.5, identifier: false }));
  });
});

describe("feedbackTerms (expansion.ts)", () => {
  test("words the best hits share, never the query's own or stopwords, each weighing less than an original term", () => {
    const index = new KeywordIndex([1, 0.8, 0.8, 0.5]);
    const docs = [
      "Tim read a fantasy novel by Patrick Rothfuss",
      "Tim loves the fantasy novel series of Tolkien",
      "Tim talked about a fantasy novel with John",
      "John went hiking in the mountains",
      "The weather was rainy all week",
    ];
    docs.forEach((content, i) => index.set({ seq: i + 1, agentId: "a", project: null, columns: keywordColumns(content, "[]", "[]") }));
    const extra = feedbackTerms(index, ["tim"], [1, 2, 3]);
    expect(extra.tokens).toContain("fantasi");
    expect(extra.tokens).toContain("novel");
    expect(extra.tokens).not.toContain("tim");
    expect(extra.tokens).not.toContain("the");
    expect(extra.tokens).not.toContain("rothfuss"); // one memory's word is no shared evidence
    for (const w of extra.weights) expect(w).toBeLessThanOrEqual(EXPANSION_WEIGHT);
  });
});

describe("expands (expansion.ts)", () => {
  test("only a first pass with weak keyword evidence searches again", () => {
    expect(expands(0)).toBe(true);
    expect(expands(0.2)).toBe(true);
    expect(expands(WEAK_KEYWORD_EVIDENCE)).toBe(false);
    expect(expands(1)).toBe(false);
  });
});

describe("withNeighbours (neighbours.ts)", () => {
  type Item = { row: { seq: number }; rank: number; relevance: number };
  const item = (seq: number, rank: number, relevance = rank): Item => ({ row: { seq }, rank, relevance });
  const enter = (_hit: Item, row: { seq: number }): Item => ({ row, rank: 0, relevance: 0 });
  const policy: NeighbourPolicy = { depth: 10, window: 2, share: 0.5 };
  // Memory 1's neighbours are 2 (not found by the legs), 4 (found, far down) and 5 (two turns away,
  // not found); memory 3's is 6, a weak match of its own.
  const neighboursOf = () =>
    new Map([
      [1, [{ row: { seq: 2 }, distance: 1 }, { row: { seq: 4 }, distance: 1 }, { row: { seq: 5 }, distance: 2 }]],
      [3, [{ row: { seq: 6 }, distance: 1 }]],
    ]);
  const ranked = [item(1, 1, 0.6), item(3, 0.4), item(4, 0.1), item(6, 0.3)];
  const by = (out: Item[], seq: number) => out.find((r) => r.row.seq === seq)!;
  const noLift = () => 1;

  test("a strong hit's neighbours rank after it, above weaker hits; one two turns away is lent half as much", () => {
    const out = withNeighbours(ranked, policy, neighboursOf, enter, () => true, noLift);
    expect(out.map((r) => r.row.seq).slice(0, 3)).toEqual([1, 4, 2]);
    expect(by(out, 2).relevance).toBe(0.3); // half its hit's: nothing of its own
    expect(by(out, 5).relevance).toBe(0.15); // a quarter: two turns away
    expect(by(out, 5).rank).toBe(0.25);
  });

  test("a neighbour that is a match itself combines both: own + lent·(1 − own), above what either gives alone", () => {
    const out = withNeighbours(ranked, policy, neighboursOf, enter, () => true, noLift);
    expect(by(out, 4).rank).toBeCloseTo(0.1 + 0.5 * 0.9, 10);
    expect(by(out, 4).relevance).toBeCloseTo(0.1 + 0.3 * 0.9, 10); // never above own + lent
    expect(by(out, 6).rank).toBeCloseTo(0.3 + 0.2 * 0.7, 10); // two matches side by side: 6 now above 3
    expect(out.findIndex((r) => r.row.seq === 6)).toBeLessThan(out.findIndex((r) => r.row.seq === 3));
  });

  test("only the best `depth` hits lend", () => {
    const out = withNeighbours(ranked, { ...policy, depth: 1 }, neighboursOf, enter, () => true, noLift);
    expect(by(out, 6).rank).toBe(0.3);
  });

  test("a neighbour is lent its hit's value without the hit's order lift, and with its own; its relevance is the text's", () => {
    // 1 and 3 carry a lift of 1.5 in their ranks (say, the query names their author); so do 2 and 6.
    const lifted = new Set([1, 2, 3, 6]);
    const lift = (row: { seq: number }) => (lifted.has(row.seq) ? 1.5 : 1);
    const out = withNeighbours(ranked, policy, neighboursOf, enter, () => true, lift);
    expect(by(out, 2).rank).toBeCloseTo(0.5, 10); // lifted hit to lifted neighbour: as before
    expect(by(out, 4).rank).toBeCloseTo(0.1 + (0.5 / 1.5) * 0.9, 10); // the hit's lift stays with the hit
    expect(by(out, 5).rank).toBeCloseTo(0.25 / 1.5, 10);
    // Now only 2 is lifted: its hit (1) is not, and 2 takes its own lift on what it is lent.
    const unlifted = withNeighbours(ranked, policy, neighboursOf, enter, () => true, (row) => (row.seq === 2 ? 1.5 : 1));
    expect(by(unlifted, 2).rank).toBeCloseTo(0.75, 10); // an unlifted hit's lifted neighbour takes its own lift
    expect(by(unlifted, 2).relevance).toBe(0.3); // the lift moves the order, never the score
    expect(by(out, 2).relevance).toBe(0.3);
    expect(by(out, 4).relevance).toBeCloseTo(0.1 + 0.3 * 0.9, 10);
  });

  test("a neighbour the minimum would drop does not move, so it cannot cut the list", () => {
    const out = withNeighbours(ranked, policy, neighboursOf, enter, (i) => i.relevance >= 0.35, noLift);
    // 2 and 5 (0.3, 0.15 lent) stay out; 4 and 6 reach 0.37 and 0.44 with their own evidence.
    expect(out.map((r) => r.row.seq)).toEqual([1, 4, 6, 3]);
    expect(by(out, 4).relevance).toBeCloseTo(0.37, 10);
  });
});

interface Harness {
  db: Database;
  memory: MemoryService;
  /** The builtin model's worker; null for a keyword-only store (the provider none). */
  embeddings: EmbeddingWorker | null;
  /** A recall service as the daemon makes one, its keyword index loaded. */
  service(): Promise<RecallService>;
  ranks(recall: RecallService, query: string, extra?: Record<string, unknown>): Promise<{ id: string; content: string; score: number; who: string | null }[]>;
  close(): Promise<void>;
}

async function harness(provider: "builtin" | "none" = "builtin"): Promise<Harness> {
  const dir = tempDir("signet-recall-quality-");
  const db = openDatabase(join(dir, "memories.db"));
  migrate(db);
  const embeddings = provider === "builtin" ? new EmbeddingWorker(new SqliteEmbeddingStore(db), "builtin", () => createBuiltinEmbedder()) : null;
  const services: RecallService[] = [];
  const memory = new MemoryService(new SqliteMemoryStore(db), {
    onChange: (c) => {
      embeddings?.onChange(c);
      for (const s of services) s.onChange(c);
    },
  });
  const accessLog = new AccessLog(new SqliteAccessWrites(db), recordingLogger().log);
  embeddings?.start();
  return {
    db,
    memory,
    embeddings,
    async service() {
      const s = new RecallService(new SqliteRecallStore(db), memory, embeddings, accessLog);
      services.push(s);
      await s.start();
      return s;
    },
    async ranks(recall, query, extra = {}) {
      const r = await recall.recall(caller, RecallRequestSchema.parse({ query, minScore: 0, limit: 10, ...extra }));
      return r.results.map((x) => ({ id: x.id, content: x.content, score: x.score, who: x.who }));
    },
    async close() {
      await embeddings?.stop();
      accessLog.flush();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function embedded(h: Harness): Promise<void> {
  const worker = h.embeddings!;
  for (let i = 0; i < 600; i++) {
    const s = worker.status();
    if (s.model !== null && s.ok && s.pending === 0 && worker.vectors) return;
    await Bun.sleep(100);
  }
  throw new Error(`not embedded: ${JSON.stringify(worker.status())}`);
}

const remember = (h: Harness, body: Record<string, unknown>) => h.memory.remember(caller, RememberRequestSchema.parse(body));

describe("recall with the builtin model", () => {
  let h: Harness;
  let recall: RecallService;

  beforeAll(async () => {
    h = await harness();
    // The developer memories of the benchmark's paraphrase set (scripts/data/paraphrase-dev.json),
    // among 300 of the synthetic engineering corpus the benchmarks use.
    const gen = makeGenerator(7);
    for (let i = 0; i < 300; i++) await remember(h, JSON.parse(gen()));
    const set = JSON.parse(readFileSync(join(import.meta.dir, "../../scripts/data/paraphrase-dev.json"), "utf8")) as {
      memories: { content: string; tags?: string[] }[];
    };
    for (const m of set.memories) await remember(h, { content: m.content, tags: m.tags ?? [] });
    // A session: a question, the answer that shares none of its words, and small talk.
    const session = { sessionKey: "chat-1", createdAt: "2026-01-05T10:00:00.000Z" };
    for (const content of [
      "Sam: Which library did you pick for the date pickers?",
      "Lee: We went with react-day-picker after comparing three of them.",
      "Sam: Nice, see you at lunch.",
    ])
      await remember(h, { content, ...session });
    recall = await h.service();
    await embedded(h);
  }, 120_000);

  afterAll(async () => {
    await h?.close();
  });

  test("a paraphrase with no shared rare word finds its memory first once keyword noise weighs less", async () => {
    // A fixed vector weight of 0.3 hands the second's order to the keyword leg's common words.
    for (const [query, answer] of [
      ["How often do we publish the phone app?", "Mobile app versions go out every second Tuesday"],
      ["Why is Hana gone in the afternoon some days?", "Hana leaves early on Tuesdays to pick up her daughter from school"],
    ]) {
      expect((await h.ranks(recall, query!))[0]?.content).toBe(answer!);
    }
  });

  test("an exact identifier match still ranks first", async () => {
    const top = (await h.ranks(recall, "why is test_payment_refund red again?"))[0];
    expect(top?.content).toContain("test_payment_refund");
  });

  test("the neighbour that answers a question joins the results, after the hit that brought it", async () => {
    const query = "What did Sam ask about the library choice?";
    const answer = "Lee: We went with react-day-picker after comparing three of them.";
    const withN = await h.ranks(recall, query, { limit: 3 });
    const hit = withN.findIndex((r) => r.content.startsWith("Sam: Which library"));
    const n = withN.findIndex((r) => r.content === answer);
    expect(hit).toBe(0);
    expect(n).toBeGreaterThan(hit);
    // With no evidence of its own it scores at most its share of its hit's relevance (0.6): a loose
    // hit cannot lift its neighbour over the minimum score.
    expect(NEIGHBOURS.share).toBeLessThan(1);
    expect(withN[n]!.score).toBeLessThanOrEqual(withN[hit]!.score * NEIGHBOURS.share + 1e-4);
  });
});

describe("the keyword leg scaled by its best (scoring.ts scaledByBest)", () => {
  let h: Harness;
  let recall: RecallService;

  beforeAll(async () => {
    h = await harness();
    // Two memories hold the query's one rare word; the longer scores lower in BM25 (its length
    // penalty). Min-max put it at the leg's bottom, under a vector-only hit sharing nothing with the query.
    for (const content of [
      "The deploy uses kumquat servers in the west region.",
      "Our kumquat cluster handles the nightly batch jobs for billing reports.",
      "Lunch menu: pasta, salad, soup.",
      "The weather today is sunny and warm.",
      "Servers in the west region were rebooted.",
      "unicode content victor",
      "fresh new file delta",
    ])
      await remember(h, { content });
    await embedded(h);
    recall = await h.service();
  });

  afterAll(async () => {
    await h?.close();
  });

  test("every memory holding the query's word ranks above those that only sound like it", async () => {
    const [first, second, third] = await h.ranks(recall, "kumquat");
    expect([first!.content, second!.content].every((c) => c.includes("kumquat"))).toBe(true);
    expect(third!.content).not.toContain("kumquat");
    expect(second!.score).toBeGreaterThan(third!.score);
  });
});

describe("the named author's lift (scoring.ts authorOrder, docs/api.md#how-it-ranks)", () => {
  let h: Harness;
  let recall: RecallService;

  beforeAll(async () => {
    // Keyword-only: with vectors, the search among the named author's own memories would find hers
    // by a second leg (see below).
    h = await harness("none");
    // The same remark by two authors, alike in all else (in two projects: the same text in one is one
    // memory); Tom's is the later, which wins a tie.
    for (const [who, project, createdAt] of [
      ["Priya", "home", "2020-03-01T09:00:00.000Z"],
      ["Tom", "work", "2020-03-01T09:01:00.000Z"],
    ])
      await remember(h, { content: "Long runs by the lake help me unwind after work.", who, project, createdAt });
    await remember(h, { content: "The billing cron job runs at midnight UTC.", who: "Ana" });
    // Stored with no author: its `who` is the storing agent's id ("default"). Ana's is the later.
    for (const [who, createdAt] of [
      [undefined, "2020-03-02T09:00:00.000Z"],
      ["Ana", "2020-03-02T09:01:00.000Z"],
    ])
      await remember(h, { content: "The default retry budget is three attempts.", who, project: who ?? "home", createdAt });
    recall = await h.service();
  });

  afterAll(async () => {
    await h?.close();
  });

  test("what the query's named author said ranks first; the score stays the text's", async () => {
    const [first, second] = await h.ranks(recall, "How does Priya unwind after work?");
    expect(first!.who).toBe("Priya");
    expect(second!.who).toBe("Tom");
    // The same text is the same evidence: the lift moved Priya's up, not her score.
    expect(first!.score).toBe(second!.score);
  });

  test("an agent's id is no author's name: a query saying \"default\" lifts nothing the default agent stored", async () => {
    const [first, second] = await h.ranks(recall, "What is the default retry budget?");
    expect(second!.who).toBe("default");
    expect(first!.who).toBe("Ana");
    expect(first!.score).toBe(second!.score);
  });
});

describe("a memory that only asks (adjustment.ts asksOnly, docs/api.md#how-it-ranks)", () => {
  test("a question, with or without a speaker's label and interjections, only asks; a statement with a question does not", () => {
    for (const asks of ["Why?", "Caroline: Thanks, Mel! What got you into running?", "Wow, nice! Did the migration work? Any errors?", "  Should we move to pnpm?  "])
      expect(asksOnly(asks)).toBe(true);
    for (const tells of ["Use pnpm, not npm.", "I moved the repo to pnpm last week. Should we drop the npm lockfile?", "Is it green? It is, the flaky test was quarantined.", ""])
      expect(asksOnly(tells)).toBe(false);
  });

  let h: Harness;
  let recall: RecallService;

  beforeAll(async () => {
    h = await harness("none");
    // The same words, one memory telling and one asking; the question is the later, which wins a tie.
    await remember(h, { content: "Lee taught me sailing on the bay.", createdAt: "2020-03-01T09:00:00.000Z" });
    await remember(h, { content: "Who taught you sailing on the bay?", createdAt: "2020-03-01T09:01:00.000Z" });
    recall = await h.service();
  });

  afterAll(async () => {
    await h?.close();
  });

  test("a memory that tells ranks above one that only asks about the same thing; the score stays the text's", async () => {
    const [first, second] = await h.ranks(recall, "sailing on the bay");
    expect(first!.content).toBe("Lee taught me sailing on the bay.");
    expect(second!.content).toBe("Who taught you sailing on the bay?");
    expect(second!.score).toBeGreaterThanOrEqual(first!.score * 0.9);
  });
});

describe("a memory of common words (adjustment.ts specificOrder, docs/api.md#how-it-ranks)", () => {
  let h: Harness;
  let recall: RecallService;
  const common = "Sounds great, thanks!";
  const specific = "Sounds great: the kickboxing class starts on Monday.";

  beforeAll(async () => {
    // Keyword-only, so the order is the text's BM25 and the factors alone.
    h = await harness("none");
    for (let i = 0; i < 30; i++) await remember(h, { content: `Thanks, that sounds great to me ${i % 3 === 0 ? "too" : ""}` });
    await remember(h, { content: specific, createdAt: "2020-03-01T09:00:00.000Z" });
    // The shorter and the later: on the text alone it would rank first.
    await remember(h, { content: common, createdAt: "2020-03-01T09:01:00.000Z" });
    recall = await h.service();
  });

  afterAll(async () => {
    await h?.close();
  });

  test("one holding a specific word ranks above one of words most memories hold; the score stays the text's", async () => {
    const ranked = await h.ranks(recall, "sounds great");
    const at = (content: string) => ranked.findIndex((r) => r.content === content);
    expect(at(specific)).toBeLessThan(at(common));
    // BM25 gives the shorter memory more: scores never rise down the list, so the common one keeps the specific one's.
    expect(ranked[at(common)]!.score).toBe(ranked[at(specific)]!.score);
  });
});

describe("a named author's own memories (service.ts, docs/api.md#how-it-ranks)", () => {
  let h: Harness;
  let recall: RecallService;
  const query = "What does Noor do at the weekend?";
  const answer = "Saturdays I fix up old valve radios in the garage.";
  // Everything the legs find: the candidates, not only the first ten.
  const all = { limit: 100 };

  beforeAll(async () => {
    h = await harness();
    // Noor's answer shares no word with the question, and her name is only in `who`; more than a
    // leg's 50 candidates of others' weekends are closer to the question in meaning.
    for (const content of [answer, "The billing cron job runs at midnight UTC.", "I reviewed the pull request for the login page."]) await remember(h, { content, who: "Noor" });
    const people = ["Tom", "Ana", "Lee", "Sam", "Kenji", "Maria", "Omar", "Lena", "Raj", "Ivy"];
    const pastimes = ["goes sailing on the bay", "visits family in the countryside", "hikes in the hills", "sleeps late", "plays football with friends", "bakes bread", "reads in the park"];
    for (const who of people) for (const pastime of pastimes) await remember(h, { content: `At the weekend ${who} ${pastime}.`, who });
    recall = await h.service();
    await embedded(h);
  }, 120_000);

  afterAll(async () => {
    await h?.close();
  });

  test("the vector leg also searches the named author's memories, so her answer in other words is found", async () => {
    expect((await h.ranks(recall, query, all)).map((r) => r.content)).toContain(answer);
  });

  test("under the usual first place, her memories weigh their meaning more: her answer in other words comes next", async () => {
    // "weekend" is in every other memory: the usual order's first is one of those word matches, and
    // keeps its place; at the usual weights Noor's answer, which shares no word, ranks seventh.
    const ranked = (await h.ranks(recall, "Noor's hobby at the weekend", all)).map((r) => r.content);
    expect(ranked[0]).toStartWith("At the weekend ");
    expect(ranked[1]).toBe(answer);
  });

  test("a query naming no author, or filtered to one already, searches nothing more", async () => {
    expect((await h.ranks(recall, "What do people do at the weekend?", all)).map((r) => r.content)).not.toContain(answer);
    const filtered = (await h.ranks(recall, query, { ...all, who: "Tom" })).map((r) => r.content);
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered).not.toContain(answer);
  });
});

describe("a session neighbour is lent with its own order lifts, not its hit's (neighbours.ts, docs/api.md#how-it-ranks)", () => {
  let h: Harness;
  let recall: RecallService;
  const query = "What did Priya suggest for the dashboard charting library?";
  const reply = "The one we used last year worked well for us.";
  const smallTalk = "Morning all, coffee first.";

  beforeAll(async () => {
    // Keyword-only: the neighbours share none of the query's words, so only what they are lent orders them.
    h = await harness("none");
    // Tom's remark is the hit (a statement: a question would move down itself); Priya's reply after
    // it and Tom's small talk before it are one turn away.
    const session = { sessionKey: "chat-2", createdAt: "2026-01-06T09:00:00.000Z" };
    for (const [content, who] of [
      [smallTalk, "Tom"],
      ["We still have to pick a charting library for the dashboard.", "Tom"],
      [reply, "Priya"],
      ["The billing cron job runs at midnight UTC.", "Ana"],
      ["I reviewed the pull request for the login page.", "Lee"],
    ])
      await remember(h, { content, who, ...session });
    recall = await h.service();
  });

  afterAll(async () => {
    await h?.close();
  });

  test("what the named author said beside another's hit takes her lift; the score stays what it is lent", async () => {
    const ranked = await h.ranks(recall, query);
    const at = (content: string) => ranked.findIndex((r) => r.content === content);
    const hit = ranked.findIndex((r) => r.content.includes("charting library"));
    // Lent the hit's lifts instead, Priya's reply would have none of its own and rank with Tom's small
    // talk. With hers, the share she is lent (0.6) times her lift (1.7) even puts it above Tom's remark.
    expect(NEIGHBOURS.share * 1.7).toBeGreaterThan(1);
    expect([at(reply), hit]).toEqual([0, 1]);
    expect(at(smallTalk)).toBe(2);
    // Lent by the same hit from the same distance, both score the same share of its relevance.
    expect(ranked[at(reply)]!.score).toBe(ranked[at(smallTalk)]!.score);
  });
});

describe("keyword-leg expansion on weak evidence (expansion.ts, docs/api.md#how-it-ranks)", () => {
  let h: Harness;
  let recall: RecallService;
  const other = "A new fantasy novel about dragons came out.";

  beforeAll(async () => {
    // Keyword-only, so only the keyword leg can find a memory.
    h = await harness("none");
    for (const content of [
      "Tim read a fantasy novel by Patrick Rothfuss.",
      "Tim loves the fantasy novel series of Tolkien.",
      "Tim talked about a fantasy novel with John.",
      other,
      "John went hiking in the mountains.",
      "The weather was rainy all week.",
    ])
      await remember(h, { content });
    recall = await h.service();
  });

  afterAll(async () => {
    await h?.close();
  });

  const contents = async (query: string) => (await h.ranks(recall, query, { limit: 100 })).map((r) => r.content);

  test("a query its best match holds little of also searches the words its best matches share", async () => {
    // "author" is in no memory: Tim's memories hold a third of the query's weight, and share "fantasy novel".
    expect(await contents("Which authors does Tim like?")).toContain(other);
  });

  test("a query its best match answers word for word is searched as it is", async () => {
    expect(await contents("Tim Rothfuss")).not.toContain(other);
  });
});

describe("the keyword leg's statistics are those of the memories searched (keyword-index.ts, docs/api.md#how-it-ranks)", () => {
  let h: Harness;
  let recall: RecallService;
  const answer = "Signed up for a pottery class yesterday, it calms me down.";
  const query = "Does Melanie do pottery?";

  beforeAll(async () => {
    h = await harness("none");
    // In the conversation nearly every memory names Melanie; in the rest of the store pottery is common
    // and she is never named, so the store's statistics make her name the rare word of the question.
    const chat = { project: "chat", who: "Melanie" };
    for (const content of ["Melanie: see you soon!", "Melanie: thanks so much!", "Melanie: have a lovely day!", "Melanie: talk later!", "Melanie: sounds good!"])
      await remember(h, { content, ...chat });
    await remember(h, { content: answer, ...chat });
    for (let i = 0; i < 30; i++) await remember(h, { content: `Pottery kiln firing schedule, batch ${i}`, project: "studio" });
    recall = await h.service();
  });

  afterAll(async () => {
    await h?.close();
  });

  test("a word most of the project's memories hold weighs little there: the memory with the question's other word ranks first", async () => {
    expect((await h.ranks(recall, query, { project: "chat" }))[0]?.content).toBe(answer);
  });

  test("across the whole store the statistics are the store's: her name is the rare word there", async () => {
    expect((await h.ranks(recall, query))[0]?.content).toStartWith("Melanie:");
  });
});
