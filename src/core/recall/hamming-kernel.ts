// The vector index's first pass in WebAssembly SIMD (docs/architecture.md#recalls-in-memory-indexes): the Hamming
// distance from one query's sign code to every stored code, i8x16.popcnt over 16 bytes at a time.
// The same scan in JavaScript (a bit-twiddling popcount per 32-bit word) took 8.6 ms at 100,000
// memories of 512 dimensions, most of a recall's vector leg; see scripts/bench-vector-index.ts.
//
//   hamming(codes, query, count, out): for i < count, the u16 at out + 2i is the number of bits that
//   differ between the query's code and code i; a code is a fixed number of v128s (16 bytes each),
//   the codes stored back to back from `codes`. Pointers are in bytes.
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

const modules = new Map<number, WebAssembly.Module>();

/** hamming(codes, query, count, out), pointers in bytes (see the top of this file). */
export type HammingKernel = (codes: number, query: number, count: number, out: number) => void;

/** The kernel for codes of `vectors` v128s over `memory` (a few hundred bytes, compiled once per size). */
export function hammingKernel(memory: WebAssembly.Memory, vectors: number): HammingKernel {
  let module = modules.get(vectors);
  if (!module) modules.set(vectors, (module = new WebAssembly.Module(moduleBytes([hammingFunction(vectors)], { initial: 1 }))));
  const instance = new WebAssembly.Instance(module, { env: { mem: memory } });
  return instance.exports.hamming as HammingKernel;
}
