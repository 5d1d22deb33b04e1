// Query-adaptive fusion (docs/api.md#how-it-ranks): how much the vector leg weighs in the fused order
// depends on how good the keyword leg's evidence is for this query. A question that shares no rare
// word with its answer ("Who signs off on my time off?" for "Kenji approves the team's leave
// requests") leaves the keyword leg matching common words only; a fixed weight would hand the order to
// that noise. A query whose exact identifier a memory holds is the keyword leg's to rank.

/** The vector weight when the keyword leg's best match holds the whole query, or an identifier of it. */
const MIN_VECTOR_WEIGHT = 0.2;
/** The vector weight when the keyword leg's best match holds none of the query's weight. */
const MAX_VECTOR_WEIGHT = 0.5;

export interface KeywordEvidence {
  /** The best calibrated keyword relevance among the leg's hits (scoring.ts keywordRelevance): 0-1. */
  best: number;
  /** Whether a memory among the hits holds an identifier-shaped word of the query (text.ts). */
  identifier: boolean;
}

/** The vector leg's weight in the fused order (the keyword leg has the rest), when both legs found something. */
export function vectorWeight(evidence: KeywordEvidence): number {
  if (evidence.identifier) return MIN_VECTOR_WEIGHT;
  const best = Math.min(1, Math.max(0, evidence.best));
  return MAX_VECTOR_WEIGHT - (MAX_VECTOR_WEIGHT - MIN_VECTOR_WEIGHT) * best;
}
