// WebAssembly kernels, assembled in memory (with src/core/wasm/encoder.ts): the forward pass's
// matrix products and its row-wise steps, over an imported shared memory. Pointers and leading
// dimensions are in bytes.
//
//   quantize(x, ldx, q, ldq, scales, m, k)
//     each row r < m of the float32 A[m, k] at x becomes int16 values at q + r*ldq: round(A[r][j] / s)
//     (ties to even) with s = max_j |A[r][j]| / A_MAX (0 for a zero row) stored as a float32 at
//     scales + 4r; the row is padded with one 0 when k is odd, so it holds whole pairs.
//   gemm_q(q, ldq, scales, b, colScales, bias, c, ldc, m, pairs, p0, p1, flags)
//     C[m, 16*p0 .. 16*p1) = (Aq[m, k] x Bq[k, ...]) * rowScale * colScale (+ bias) for column panels
//     p0..p1, with Aq from quantize (k = 2 * pairs) and Bq the weights' int8 values packed by
//     packPairs as int16 [panel][pair][16 columns][2]; flags bit 0 = ReLU, bit 1 = add into C, bias
//     0 = none. The products are i32x4.dot_i16x8_s (x86 pmaddwd: 8 multiply-adds per instruction,
//     where f32x4 needs a multiply and an add for 4), summed exactly in int32; only the epilogue is
//     float. Twice the float kernel's speed here (46 against 21 GMAC/s on one core).
//   gemm_strided(a, lda, b, ldb, bias, c, ldc, m, k, p0, p1, flags)
//     the same product in float32 with a plain row-major B of row stride ldb; used inside attention,
//     where both operands are activations.
//   layer_norm, mean_rows, softmax: see their functions below.
//
// Tiles are 2 rows x 16 columns held in eight v128 accumulators: 2x16 measured ~8% faster than 4x16
// in JSC (fewer live vector registers), and 3x16 and 4x16 slower for the int16 kernel too. Weights
// kept as int8 and widened while loading (v128.load8x8_s) were 15% slower than int16 ones; relaxed
// SIMD compiles in this JavaScriptCore but gave nothing here (f32x4.relaxed_madd ran at the speed of
// a multiply and an add, i32x4.relaxed_dot_i8x16_i7x16_add_s below the int16 dot product).
import { type Code, F32, I32, moduleBytes, V128, W, type WasmFunction } from "../../wasm/encoder";

const MR = 2;
const NR = 16; // workerMain relies on 16-column panels too (n >> 4, T16)
/**
 * The largest quantized activation. With weights of at most 127 in magnitude an int32 sum over k
 * products stays below 2^31 for k <= 2064 (2064 * 127 * 8191 < 2^31 - 1); the model's widest k
 * is 1536. Rounding to 1/8191 of a row's largest value is ~60 times finer than the weights' own
 * rounding (1/127 of a column's largest).
 */
export const A_MAX = 8191;
/** Bytes per column pair group in a packed panel: 16 columns x 2 int16. */
const PAIR_BYTES = NR * 4;
/** 1.5 * 2^23: adding it to a float of magnitude below 2^22 leaves that float rounded to an integer (ties to even) in the low mantissa bits. */
const MAGIC = 12582912;
const MAGIC_BITS = 0x4b400000;

const { get, set, i32 } = W;

/** A counted loop: `body` while local `i` < `end` (both i32 values), `i` advanced by `step` after each pass. */
function countedLoop(i: number, end: Code, step: number, body: Code): Code {
  return W.block([W.loop([get(i), end, W.ge_s, W.br_if(1), body, get(i), i32(step), W.add, set(i), W.br(0)])]);
}

/** quantize (described at the top): per row, its largest magnitude, then the rounded values. */
function quantizeFunction(): Omit<WasmFunction, "name"> {
  const P = { x: 0, ldx: 1, q: 2, ldq: 3, scales: 4, m: 5, k: 6 };
  let n = 7;
  const L = { r: n++, j: n++, k8: n++, k4: n++, xr: n++, qr: n++ };
  const i32Locals = n - 7;
  const V = { max: n++, inv: n++, magic: n++ };
  // x[j] * inv + MAGIC, as int32 minus MAGIC_BITS: the rounded value (the magic vector doubles as both)
  const rounded = (load: Code): Code => [load, get(V.inv), W.fmul, get(V.magic), W.fadd, get(V.magic), W.sub32x4];
  const at = (base: number, shift: number): Code => [get(base), get(L.j), i32(shift), W.shl, W.add];
  const row: Code = [
    get(P.x), get(L.r), get(P.ldx), W.mul, W.add, set(L.xr),
    get(P.q), get(L.r), get(P.ldq), W.mul, W.add, set(L.qr),
    // the row's largest magnitude, 4 at a time, then one at a time
    W.vzero, set(V.max),
    i32(0), set(L.j),
    countedLoop(L.j, get(L.k4), 4, [get(V.max), at(L.xr, 2), W.vload(0), W.fabs, W.pmax, set(V.max)]),
    countedLoop(L.j, get(P.k), 1, [get(V.max), at(L.xr, 2), W.f32load(0), W.f32abs, W.fsplat, W.pmax, set(V.max)]),
    get(V.max), W.flane(0), get(V.max), W.flane(1), W.f32max, get(V.max), W.flane(2), W.f32max, get(V.max), W.flane(3), W.f32max,
    W.fsplat, set(V.max),
    get(P.scales), get(L.r), i32(2), W.shl, W.add, get(V.max), W.flane(0), W.f32(A_MAX), W.f32div, W.fstore(0),
    // 1 / scale, or 0 for a row of zeros (its scale is 0 too)
    W.f32(A_MAX), get(V.max), W.flane(0), W.f32div, W.f32(0), get(V.max), W.flane(0), W.f32(0), W.f32gt, W.select,
    W.fsplat, set(V.inv),
    i32(0), set(L.j),
    countedLoop(L.j, get(L.k8), 8, [at(L.qr, 1), rounded([at(L.xr, 2), W.vload(0)]), rounded([at(L.xr, 2), W.vload(16)]), W.narrow16, W.vstore(0)]),
    countedLoop(L.j, get(P.k), 1, [
      at(L.qr, 1),
      at(L.xr, 2), W.f32load(0), get(V.inv), W.flane(0), W.f32mul, W.f32(MAGIC), W.f32add, W.reinterpret32, i32(MAGIC_BITS), W.sub,
      W.store16(0),
    ]),
    // an odd k leaves half a pair: zero it
    get(P.k), i32(1), W.and, W.if([at(L.qr, 1), i32(0), W.store16(0)]),
  ];
  const body: Code = [
    get(P.k), i32(-8), W.and, set(L.k8),
    get(P.k), i32(-4), W.and, set(L.k4),
    W.f32(MAGIC), W.fsplat, set(V.magic),
    i32(0), set(L.r),
    countedLoop(L.r, get(P.m), 1, row),
  ];
  return { params: 7, locals: [...new Array(i32Locals).fill(I32), V128, V128, V128], body };
}

/** The sum of a v128 local's four float lanes. */
const laneSum = (v: number): Code => [get(v), W.flane(0), get(v), W.flane(1), W.f32add, get(v), W.flane(2), W.f32add, get(v), W.flane(3), W.f32add];

/**
 * layer_norm(x, y, m, dim, scale, bias): each row r < m of the float32 x[m, dim] (dim a multiple of
 * 4, rows back to back) normalized into y: (x - mean) / sqrt(variance + 1e-6) * scale + bias.
 */
function layerNormFunction(): Omit<WasmFunction, "name"> {
  const P = { x: 0, y: 1, m: 2, dim: 3, scale: 4, bias: 5 };
  const L = { r: 6, j: 7, xr: 8, yr: 9, bytes: 10 };
  const V = { sum: 11, mean: 12, inv: 13, d: 14 };
  const x = (off: number): Code => [get(L.xr), get(L.j), W.add, W.vload(off)];
  const row: Code = [
    get(P.x), get(L.r), get(L.bytes), W.mul, W.add, set(L.xr),
    get(P.y), get(L.r), get(L.bytes), W.mul, W.add, set(L.yr),
    W.vzero, set(V.sum),
    i32(0), set(L.j),
    countedLoop(L.j, get(L.bytes), 16, [get(V.sum), x(0), W.fadd, set(V.sum)]),
    laneSum(V.sum), get(P.dim), W.f32convert, W.f32div, W.fsplat, set(V.mean),
    W.vzero, set(V.sum),
    i32(0), set(L.j),
    countedLoop(L.j, get(L.bytes), 16, [x(0), get(V.mean), W.fsub, W.tee(V.d), get(V.d), W.fmul, get(V.sum), W.fadd, set(V.sum)]),
    W.f32(1), laneSum(V.sum), get(P.dim), W.f32convert, W.f32div, W.f32(1e-6), W.f32add, W.f32sqrt, W.f32div, W.fsplat, set(V.inv),
    i32(0), set(L.j),
    countedLoop(L.j, get(L.bytes), 16, [
      get(L.yr), get(L.j), W.add,
      get(P.scale), get(L.j), W.add, W.vload(0), get(V.inv), W.fmul, x(0), get(V.mean), W.fsub, W.fmul,
      get(P.bias), get(L.j), W.add, W.vload(0), W.fadd,
      W.vstore(0),
    ]),
  ];
  const body: Code = [get(P.dim), i32(2), W.shl, set(L.bytes), i32(0), set(L.r), countedLoop(L.r, get(P.m), 1, row)];
  return { params: 6, locals: [I32, I32, I32, I32, I32, V128, V128, V128, V128], body };
}

/** mean_rows(x, rows, width, y): the mean of `rows` float32 rows of `width` (a multiple of 4) floats, back to back at x, into y; zeros when rows is 0. */
function meanRowsFunction(): Omit<WasmFunction, "name"> {
  const P = { x: 0, rows: 1, width: 2, y: 3 };
  const L = { r: 4, j: 5, bytes: 6, xr: 7, yj: 8 };
  const V = { inv: 9 };
  const yj: Code = [get(P.y), get(L.j), W.add, W.tee(L.yj)];
  const body: Code = [
    get(P.width), i32(2), W.shl, set(L.bytes),
    i32(0), set(L.j),
    countedLoop(L.j, get(L.bytes), 16, [yj, W.vzero, W.vstore(0)]),
    get(P.x), set(L.xr),
    i32(0), set(L.r),
    countedLoop(L.r, get(P.rows), 1, [
      i32(0), set(L.j),
      countedLoop(L.j, get(L.bytes), 16, [yj, get(L.yj), W.vload(0), get(L.xr), get(L.j), W.add, W.vload(0), W.fadd, W.vstore(0)]),
      get(L.xr), get(L.bytes), W.add, set(L.xr),
    ]),
    get(P.rows),
    W.if([
      W.f32(1), get(P.rows), W.f32convert, W.f32div, W.fsplat, set(V.inv),
      i32(0), set(L.j),
      countedLoop(L.j, get(L.bytes), 16, [yj, get(L.yj), W.vload(0), get(V.inv), W.fmul, W.vstore(0)]),
    ]),
  ];
  return { params: 4, locals: [I32, I32, I32, I32, I32, V128], body };
}

/**
 * e^x for f32x4 lanes x <= 0 (Cephes' expf: x = n ln 2 + r with |r| <= ln 2 / 2, a degree-6
 * polynomial for e^r, 2^n from the exponent bits; ~1 ulp). Below -87.3 it gives ~1.2e-38, not 0.
 */
function expNonPositive(x: Code, t: number, n: number): Code {
  const poly = [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1];
  const c: Code = [
    x, W.fconst(-87.33654), W.pmax, set(t),
    // n = round(x log2 e), with the magic constant
    get(t), W.fconst(Math.LOG2E), W.fmul, W.fconst(MAGIC), W.fadd, set(n),
    // r = x - n ln 2, in two parts for precision
    get(t), get(n), W.fconst(MAGIC), W.fsub, W.tee(n), W.fconst(0.693359375), W.fmul, W.fsub,
    get(n), W.fconst(-2.12194440e-4), W.fmul, W.fsub, set(t),
    W.fconst(poly[0]!),
  ];
  for (const k of poly.slice(1)) c.push(get(t), W.fmul, W.fconst(k), W.fadd);
  c.push(
    get(t), get(t), W.fmul, W.fmul, get(t), W.fadd, W.fconst(1), W.fadd,
    // 2^n: n + 127 in the exponent field. n + MAGIC has the bits MAGIC_BITS + n, and the float
    // MAGIC - 127 the bits MAGIC_BITS - 127
    get(n), W.fconst(MAGIC), W.fadd, W.fconst(MAGIC - 127), W.sub32x4, i32(23), W.shl32x4,
    W.fmul,
  );
  return c;
}
/**
 * softmax(s, lds, rows, cols, scale): each row r < rows of the float32 s (row stride lds bytes, at
 * least cols rounded up to 4 floats) becomes softmax(scale * s[r][0..cols)); the padding up to a
 * multiple of 4 is overwritten (with ~0).
 */
function softmaxFunction(): Omit<WasmFunction, "name"> {
  const P = { s: 0, lds: 1, rows: 2, cols: 3, scale: 4 };
  const L = { r: 5, j: 6, bytes: 7, row: 8 };
  const V = { max: 9, scale: 10, sum: 11, t: 12, n: 13 };
  const at: Code = [get(L.row), get(L.j), W.add];
  const row: Code = [
    get(P.s), get(L.r), get(P.lds), W.mul, W.add, set(L.row),
    // -infinity in the padding, so whole vectors can be read
    get(P.cols), i32(2), W.shl, set(L.j),
    countedLoop(L.j, get(L.bytes), 4, [at, W.f32(-Infinity), W.fstore(0)]),
    W.fconst(-Infinity), set(V.max),
    i32(0), set(L.j),
    countedLoop(L.j, get(L.bytes), 16, [get(V.max), at, W.vload(0), W.pmax, set(V.max)]),
    // the largest scaled value; scale > 0, so it is scale times the largest value
    get(V.max), W.flane(0), get(V.max), W.flane(1), W.f32max, get(V.max), W.flane(2), W.f32max, get(V.max), W.flane(3), W.f32max,
    W.fsplat, get(V.scale), W.fmul, set(V.max),
    W.vzero, set(V.sum),
    i32(0), set(L.j),
    countedLoop(L.j, get(L.bytes), 16, [
      at,
      expNonPositive([at, W.vload(0), get(V.scale), W.fmul, get(V.max), W.fsub], V.t, V.n),
      W.tee(V.t), W.vstore(0),
      get(V.sum), get(V.t), W.fadd, set(V.sum),
    ]),
    W.f32(1), laneSum(V.sum), W.f32div, W.fsplat, set(V.sum),
    i32(0), set(L.j),
    countedLoop(L.j, get(L.bytes), 16, [at, at, W.vload(0), get(V.sum), W.fmul, W.vstore(0)]),
  ];
  const body: Code = [
    // bytes of a row rounded up to whole vectors
    get(P.cols), i32(3), W.add, i32(-4), W.and, i32(2), W.shl, set(L.bytes),
    get(P.scale), W.fsplat, set(V.scale),
    i32(0), set(L.r),
    countedLoop(L.r, get(P.rows), 1, row),
  ];
  return { params: 5, paramTypes: [I32, I32, I32, I32, F32], locals: [I32, I32, I32, I32, V128, V128, V128, V128, V128], body };
}

/**
 * The tiles of both products: `quantized` selects gemm_q (int16 pairs, packed B, scaled epilogue)
 * over gemm_strided (float32, row-major B). Each row of a tile keeps NR / 4 accumulators.
 */
function gemmFunction(quantized: boolean): Omit<WasmFunction, "name"> {
  const NV = NR / 4;
  const P = quantized
    ? { a: 0, lda: 1, scales: 2, b: 3, colScales: 4, bias: 5, c: 6, ldc: 7, m: 8, k: 9, p0: 10, p1: 11, flags: 12, ldb: -1 }
    : { a: 0, lda: 1, b: 2, ldb: 3, bias: 4, c: 5, ldc: 6, m: 7, k: 8, p0: 9, p1: 10, flags: 11, scales: -1, colScales: -1 };
  const params = quantized ? 13 : 12;
  let n = params;
  const L = { p: n++, i: n++, kk: n++, bk: n++, cp: n++, pb: n++, kstep: n++, cs: n++, bp: n++ };
  const rows = Array.from({ length: MR }, () => n++);
  const i32Locals = n - params;
  const firstVector = n;
  const acc = Array.from({ length: MR }, () => Array.from({ length: NV }, () => n++));
  const vb = Array.from({ length: NV }, () => n++);
  const va = n++;
  const vectorLocals = n - firstVector;
  // per k step (a pair of k for gemm_q): bytes of A and of B consumed, and how far the loop is unrolled
  const aStep = 4;
  const bStep = quantized ? PAIR_BYTES : 0; // gemm_strided steps B by ldb
  const U = quantized ? 2 : 1;

  const tile = (R: number): Code => {
    const c: Code = [get(P.a), get(L.i), get(P.lda), W.mul, W.add, set(rows[0]!)];
    for (let r = 1; r < R; r++) c.push(get(rows[r - 1]!), get(P.lda), W.add, set(rows[r]!));
    c.push(get(L.pb), set(L.bk));
    for (let r = 0; r < R; r++) for (let v = 0; v < NV; v++) c.push(W.vzero, set(acc[r]![v]!));
    const step = (u: number): Code => {
      const s: Code = [];
      for (let v = 0; v < NV; v++) s.push(get(L.bk), W.vload(u * bStep + 16 * v), set(vb[v]!));
      for (let r = 0; r < R; r++) {
        s.push(get(rows[r]!), W.vsplat32(u * aStep), set(va));
        for (let v = 0; v < NV; v++) {
          s.push(get(acc[r]![v]!), get(va), get(vb[v]!), quantized ? [W.dot16, W.add32x4] : [W.fmul, W.fadd], set(acc[r]![v]!));
        }
      }
      return s;
    };
    const advance = (u: number): Code => {
      const s: Code = [];
      for (let r = 0; r < R; r++) s.push(get(rows[r]!), i32(u * aStep), W.add, set(rows[r]!));
      s.push(get(L.bk), quantized ? i32(u * bStep) : get(L.kstep), W.add, set(L.bk));
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
      const epilogue: Code = [];
      if (quantized) {
        // float(sum) * (column scale * row scale)
        epilogue.push(get(P.scales), get(L.i), i32(r), W.add, i32(2), W.shl, W.add, W.vsplat32(0), set(va));
        for (let v = 0; v < NV; v++) {
          epilogue.push(get(acc[r]![v]!), W.convert32, get(L.cs), W.vload(16 * v), get(va), W.fmul, W.fmul, set(acc[r]![v]!));
        }
      }
      const bias: Code = [];
      const accumulate: Code = [];
      const relu: Code = [];
      for (let v = 0; v < NV; v++) {
        bias.push(get(acc[r]![v]!), get(L.bp), W.vload(16 * v), W.fadd, set(acc[r]![v]!));
        accumulate.push(get(acc[r]![v]!), get(L.cp), W.vload(16 * v), W.fadd, set(acc[r]![v]!));
        relu.push(get(acc[r]![v]!), W.vzero, W.pmax, set(acc[r]![v]!));
      }
      c.push(epilogue, get(P.bias), W.if(bias));
      c.push(get(P.flags), i32(2), W.and, W.if(accumulate));
      c.push(get(P.flags), i32(1), W.and, W.if(relu));
      for (let v = 0; v < NV; v++) c.push(get(L.cp), get(acc[r]![v]!), W.vstore(16 * v));
      c.push(get(L.cp), get(P.ldc), W.add, set(L.cp));
    }
    return c;
  };

  const body: Code = [
    get(P.p0), set(L.p),
    // panel stride (gemm_q) or B's row stride (gemm_strided), in bytes
    quantized ? [get(P.k), i32(bStep), W.mul, set(L.kstep)] : [get(P.ldb), set(L.kstep)],
    W.block([
      get(L.p), get(P.p1), W.ge_s, W.br_if(0),
      W.loop([
        get(P.b), get(L.p), quantized ? get(L.kstep) : i32(NR * 4), W.mul, W.add, set(L.pb),
        // this panel's bias and column scales
        get(P.bias), get(L.p), i32(NR * 4), W.mul, W.add, set(L.bp),
        quantized ? [get(P.colScales), get(L.p), i32(NR * 4), W.mul, W.add, set(L.cs)] : [],
        i32(0), set(L.i),
        W.block([W.loop([get(L.i), i32(MR), W.add, get(P.m), W.gt_s, W.br_if(1), tile(MR), get(L.i), i32(MR), W.add, set(L.i), W.br(0)])]),
        W.block([W.loop([get(L.i), get(P.m), W.ge_s, W.br_if(1), tile(1), get(L.i), i32(1), W.add, set(L.i), W.br(0)])]),
        get(L.p), i32(1), W.add, W.tee(L.p), get(P.p1), W.lt_s, W.br_if(0),
      ]),
    ]),
  ];
  return { params, locals: [...new Array(i32Locals).fill(I32), ...new Array(vectorLocals).fill(V128)], body };
}

/** Int16 values of the int8 matrix q[k, n] (row-major) in gemm_q's layout: [panel][pair][16 columns][2], the last pair zero-padded for an odd k. */
export function packPairs(q: Int8Array, k: number, n: number, out: Int16Array): void {
  if (n % NR !== 0) throw new Error(`packPairs: ${n} columns is not a multiple of ${NR}`);
  const pairs = (k + 1) >> 1;
  if (out.length < pairs * 2 * n) throw new Error("packPairs: output too small");
  for (let p = 0, o = 0; p < n / NR; p++) {
    for (let kp = 0; kp < pairs; kp++) {
      const r0 = 2 * kp * n + p * NR;
      const second = 2 * kp + 1 < k;
      for (let j = 0; j < NR; j++, o += 2) {
        out[o] = q[r0 + j]!;
        out[o + 1] = second ? q[r0 + n + j]! : 0;
      }
    }
  }
}

/** The kernels' module bytes, importing `env.mem` (a shared memory of `pages` 64 KiB pages). */
export function kernelModuleBytes(pages: number): Uint8Array<ArrayBuffer> {
  return moduleBytes(
    [
      { name: "quantize", ...quantizeFunction() },
      { name: "layer_norm", ...layerNormFunction() },
      { name: "mean_rows", ...meanRowsFunction() },
      { name: "softmax", ...softmaxFunction() },
      { name: "gemm_q", ...gemmFunction(true) },
      { name: "gemm_strided", ...gemmFunction(false) },
    ],
    { initial: pages, maximum: pages, shared: true },
  );
}
