// The vector index's two passes in WebAssembly SIMD (docs/architecture.md#recalls-in-memory-indexes),
// each over a memory of its own:
//
//   hamming(codes, query, count, out): for i < count, the u16 at out + 2i is the number of bits that
//   differ between the query's sign code and code i, i8x16.popcnt over 16 bytes at a time; a code is
//   a fixed number of v128s, the codes stored back to back from `codes`.
//   dots(vectors, query, slots, count, out): for i < count, the f32 at out + 4i is the dot product of
//   the query with the vector in slot (the i32 at slots + 4i); a vector is a fixed number of f32x4s,
//   stored back to back from `vectors`.
//
// Pointers are in bytes. In JavaScript the first took 8.6 ms at 100,000 memories of 512 dimensions
// and the second 2.2 ms for the ~1,160 candidates a recall re-scores; see
// scripts/bench-vector-index.ts.
import { type Code, I32, moduleBytes, V128, W, type WasmFunction } from "../wasm/encoder";

/** The kernel for codes of `vectors` v128s, unrolled: one module per code size. */
function hammingFunction(vectors: number): WasmFunction {
  const P = { codes: 0, query: 1, count: 2, out: 3 };
  const L = { i: 4, acc: 5 };
  const { get, set, i32 } = W;
  // The bytes' counts (at most 8 each) widened to 16 bits before they are summed.
  const code: Code = [W.vzero];
  for (let v = 0; v < vectors; v++) {
    code.push(get(P.codes), W.vload(16 * v), get(P.query), W.vload(16 * v), W.vxor, W.popcnt8, W.extaddPairs8, W.add16);
  }
  const body = [
    W.block([
      get(P.count), W.eqz, W.br_if(0),
      i32(0), set(L.i),
      W.loop([
        get(P.out),
        code, W.extaddPairs16, set(L.acc),
        get(L.acc), W.lane32(0), get(L.acc), W.lane32(1), W.add, get(L.acc), W.lane32(2), W.add, get(L.acc), W.lane32(3), W.add,
        W.store16(0),
        get(P.codes), i32(16 * vectors), W.add, set(P.codes),
        get(P.out), i32(2), W.add, set(P.out),
        get(L.i), i32(1), W.add, W.tee(L.i), get(P.count), W.lt_s, W.br_if(0),
      ]),
    ]),
  ];
  return { name: "hamming", params: 4, locals: [I32, V128], body };
}

/** The dot products for vectors of `vectors` f32x4s (a loop: 128 of them for 512 dimensions). */
function dotsFunction(vectors: number): WasmFunction {
  const P = { vectors: 0, query: 1, slots: 2, count: 3, out: 4 };
  const L = { i: 5, v: 6, p: 7, q: 8, acc: 9 };
  const { get, set, i32 } = W;
  const body = [
    W.block([
      get(P.count), W.eqz, W.br_if(0),
      i32(0), set(L.i),
      W.loop([
        get(P.slots), W.load32(0), i32(16 * vectors), W.mul, get(P.vectors), W.add, set(L.p),
        get(P.query), set(L.q),
        i32(vectors), set(L.v),
        W.vzero, set(L.acc),
        W.loop([
          get(L.acc), get(L.p), W.vload(0), get(L.q), W.vload(0), W.fmul, W.fadd, set(L.acc),
          get(L.p), i32(16), W.add, set(L.p),
          get(L.q), i32(16), W.add, set(L.q),
          get(L.v), i32(1), W.sub, W.tee(L.v), W.br_if(0),
        ]),
        get(P.out),
        get(L.acc), W.flane(0), get(L.acc), W.flane(1), W.f32add, get(L.acc), W.flane(2), W.f32add, get(L.acc), W.flane(3), W.f32add,
        W.fstore(0),
        get(P.slots), i32(4), W.add, set(P.slots),
        get(P.out), i32(4), W.add, set(P.out),
        get(L.i), i32(1), W.add, W.tee(L.i), get(P.count), W.lt_s, W.br_if(0),
      ]),
    ]),
  ];
  return { name: "dots", params: 5, locals: [I32, I32, I32, I32, V128], body };
}

const modules = new Map<string, WebAssembly.Module>();

/** `fn`'s module, compiled once per process, instantiated over `memory`. */
function instantiate(key: string, fn: () => WasmFunction, memory: WebAssembly.Memory): WebAssembly.Exports {
  let module = modules.get(key);
  if (!module) modules.set(key, (module = new WebAssembly.Module(moduleBytes([fn()], { initial: 1 }))));
  return new WebAssembly.Instance(module, { env: { mem: memory } }).exports;
}

/** hamming(codes, query, count, out), pointers in bytes (see the top of this file). */
export type HammingKernel = (codes: number, query: number, count: number, out: number) => void;
/** dots(vectors, query, slots, count, out), pointers in bytes (see the top of this file). */
export type DotsKernel = (vectors: number, query: number, slots: number, count: number, out: number) => void;

/** The Hamming kernel for codes of `vectors` v128s over `memory` (a few hundred bytes each). */
export function hammingKernel(memory: WebAssembly.Memory, vectors: number): HammingKernel {
  return instantiate(`hamming ${vectors}`, () => hammingFunction(vectors), memory).hamming as HammingKernel;
}

/** The dot-product kernel for vectors of `vectors` f32x4s over `memory`. */
export function dotsKernel(memory: WebAssembly.Memory, vectors: number): DotsKernel {
  return instantiate(`dots ${vectors}`, () => dotsFunction(vectors), memory).dots as DotsKernel;
}
