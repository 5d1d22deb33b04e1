// In-memory vector index over one embedding model. Vectors are L2-normalized, so cosine is a dot
// product. A search scans compact sign codes (1 bit per dimension, Hamming distance: ~8x less work
// than float dot products), estimates the best candidates' cosines from 8-bit copies of their
// vectors, each with a bound on its error, and computes exactly, from the float vectors, only those
// whose bound leaves them a chance to be among the best: the same hits as computing every
// candidate exactly, for a fraction of the reads. The float vectors are in a file (vector-file.ts),
// read back only for those few (about 60 of 1,000 candidates): in memory they would take 205 MB at
// 100,000 memories of 512 dimensions. The passes are WebAssembly kernels (vector-kernels.ts) over
// memories the index keeps (docs/architecture.md#recalls-in-memory-indexes).
import { VectorFile, vectorFileDir } from "./vector-file";
import { byteDotsKernel, dotsKernel, hammingKernel, withinKernel, type ByteDotsKernel, type DotsKernel, type HammingKernel, type WithinKernel } from "./vector-kernels";

const INITIAL_CAPACITY = 1024;
const PAGE = 65536;
/** An 8-bit vector's largest entry (in magnitude) is stored as ±127. */
const BYTE_MAX = 127;
/** Float vectors read and scored per step of the exact pass: the kernel's float memory holds this many. */
const READ_BATCH = 256;

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
  /** Floats of a vector, padded to whole f32x4s for the kernel (the padding stays 0). */
  private readonly stride: number;
  /** Bytes of an 8-bit vector, padded to the byte kernel's 32-byte groups (the padding stays 0). */
  private readonly byteStride: number;
  /**
   * The 16-bit query's largest entry: no more, so an integer dot product (at most byteStride
   * products of BYTE_MAX and this) cannot overflow the kernel's i32 sums.
   */
  private readonly queryMax: number;
  /**
   * The kernels' memories: the codes and the 8-bit vectors, each from byte 0 (`capacity` of them),
   * then scratch space for one search (scratch() says what), which they overwrite as they grow; and
   * the float kernel's, one batch of vectors read for the exact pass (floatScratch() says where).
   */
  private readonly codeMemory = new WebAssembly.Memory({ initial: 1 });
  private readonly byteMemory = new WebAssembly.Memory({ initial: 1 });
  private readonly vectorMemory: WebAssembly.Memory;
  private readonly hamming: HammingKernel;
  private readonly within: WithinKernel;
  private readonly byteDots: ByteDotsKernel;
  private readonly dots: DotsKernel;
  private codes!: Uint32Array;
  private bytes!: Int8Array;
  /** Per slot: the value of one step of its 8-bit vector (its largest entry / BYTE_MAX). */
  private steps: Float64Array;
  /**
   * Per slot, for the 8-bit estimate's error bound: the length of what the 8-bit copy misses (the
   * float vector minus the copy times its step) and the float vector's length.
   */
  private residuals: Float64Array;
  private norms: Float64Array;
  /** Per slot, 1 for a named author's memory during a search (scratch kept, not made per search). */
  private byAuthor: Uint8Array;
  private seqs: Int32Array;
  private ownerOf: Int32Array;
  /** Project code per slot (0: none); projects never change, so scoping needs no SQL. */
  private projectOf: Int32Array;
  /** Author (`who`) code per slot (0: none); authors never change either. */
  private authorOf: Int32Array;
  /** Per seq, its slot + 1 (0: not indexed): seqs are row ids, dense, and a Map of 100,000 takes 7 MB. */
  private slotOfSeq = new Int32Array(INITIAL_CAPACITY);
  private readonly ownerCodes = new Map<string, number>();
  private readonly projectCodes = new Map<string, number>();
  private readonly authorCodes = new Map<string, number>();

  /** The float vectors, a record per slot. */
  private readonly floats: VectorFile;

  /** An empty index of vectors of `dimensions`, its float vectors' file in `dir` (vectorFileDir()). */
  constructor(
    readonly dimensions: number,
    dir: string,
  ) {
    this.words = Math.ceil(dimensions / 128) * 4;
    this.stride = Math.ceil(dimensions / 4) * 4;
    this.byteStride = Math.ceil(dimensions / 32) * 32;
    this.queryMax = Math.min(32767, Math.floor(0x7fffffff / (this.byteStride * BYTE_MAX)));
    // Sized once: a batch's vectors never outgrow it, and a float's padding, written by nothing, stays 0.
    this.vectorMemory = new WebAssembly.Memory({ initial: Math.ceil(this.floatScratch().end / PAGE) });
    this.floats = new VectorFile(dir, dimensions * 4);
    this.hamming = hammingKernel(this.codeMemory, this.words / 4);
    this.within = withinKernel(this.codeMemory);
    this.byteDots = byteDotsKernel(this.byteMemory, this.byteStride / 32);
    this.dots = dotsKernel(this.vectorMemory, this.stride / 4);
    this.fitMemory();
    this.steps = new Float64Array(this.capacity);
    this.residuals = new Float64Array(this.capacity);
    this.norms = new Float64Array(this.capacity);
    this.byAuthor = new Uint8Array(this.capacity);
    this.seqs = new Int32Array(this.capacity);
    this.ownerOf = new Int32Array(this.capacity);
    this.projectOf = new Int32Array(this.capacity);
    this.authorOf = new Int32Array(this.capacity);
  }

  get count(): number {
    return this.size;
  }

  has(seq: number): boolean {
    return this.slotOf(seq) !== undefined;
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

  /** Adds or replaces a memory's vector (the index keeps no reference to `vector`). */
  upsert(seq: number, owner: string, vector: Float32Array, project: string | null = null, author: string | null = null): void {
    if (vector.length !== this.dimensions) {
      throw new Error(`vector has ${vector.length} dimensions, the index ${this.dimensions}`);
    }
    if (!Number.isSafeInteger(seq) || seq < 0) throw new Error(`seq ${seq} is not a row id`);
    let slot = this.slotOf(seq);
    // The file first: when it cannot be written, the index is as it was.
    this.floats.write(slot ?? this.size, new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
    if (slot === undefined) {
      if (this.size === this.capacity) this.grow();
      slot = this.size++;
      this.setSlot(seq, slot);
    }
    this.seqs[slot] = seq;
    this.ownerOf[slot] = this.ownerCode(owner);
    this.projectOf[slot] = project === null ? 0 : VectorIndex.code(this.projectCodes, project, true);
    this.authorOf[slot] = author === null ? 0 : VectorIndex.code(this.authorCodes, author, true);
    // A slot may hold an earlier search's scratch data: the code's and the 8-bit copy's padding are
    // set to 0, so they add nothing to a distance or a dot product.
    const base = slot * this.words;
    this.codes.fill(0, base, base + this.words);
    // The sign code, and the largest entry for the 8-bit copy.
    let largest = 0;
    for (let d = 0; d < this.dimensions; d++) {
      if (vector[d]! > 0) this.codes[base + (d >>> 5)]! |= 1 << (d & 31);
      largest = Math.max(largest, Math.abs(vector[d]!));
    }
    const step = largest / BYTE_MAX;
    this.steps[slot] = step;
    const at = slot * this.byteStride;
    let residual = 0;
    let norm = 0;
    for (let d = 0; d < this.dimensions; d++) {
      const byte = step === 0 ? 0 : Math.round(vector[d]! / step);
      this.bytes[at + d] = byte;
      residual += (vector[d]! - byte * step) ** 2;
      norm += vector[d]! ** 2;
    }
    this.residuals[slot] = Math.sqrt(residual);
    this.norms[slot] = Math.sqrt(norm);
    this.bytes.fill(0, at + this.dimensions, at + this.byteStride);
  }

  remove(seq: number): void {
    const slot = this.slotOf(seq);
    if (slot === undefined) return;
    const last = this.size - 1;
    // Move the last slot into the hole so the arrays stay dense; the file first: when it cannot be
    // written, the index is as it was.
    if (slot !== last) this.floats.move(last, slot);
    this.slotOfSeq[seq] = 0;
    this.size = last;
    if (slot !== last) {
      const lastSeq = this.seqs[last]!;
      this.seqs[slot] = lastSeq;
      this.ownerOf[slot] = this.ownerOf[last]!;
      this.projectOf[slot] = this.projectOf[last]!;
      this.authorOf[slot] = this.authorOf[last]!;
      this.steps[slot] = this.steps[last]!;
      this.residuals[slot] = this.residuals[last]!;
      this.norms[slot] = this.norms[last]!;
      this.bytes.copyWithin(slot * this.byteStride, last * this.byteStride, (last + 1) * this.byteStride);
      this.codes.copyWithin(slot * this.words, last * this.words, (last + 1) * this.words);
      this.setSlot(lastSeq, slot);
    }
  }

  private slotOf(seq: number): number | undefined {
    const slot = this.slotOfSeq[seq] ?? 0;
    return slot === 0 ? undefined : slot - 1;
  }

  private setSlot(seq: number, slot: number): void {
    if (seq >= this.slotOfSeq.length) {
      let size = this.slotOfSeq.length;
      while (size <= seq) size *= 2;
      const wider = new Int32Array(size);
      wider.set(this.slotOfSeq);
      this.slotOfSeq = wider;
    }
    this.slotOfSeq[seq] = slot + 1;
  }

  /**
   * Empties the index and closes its vector file: a search in flight or after finds nothing, an
   * upsert fails.
   */
  close(): void {
    this.size = 0;
    this.slotOfSeq = new Int32Array(0);
    this.floats.close();
  }

  /** The cosine between two indexed memories' vectors; null when either has none. */
  cosineBetween(a: number, b: number): number | null {
    const sa = this.slotOf(a);
    const sb = this.slotOf(b);
    if (sa === undefined || sb === undefined) return null;
    const bytes = new Uint8Array(this.dimensions * 8);
    this.floats.read(sa, bytes, 0);
    this.floats.read(sb, bytes, this.dimensions * 4);
    const va = new Float32Array(bytes.buffer, 0, this.dimensions);
    const vb = new Float32Array(bytes.buffer, this.dimensions * 4, this.dimensions);
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let d = 0; d < this.dimensions; d++) {
      dot += va[d]! * vb[d]!;
      na += va[d]! * va[d]!;
      nb += vb[d]! * vb[d]!;
    }
    return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
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
    const { queryAt, distancesAt, histogramAt, selectedAt, queryBytesAt, candidatesAt, byteScoresAt } = this.scratch();
    const qcode = new Uint32Array(this.codeMemory.buffer, queryAt, this.words).fill(0);
    for (let d = 0; d < this.dimensions; d++) if (query[d]! > 0) qcode[d >>> 5]! |= 1 << (d & 31);
    const bins = this.dimensions + 2;
    const counted = new Uint32Array(this.codeMemory.buffer, histogramAt, bins).fill(0);
    this.hamming(0, queryAt, this.size, distancesAt, histogramAt);
    const distances = new Uint16Array(this.codeMemory.buffer, distancesAt, this.size);

    // Pass 1: the eligible slots' distances, in a histogram (and one of the authors' memories) to
    // find the cut-off distance. The eligible slots go in a list, so the second pass visits only
    // those (a project's share, say); 1 in `byAuthor` marks the named authors' among them.
    const rescoreFor = (k: number) => Math.max(options.rescore ?? Math.max(20 * k, 400), k);
    const size = this.size;
    const byAuthor = this.byAuthor;
    if (authors) byAuthor.fill(0, 0, size);
    // The arrays in locals: these loops visit every slot, and a field read per slot costs there.
    const { ownerOf, projectOf, authorOf, seqs } = this;
    // Every slot eligible (one agent's store searched whole, the common recall): no list, no tests,
    // and the kernel's histogram is this pass.
    const all = !allowed && !authors && project === 0 && ownerMask.every((m) => m === 1);
    const histogram = all ? counted : new Uint32Array(bins);
    const authorHistogram = new Uint32Array(authors ? bins : 0);
    // The kernel's list of slots within the cut-off, which this search does not use when not `all`.
    const eligible = new Int32Array(this.codeMemory.buffer, selectedAt, all ? 0 : size);
    let eligibleCount = 0;
    if (all) {
      eligibleCount = size;
    } else {
      for (let slot = 0; slot < size; slot++) {
        if (ownerMask[ownerOf[slot]!] !== 1) continue;
        if (project !== 0 && projectOf[slot] !== project) continue;
        if (allowed && !allowed.has(seqs[slot]!)) continue;
        const h = distances[slot]!;
        histogram[h]!++;
        if (authors && authorMask[authorOf[slot]!] === 1) {
          authorHistogram[h]!++;
          byAuthor[slot] = 1;
        }
        eligible[eligibleCount++] = slot;
      }
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

    // Pass 2: the candidates, every slot within a cut-off. Without authors the author cut-off is -1:
    // no slot passes it (and byAuthor is empty).
    const general = (slot: number) => distances[slot]! <= cutoff;
    const named = (slot: number) => distances[slot]! <= authorCutoff && byAuthor[slot] === 1;
    const candidateSlots = new Int32Array(this.byteMemory.buffer, candidatesAt, eligibleCount);
    const widest = Math.max(cutoff, authorCutoff);
    let candidates = 0;
    if (all) {
      candidates = this.within(distancesAt, size, cutoff, selectedAt);
      candidateSlots.set(new Int32Array(this.codeMemory.buffer, selectedAt, candidates));
    } else {
      for (let e = 0; e < eligibleCount; e++) {
        const slot = eligible[e]!;
        // Most slots are beyond both cut-offs: one comparison rules them out.
        if (distances[slot]! <= widest && (general(slot) || named(slot))) candidateSlots[candidates++] = slot;
      }
    }

    // Pass 3: each candidate's cosine estimated from its 8-bit vector x' (times its step) and a
    // 16-bit query q' (times the query's step), with a bound on the error from the lengths of what
    // each copy misses (Cauchy-Schwarz): |x·q - x'·q'| <= |x - x'|·|q'| + |x|·|q - q'|, widened by a
    // billionth for the float64 arithmetic of the bound itself, plus the float kernel's own rounding.
    // Half a step per entry times the sums of magnitudes bounds it too, but about 40% more loosely,
    // and each candidate a loose bound lets through is a float vector read. A list's k-th best lower
    // bound is a floor its best exact cosines reach; only a candidate whose upper bound reaches it
    // may be among them.
    let largest = 0;
    for (let d = 0; d < this.dimensions; d++) largest = Math.max(largest, Math.abs(query[d]!));
    const queryStep = largest / this.queryMax;
    const query16 = new Int16Array(this.byteMemory.buffer, queryBytesAt, this.byteStride).fill(0);
    let queryNorm = 0;
    let queryResidual = 0;
    for (let d = 0; d < this.dimensions; d++) {
      query16[d] = queryStep === 0 ? 0 : Math.round(query[d]! / queryStep);
      queryNorm += (query16[d]! * queryStep) ** 2;
      queryResidual += (query[d]! - query16[d]! * queryStep) ** 2;
    }
    queryNorm = Math.sqrt(queryNorm) * (1 + 1e-9);
    queryResidual = Math.sqrt(queryResidual) * (1 + 1e-9);
    const rounding = 4 * this.dimensions * 2 ** -24;
    this.byteDots(0, queryBytesAt, candidatesAt, candidates, byteScoresAt);
    const byteScores = new Int32Array(this.byteMemory.buffer, byteScoresAt, candidates);
    const lower = new Float64Array(candidates);
    const upper = new Float64Array(candidates);
    const { steps, residuals, norms } = this;
    for (let c = 0; c < candidates; c++) {
      const slot = candidateSlots[c]!;
      const estimate = byteScores[c]! * steps[slot]! * queryStep;
      const error = (residuals[slot]! * queryNorm + norms[slot]! * queryResidual) * (1 + 1e-9) + rounding;
      lower[c] = estimate - error;
      upper[c] = estimate + error;
    }
    const floorOf = (inList: (slot: number) => boolean, k: number) => {
      const bounds = new Float64Array(candidates);
      let n = 0;
      for (let c = 0; c < candidates; c++) if (inList(candidateSlots[c]!)) bounds[n++] = lower[c]!;
      return kthLargest(bounds.subarray(0, n), k);
    };
    // Pass 4: exact cosines from the float vectors read back from the file, in two rounds: first each
    // list's k best lower bounds, the k-th best of whose exact cosines is a floor the list's best
    // reach; then the candidates whose upper bound reaches that floor, a higher floor than the k-th
    // best lower bound (about a fifth fewer reads).
    const slots: number[] = [];
    const scores: number[] = [];
    const read = new Uint8Array(candidates);
    const readWhere = (floors: { general: number; named: number }, bound: Float64Array) => {
      const picked: number[] = [];
      for (let c = 0; c < candidates; c++) {
        const slot = candidateSlots[c]!;
        if (read[c] === 0 && ((bound[c]! >= floors.general && general(slot)) || (bound[c]! >= floors.named && named(slot)))) {
          read[c] = 1;
          picked.push(slot);
        }
      }
      const exact = this.scoreExactly(query, picked);
      picked.forEach((slot, i) => {
        slots.push(slot);
        scores.push(exact[i]!);
      });
    };
    readWhere({ general: floorOf(general, options.k), named: authors ? floorOf(named, authors.k) : Infinity }, lower);
    const exactFloor = (inList: (slot: number) => boolean, k: number) => kthLargest(Float64Array.from(scores.filter((_, i) => inList(slots[i]!))), k);
    readWhere({ general: exactFloor(general, options.k), named: authors ? exactFloor(named, authors.k) : Infinity }, upper);
    const exact = slots.length;
    // Only the candidates at or above each list's k-th best score become hits (a numeric sort of the
    // scores costs less than making and sorting an object per candidate).
    const generalScores = new Float32Array(exact);
    const namedScores = new Float32Array(authors ? exact : 0);
    let generalCount = 0;
    let namedCount = 0;
    for (let c = 0; c < exact; c++) {
      const slot = slots[c]!;
      if (general(slot)) generalScores[generalCount++] = scores[c]!;
      if (named(slot)) namedScores[namedCount++] = scores[c]!;
    }
    const generalFloor = kthLargest(generalScores.subarray(0, generalCount), options.k);
    const namedFloor = authors ? kthLargest(namedScores.subarray(0, namedCount), authors.k) : Infinity;
    const hits: VectorHit[] = [];
    const authorHits: VectorHit[] = [];
    for (let c = 0; c < exact; c++) {
      const slot = slots[c]!;
      const score = scores[c]!;
      const inGeneral = score >= generalFloor && general(slot);
      const inNamed = score >= namedFloor && named(slot);
      if (!inGeneral && !inNamed) continue;
      const hit = { seq: seqs[slot]!, score };
      if (inGeneral) hits.push(hit);
      if (inNamed) authorHits.push(hit);
    }
    const best = (list: VectorHit[], k: number) => list.sort((a, b) => b.score - a.score).slice(0, k);
    return { hits: best(hits, options.k), authorHits: authors ? best(authorHits, authors.k) : [] };
  }

  /** The exact cosines of `slots`' vectors with `query`, in their order, READ_BATCH vectors read at a time. */
  private scoreExactly(query: Float32Array, slots: number[]): Float32Array {
    const { queryAt, vectorsAt, batchAt, scoresAt } = this.floatScratch();
    const buffer = this.vectorMemory.buffer;
    const memory = new Uint8Array(buffer);
    new Float32Array(buffer, queryAt, this.stride).set(query);
    const batch = new Int32Array(buffer, batchAt, READ_BATCH);
    const out = new Float32Array(slots.length);
    for (let from = 0; from < slots.length; from += READ_BATCH) {
      const n = Math.min(READ_BATCH, slots.length - from);
      // Each vector in its own place of the batch; the padding after it is never written, so it stays 0.
      for (let i = 0; i < n; i++) {
        this.floats.read(slots[from + i]!, memory, vectorsAt + i * this.stride * 4);
        batch[i] = i;
      }
      this.dots(vectorsAt, queryAt, batchAt, n, scoresAt);
      out.set(new Float32Array(buffer, scoresAt, n), from);
    }
    return out;
  }

  /**
   * Where one search's scratch space starts in the code and byte memories, after `capacity` codes or
   * vectors (byte offsets), and where it ends: the query's code, then a u16 distance per slot, the
   * distances' histogram and an i32 per slot (those within the cut-off); the 16-bit query, then an
   * i32 candidate slot and an i32 estimate per slot.
   */
  private scratch() {
    const queryAt = this.capacity * this.words * 4;
    const distancesAt = queryAt + this.words * 4;
    const histogramAt = distancesAt + this.capacity * 2;
    const selectedAt = histogramAt + (this.dimensions + 2) * 4;
    const queryBytesAt = this.capacity * this.byteStride;
    const candidatesAt = queryBytesAt + this.byteStride * 2;
    const byteScoresAt = candidatesAt + this.capacity * 4;
    return {
      queryAt,
      distancesAt,
      histogramAt,
      selectedAt,
      codeEnd: selectedAt + this.capacity * 4,
      queryBytesAt,
      candidatesAt,
      byteScoresAt,
      byteEnd: byteScoresAt + this.capacity * 4,
    };
  }

  /** The float kernel's memory: the query, a batch of vectors, their places (i32s) and scores (f32s). */
  private floatScratch() {
    const queryAt = 0;
    const vectorsAt = queryAt + this.stride * 4;
    const batchAt = vectorsAt + READ_BATCH * this.stride * 4;
    const scoresAt = batchAt + READ_BATCH * 4;
    return { queryAt, vectorsAt, batchAt, scoresAt, end: scoresAt + READ_BATCH * 4 };
  }

  /** Memory for `capacity` codes and 8-bit vectors and one search's scratch space; they stay where they are. */
  private fitMemory(): void {
    const fit = (memory: WebAssembly.Memory, bytes: number) => {
      const pages = Math.ceil(bytes / PAGE) - memory.buffer.byteLength / PAGE;
      if (pages > 0) memory.grow(pages);
    };
    const { codeEnd, byteEnd } = this.scratch();
    fit(this.codeMemory, codeEnd);
    fit(this.byteMemory, byteEnd);
    // Growing detaches the old views.
    this.codes = new Uint32Array(this.codeMemory.buffer, 0, this.capacity * this.words);
    this.bytes = new Int8Array(this.byteMemory.buffer, 0, this.capacity * this.byteStride);
  }

  /**
   * Room for an eighth more slots. The kernels' memories grow in place, but the garbage collector
   * counts a WebAssembly memory's whole size (twice) as memory in use and lets garbage grow with it:
   * doubling would leave up to half of it empty.
   */
  private grow(): void {
    this.capacity += Math.max(INITIAL_CAPACITY, this.capacity >> 3);
    this.fitMemory();
    const widen = <T extends Int32Array | Float64Array>(from: T): T => {
      const to = new (from.constructor as new (length: number) => T)(this.capacity);
      to.set(from);
      return to;
    };
    this.seqs = widen(this.seqs);
    this.ownerOf = widen(this.ownerOf);
    this.projectOf = widen(this.projectOf);
    this.authorOf = widen(this.authorOf);
    this.steps = widen(this.steps);
    this.residuals = widen(this.residuals);
    this.norms = widen(this.norms);
    this.byAuthor = new Uint8Array(this.capacity);
  }
}

/** The k-th largest of `values`, or -Infinity when there are fewer than k. */
function kthLargest(values: Float32Array | Float64Array, k: number): number {
  if (values.length < k) return -Infinity;
  return values.slice().sort()[values.length - k]!;
}

/**
 * `index` when it holds vectors of `dimensions`; otherwise a new, empty index whose vector file is
 * in `dir` (vectorFileDir), and `index` closed (a change of model with other dimensions).
 */
export function indexOfDimensions(index: VectorIndex | null, dimensions: number, dir: string): VectorIndex {
  if (index?.dimensions === dimensions) return index;
  index?.close();
  return new VectorIndex(dimensions, dir);
}
