// WebAssembly kernels, assembled in memory (with the encoder in wasm.ts). Two exports over an
// imported shared memory:
//   gemm_packed (a, lda, b, ldb, bias, c, ldc, m, k, p0, p1, flags)
//   gemm_strided(a, lda, b, ldb, bias, c, ldc, m, k, p0, p1, flags)
// compute C[m, 16*p0 .. 16*p1) = A[m, k] x B[k, ...] (+ bias) for column panels p0..p1, with
// flags bit 0 = ReLU, bit 1 = accumulate into C. Pointers and leading dimensions are in bytes.
// gemm_packed reads B packed as [panel][k][16] (ldb unused); gemm_strided reads a plain row-major
// B with row stride ldb. Tiles are 2 rows x 16 columns (8 v128 accumulators), k unrolled by 4.
import { type Code, I32, moduleBytes, V128, W } from "../../wasm/encoder";

const MR = 2; // 2x16 tiles measured ~8% faster than 4x16 in JSC (fewer live vector registers)
export const NR = 16; // workerMain relies on 16-column panels too (n >> 4, T16)

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
  return moduleBytes(
    [
      { name: "gemm_packed", ...gemmFunction(true) },
      { name: "gemm_strided", ...gemmFunction(false) },
    ],
    { initial: pages, maximum: pages, shared: true },
  );
}
