// How sure a recall result is (docs/api.md#scores). A score of RECALL_STRONG_SCORE is enough against
// a large store of varied memories, but in a store of one kind (a developer's memories) an unrelated
// question still finds a memory at 0.21–0.23: one that holds a common word of it ("language",
// "rules") and is no closer to it than the rest of the store. Such a match says nothing: under
// SURE_SCORE a result is strong only with evidence of its own for this query, and a keyword match
// the vector leg places below the store's background ("train" for "How do I train a puppy to
// sit?" in a memory about model training) is not.
import { RECALL_STRONG_SCORE } from "../../contracts/scores";

/** From this score a result is strong whatever its evidence. */
const SURE_SCORE = 0.3;
/** Evidence of its own: the memory holds this share of the query's term weight (search/scoring.ts), and the vector leg, if it ran, does not place it below the background... */
const OWN_KEYWORD_SHARE = 0.3;
/** ...or its cosine stands this far above the store's background for the query (backgroundCosine). */
const OWN_STANDOUT = 0.03;
/** The background is the median of the vector leg's best this many cosines. */
export const BACKGROUND_AT = 50;

/**
 * Whether a candidate has evidence of its own for the query, given the store's background cosine
 * (null when no vector leg ran). A memory the vector leg did not find among its best is below it.
 */
export function hasOwnEvidence(candidate: { keyword: number; cosine: number | null }, background: number | null): boolean {
  if (background === null) return candidate.keyword >= OWN_KEYWORD_SHARE;
  const above = candidate.cosine === null ? -Infinity : candidate.cosine - background;
  return above >= OWN_STANDOUT || (candidate.keyword >= OWN_KEYWORD_SHARE && above >= 0);
}

export function confidenceOf(score: number, ownEvidence: boolean): "strong" | "weak" {
  return score >= RECALL_STRONG_SCORE && (score >= SURE_SCORE || ownEvidence) ? "strong" : "weak";
}
