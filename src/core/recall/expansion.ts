// Pseudo-relevance feedback for the keyword leg (RM3-style; docs/api.md#how-it-ranks): the words the
// keyword leg's best few memories share, beyond the query's own, are searched too at a lower weight,
// so a memory about the same thing in other words ("book", "fantasy" for "which authors has Tim
// read?") can rank. They only reorder: a memory's relevance (its score) counts the query's own terms.
// It runs on weak keyword evidence only (expands): measured in docs/benchmarks.md#recall-quality.
import type { KeywordIndex } from "../search/keyword-index";
import { isStopword } from "../search/text";

/** Below this best keyword relevance (search/scoring.ts) the first pass is weak evidence, and expansion runs. */
export const WEAK_KEYWORD_EVIDENCE = 0.5;

/**
 * Whether the keyword leg searches a second time with feedback terms, given its first pass's best
 * keyword relevance: only when its best match holds under half the query's term weight (a question
 * in other words than its answer). A query its best match answers word for word gains nothing and
 * would pay a second search; expanding every query cost LoCoMo recall and latency
 * (docs/benchmarks.md#recall-quality).
 */
export function expands(best: number): boolean {
  return best < WEAK_KEYWORD_EVIDENCE;
}

/** The best keyword hits the expansion terms are taken from. */
const FEEDBACK_DOCS = 3;
/** Expansion terms added to the query at most. */
const FEEDBACK_TERMS = 8;
/** An expansion term's weight against an original term's 1. */
export const EXPANSION_WEIGHT = 0.3;

/**
 * The terms to add to `queryTokens`, each with its weight: a term scores by how many of the top hits
 * hold it (two at least: one memory's idiosyncrasies are no evidence) times its idf, and the best
 * FEEDBACK_TERMS are kept, weighted EXPANSION_WEIGHT times their share of the best one's score.
 */
export function feedbackTerms(index: KeywordIndex, queryTokens: readonly string[], topSeqs: readonly number[]): { tokens: string[]; weights: number[] } {
  const own = new Set(queryTokens);
  const n = index.size;
  const held = new Map<string, { count: number; df: number }>();
  for (const seq of topSeqs.slice(0, FEEDBACK_DOCS)) {
    for (const { token, df } of index.termsOf(seq)) {
      if (own.has(token) || isStopword(token)) continue;
      const h = held.get(token);
      if (h) h.count++;
      else held.set(token, { count: 1, df });
    }
  }
  const scored = [...held]
    .filter(([, h]) => h.count >= 2)
    .map(([token, h]) => ({ token, score: h.count * Math.log((n + 1) / (h.df + 0.5)) }))
    .filter((t) => t.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, FEEDBACK_TERMS);
  const best = scored[0]?.score ?? 1;
  return { tokens: scored.map((t) => t.token), weights: scored.map((t) => (EXPANSION_WEIGHT * t.score) / best) };
}
