// The keyword leg's index in memory: BM25 exactly as FTS5's bm25() computes it over the same four
// columns and weights, from the same tokens (fts5-tokenizer.ts reproduces FTS5's tokenizer). FTS5 spends
// most of a recall decoding doclists and calling bm25() once per matching row (~2.6 ms for ~2,400
// matches at 10 k memories); posting lists in typed arrays score the same matches in a fraction of
// that. Agent and project filters apply before the top-k cut, so scoped queries need no overfetch.
// Unlike FTS5, BM25's collection statistics (how many memories, their mean length, how many hold a
// term) are those of the memories searched (docs/api.md#how-it-ranks): a word that half of
// one project's memories hold says little about which of them answers, however rare it is elsewhere.
// A search over everything in the store scores exactly as FTS5 does.
import { readInSteps } from "../event-loop";
import { tokenize } from "./fts5-tokenizer";

/** FTS5's bm25() constants. */
const K1 = 1.2;
const B = 0.75;

export interface KeywordDoc {
  seq: number;
  agentId: string;
  project: string | null;
  /** The four FTS columns: content, tags (space-joined), hints (newline-joined), extra terms. */
  columns: [string, string, string, string];
}

export interface KeywordHit {
  seq: number;
  /** The BM25 score, larger is better (FTS5's bm25() negated). */
  score: number;
}

/** How many of a memory's rarest terms tell how specific it is (KeywordIndex.specificity). */
const SPECIFIC_TERMS = 3;

/** A term's postings: the memories (seqs) that hold it and how often, as ids of the index's frequencies. */
class Postings {
  docs = new Int32Array(4);
  freqs: Uint16Array | Uint32Array;
  length = 0;

  constructor(wide: boolean) {
    this.freqs = wide ? new Uint32Array(4) : new Uint16Array(4);
  }

  push(doc: number, freq: number): void {
    if (this.length === this.docs.length) this.resize(this.length * 2);
    this.docs[this.length] = doc;
    this.freqs[this.length] = freq;
    this.length++;
  }

  /** Order does not matter to scoring, so the last entry fills the gap. */
  remove(doc: number): void {
    for (let i = 0; i < this.length; i++) {
      if (this.docs[i] !== doc) continue;
      this.length--;
      this.docs[i] = this.docs[this.length]!;
      this.freqs[i] = this.freqs[this.length]!;
      return;
    }
  }

  /** Room for `capacity` postings (at least those held); shrinking drops the room a list grew for more. */
  resize(capacity: number, wide = this.freqs instanceof Uint32Array): void {
    const docs = new Int32Array(Math.max(capacity, this.length, 1));
    docs.set(this.docs.subarray(0, this.length));
    this.docs = docs;
    const freqs = wide ? new Uint32Array(docs.length) : new Uint16Array(docs.length);
    freqs.set(this.freqs.subarray(0, this.length));
    this.freqs = freqs;
  }
}

/** Frequency ids fit 16 bits until this many distinct frequencies, then every list takes 32-bit ones. */
const NARROW_FREQUENCIES = 65536;

export class KeywordIndex {
  private readonly termIds = new Map<string, number>();
  /** Each term id's token, for reading a memory's terms back (expansion.ts). */
  private readonly tokensById: string[] = [];
  private readonly postings: Postings[] = [];
  /**
   * The distinct weighted frequencies a term has in a memory (sums of column weights, a handful of
   * values), by id: a posting holds a 16-bit id where a float64 took 8 bytes.
   */
  private frequencies = new Float64Array(64);
  private readonly frequencyIds = new Map<number, number>();
  /**
   * Every memory's term ids, ascending, back to back: a typed array per memory costs ~60 bytes more
   * each and a GC cell. Memory `seq`'s ids begin at termsAt[seq] - 1 (0: not indexed), termCounts[seq]
   * of them; a replaced or removed memory's stay behind as `termsUnused` until they are compacted.
   */
  private terms = new Uint32Array(1024);
  private termsEnd = 0;
  private termsUnused = 0;
  private termsAt = new Int32Array(1024);
  private termCounts = new Uint32Array(1024);
  private count = 0;
  private readonly owners = new Map<string, number>();
  private readonly projects = new Map<string, number>();
  /**
   * Per seq: token count, owner code and project code (0 = none). Codes are 32-bit: 16-bit ones
   * wrapped at the 65,537th agent, whose memories then read as the first agent's.
   */
  private tokens = new Float32Array(1024);
  private ownerOf = new Uint32Array(1024);
  private projectOf = new Uint32Array(1024);
  /** Scratch space for one query's scores, indexed by seq; zeroed again after each query. */
  private scores = new Float64Array(1024);
  /** Memories and their tokens per owner code, then per project code (0 = none): the statistics of a scope. */
  private readonly scopeSizes = new Map<number, Map<number, { docs: number; tokens: number }>>();
  /** Scratch space for one query's matching seqs, each once. */
  private touched = new Int32Array(1024);
  /** Scratch space for one term's matches in scope (seq, frequency id). */
  private matchSeqs = new Int32Array(1024);
  private matchFreqs = new Uint32Array(1024);

  constructor(private readonly weights: readonly [number, number, number, number]) {}

  get size(): number {
    return this.count;
  }

  /** Adds a memory, or replaces what the index held for it. */
  set(doc: KeywordDoc): void {
    this.remove(doc.seq);
    this.ensureCapacity(doc.seq);
    const freq = new Map<number, number>();
    let count = 0;
    doc.columns.forEach((text, col) => {
      if (!text) return;
      const weight = this.weights[col]!;
      for (const token of tokenize(text)) {
        count++;
        let id = this.termIds.get(token);
        if (id === undefined) {
          id = this.postings.length;
          this.termIds.set(token, id);
          this.tokensById.push(token);
          this.postings.push(new Postings(this.frequencyIds.size >= NARROW_FREQUENCIES));
        }
        freq.set(id, (freq.get(id) ?? 0) + weight);
      }
    });
    for (const [id, f] of freq) this.postings[id]!.push(doc.seq, this.frequencyId(f));
    this.storeTerms(doc.seq, Uint32Array.from(freq.keys()).sort());
    this.count++;
    this.tokens[doc.seq] = count;
    this.ownerOf[doc.seq] = code(this.owners, doc.agentId);
    this.projectOf[doc.seq] = doc.project === null ? 0 : code(this.projects, doc.project);
    this.countInScope(doc.seq, 1);
  }

  remove(seq: number): void {
    const terms = this.termsOfSeq(seq);
    if (!terms) return;
    for (const id of terms) this.postings[id]!.remove(seq);
    this.countInScope(seq, -1);
    this.termsAt[seq] = 0;
    this.termsUnused += terms.length;
    this.count--;
  }

  /** Drops the room the posting lists and the term ids grew for more to come (after a load: a third of their memory). */
  compact(): void {
    for (const list of this.postings) if (list.docs.length > list.length) list.resize(list.length);
    this.terms = this.terms.slice(0, Math.max(this.termsEnd, 1024));
  }

  /** The id of frequency `f`; past NARROW_FREQUENCIES of them, every list's ids become 32-bit. */
  private frequencyId(f: number): number {
    let id = this.frequencyIds.get(f);
    if (id !== undefined) return id;
    id = this.frequencyIds.size;
    if (id === NARROW_FREQUENCIES) for (const list of this.postings) list.resize(list.docs.length, true);
    if (id === this.frequencies.length) this.frequencies = grow(this.frequencies, new Float64Array(id * 2));
    this.frequencies[id] = f;
    this.frequencyIds.set(f, id);
    return id;
  }

  /** Memory `seq`'s term ids (ascending), or undefined when it is not indexed; a view, valid until the next change. */
  private termsOfSeq(seq: number): Uint32Array | undefined {
    const at = this.termsAt[seq] ?? 0;
    return at === 0 ? undefined : this.terms.subarray(at - 1, at - 1 + this.termCounts[seq]!);
  }

  /** Appends memory `seq`'s term ids; when over half of the array is unused, it is rewritten without them first. */
  private storeTerms(seq: number, ids: Uint32Array): void {
    if (this.termsUnused > this.termsEnd / 2 && this.termsUnused > 1024) {
      const live = this.termsEnd - this.termsUnused;
      const terms = new Uint32Array(Math.max(1024, live + ids.length) * 2);
      let end = 0;
      for (let s = 0; s < this.termsAt.length; s++) {
        const at = this.termsAt[s]!;
        if (at === 0) continue;
        terms.set(this.terms.subarray(at - 1, at - 1 + this.termCounts[s]!), end);
        this.termsAt[s] = end + 1;
        end += this.termCounts[s]!;
      }
      this.terms = terms;
      this.termsEnd = end;
      this.termsUnused = 0;
    }
    if (this.termsEnd + ids.length > this.terms.length) {
      this.terms = grow(this.terms, new Uint32Array(Math.max(this.terms.length * 2, this.termsEnd + ids.length)));
    }
    this.terms.set(ids, this.termsEnd);
    this.termsAt[seq] = this.termsEnd + 1;
    this.termCounts[seq] = ids.length;
    this.termsEnd += ids.length;
  }

  /** Counts a memory in (+1) or out of (-1) its owner's and project's statistics. */
  private countInScope(seq: number, sign: 1 | -1): void {
    const owner = this.ownerOf[seq]!;
    let byProject = this.scopeSizes.get(owner);
    if (!byProject) this.scopeSizes.set(owner, (byProject = new Map()));
    const project = this.projectOf[seq]!;
    const size = byProject.get(project) ?? { docs: 0, tokens: 0 };
    size.docs += sign;
    size.tokens += sign * this.tokens[seq]!;
    if (size.docs === 0) byProject.delete(project);
    else byProject.set(project, size);
  }

  /** How many memories the owners `owners` (codes) hold, in `project` (a code; 0 = any), and their tokens. */
  private scopeSize(owners: number[], project: number): { docs: number; tokens: number } {
    const total = { docs: 0, tokens: 0 };
    for (const owner of owners) {
      const byProject = this.scopeSizes.get(owner);
      if (!byProject) continue;
      for (const [p, size] of byProject) {
        if (project !== 0 && p !== project) continue;
        total.docs += size.docs;
        total.tokens += size.tokens;
      }
    }
    return total;
  }

  /**
   * The best `k` memories for the query terms (each one token), among those owned by `agentIds`
   * and, when given, in `project`. Scores are FTS5's bm25() with the index's column weights, over the
   * statistics of the memories searched: a word most of them hold weighs little there, however rare
   * it is in the rest of the store.
   */
  search(terms: string[], k: number, scope: { agentIds: string[]; project?: string }, weights?: readonly number[]): KeywordHit[] {
    if (this.count === 0 || k <= 0) return [];
    // Owner codes as a mask: the innermost loop tests one byte, not a Set.
    const readable = new Uint8Array(this.owners.size + 1);
    const ownerCodes: number[] = [];
    for (const a of scope.agentIds) {
      const c = this.owners.get(a);
      if (c === undefined || readable[c] === 1) continue;
      readable[c] = 1;
      ownerCodes.push(c);
    }
    if (ownerCodes.length === 0) return [];
    let project = 0;
    if (scope.project !== undefined) {
      const c = this.projects.get(scope.project);
      if (c === undefined) return [];
      project = c;
    }
    const searched = this.scopeSize(ownerCodes, project);
    if (searched.docs === 0) return [];
    const avgdl = searched.tokens / searched.docs;
    // Every memory readable and no project (one agent's store searched whole, the common recall):
    // a posting list is its own matches in scope, with no test per posting.
    const everything = project === 0 && ownerCodes.length === this.owners.size;
    // The arrays in locals: the loops below visit every posting of every term.
    const { scores, tokens, ownerOf, projectOf, frequencies } = this;
    if (this.touched.length < scores.length) this.touched = new Int32Array(scores.length);
    const touched = this.touched;
    let touchedCount = 0;
    // Like FTS5's OR of phrases, a stem given twice ("retry", "retries") counts twice.
    for (let t = 0; t < terms.length; t++) {
      const id = this.termIds.get(terms[t]!);
      if (id === undefined) continue;
      const list = this.postings[id]!;
      if (list.length === 0) continue;
      // The term's matches in scope first: their count is its document frequency there.
      let seqs = list.docs;
      let fs = list.freqs;
      let m = list.length;
      if (!everything) {
        if (this.matchSeqs.length < list.length) {
          this.matchSeqs = new Int32Array(list.length * 2);
          this.matchFreqs = new Uint32Array(list.length * 2);
        }
        const { docs, freqs } = list;
        seqs = this.matchSeqs;
        fs = this.matchFreqs;
        m = 0;
        for (let i = 0; i < list.length; i++) {
          const seq = docs[i]!;
          if (readable[ownerOf[seq]!] === 0 || (project !== 0 && projectOf[seq] !== project)) continue;
          seqs[m] = seq;
          fs[m++] = freqs[i]!;
        }
      }
      if (m === 0) continue;
      // The term's document frequency is its matches in scope, m. FTS5 floors a negative IDF (terms
      // in over half the rows) at a tiny positive number.
      const idf = Math.max(Math.log((searched.docs - m + 0.5) / (m + 0.5)), 1e-6) * (weights?.[t] ?? 1);
      for (let i = 0; i < m; i++) {
        const seq = seqs[i]!;
        const f = frequencies[fs[i]!]!;
        const s = (idf * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * tokens[seq]!) / avgdl));
        const before = scores[seq]!;
        if (before === 0) touched[touchedCount++] = seq;
        scores[seq] = before + s;
      }
    }
    const hits = topK(touched.subarray(0, touchedCount), scores, k);
    for (let i = 0; i < touchedCount; i++) scores[touched[i]!] = 0;
    return hits;
  }

  /** How many memories hold each term (one token each), for weighing the terms (scoring.ts). */
  documentFrequencies(terms: string[]): number[] {
    return terms.map((t) => {
      const id = this.termIds.get(t);
      return id === undefined ? 0 : this.postings[id]!.length;
    });
  }

  /** The distinct tokens a memory holds, with how many memories hold each. */
  termsOf(seq: number): { token: string; df: number }[] {
    const ids = this.termsOfSeq(seq);
    if (!ids) return [];
    return Array.from(ids, (id) => ({ token: this.tokensById[id]!, df: this.postings[id]!.length }));
  }

  /**
   * How specific memory `seq`'s words are in this index, 0-1: the mean inverse document frequency
   * (ln(N / df)) of its three (SPECIFIC_TERMS) rarest distinct terms, over the most a term can have here
   * (ln N); a memory with fewer terms counts the missing ones as 0. A memory of words most memories
   * hold ("Thanks, that sounds great!") is near 0, one with a rare word near 1. 1 when the memory is
   * not indexed or the index holds fewer than two memories: no evidence either way.
   */
  specificity(seq: number): number {
    const at = this.termsAt[seq] ?? 0;
    if (at === 0 || this.count < 2) return 1;
    // The three smallest document frequencies, a <= b <= c (Infinity: no such term); read in place,
    // as recall asks it of every candidate.
    let a = Infinity;
    let b = Infinity;
    let c = Infinity;
    for (let i = at - 1, end = at - 1 + this.termCounts[seq]!; i < end; i++) {
      const df = this.postings[this.terms[i]!]!.length;
      if (df >= c) continue;
      if (df < a) {
        c = b;
        b = a;
        a = df;
      } else if (df < b) {
        c = b;
        b = df;
      } else c = df;
    }
    let sum = 0;
    for (const df of [a, b, c]) if (df !== Infinity) sum += Math.log(this.count / Math.max(1, df));
    return Math.min(1, sum / SPECIFIC_TERMS / Math.log(this.count));
  }

  /** Per memory of `seqs`, the positions in `terms` of the terms it holds. */
  matchedTerms(terms: string[], seqs: number[]): Map<number, number[]> {
    const ids = terms.map((t) => this.termIds.get(t) ?? -1);
    const out = new Map<number, number[]>();
    for (const seq of seqs) {
      const held = this.termsOfSeq(seq);
      const matched: number[] = [];
      for (let i = 0; held && i < ids.length; i++) if (ids[i]! >= 0 && holds(held, ids[i]!)) matched.push(i);
      out.set(seq, matched);
    }
    return out;
  }

  private ensureCapacity(seq: number): void {
    if (seq < this.tokens.length) return;
    let size = this.tokens.length;
    while (size <= seq) size *= 2;
    this.tokens = grow(this.tokens, new Float32Array(size));
    this.ownerOf = grow(this.ownerOf, new Uint32Array(size));
    this.projectOf = grow(this.projectOf, new Uint32Array(size));
    this.termsAt = grow(this.termsAt, new Int32Array(size));
    this.termCounts = grow(this.termCounts, new Uint32Array(size));
    this.scores = new Float64Array(size);
  }
}

/** Binary search of an ascending array. */
function holds(sorted: Uint32Array, value: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function code(codes: Map<string, number>, value: string): number {
  let c = codes.get(value);
  if (c === undefined) {
    c = codes.size + 1;
    codes.set(value, c);
  }
  return c;
}

function grow<T extends Float32Array | Float64Array | Int32Array | Uint32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** The k best by score (ties: lower seq first, as FTS5 visits rows in rowid order). */
function topK(candidates: Int32Array, scores: Float64Array, k: number): KeywordHit[] {
  const better = (a: number, b: number) => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
  const ranked = (seqs: ArrayLike<number>) =>
    Array.from(seqs)
      .sort((a, b) => (better(a, b) ? -1 : 1))
      .slice(0, k)
      .map((seq) => ({ seq, score: scores[seq]! }));
  if (candidates.length <= k * 4) return ranked(candidates);
  // A min-heap of the k best so far, in one pass. Most matches (~19,000 for a recall at 100k
  // memories) lose to the heap's worst at once: that test is inline, only an entry sifts.
  const heap = new Int32Array(k);
  const siftDown = () => {
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < k && better(heap[worst]!, heap[l]!)) worst = l;
      if (r < k && better(heap[worst]!, heap[r]!)) worst = r;
      if (worst === i) return;
      const swap = heap[i]!;
      heap[i] = heap[worst]!;
      heap[worst] = swap;
      i = worst;
    }
  };
  for (let i = 0; i < k; i++) {
    heap[i] = candidates[i]!;
    for (let j = i; j > 0; ) {
      const parent = (j - 1) >> 1;
      if (!better(heap[parent]!, heap[j]!)) break;
      const swap = heap[j]!;
      heap[j] = heap[parent]!;
      heap[parent] = swap;
      j = parent;
    }
  }
  let worstScore = scores[heap[0]!]!;
  let worstSeq = heap[0]!;
  for (let i = k; i < candidates.length; i++) {
    const seq = candidates[i]!;
    const score = scores[seq]!;
    if (score < worstScore || (score === worstScore && seq > worstSeq)) continue;
    heap[0] = seq;
    siftDown();
    worstSeq = heap[0]!;
    worstScore = scores[worstSeq]!;
  }
  return ranked(heap);
}

/**
 * Fills `index` from the rows `page(after, n)` returns (in `seq` order), a step at a time
 * (event-loop.ts readInSteps), then drops the room its lists grew. False when `stopped()` cut it short.
 */
export async function loadInSteps<R extends { seq: number }>(
  index: KeywordIndex,
  page: (after: number, n: number) => R[] | Promise<R[]>,
  toDoc: (row: R) => KeywordDoc,
  stopped: () => boolean,
): Promise<boolean> {
  await readInSteps(page, (row) => index.set(toDoc(row)), () => !stopped());
  index.compact();
  return !stopped();
}
