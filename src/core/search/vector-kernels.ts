// The vector index's passes in WebAssembly (docs/architecture.md#recalls-in-memory-indexes),
// each over a memory of its own:
//
//   hamming(codes, query, count, out, histogram): for i < count, the u16 at out + 2i is the number of
//   bits that differ between the query's sign code and code i, i64.popcnt over 8 bytes at a time; the
//   u32 at histogram + 4d (zeroed by the caller) counts the codes at distance d. A code is a fixed
//   number of v128s (16-byte aligned for the padding's sake), stored back to back from `codes`.
//   within(distances, count, cutoff, out) -> n: which of those distances are at most a cut-off.
//   byteDots(vectors, query, slots, count, out): for i < count, the i32 at out + 4i is the dot product
//   of a 16-bit query with the 8-bit vector in slot (the i32 at slots + 4i); a vector is a fixed
//   number of 32-byte groups, stored back to back from `vectors`, the query as many 64-byte groups.
//   SIMD, as is
//   dots(vectors, query, slots, count, out): for i < count, the f32 at out + 4i is the dot product of
//   the query with the vector in slot (the i32 at slots + 4i); a vector is a fixed number of f32x4s,
//   stored back to back from `vectors`.
//
// Pointers are in bytes. In JavaScript the Hamming scan took 8.6 ms at 100,000 memories of 512
// dimensions and the float dot products 2.2 ms for the ~1,160 candidates a recall re-scores; see
// scripts/bench-vector-index.ts.
import { type Code, I32, I64, moduleBytes, V128, W, type WasmFunction } from "../wasm/encoder";

/**
 * The kernel for codes of `vectors` v128s, unrolled: one module per code size. The query's words stay
 * in locals, and each code's distance is a sum of i64.popcnt, one instruction each where the CPU has
 * POPCNT: twice as fast here as i8x16.popcnt, which x86 has no instruction for (JSC emulates it
 * with byte shuffles). It counts the distances in a histogram as it goes, a loop JavaScript would
 * otherwise make over every distance again.
 */
function hammingFunction(vectors: number): WasmFunction {
  const words = 2 * vectors;
  const P = { codes: 0, query: 1, count: 2, out: 3, histogram: 4 };
  const L = { end: 5, at: 6, query: 7 };
  const { get, set, tee, i32 } = W;
  const loadQuery: Code = [];
  for (let w = 0; w < words; w++) loadQuery.push(get(P.query), W.load64(8 * w), set(L.query + w));
  const distance: Code = [];
  for (let w = 0; w < words; w++) {
    distance.push(get(P.codes), W.load64(8 * w), get(L.query + w), W.xor64, W.popcnt64);
    if (w > 0) distance.push(W.add64);
  }
  const body = [
    W.block([
      get(P.count), W.eqz, W.br_if(0),
      loadQuery,
      get(P.out), get(P.count), i32(1), W.shl, W.add, set(L.end),
      W.loop([
        get(P.out), distance, W.wrap64, tee(L.at), W.store16(0),
        // histogram[distance]++
        get(L.at), i32(2), W.shl, get(P.histogram), W.add, tee(L.at),
        get(L.at), W.load32(0), i32(1), W.add, W.store32(0),
        get(P.codes), i32(16 * vectors), W.add, set(P.codes),
        get(P.out), i32(2), W.add, tee(P.out), get(L.end), W.lt_s, W.br_if(0),
      ]),
    ]),
  ];
  return { name: "hamming", params: 5, locals: [I32, I32, ...new Array<number>(words).fill(I64)], body };
}

/**
 * within(distances, count, cutoff, out) -> n: the indexes i < count whose u16 distance is at most
 * `cutoff`, ascending, as i32s from `out`; returns how many. Without a branch: every index is
 * written, and the next one goes past it only when it passed.
 */
function withinFunction(): WasmFunction {
  const P = { distances: 0, count: 1, cutoff: 2, out: 3 };
  const L = { i: 4, n: 5 };
  const { get, set, tee, i32 } = W;
  const body = [
    i32(0), set(L.n),
    W.block([
      get(P.count), W.eqz, W.br_if(0),
      i32(0), set(L.i),
      W.loop([
        get(L.n), i32(2), W.shl, get(P.out), W.add, get(L.i), W.store32(0),
        get(L.n), get(P.distances), W.load16(0), get(P.cutoff), W.le_u, W.add, set(L.n),
        get(P.distances), i32(2), W.add, set(P.distances),
        get(L.i), i32(1), W.add, tee(L.i), get(P.count), W.lt_s, W.br_if(0),
      ]),
    ]),
    get(L.n),
  ];
  return { name: "within", params: 4, returnsI32: true, locals: [I32, I32], body };
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

/**
 * The integer dot products for 8-bit vectors of `groups` × 32 bytes against a 16-bit query: per 8
 * dimensions, the bytes widened to i16 and i32x4.dot_i16x8_s. A quarter of the float vectors' bytes,
 * and the candidates' vectors are scattered: reading them is most of a re-scoring's time, so two
 * candidates are read side by side (the memory fetches overlap; a quarter faster here). With an odd
 * count the last one is read twice and stored once.
 */
function byteDotsFunction(groups: number): WasmFunction {
  const P = { vectors: 0, query: 1, slots: 2, count: 3, out: 4 };
  const L = { i: 5, g: 6, p: 7, p2: 8, q: 9, acc: 10, acc2: 11, qv: 12 };
  const { get, set, tee, i32 } = W;
  const step: Code = [];
  for (let u = 0; u < 4; u++) {
    step.push(get(L.q), W.vload(16 * u), set(L.qv));
    step.push(get(L.acc), get(L.p), W.vload8x8(8 * u), get(L.qv), W.dot16, W.add32x4, set(L.acc));
    step.push(get(L.acc2), get(L.p2), W.vload8x8(8 * u), get(L.qv), W.dot16, W.add32x4, set(L.acc2));
  }
  const vectorAt = (slotOffset: number): Code => [get(P.slots), W.load32(slotOffset), i32(32 * groups), W.mul, get(P.vectors), W.add];
  const sum = (acc: number): Code => [get(acc), W.lane32(0), get(acc), W.lane32(1), W.add, get(acc), W.lane32(2), W.add, get(acc), W.lane32(3), W.add];
  const body = [
    W.block([
      get(P.count), W.eqz, W.br_if(0),
      i32(0), set(L.i),
      W.loop([
        vectorAt(0), set(L.p),
        // the next candidate's vector, or this one again when it is the last
        vectorAt(4), get(L.p), get(L.i), i32(1), W.add, get(P.count), W.lt_s, W.select, set(L.p2),
        get(P.query), set(L.q),
        i32(groups), set(L.g),
        W.vzero, set(L.acc), W.vzero, set(L.acc2),
        W.loop([
          step,
          get(L.p), i32(32), W.add, set(L.p),
          get(L.p2), i32(32), W.add, set(L.p2),
          get(L.q), i32(64), W.add, set(L.q),
          get(L.g), i32(1), W.sub, tee(L.g), W.br_if(0),
        ]),
        get(P.out), sum(L.acc), W.store32(0),
        get(L.i), i32(1), W.add, get(P.count), W.lt_s, W.if([get(P.out), sum(L.acc2), W.store32(4)]),
        get(P.slots), i32(8), W.add, set(P.slots),
        get(P.out), i32(8), W.add, set(P.out),
        get(L.i), i32(2), W.add, tee(L.i), get(P.count), W.lt_s, W.br_if(0),
      ]),
    ]),
  ];
  return { name: "byteDots", params: 5, locals: [I32, I32, I32, I32, I32, V128, V128, V128], body };
}

const modules = new Map<string, WebAssembly.Module>();

/** `fn`'s module, compiled once per process, instantiated over `memory`. */
function instantiate(key: string, fn: () => WasmFunction, memory: WebAssembly.Memory): WebAssembly.Exports {
  let module = modules.get(key);
  if (!module) modules.set(key, (module = new WebAssembly.Module(moduleBytes([fn()], { initial: 1 }))));
  return new WebAssembly.Instance(module, { env: { mem: memory } }).exports;
}

/** hamming(codes, query, count, out, histogram), pointers in bytes (see the top of this file). */
export type HammingKernel = (codes: number, query: number, count: number, out: number, histogram: number) => void;
/** within(distances, count, cutoff, out) -> n, pointers in bytes (see the top of this file). */
export type WithinKernel = (distances: number, count: number, cutoff: number, out: number) => number;
/** dots(vectors, query, slots, count, out), pointers in bytes (see the top of this file). */
export type DotsKernel = (vectors: number, query: number, slots: number, count: number, out: number) => void;

/** The Hamming kernel for codes of `vectors` v128s over `memory` (a few hundred bytes each). */
export function hammingKernel(memory: WebAssembly.Memory, vectors: number): HammingKernel {
  return instantiate(`hamming ${vectors}`, () => hammingFunction(vectors), memory).hamming as HammingKernel;
}

/** The kernel picking the distances within a cut-off, over `memory`. */
export function withinKernel(memory: WebAssembly.Memory): WithinKernel {
  return instantiate("within", withinFunction, memory).within as WithinKernel;
}

/** byteDots(vectors, query, slots, count, out), pointers in bytes (see the top of this file). */
export type ByteDotsKernel = (vectors: number, query: number, slots: number, count: number, out: number) => void;

/** The 8-bit dot-product kernel for vectors of `groups` × 32 bytes over `memory`. */
export function byteDotsKernel(memory: WebAssembly.Memory, groups: number): ByteDotsKernel {
  return instantiate(`byteDots ${groups}`, () => byteDotsFunction(groups), memory).byteDots as ByteDotsKernel;
}

/** The dot-product kernel for vectors of `vectors` f32x4s over `memory`. */
export function dotsKernel(memory: WebAssembly.Memory, vectors: number): DotsKernel {
  return instantiate(`dots ${vectors}`, () => dotsFunction(vectors), memory).dots as DotsKernel;
}
