// The in-memory keyword index against FTS5 itself: the same rows, the same scores, the same order,
// on a realistic corpus; plus its scoping and upkeep.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { makeGenerator, makeQueryGenerator } from "../../scripts/lib/content";
import { KeywordIndex, type KeywordDoc } from "../../src/core/search/keyword-index";
import { keywordColumns, matchExpression, queryTerms } from "../../src/core/search/text";
import { tokenize } from "../../src/core/search/fts5-tokenizer";

const WEIGHTS = [1.0, 0.8, 0.8, 0.5] as const;
let db: Database;
let index: KeywordIndex;
const docs: KeywordDoc[] = [];

function doc(seq: number, content: string, extra: { tags?: string[]; hints?: string[]; agentId?: string; project?: string | null } = {}): KeywordDoc {
  return {
    seq,
    agentId: extra.agentId ?? "default",
    project: extra.project ?? null,
    columns: keywordColumns(content, JSON.stringify(extra.tags ?? []), JSON.stringify(extra.hints ?? [])),
  };
}

function ftsTop(query: string, k: number): { seq: number; score: number }[] {
  return db
    .query<{ seq: number; score: number }, [string, number]>(
      `SELECT rowid AS seq, -bm25(fts, ${WEIGHTS.join(", ")}) AS score FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, ${WEIGHTS.join(", ")}), rowid LIMIT ?`,
    )
    .all(matchExpression(query)!, k);
}

const indexTop = (query: string, k: number, scope = { agentIds: ["default", "other"] }) =>
  index.search(queryTerms(query).flatMap((t) => tokenize(t)), k, scope);

beforeAll(() => {
  db = new Database(":memory:");
  db.run("CREATE VIRTUAL TABLE fts USING fts5(content, tags, hints, terms, tokenize = 'porter unicode61 remove_diacritics 2')");
  index = new KeywordIndex(WEIGHTS);
  const gen = makeGenerator(3);
  const insert = db.query("INSERT INTO fts (rowid, content, tags, hints, terms) VALUES (?, ?, ?, ?, ?)");
  for (let seq = 1; seq <= 3000; seq++) {
    const b = JSON.parse(gen()) as { content: string; tags?: string[] };
    const d = doc(seq, b.content, { tags: b.tags, hints: seq % 7 === 0 ? ["what breaks the build", "getHTTPResponse2"] : [], agentId: seq % 5 === 0 ? "other" : "default" });
    docs.push(d);
    insert.run(seq, ...d.columns);
    index.set(d);
  }
});

afterAll(() => db.close());

describe("KeywordIndex", () => {
  test("ranks like FTS5's bm25() with the same column weights, scores included", () => {
    const qgen = makeQueryGenerator(11);
    const queries = [...Array.from({ length: 150 }, () => qgen().query), "getHTTPResponse2 build", "what breaks"];
    let compared = 0;
    for (const q of queries) {
      const expected = ftsTop(q, 50);
      const got = indexTop(q, 50);
      expect(got.map((h) => h.seq)).toEqual(expected.map((h) => h.seq));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 6));
      compared += expected.length;
    }
    expect(compared).toBeGreaterThan(1000);
  });

  test("the best k of many matches with tied scores are the lowest seqs among the ties, in seq order", () => {
    // 600 matches against k = 10: the one-pass heap, not the sort of every match.
    const tied = new KeywordIndex(WEIGHTS);
    for (let seq = 1; seq <= 600; seq++) {
      tied.set(doc(seq, seq % 100 === 37 ? "the cache breaks on restart" : "the cache breaks", { agentId: seq % 3 === 0 ? "b" : "a" }));
    }
    const terms = ["cach", "break", "restart"];
    const all = tied.search(terms, 600, { agentIds: ["a", "b"] });
    expect(all.slice(0, 6).map((h) => h.seq)).toEqual([37, 137, 237, 337, 437, 537]);
    expect(tied.search(terms, 10, { agentIds: ["a", "b"] })).toEqual(all.slice(0, 10));
    expect(tied.search(terms, 10, { agentIds: ["a", "b"] }).map((h) => h.seq)).toEqual([37, 137, 237, 337, 437, 537, 1, 2, 3, 4]);
    // Scoped to one agent: the same order among its own memories.
    const mine = tied.search(terms, 600, { agentIds: ["a"] });
    expect(tied.search(terms, 10, { agentIds: ["a"] })).toEqual(mine.slice(0, 10));
    expect(mine.every((h) => h.seq % 3 !== 0)).toBe(true);
  });

  test("scopes by agent and project before the top-k cut", () => {
    const scoped = new KeywordIndex(WEIGHTS);
    scoped.set(doc(1, "the cache breaks on restart", { agentId: "a", project: "web" }));
    scoped.set(doc(2, "the cache breaks", { agentId: "b", project: "web" }));
    scoped.set(doc(3, "the cache breaks on restart twice", { agentId: "a", project: "api" }));
    const terms = ["cach", "break", "restart"];
    expect(scoped.search(terms, 10, { agentIds: ["a"] }).map((h) => h.seq).sort()).toEqual([1, 3]);
    expect(scoped.search(terms, 10, { agentIds: ["a", "b"], project: "web" }).map((h) => h.seq).sort()).toEqual([1, 2]);
    expect(scoped.search(terms, 10, { agentIds: ["a"], project: "nowhere" })).toEqual([]);
    expect(scoped.search(terms, 10, { agentIds: ["nobody"] })).toEqual([]);
  });

  test("a scoped search uses the statistics of the memories it searches, as an index of those alone would", () => {
    // Agent "a"'s project "web" among others' memories and other projects; one memory of it is
    // replaced and one removed, so the statistics must follow every change.
    const all = new KeywordIndex(WEIGHTS);
    const alone = new KeywordIndex(WEIGHTS);
    const gen = makeGenerator(5);
    for (let seq = 1; seq <= 400; seq++) {
      const content = (JSON.parse(gen()) as { content: string }).content;
      const inScope = seq % 4 === 0;
      const d = doc(seq, content, inScope ? { agentId: "a", project: "web" } : { agentId: seq % 3 === 0 ? "a" : "b", project: seq % 2 === 0 ? "api" : null });
      all.set(d);
      if (inScope) alone.set(d);
    }
    const replaced = doc(8, "the deploy pipeline breaks when the cache is cold", { agentId: "a", project: "web" });
    for (const i of [all, alone]) {
      i.set(replaced);
      i.remove(12);
    }
    const qgen = makeQueryGenerator(13);
    let compared = 0;
    for (const q of [...Array.from({ length: 60 }, () => qgen().query), "deploy pipeline cache"]) {
      const terms = queryTerms(q).flatMap((t) => tokenize(t));
      const expected = alone.search(terms, 20, { agentIds: ["a"] });
      const got = all.search(terms, 20, { agentIds: ["a"], project: "web" });
      expect(got.map((h) => h.seq)).toEqual(expected.map((h) => h.seq));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 9));
      compared += got.length;
    }
    expect(compared).toBeGreaterThan(200);
  });

  test("a word most of the searched memories hold weighs little there, however rare it is in the store", () => {
    const index = new KeywordIndex(WEIGHTS);
    // In project "chat" nearly every memory names Melanie; elsewhere pottery is common and she is absent.
    let seq = 0;
    for (let i = 0; i < 8; i++) index.set(doc(++seq, `Melanie: see you soon ${i}`, { project: "chat" }));
    const pottery = ++seq;
    index.set(doc(pottery, "Signed up for a pottery class yesterday", { project: "chat" }));
    for (let i = 0; i < 40; i++) index.set(doc(++seq, `pottery kiln firing schedule ${i}`, { project: "studio" }));
    const terms = ["melani", "potteri"];
    const scope = { agentIds: ["default"], project: "chat" };
    // Over the whole store's statistics (FTS5's) her name would be the rare word, and a short remark of hers would win.
    expect(index.search(terms, 1, scope)[0]!.seq).toBe(pottery);
  });

  test("owner codes stay distinct past 65,536 agents", () => {
    const many = new KeywordIndex(WEIGHTS);
    for (let seq = 1; seq <= 65_540; seq++) many.set(doc(seq, "quokka", { agentId: `agent-${seq}` }));
    const terms = tokenize("quokka");
    for (const seq of [1, 2, 65_536, 65_537, 65_540]) {
      expect(many.search(terms, 10, { agentIds: [`agent-${seq}`] }).map((h) => h.seq)).toEqual([seq]);
    }
  });

  test("replacing and removing a memory keeps it in step with FTS5", () => {
    const update = db.query("UPDATE fts SET content = ?, tags = ?, hints = ?, terms = ? WHERE rowid = ?");
    const changed = doc(42, "zebra migrations deadlock under load", { tags: ["zebra"] });
    update.run(...changed.columns, 42);
    index.set(changed);
    db.query("DELETE FROM fts WHERE rowid = ?").run(43);
    index.remove(43);
    for (const q of ["zebra deadlock", "the build breaks under load", "migration runner"]) {
      expect(indexTop(q, 50).map((h) => h.seq)).toEqual(ftsTop(q, 50).map((h) => h.seq));
    }
    expect(indexTop("zebra", 5)[0]!.seq).toBe(42);
    expect(index.size).toBe(2999);
  });
});
