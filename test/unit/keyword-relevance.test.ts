// The keyword leg's relevance (src/core/search/scoring.ts): the share of a query's term weight a
// memory holds, measured against the query's eight weightiest terms at most, so a long query (a
// pasted error) is not about its bulk: the memory holding its rare words scores as it would for them.
import { expect, test } from "bun:test";
import { keywordRelevance } from "../../src/core/search/scoring";

/** BM25's idf as scoring.ts weighs a term (docs/api.md#scores). */
const weight = (df: number, n: number) => Math.log(1 + (n + 10 - df + 0.5) / (df + 0.5));

test("a short query: the share of all its terms' weight", () => {
  const n = 1000;
  const df = [2, 50, 600];
  const relevance = keywordRelevance({ n, df });
  const all = df.reduce((a, d) => a + weight(d, n), 0);
  expect(relevance([0])).toBeCloseTo(weight(2, n) / all, 10);
  expect(relevance([0, 1, 2])).toBe(1);
  expect(relevance([])).toBe(0);
});

test("a long query: measured against its eight weightiest terms, whatever else it holds", () => {
  const n = 1000;
  // Three rare words among twenty common ones, as in a pasted stack trace.
  const df = [3, 4, 5, ...Array.from({ length: 20 }, (_, i) => 300 + i * 10)];
  const relevance = keywordRelevance({ n, df });
  const weights = df.map((d) => weight(d, n));
  const topEight = [...weights].sort((a, b) => b - a).slice(0, 8).reduce((a, w) => a + w, 0);
  const rare = weights[0]! + weights[1]! + weights[2]!;
  expect(relevance([0, 1, 2])).toBeCloseTo(rare / topEight, 10);
  // Against every term's weight it would have been far less.
  expect(relevance([0, 1, 2])).toBeGreaterThan((1.5 * rare) / weights.reduce((a, w) => a + w, 0));
  // Holding the eight weightiest is holding all the evidence there is; more never passes 1.
  expect(relevance([0, 1, 2, 3, 4, 5, 6, 7])).toBeCloseTo(1, 10);
  expect(relevance(df.map((_, i) => i))).toBe(1);
  // Common words alone stay weak.
  expect(relevance([20, 21, 22])).toBeLessThan(0.35);
});
