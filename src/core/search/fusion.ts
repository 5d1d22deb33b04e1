// Query-adaptive fusion (docs/api.md#how-it-ranks), the one way memories and document chunks combine
// their keyword and vector legs: how much the vector leg weighs in the fused order depends on how good
// the keyword leg's evidence is for this query. A question that shares no rare
// word with its answer ("Who signs off on my time off?" for "Kenji approves the team's leave
// requests") leaves the keyword leg matching common words only; a fixed weight would hand the order to
// that noise. A query whose exact identifier a memory holds is the keyword leg's to rank.
import type { MatchedBy } from "../../contracts/recall";
import { fusedRelevance, normalized, scaledByBest, vectorRelevance, type LegHit } from "./scoring";
import { identifierWords } from "./text";

/** How far the vector leg's weight in the fused order may move with the keyword leg's evidence. */
export interface VectorWeights {
  /** When the keyword leg's best match holds the whole query, or an identifier of it. */
  min: number;
  /** When the keyword leg's best match holds none of the query's weight. */
  max: number;
}

/** The vector leg's weight for every query unless a caller has reason to weigh meaning more. */
export const VECTOR_WEIGHTS: VectorWeights = { min: 0.2, max: 0.5 };

export interface KeywordEvidence {
  /** The best calibrated keyword relevance among the leg's hits (scoring.ts keywordRelevance): 0-1. */
  best: number;
  /** Whether a document among the hits holds an identifier-shaped word of the query (text.ts). */
  identifier: boolean;
}

/** The vector leg's weight in the fused order (the keyword leg has the rest), when both legs found something. */
export function vectorWeight(evidence: KeywordEvidence, { min, max }: VectorWeights = VECTOR_WEIGHTS): number {
  if (evidence.identifier) return min;
  const best = Math.min(1, Math.max(0, evidence.best));
  return max - (max - min) * best;
}

/**
 * The keyword leg's evidence for weighing the legs. `terms` are the query's terms (queryTerms) and
 * `tokens` each one's tokens; `matched` holds, per hit, the positions it matches among the terms that
 * have a token, in order (and any terms after them).
 */
export function keywordEvidence(query: string, terms: readonly string[], tokens: readonly string[][], relevance: ReadonlyMap<number, number>, matched: ReadonlyMap<number, number[]>): KeywordEvidence {
  const identifiers = identifierWords(query);
  const identifierAt = terms.filter((_, i) => tokens[i]!.length > 0).flatMap((t, i) => (identifiers.has(t) ? [i] : []));
  return {
    best: Math.max(0, ...relevance.values()),
    identifier: identifierAt.length > 0 && [...matched.values()].some((m) => m.some((i) => identifierAt.includes(i))),
  };
}

/** One candidate of the fused legs, in no order yet. */
export interface Fused {
  seq: number;
  /** Its place in the fused order before any caller's own factors: the legs' normalized scores, weighed. */
  order: number;
  /** Both legs' calibrated evidence combined (scoring.ts fusedRelevance): 0-1. */
  relevance: number;
  /** The keyword leg's calibrated relevance, 0 when it did not find it. */
  keyword: number;
  /** The vector leg's calibrated relevance, 0 when it did not find it. */
  vector: number;
  cosine: number | null;
  matchedBy: MatchedBy;
}

export interface Legs {
  /** The keyword leg's hits with their raw scores (BM25: higher is better). */
  keyword: LegHit[];
  /** Each keyword hit's calibrated relevance (scoring.ts keywordRelevance). */
  keywordRelevance: ReadonlyMap<number, number>;
  evidence: KeywordEvidence;
  /** The vector leg's hits, each with its cosine as the raw score. */
  vector: LegHit[];
  /** The embedding provider, whose cosines are calibrated (scoring.ts vectorRelevance). */
  provider: string;
}

/**
 * The two legs as one list: each leg normalized, the vector leg weighed by vectorWeight within
 * `weights` when both found something (alone, a leg has the whole order), each candidate with its
 * calibrated relevance.
 */
export function fuse({ keyword, keywordRelevance, evidence, vector, provider }: Legs, weights: VectorWeights = VECTOR_WEIGHTS): Fused[] {
  const kw = scaledByBest(keyword);
  const vec = normalized(vector);
  const cosines = new Map(vector.map((h) => [h.seq, h.raw]));
  const wv = vector.length > 0 && keyword.length > 0 ? vectorWeight(evidence, weights) : vector.length > 0 ? 1 : 0;
  return [...new Set([...kw.keys(), ...vec.keys()])].map((seq) => {
    const k = kw.get(seq);
    const v = vec.get(seq);
    const cosine = cosines.get(seq);
    const keywordEvidence = keywordRelevance.get(seq) ?? 0;
    const vectorEvidence = cosine === undefined ? 0 : vectorRelevance(cosine, provider);
    return {
      seq,
      order: (1 - wv) * (k ?? 0) + wv * (v ?? 0),
      relevance: fusedRelevance(keywordEvidence, vectorEvidence),
      keyword: keywordEvidence,
      vector: vectorEvidence,
      cosine: cosine ?? null,
      matchedBy: k !== undefined && v !== undefined ? "hybrid" : k !== undefined ? "keyword" : "vector",
    };
  });
}
