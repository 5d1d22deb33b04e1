// Tokenizer: the SentencePiece-style unigram Viterbi of USE-lite, as @energetic-ai/embeddings (and
// the TF.js universal-sentence-encoder) implement it, including its tie-breaking and unknown-merge
// rules, so ids match the reference. Linear in the input (the reference copies the tail of the input
// at every position), and the input is capped.
import { MAX_TOKENS } from "./limits";

/** Texts are cut to this many UTF-16 units before tokenizing; far more than 128 tokens need. */
const MAX_INPUT_CHARS = 8192;

const RESERVED_SYMBOLS = 6;
const SEPARATOR = "\u2581";

export class Tokenizer {
  private readonly children: Map<number, number>[] = [new Map()];
  private readonly pieceOf: number[] = [-1];
  private readonly scores: number[];
  private readonly backLength: number[];

  constructor(vocabulary: [string, number][]) {
    this.scores = vocabulary.map((v) => v[1]);
    // The reference backtracks by the piece's string length (UTF-16 units).
    this.backLength = vocabulary.map((v) => v[0].length);
    for (let id = RESERVED_SYMBOLS; id < vocabulary.length; id++) {
      let node = 0;
      for (const ch of vocabulary[id]![0]) {
        const cp = ch.codePointAt(0)!;
        let next = this.children[node]!.get(cp);
        if (next === undefined) {
          next = this.children.length;
          this.children.push(new Map());
          this.pieceOf.push(-1);
          this.children[node]!.set(cp, next);
        }
        node = next;
      }
      this.pieceOf[node] = id;
    }
  }

  /** Token ids of a text, at most MAX_TOKENS of them. */
  encode(text: string): number[] {
    let raw = String(text ?? "");
    if (raw.length > MAX_INPUT_CHARS) {
      let cut = MAX_INPUT_CHARS;
      const c = raw.charCodeAt(cut - 1);
      if (c >= 0xd800 && c <= 0xdbff) cut--; // keep surrogate pairs whole
      raw = raw.slice(0, cut);
    }
    const normalized = raw.normalize("NFKC");
    if (normalized.length === 0) return [];
    const input = SEPARATOR + normalized.replace(/ /g, SEPARATOR);
    const cps: number[] = [];
    for (const ch of input) cps.push(ch.codePointAt(0)!);
    const n = cps.length;
    // best[i] === 0 means "not set yet", as in the reference (which also lets a later candidate
    // replace a path whose score is exactly 0).
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    const relax = (start: number, end: number, score: number, id: number) => {
      const s = score + best[start]!;
      if (best[end] === 0 || s >= best[end]!) {
        best[end] = s;
        words[end] = id;
      }
    };
    for (let i = 0; i < n; i++) {
      let node = this.children[0]!.get(cps[i]!);
      let found = false;
      for (let d = 0; node !== undefined; ) {
        const id = this.pieceOf[node]!;
        if (id >= 0) {
          relax(i, i + d + 1, this.scores[id]!, id);
          found = true;
        }
        d++;
        if (i + d >= n) break;
        node = this.children[node]!.get(cps[i + d]!);
      }
      if (!found) relax(i, i + 1, 0, 0); // unknown symbol: id 0, score 0
    }
    const reversed: number[] = [];
    for (let iter = n; iter > 0; ) {
      const id = words[iter]!;
      reversed.push(id);
      iter -= this.backLength[id]!;
    }
    const ids: number[] = [];
    let previousUnknown = false;
    for (const id of reversed) {
      if (!(previousUnknown && id === 0)) ids.push(id);
      previousUnknown = id === 0;
    }
    ids.reverse();
    return ids.length > MAX_TOKENS ? ids.slice(0, MAX_TOKENS) : ids;
  }
}
