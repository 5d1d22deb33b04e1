import type { Statement } from "bun:sqlite";

/**
 * Per row of `seqs`, the positions in `matches` of the FTS5 expressions it matches, through a
 * statement taking (expression, JSON array of seqs): the keyword leg's second pass, for memories and
 * for document chunks alike.
 */
export function matchesAmong(among: Statement<{ seq: number }, [string, string]>, matches: string[], seqs: number[]): Map<number, number[]> {
  const out = new Map<number, number[]>(seqs.map((s) => [s, []]));
  const json = JSON.stringify(seqs);
  matches.forEach((m, i) => {
    for (const { seq } of among.all(m, json)) out.get(seq)?.push(i);
  });
  return out;
}
