// What the prompt hook injects (src/core/sessions/injection.ts), on rankings built by hand: nothing
// when every memory is about as close to the prompt as the next; a memory that stands out (sharing a
// term with the prompt), or holds the prompt's rare words, goes in, but a prompt of a word or two must
// name a subject; another project's never does; of
// two memories on one subject only the newer goes in; what the session was given is not given again;
// at most MAX_INJECTED.
import { describe, expect, test } from "bun:test";
import type { RankedCandidate, Ranking } from "../../src/core/recall/service";
import type { CandidateRow } from "../../src/core/recall/store";
import { DEFAULT_INJECTION, MAX_INJECTED, chooseInjections, type InjectionScope } from "../../src/core/sessions/injection";

let seq = 0;
function candidate(o: { keyword?: number; cosine?: number | null; vector?: number; project?: string | null; type?: string; createdAt?: string; content?: string }): RankedCandidate {
  const n = ++seq;
  const row = { seq: n, id: `m${n}`, content: o.content ?? `memory ${n}`, type: o.type ?? "fact", project: o.project ?? null, created_at: o.createdAt ?? "2026-01-01T00:00:00.000Z" } as CandidateRow;
  return { row, rank: 1, relevance: 0.5, matchedBy: "hybrid", keyword: o.keyword ?? 0, vector: o.vector ?? 0, cosine: o.cosine === undefined ? 0.4 : o.cosine };
}

/** A ranking over `ranked` in a store whose other memories sit at `background` cosine for the prompt. */
function ranking(ranked: RankedCandidate[], background = 0.4, others = 40): Ranking {
  const cosines = [...ranked.map((c) => c.cosine ?? 0), ...Array.from({ length: others }, () => background)].sort((a, b) => b - a);
  return { ranked, candidates: ranked.length, cosines, embedding: "ok", method: "hybrid" };
}

const scope = (o: Partial<InjectionScope> = {}): InjectionScope => ({
  prompt: "why does the nightly export job time out on large accounts",
  project: null,
  given: new Set(),
  similarity: () => 0,
  ...o,
});
const ids = (chosen: RankedCandidate[]) => chosen.map((c) => c.row.id);

describe("chooseInjections", () => {
  test("a prompt every memory is weakly and evenly similar to gets nothing", () => {
    const flat = Array.from({ length: 8 }, (_, i) => candidate({ cosine: 0.55 - i * 0.005, keyword: 0.1 }));
    expect(chooseInjections(ranking(flat, 0.5), scope())).toEqual([]);
  });

  test("a memory that stands out from the store's background goes in; one holding the prompt's words does too", () => {
    const standsOut = candidate({ cosine: 0.4 + DEFAULT_INJECTION.standout + 0.05, vector: 0.5, keyword: 0.1 });
    const holdsWords = candidate({ keyword: 0.8, cosine: 0.41 });
    const background = candidate({ cosine: 0.42, vector: 0.2 });
    expect(ids(chooseInjections(ranking([standsOut, holdsWords, background]), scope()))).toEqual([holdsWords.row.id, standsOut.row.id]);
  });

  test("standing out does not count for a memory that shares no term with the prompt (not a word, a part of one or a concept)", () => {
    const sharesNothing = candidate({ cosine: 0.4 + DEFAULT_INJECTION.standout + 0.1, vector: 0.6, keyword: 0 });
    expect(chooseInjections(ranking([sharesNothing]), scope())).toEqual([]);
    const sharesAWord = candidate({ cosine: 0.4 + DEFAULT_INJECTION.standout + 0.1, vector: 0.6, keyword: 0.05 });
    expect(ids(chooseInjections(ranking([sharesNothing, sharesAWord]), scope()))).toEqual([sharesAWord.row.id]);
  });

  test("a prompt of function words alone gets nothing, whatever holds them", () => {
    const holdsThem = candidate({ keyword: 1, cosine: 0.4 + DEFAULT_INJECTION.standout + 0.1, vector: 0.6, content: "Do it in small steps" });
    for (const prompt of ["do it", "what now?", "why?"]) expect({ prompt, chosen: chooseInjections(ranking([holdsThem]), scope({ prompt })) }).toEqual({ prompt, chosen: [] });
  });

  test("a prompt of a word or two gets only memories about a subject it names (a concept of the lexicon, or both its words)", () => {
    const commits = candidate({ keyword: 1, content: "Commit messages follow Conventional Commits", type: "preference" });
    const holdsRun = candidate({ keyword: 1, cosine: 0.4 + DEFAULT_INJECTION.standout + 0.1, vector: 0.6, content: "Run the whole suite before pushing" });
    const holdsKeep = candidate({ keyword: 1, content: "Keep pull requests small" });
    expect(chooseInjections(ranking([holdsRun]), scope({ prompt: "run it" }))).toEqual([]);
    expect(chooseInjections(ranking([holdsKeep]), scope({ prompt: "keep going" }))).toEqual([]);
    expect(ids(chooseInjections(ranking([commits, holdsRun]), scope({ prompt: "commit this" })))).toEqual([commits.row.id]);
    // Two words a memory holds together are a subject; one of them alone is not.
    const kite = candidate({ keyword: 1, content: "The yellow kite is in the garage" });
    const yellow = candidate({ keyword: 0.5, content: "The hallway is painted yellow" });
    expect(ids(chooseInjections(ranking([kite, yellow]), scope({ prompt: "yellow kite?" })))).toEqual([kite.row.id]);
    // Three words or more: the words themselves are evidence, as for any prompt.
    expect(ids(chooseInjections(ranking([holdsRun]), scope({ prompt: "run the whole suite" })))).toEqual([holdsRun.row.id]);
  });

  test("a sentence of a script written without spaces is not one word: its matches count as any prompt's", () => {
    const deadline = candidate({ keyword: 0.6, content: "プロジェクトの締め切りは金曜日です" });
    expect(ids(chooseInjections(ranking([deadline]), scope({ prompt: "締め切りはいつですか？" })))).toEqual([deadline.row.id]);
  });

  test("standing out is not enough when the memory is not close to the prompt at all (an off-topic question)", () => {
    const nearest = candidate({ cosine: 0.3, vector: 0 });
    expect(chooseInjections(ranking([nearest], 0.1), scope())).toEqual([]);
  });

  test("another project's memory never goes in; a global one and the session's own project's do", () => {
    const other = candidate({ keyword: 1, project: "/src/other" });
    const own = candidate({ keyword: 0.9, project: "/src/here" });
    const global = candidate({ keyword: 0.9, project: null });
    expect(ids(chooseInjections(ranking([other, own, global]), scope({ project: "/src/here" })))).toEqual([own.row.id, global.row.id]);
  });

  test("of two memories on one subject only the newer goes in, even when it matches the prompt less well than the older", () => {
    const older = candidate({ keyword: 1, content: "Indentation: 2 spaces everywhere", createdAt: "2025-01-01T00:00:00.000Z" });
    const newer = candidate({ keyword: 0.7, content: "Switched to tabs, width 4", createdAt: "2026-03-01T00:00:00.000Z" });
    expect(ids(chooseInjections(ranking([older, newer]), scope({ similarity: () => 0.7 })))).toEqual([newer.row.id]);
    // Far apart in meaning, or about no concept in common: both stand on their own.
    expect(ids(chooseInjections(ranking([older, newer]), scope({ similarity: () => 0.3 })))).toEqual([older.row.id, newer.row.id]);
    const unrelated = candidate({ keyword: 0.9, content: "Deploys go out on Tuesdays", createdAt: "2026-03-01T00:00:00.000Z" });
    expect(ids(chooseInjections(ranking([older, unrelated]), scope({ similarity: () => 0.9 })))).toEqual([older.row.id, unrelated.row.id]);
  });

  test("a newer memory that touches an older one's subject without restating it does not replace it", () => {
    // Both about money and close in meaning, but the newer says something else: both stand.
    const rule = candidate({ keyword: 1, content: "Money is stored as integer cents with a currency column; never use floats for prices.", createdAt: "2025-02-05T00:00:00.000Z" });
    const pages = candidate({ keyword: 0.8, content: "Product pages are rebuilt every 5 minutes, so price changes show late.", createdAt: "2025-11-02T00:00:00.000Z" });
    expect(ids(chooseInjections(ranking([rule, pages]), scope({ similarity: () => 0.65 })))).toEqual([rule.row.id, pages.row.id]);
    // A newer one that restates the older and is about all it is about (tests, packages) replaces it;
    // one about less (nothing of packages) does not.
    const runner = candidate({ keyword: 1, content: "Unit tests run with Jest (pnpm test); config in jest.config.ts.", createdAt: "2025-03-01T00:00:00.000Z" });
    const moved = candidate({ keyword: 0.6, content: "Moved unit tests from Jest to Vitest: pnpm test runs vitest, jest.config.ts deleted.", createdAt: "2026-03-04T00:00:00.000Z" });
    expect(ids(chooseInjections(ranking([runner, moved]), scope({ similarity: () => 0.74 })))).toEqual([moved.row.id]);
    const aside = candidate({ keyword: 0.9, content: "Unit tests with Jest write their coverage to coverage/, see jest.config.ts.", createdAt: "2026-04-01T00:00:00.000Z" });
    expect(ids(chooseInjections(ranking([runner, aside]), scope({ similarity: () => 0.8 })))).toEqual([runner.row.id, aside.row.id]);
  });

  test("a matched memory that a newer one restates gives its place to the newer, found further down the ranking", () => {
    const airflow = candidate({ keyword: 1, content: "The pipeline runs on Airflow 2.6; DAGs are in dags/.", createdAt: "2025-03-01T00:00:00.000Z" });
    const filler = Array.from({ length: 5 }, () => candidate({}));
    const dagster = candidate({ content: "The pipeline runs on Dagster since November 2025, replacing the Airflow DAGs.", createdAt: "2025-11-18T00:00:00.000Z" });
    const alike = { prompt: "the airflow DAG for globex isn't showing up", similarity: () => 0.63 };
    expect(ids(chooseInjections(ranking([airflow, ...filler, dagster]), scope(alike)))).toEqual([dagster.row.id]);
    // Given already in this window: neither goes in again.
    expect(chooseInjections(ranking([airflow, ...filler, dagster]), scope({ ...alike, given: new Set([dagster.row.id]) }))).toEqual([]);
    // Not close in meaning: the matched memory stands.
    expect(ids(chooseInjections(ranking([airflow, ...filler, dagster]), scope({ ...alike, similarity: () => 0.3 })))).toEqual([airflow.row.id]);
  });

  test("what the session was given is not given again, and no more than MAX_INJECTED go in", () => {
    const many = Array.from({ length: MAX_INJECTED + 3 }, () => candidate({ keyword: 0.9 }));
    const given = new Set([many[0]!.row.id]);
    const chosen = ids(chooseInjections(ranking(many), scope({ given })));
    expect(chosen).toHaveLength(MAX_INJECTED);
    expect(chosen).not.toContain(many[0]!.row.id);
  });

  test("a much weaker memory does not ride along with a strong one", () => {
    const strong = candidate({ keyword: 1 });
    const weak = candidate({ keyword: DEFAULT_INJECTION.keyword + 0.01 });
    expect(ids(chooseInjections(ranking([strong, weak]), scope()))).toEqual([strong.row.id]);
  });
});
