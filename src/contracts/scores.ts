// Where a recall or source-search score counts as a real match (docs/api.md#scores).

/**
 * A result scoring at least this is a strong match, under it a weak one: against 2,000 memories of
 * the synthetic corpus (scripts/lib/content.ts) no question of scripts/lib/no-answer.ts scores
 * above 0.14, while 199 of 200 questions about the corpus score more than 0.2 (median 0.78).
 * Document source search cuts here by default.
 */
export const RECALL_STRONG_SCORE = 0.2;
