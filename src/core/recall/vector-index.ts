// In-memory vector index over one embedding model. Vectors are L2-normalized, so cosine is a dot
// product. A search scans compact sign codes (1 bit per dimension, Hamming distance: ~8x less work
// than float dot products; the scan is WebAssembly SIMD, hamming-kernel.ts), then re-scores the best
// candidates exactly with the float vectors.
import { hammingKernel, type HammingKernel } from "./hamming-kernel";

const INITIAL_CAPACITY = 1024;
const PAGE = 65536;

export interface VectorHit {
  seq: number;
  score: number;
}

export interface VectorSearchOptions {
  k: number;
  /** Only slots whose owner is in this set are considered. */
  owners: Set<number>;
  /** When given, only memories of this project are considered. */
  project?: string;
  /** When given, only these memory seqs are considered (the result of SQL filters). */
  allowed?: Set<number>;
  /** How many Hamming-nearest candidates are re-scored exactly (default max(20·k, 400)). */
  rescore?: number;
}

/** A second result from the same search: the best `k` memories whose author (`who`) is one of `names`. */
export interface AuthorSearch {
  names: readonly string[];
  k: number;
}

export class VectorIndex {
  private capacity = INITIAL_CAPACITY;
  private size = 0;
  /** 32-bit words of a code, padded to whole v128s for the kernel (the padding bits stay 0). */
  private readonly words: number;
  private vectors: Float32Array;
  /**
   * The kernel's memory: the codes from byte 0 (`capacity` of them), then scratch space for one
   * search (the query's code and the distances), which the codes overwrite as they grow.
   */
  private readonly memory = new WebAssembly.Memory({ initial: 1 });
  private readonly hamming: HammingKernel;
  private codes!: Uint32Array;
  private seqs: Int32Array;
  private ownerOf: Int32Array;
  /** Project code per slot (0: none); projects never change, so scoping needs no SQL. */
  private projectOf: Int32Array;
  /** Author (`who`) code per slot (0: none); authors never change either. */
  private authorOf: Int32Array;
  private readonly slotOf = new Map<number, number>();
  private readonly ownerCodes = new Map<string, number>();
  private readonly projectCodes = new Map<string, number>();
  private readonly authorCodes = new Map<string, number>();

  constructor(readonly dimensions: number) {
    this.words = Math.ceil(dimensions / 128) * 4;
    this.hamming = hammingKernel(this.memory, this.words / 4);
    this.vectors = new Float32Array(this.capacity * dimensions);
    this.fitMemory();
    this.seqs = new Int32Array(this.capacity);
    this.ownerOf = new Int32Array(this.capacity);
    this.projectOf = new Int32Array(this.capacity);
    this.authorOf = new Int32Array(this.capacity);
  }

  get count(): number {
    return this.size;
  }

  has(seq: number): boolean {
    return this.slotOf.has(seq);
  }

  /** A small integer per owner (agent), so searches filter by owner without string compares. */
  ownerCode(owner: string): number {
    let code = this.ownerCodes.get(owner);
    if (code === undefined) {
      code = this.ownerCodes.size;
      this.ownerCodes.set(owner, code);
    }
    return code;
  }

  /** The authors (`who`) the index has seen, each once (a removal leaves its author here). */
  authors(): IterableIterator<string> {
    return this.authorCodes.keys();
  }

  /** A project's or author's code in `codes` (from 1); undefined for one the index has not seen, unless `add`. */
  private static code(codes: Map<string, number>, value: string, add: true): number;
  private static code(codes: Map<string, number>, value: string, add: false): number | undefined;
  private static code(codes: Map<string, number>, value: string, add: boolean): number | undefined {
    let code = codes.get(value);
    if (code === undefined && add) {
      code = codes.size + 1;
      codes.set(value, code);
    }
    return code;
  }

  upsert(seq: number, owner: string, vector: Float32Array, project: string | null = null, author: string | null = null): void {
    if (vector.length !== this.dimensions) {
      throw new Error(`vector has ${vector.length} dimensions, the index ${this.dimensions}`);
    }
    let slot = this.slotOf.get(seq);
    if (slot === undefined) {
      if (this.size === this.capacity) this.grow();
      slot = this.size++;
      this.slotOf.set(seq, slot);
    }
    this.seqs[slot] = seq;
    this.ownerOf[slot] = this.ownerCode(owner);
    this.projectOf[slot] = project === null ? 0 : VectorIndex.code(this.projectCodes, project, true);
    this.authorOf[slot] = author === null ? 0 : VectorIndex.code(this.authorCodes, author, true);
    this.vectors.set(vector, slot * this.dimensions);
    const base = slot * this.words;
    this.codes.fill(0, base, base + this.words);
    for (let d = 0; d < this.dimensions; d++) {
      if (vector[d]! > 0) this.codes[base + (d >>> 5)]! |= 1 << (d & 31);
    }
  }

  remove(seq: number): void {
    const slot = this.slotOf.get(seq);
    if (slot === undefined) return;
    this.slotOf.delete(seq);
    const last = --this.size;
    if (slot !== last) {
      // Move the last slot into the hole so the arrays stay dense.
      const lastSeq = this.seqs[last]!;
      this.seqs[slot] = lastSeq;
      this.ownerOf[slot] = this.ownerOf[last]!;
      this.projectOf[slot] = this.projectOf[last]!;
      this.authorOf[slot] = this.authorOf[last]!;
      this.vectors.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.codes.copyWithin(slot * this.words, last * this.words, (last + 1) * this.words);
      this.slotOf.set(lastSeq, slot);
    }
  }

  search(query: Float32Array, options: VectorSearchOptions): VectorHit[] {
    return this.scan(query, options, null).hits;
  }

  /**
   * The best `options.k` of every eligible memory and, from the same pass over the sign codes, the
   * best `authors.k` of those by `authors.names` (a recall naming an author: docs/api.md#how-it-ranks).
   */
  searchWithAuthors(query: Float32Array, options: VectorSearchOptions, authors: AuthorSearch): { hits: VectorHit[]; authorHits: VectorHit[] } {
    return this.scan(query, options, authors);
  }

  private scan(query: Float32Array, options: VectorSearchOptions, authors: AuthorSearch | null): { hits: VectorHit[]; authorHits: VectorHit[] } {
    const none = { hits: [], authorHits: [] };
    if (query.length !== this.dimensions || this.size === 0 || options.k <= 0) return none;
    const { owners, allowed } = options;
    const project = options.project === undefined ? 0 : VectorIndex.code(this.projectCodes, options.project, false);
    if (project === undefined) return none;
    const ownerMask = new Uint8Array(this.ownerCodes.size);
    for (const code of owners) if (code < ownerMask.length) ownerMask[code] = 1;
    // Authors as a mask over their codes, like owners: a slot is checked with one array read.
    const authorMask = new Uint8Array(this.authorCodes.size + 1);
    for (const name of authors?.names ?? []) {
      const code = VectorIndex.code(this.authorCodes, name, false);
      if (code !== undefined) authorMask[code] = 1;
    }
    const codeBytes = this.words * 4;
    const queryAt = this.capacity * codeBytes;
    const distancesAt = queryAt + codeBytes;
    const qcode = new Uint32Array(this.memory.buffer, queryAt, this.words).fill(0);
    for (let d = 0; d < this.dimensions; d++) if (query[d]! > 0) qcode[d >>> 5]! |= 1 << (d & 31);
    this.hamming(0, queryAt, this.size, distancesAt);
    const distances = new Uint16Array(this.memory.buffer, distancesAt, this.size);

    // Pass 1: the eligible slots' distances, in a histogram (and one of the authors' memories) to
    // find the cut-off distance. The eligible slots go in a list, so the second pass visits only
    // those (a project's share, say); 1 in `byAuthor` marks the named authors' among them.
    const rescoreFor = (k: number) => Math.max(options.rescore ?? Math.max(20 * k, 400), k);
    const histogram = new Uint32Array(this.dimensions + 2);
    const authorHistogram = new Uint32Array(this.dimensions + 2);
    const eligible = new Int32Array(this.size);
    const byAuthor = new Uint8Array(authors ? this.size : 0);
    let eligibleCount = 0;
    for (let slot = 0; slot < this.size; slot++) {
      if (ownerMask[this.ownerOf[slot]!] !== 1) continue;
      if (project !== 0 && this.projectOf[slot] !== project) continue;
      if (allowed && !allowed.has(this.seqs[slot]!)) continue;
      const h = distances[slot]!;
      histogram[h]!++;
      if (authors && authorMask[this.authorOf[slot]!] === 1) {
        authorHistogram[h]!++;
        byAuthor[slot] = 1;
      }
      eligible[eligibleCount++] = slot;
    }
    if (eligibleCount === 0) return none;
    const cutoffOf = (counts: Uint32Array, rescore: number) => {
      let cutoff = 0;
      for (let seen = 0; cutoff <= this.dimensions; cutoff++) {
        seen += counts[cutoff]!;
        if (seen >= rescore) break;
      }
      return cutoff;
    };
    const cutoff = cutoffOf(histogram, rescoreFor(options.k));
    const authorCutoff = authors ? cutoffOf(authorHistogram, rescoreFor(authors.k)) : -1;

    // Pass 2: exact cosine for every candidate within a cut-off, each computed once.
    const hits: VectorHit[] = [];
    const authorHits: VectorHit[] = [];
    const dims = this.dimensions;
    for (let e = 0; e < eligibleCount; e++) {
      const slot = eligible[e]!;
      const general = distances[slot]! <= cutoff;
      const author = authors !== null && byAuthor[slot] === 1 && distances[slot]! <= authorCutoff;
      if (!general && !author) continue;
      const base = slot * dims;
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      let d = 0;
      for (; d + 3 < dims; d += 4) {
        a0 += this.vectors[base + d]! * query[d]!;
        a1 += this.vectors[base + d + 1]! * query[d + 1]!;
        a2 += this.vectors[base + d + 2]! * query[d + 2]!;
        a3 += this.vectors[base + d + 3]! * query[d + 3]!;
      }
      for (; d < dims; d++) a0 += this.vectors[base + d]! * query[d]!;
      const hit = { seq: this.seqs[slot]!, score: a0 + a1 + a2 + a3 };
      if (general) hits.push(hit);
      if (author) authorHits.push(hit);
    }
    const best = (list: VectorHit[], k: number) => list.sort((a, b) => b.score - a.score).slice(0, k);
    return { hits: best(hits, options.k), authorHits: authors ? best(authorHits, authors.k) : [] };
  }

  /** Memory for `capacity` codes and one search's scratch space; the codes stay where they are. */
  private fitMemory(): void {
    const codeBytes = this.words * 4;
    const needed = this.capacity * codeBytes + codeBytes + this.capacity * 2;
    const pages = Math.ceil(needed / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
    // Growing detaches the old view.
    this.codes = new Uint32Array(this.memory.buffer, 0, this.capacity * this.words);
  }

  private grow(): void {
    this.capacity *= 2;
    const vectors = new Float32Array(this.capacity * this.dimensions);
    vectors.set(this.vectors);
    this.fitMemory();
    const seqs = new Int32Array(this.capacity);
    seqs.set(this.seqs);
    const ownerOf = new Int32Array(this.capacity);
    ownerOf.set(this.ownerOf);
    const projectOf = new Int32Array(this.capacity);
    projectOf.set(this.projectOf);
    this.projectOf = projectOf;
    const authorOf = new Int32Array(this.capacity);
    authorOf.set(this.authorOf);
    this.authorOf = authorOf;
    this.vectors = vectors;
    this.seqs = seqs;
    this.ownerOf = ownerOf;
  }
}
