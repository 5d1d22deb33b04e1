// The in-memory keyword index against FTS5 itself: the same rows, the same scores, the same order,
// on a realistic corpus; plus its scoping and upkeep.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { makeGenerator, makeQueryGenerator } from "../../scripts/lib/content";
import { KeywordIndex, loadInSteps, type KeywordDoc } from "../../src/core/search/keyword-index";
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

  test("a memory's specificity: the mean idf of its three rarest terms over ln N, common words near 0", () => {
    const small = new KeywordIndex(WEIGHTS);
    small.set(doc(1, "thanks, sounds great"));
    // One memory: no statistics to tell anything by.
    expect(small.specificity(1)).toBe(1);
    let seq = 1;
    for (let i = 0; i < 98; i++) small.set(doc(++seq, "thanks, sounds great to me"));
    const rare = ++seq;
    small.set(doc(rare, "thanks, the kickboxing class starts at the dojo"));
    const n = 100;
    // Its three terms are in (nearly) every memory: "thank" in all 100, "sound" and "great" in 99.
    expect(small.specificity(1)).toBeCloseTo((0 + 2 * Math.log(n / 99)) / 3 / Math.log(n), 10);
    expect(small.specificity(1)).toBeLessThan(0.01);
    // "kickbox", "class", "start", "dojo" are its alone: ln(100) each, the most there is.
    expect(small.specificity(rare)).toBeCloseTo(1, 10);
    // Fewer than three terms: the missing ones count as 0.
    small.set(doc(++seq, "kickboxing"));
    expect(small.specificity(seq)).toBeCloseTo(Math.log((n + 1) / 2) / 3 / Math.log(n + 1), 10);
    // Not indexed: no evidence either way.
    expect(small.specificity(9999)).toBe(1);
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

describe("KeywordIndex upkeep", () => {
  test("past 65,536 distinct frequencies every list's ids widen, and scores stay FTS5's", () => {
    // A term's weighted frequency in a memory is a sum of column weights: with these weights each
    // count per column (up to 16) gives another sum, 73,983 in all. The filler memories keep the
    // term in under half of them, so its BM25 weight is not floored.
    const weights = [1, 1 / 17, 1 / 289, 1 / 4913] as const;
    const fts = new Database(":memory:");
    fts.run("CREATE VIRTUAL TABLE fts USING fts5(content, tags, hints, terms, tokenize = 'porter unicode61 remove_diacritics 2')");
    const insert = fts.query("INSERT INTO fts (rowid, content, tags, hints, terms) VALUES (?, ?, ?, ?, ?)");
    const wide = new KeywordIndex(weights);
    const add = (seq: number, columns: [string, string, string, string]) => {
      wide.set({ seq, agentId: "default", project: null, columns });
      insert.run(seq, ...columns);
    };
    const times = (n: number) => Array<string>(n).fill("quokka").join(" ");
    let seq = 0;
    fts.transaction(() => {
      for (let a = 0; a < 17; a++) {
        for (let b = 0; b < 17; b++) {
          for (let c = 0; c < 16; c++) for (let d = 0; d < 16; d++) if (a + b + c + d > 0) add(++seq, [times(a), times(b), times(c), times(d)]);
        }
        // Memories indexed before the ids widen are searched after it too.
        if (a === 0) add(++seq, ["quokka wombat", "", "", ""]);
      }
      for (let i = 0; i < 80_000; i++) add(++seq, ["wombat", "", "", ""]);
    })();
    const expected = fts
      .query<{ seq: number; score: number }, []>(
        `SELECT rowid AS seq, -bm25(fts, ${weights.join(", ")}) AS score FROM fts WHERE fts MATCH 'quokka' ORDER BY bm25(fts, ${weights.join(", ")}), rowid LIMIT 300`,
      )
      .all();
    const got = wide.search(["quokka"], 300, { agentIds: ["default"] });
    expect(got.map((h) => h.seq)).toEqual(expected.map((h) => h.seq));
    got.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 9));
    // The memory indexed first, with its 16-bit id, scores as FTS5 scores it.
    const early = fts.query<{ score: number }, []>(`SELECT -bm25(fts, ${weights.join(", ")}) AS score FROM fts WHERE fts MATCH 'quokka' AND rowid = 1`).get()!;
    const all = wide.search(["quokka"], 80_000, { agentIds: ["default"] });
    expect(all.find((h) => h.seq === 1)!.score).toBeCloseTo(early.score, 9);
    fts.close();
  });

  test("memories replaced and removed in bulk keep their terms, and a load ranks as memory-by-memory indexing", async () => {
    const gen = makeGenerator(17);
    const bodies = Array.from({ length: 3000 }, () => (JSON.parse(gen()) as { content: string }).content);
    const loaded = new KeywordIndex(WEIGHTS);
    const rows = bodies.map((content, i) => doc(i + 1, content));
    // In steps of 2,000, as the daemon loads its store, then compacted.
    await loadInSteps(loaded, (after, n) => rows.filter((r) => r.seq > after).slice(0, n), (r) => r, () => false);
    const direct = new KeywordIndex(WEIGHTS);
    for (const r of rows) direct.set(r);
    // Most memories replaced (their old terms are left unused, then compacted away), some removed.
    const live = new Map(rows.map((r) => [r.seq, r]));
    for (const i of [loaded, direct]) {
      for (let seq = 1; seq <= 3000; seq++) {
        if (seq % 10 === 0) i.remove(seq);
        else if (seq % 3 !== 0) i.set(doc(seq, `${bodies[3000 - seq]} replaced`));
      }
    }
    for (let seq = 1; seq <= 3000; seq++) {
      if (seq % 10 === 0) live.delete(seq);
      else if (seq % 3 !== 0) live.set(seq, doc(seq, `${bodies[3000 - seq]} replaced`));
    }
    for (const [seq, d] of live) {
      const tokens = [...new Set(d.columns.flatMap((c) => tokenize(c)))].sort();
      expect(loaded.termsOf(seq).map((t) => t.token).sort()).toEqual(tokens);
    }
    expect(loaded.termsOf(10)).toEqual([]);
    const qgen = makeQueryGenerator(19);
    for (let i = 0; i < 40; i++) {
      const terms = queryTerms(qgen().query).flatMap((t) => tokenize(t));
      expect(loaded.search(terms, 20, { agentIds: ["default"] })).toEqual(direct.search(terms, 20, { agentIds: ["default"] }));
    }
    expect(loaded.size).toBe(live.size);
  });
});
