// Session neighbours as ranking evidence (docs/api.md#how-it-ranks): the memory said just before or
// after a strong hit in the same session often holds the rest of its answer (the reply to a question,
// the fact a remark refers to) without sharing its words, and two hits in one stretch of a
// conversation are evidence for each other (a multi-hop answer spans several turns). Each of the best
// hits lends its neighbours a share of its value, and a neighbour combines what it is lent with its own
// value as independent evidence, like the two legs (search/scoring.ts fusedRelevance): own + lent·(1 − own).
// Its score so never exceeds what its own text and the lending hit's share justify. The order's lifts
// (feedback, usage, a named author: adjustment.ts) belong to a memory, not to the evidence that found it:
// a hit lends its value without its own lifts, and what a neighbour is lent carries the neighbour's.

export interface NeighbourPolicy {
  /** How many of the best-ranked hits lend their neighbours value. */
  depth: number;
  /** How many memories each side of a hit count as its neighbours. */
  window: number;
  /** The share of its hit's rank and relevance the next memory is lent; one `d` away gets share / d. */
  share: number;
}

/**
 * Recall's policy: the 20 best hits lend 0.6 of their value to the memories right beside them, 0.3
 * two away (the share chosen on half of LoCoMo's conversations and checked on the other half:
 * docs/benchmarks.md#recall-quality).
 */
export const NEIGHBOURS: NeighbourPolicy = { depth: 20, window: 2, share: 0.6 };

export interface RankedItem {
  row: { seq: number };
  rank: number;
  relevance: number;
}

/** A neighbour of a hit and how many memories away from it it was said (1 = right before or after). */
export interface Neighbour<R> {
  row: R;
  distance: number;
}

/** Two pieces of evidence as independent: either alone counts, both add up, never above 1 from below 1. */
function orCombined(own: number, lent: number): number {
  return own + lent * Math.max(0, 1 - own);
}

/**
 * `ranked` (best first) with the session neighbours of its first `policy.depth` items folded in.
 * What each hit lends is computed from the order before any lending (what one is lent is never lent on). A
 * neighbour takes the best it is lent; `enter` makes the item for one the legs did not find (own
 * value 0). Only items `admits` accepts after lending move (one scoring under the minimum would cut
 * the list where it lands). `lift` is a row's factor on the order (its rank, never its relevance):
 * above 1 for a lift, below it for a memory that only asks.
 */
export function withNeighbours<T extends RankedItem>(
  ranked: T[],
  policy: NeighbourPolicy,
  neighboursOf: (rows: T["row"][], window: number) => Map<number, Neighbour<T["row"]>[]>,
  enter: (hit: T, neighbour: T["row"]) => T,
  admits: (item: T) => boolean,
  lift: (row: T["row"]) => number,
): T[] {
  const top = ranked.slice(0, policy.depth);
  const neighbours = neighboursOf(top.map((t) => t.row), policy.window);
  const lent = new Map<number, { item: T; rank: number; relevance: number }>();
  const bySeq = new Map(ranked.map((r) => [r.row.seq, r]));
  for (const hit of top) {
    // What the hit lends is its value without its own lift; each neighbour's lift goes on that.
    const unlifted = hit.rank / lift(hit.row);
    for (const n of neighbours.get(hit.row.seq) ?? []) {
      const share = policy.share / n.distance;
      const prior = lent.get(n.row.seq);
      const item = bySeq.get(n.row.seq) ?? prior?.item ?? enter(hit, n.row);
      lent.set(n.row.seq, {
        item,
        rank: Math.max(prior?.rank ?? 0, share * unlifted * lift(n.row)),
        relevance: Math.max(prior?.relevance ?? 0, share * hit.relevance),
      });
    }
  }
  for (const [seq, l] of lent) {
    const own = l.item;
    const lifted = { ...own, rank: orCombined(own.rank, l.rank), relevance: orCombined(own.relevance, l.relevance) };
    if (lifted.rank > own.rank && admits(lifted)) bySeq.set(seq, lifted);
  }
  return [...bySeq.values()].sort((a, b) => b.rank - a.rank);
}
