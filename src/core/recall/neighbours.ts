// Session neighbours as ranking evidence (docs/api.md#how-it-ranks): the memory said just before or
// after a strong hit in the same session often holds the rest of its answer (the reply to a question,
// the fact a remark refers to) without sharing its words. Such a neighbour joins the order at a share
// of its hit's value, so it comes after the hit and never above the evidence that brought it.

/** How many of the best-ranked hits lend their neighbours a place. */
const NEIGHBOUR_DEPTH = 10;
/** A neighbour's share of its hit's rank and relevance (0.6 for the rank measured the same within noise). */
export const NEIGHBOUR_SHARE = 0.5;

export interface RankedItem {
  row: { seq: number };
  rank: number;
}

/**
 * `ranked` (best first) with the session neighbours of its first NEIGHBOUR_DEPTH items folded in:
 * a neighbour not yet ranked enters at NEIGHBOUR_SHARE of its hit; one ranked already keeps the
 * better of its own rank and that share. `neighboursOf` gives a row's readable neighbours. Only
 * items `admits` accepts move (one scoring under the minimum would cut the list where it lands).
 */
export function withNeighbours<T extends RankedItem>(
  ranked: T[],
  neighboursOf: (rows: T["row"][]) => Map<number, T["row"][]>,
  lend: (hit: T, neighbour: T["row"]) => T,
  admits: (item: T) => boolean,
): T[] {
  const top = ranked.slice(0, NEIGHBOUR_DEPTH);
  const neighbours = neighboursOf(top.map((t) => t.row));
  const bySeq = new Map(ranked.map((r) => [r.row.seq, r]));
  for (const hit of top) {
    for (const n of neighbours.get(hit.row.seq) ?? []) {
      const lent = lend(hit, n);
      const known = bySeq.get(n.seq);
      if (!known) {
        if (admits(lent)) bySeq.set(n.seq, lent);
      } else if (lent.rank > known.rank && admits(known)) bySeq.set(n.seq, { ...known, rank: lent.rank });
    }
  }
  return [...bySeq.values()].sort((a, b) => b.rank - a.rank);
}
