// Memory recall's signals beyond a text's relevance (docs/api.md#scores): importance, pinning,
// recency, access and feedback lower a memory's score; feedback and an author the query names lift
// only its place in the order. The relevance itself is the search engine's (core/search/scoring.ts).
const DAY_MS = 24 * 60 * 60 * 1000;

export interface ScoredRow {
  importance: number;
  pinned: number;
  created_at: string;
  access_count: number;
  /** Feedback signal -1..1 (the mean of the sessions' ratings), null when never rated. */
  feedback: number | null;
}

/**
 * How far feedback may move a memory in the order: a memory every session rated +1 ranks as if
 * 10% better, one rated -1 as if 10% worse. Bounded so feedback reorders close calls and never puts
 * a memory above a clearly better text match (docs/api.md#feedback).
 */
const FEEDBACK_WEIGHT = 0.1;

/** Feedback's factor on the order: 0.9 to 1.1. */
export function feedbackOrder(row: Pick<ScoredRow, "feedback">): number {
  return 1 + FEEDBACK_WEIGHT * (row.feedback ?? 0);
}

/**
 * Feedback's factor on the score: only down. A memory rated harmful is less relevant than its text
 * says; one rated helpful is no more relevant than its text says, so its score is never lifted.
 */
function feedbackScore(row: Pick<ScoredRow, "feedback">): number {
  return Math.min(1, feedbackOrder(row));
}

/**
 * Ranking signals beyond relevance, as one factor to multiply by (the score's: feedback can only
 * lower it here; feedbackOrder adds its lift to the order alone). Each part is at most 1, so a score
 * stays in 0-1 and never rises above the relevance: these reorder close calls and cannot lift an
 * irrelevant memory over a minimum score.
 */
export function adjustment(row: ScoredRow, now: Date): number {
  const ageDays = Math.max(0, (now.getTime() - Date.parse(row.created_at)) / DAY_MS);
  const importance = 0.85 + 0.15 * row.importance;
  const pinned = row.pinned === 1 ? 1 : 0.95;
  const recency = 0.95 + 0.05 * Math.exp(-ageDays / 30);
  const access = 0.97 + 0.03 * Math.min(1, Math.log1p(row.access_count) / Math.log(50));
  return importance * pinned * recency * access * feedbackScore(row);
}

/**
 * How far naming a memory's author in the query moves it in the order: "what does Melanie do to
 * destress?" is answered by what Melanie said, more than by what others said to her. Order only, like
 * feedback: the author's name is no evidence that the text is relevant, so the score stays the text's.
 * Strong enough that her looser matches pass others' closer ones (in LoCoMo 96% of the evidence for a
 * question naming one speaker is that speaker's, against 65% of the top 10 at a factor of 1.15),
 * short of putting everything she said above everyone else (docs/benchmarks.md#recall-quality).
 */
const AUTHOR_WEIGHT = 0.7;

/** Whether the query names the author `who`: every token of it is among the query's tokens. */
export function namesAuthor(whoTokens: readonly string[], queryTokens: ReadonlySet<string>): boolean {
  return whoTokens.length > 0 && whoTokens.every((t) => queryTokens.has(t));
}

/** The author factor on the order: 1 + AUTHOR_WEIGHT when the query names the author. */
export function authorOrder(whoTokens: readonly string[], queryTokens: ReadonlySet<string>): number {
  return namesAuthor(whoTokens, queryTokens) ? 1 + AUTHOR_WEIGHT : 1;
}

/**
 * How far a memory that only asks moves down the order: "What got you into running?" shows that a
 * topic came up, not what is known about it, which the reply after it holds (session neighbours lend
 * that reply the question's value: neighbours.ts). Order only, like the lifts: its score stays its
 * text's. Chosen on half of LoCoMo's conversations and checked on the other half
 * (docs/benchmarks.md#recall-quality): a question is 6% of the turns there and 1% of the evidence.
 */
const QUESTION_ORDER = 0.7;

/** A speaker's label before the text ("Caroline: "), not part of what is said. */
const LABEL = /^[\p{L}\p{N}_.' -]{1,40}:\s+/u;
const SENTENCES = /(?<=[.!?])\s+/;
/** At most this many words: a greeting or an exclamation ("Thanks, John!") beside a question. */
const INTERJECTION_WORDS = 3;

/** Whether `content` only asks: it ends with a question and every other sentence is an interjection. */
export function asksOnly(content: string): boolean {
  const text = content.trim();
  if (!text.endsWith("?")) return false;
  return text
    .replace(LABEL, "")
    .split(SENTENCES)
    .every((s) => s.endsWith("?") || s.split(/\s+/).length <= INTERJECTION_WORDS);
}

/** The order factor of a memory that only asks: QUESTION_ORDER, else 1. */
export function questionOrder(content: string): number {
  return asksOnly(content) ? QUESTION_ORDER : 1;
}

/**
 * How far a memory of common words moves down the order: one whose rarest words most memories hold
 * ("Sure thing, bye for now!", "Thanks, really appreciate it") says little that a query could be
 * about, however close its vector comes to everything, while a specific word ("kickboxing", "Prius",
 * "pnpm") is what an answer is made of. Order only, like the lifts: the score stays the text's. The
 * weight was chosen on half of LoCoMo's conversations and checked on the other half and on the
 * paraphrase set (docs/benchmarks.md#recall-quality).
 */
const SPECIFICITY_WEIGHT = 0.85;

/** The order factor of a memory whose words are `specificity` specific (KeywordIndex.specificity): 0.15-1. */
export function specificOrder(specificity: number): number {
  return 1 - SPECIFICITY_WEIGHT * (1 - specificity);
}
