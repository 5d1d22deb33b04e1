// What a search score means (docs/api.md#scores), for memories, document chunks and code alike. Each
// leg's evidence is calibrated onto an absolute 0-1 relevance: the keyword leg by how much of the
// query's information a document contains, the vector leg by where its cosine falls between what the
// model gives unrelated and clearly related text. The two combine into one relevance (memory recall
// then lowers it by its own signals: core/recall/adjustment.ts). The constants were measured with
// scripts/bench-locomo.ts and the synthetic corpus of scripts/lib/content.ts (the figures are in
// docs/api.md#scores).

/**
 * Memories a store is taken to hold besides its own, none with the term, when weighing a term: a
 * store of a few memories says little about how rare a word is, and without these a word its one
 * memory holds would weigh a fifth of one it lacks. Ten keep a word most of a small store holds
 * light (in 21 of 24 memories: a sixth of a rare word) and vanish in a large one.
 */
const PRIOR_MEMORIES = 10;

/** A term's weight: BM25's idf (the Lucene form, never negative) over the store plus the prior. */
function termWeight(df: number, n: number): number {
  return Math.log(1 + (n + PRIOR_MEMORIES - df + 0.5) / (df + 0.5));
}

/** Term statistics of one keyword query: the store's size and each term's document frequency. */
export interface TermStats {
  n: number;
  df: number[];
}

/**
 * How many of a query's terms, the weightiest, its keyword evidence is measured against: a long
 * query (a pasted error or test failure) is about its rarest words, not its bulk, and the memory
 * that explains it holds only a few of its dozens of terms (docs/benchmarks.md#long-prompts).
 */
const EVIDENCE_TERMS = 8;

/**
 * The keyword leg's relevance for one query: the share of the query's term weight a memory holds,
 * given the positions in the query's terms of those it holds (each once), out of the weight of its
 * EVIDENCE_TERMS weightiest terms. A memory holding every term scores 1; one holding only the
 * query's common words scores little; how often a term occurs in it and its length only rank.
 */
export function keywordRelevance(stats: TermStats): (matched: readonly number[]) => number {
  const weights = stats.df.map((df) => termWeight(df, stats.n));
  const total = [...weights]
    .sort((a, b) => b - a)
    .slice(0, EVIDENCE_TERMS)
    .reduce((a, w) => a + w, 0);
  return (matched) => {
    let held = 0;
    for (const i of matched) held += weights[i]!;
    return total > 0 ? Math.min(1, held / total) : 0;
  };
}

/** Cosines a model gives unrelated text (relevance 0) and clearly related text (relevance 1). */
interface CosineRamp {
  unrelated: number;
  related: number;
}

/**
 * The builtin USE-lite model, measured: unrelated text (LoCoMo questions against turns of other
 * conversations) is below 0.35 in 95% of pairs, and questions of NO_ANSWER_QUERIES reach at most
 * 0.37 against the synthetic corpus; a question and its evidence are at 0.44 in the median and
 * above 0.69 in 1% of pairs. Other models are not measured: their ramp starts higher, so a middling
 * cosine is no evidence on its own and a vector-only match needs a close one.
 */
const BUILTIN_RAMP: CosineRamp = { unrelated: 0.35, related: 0.75 };
const DEFAULT_RAMP: CosineRamp = { unrelated: 0.5, related: 0.9 };

/** The vector leg's relevance: a cosine on the provider's ramp, clamped to 0-1. */
export function vectorRelevance(cosine: number, provider: string): number {
  const ramp = provider === "builtin" ? BUILTIN_RAMP : DEFAULT_RAMP;
  return Math.min(1, Math.max(0, (cosine - ramp.unrelated) / (ramp.related - ramp.unrelated)));
}

/**
 * The store's background closeness for one query: the median of the vector leg's cosines among the
 * `at` best (all when fewer), best first. A memory's cosine above it says how far it stands out from
 * what the store holds anyway; in a store of one kind (a developer's memories) every memory is
 * about as close to an unrelated question as the next.
 */
export function backgroundCosine(cosines: readonly number[], at: number): number {
  const near = cosines.slice(0, at);
  if (near.length === 0) return 1;
  const mid = near.length >> 1;
  return near.length % 2 === 1 ? near[mid]! : (near[mid - 1]! + near[mid]!) / 2;
}

/** Both legs as independent evidence: either one alone can make a memory relevant, both add up. */
export function fusedRelevance(keyword: number, vector: number): number {
  return 1 - (1 - keyword) * (1 - vector);
}

/** One leg's candidate: its row and the leg's raw score. */
export interface LegHit {
  seq: number;
  raw: number;
}

/**
 * The keyword leg's candidates scaled by its best, onto [0.05, 1]: BM25 is 0 for a text without the
 * query's words, so a share of the best says how close a match comes to it. Min-max would put the
 * weakest at the bottom however good it is: of two texts holding the query's one rare word, the
 * longer (BM25's length penalty) sank under a vector-only hit that shares nothing with the query.
 * Every hit matched a word of the query, so even one whose words are in every memory (BM25 near 0
 * in a small store) still counts a little, as the vector leg's weakest does.
 */
export function scaledByBest(hits: LegHit[]): Map<number, number> {
  let max = 0;
  for (const h of hits) max = Math.max(max, h.raw);
  return new Map(hits.map((h) => [h.seq, max > 0 ? 0.05 + (0.95 * h.raw) / max : 1]));
}

/**
 * Min-max normalization over the vector leg's candidates, onto [0.05, 1]: its best is 1, and its
 * weakest still counts a little (in a small store the weakest candidate can be a fine match).
 * Cosines of unrelated texts are far above 0, so only their spread orders. It orders within a leg;
 * the scores shown are the calibrated ones above.
 */
export function normalized(hits: LegHit[]): Map<number, number> {
  const out = new Map<number, number>();
  if (hits.length === 0) return out;
  let min = Infinity;
  let max = -Infinity;
  for (const h of hits) {
    min = Math.min(min, h.raw);
    max = Math.max(max, h.raw);
  }
  for (const h of hits) out.set(h.seq, max > min ? 0.05 + (0.95 * (h.raw - min)) / (max - min) : 1);
  return out;
}
