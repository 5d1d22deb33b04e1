// The keyword index matches tokens; recall and document search weigh query terms, and a term may
// be several tokens ("snake_case", a phrase FTS5 would read) where the store has no FTS5 to ask.

/**
 * Token positions among [...tokens of each term, ...concepts] as term positions among [...terms,
 * ...concepts]: a term of several tokens matches where all of its tokens do, and its document
 * frequency is its rarest token's. The identity when every term is one token.
 */
export function byTerm(termTokens: string[][], concepts: number) {
  if (termTokens.every((t) => t.length === 1)) return { matched: (m: Map<number, number[]>) => m, frequencies: (df: number[]) => df };
  const starts: number[] = [];
  let tokens = 0;
  for (const t of termTokens) {
    starts.push(tokens);
    tokens += t.length;
  }
  const terms = termTokens.map((t, i) => t.map((_, k) => starts[i]! + k));
  return {
    matched(m: Map<number, number[]>): Map<number, number[]> {
      for (const [seq, positions] of m) {
        const held = new Set(positions);
        const own = terms.flatMap((at, i) => (at.every((p) => held.has(p)) ? [i] : []));
        const about = positions.filter((p) => p >= tokens).map((p) => p - tokens + termTokens.length);
        m.set(seq, [...own, ...about]);
      }
      return m;
    },
    frequencies: (df: number[]) => [...terms.map((at) => Math.min(...at.map((p) => df[p]!))), ...df.slice(tokens, tokens + concepts)],
  };
}
