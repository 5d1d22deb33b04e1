// A minimal WebAssembly binary encoder for the kernels assembled in memory (the builtin embedder's
// embed/builtin/kernel.ts, recall's vector-kernels.ts): LEB128 numbers, nested code flattened to
// bytes, the few opcodes they use, and a module of functions over one imported memory.

export type Code = (number | Code)[];

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

export const I32 = 0x7f;
export const V128 = 0x7b;
export const I64 = 0x7e;
export const F32 = 0x7d;
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
export const W = {
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  tee: (i: number) => [0x22, ...uleb(i)],
  i32: (v: number) => [0x41, ...sleb(v)],
  add: [0x6a],
  sub: [0x6b],
  mul: [0x6c],
  shl: [0x74],
  and: [0x71],
  eqz: [0x45],
  select: [0x1b], // a, b, condition -> condition ? a : b
  lt_s: [0x48],
  le_u: [0x4d],
  gt_s: [0x4a],
  ge_s: [0x4e],
  vload: (off: number) => simd(0x00, 4, ...uleb(off)),
  vload8x8: (off: number) => simd(0x01, 3, ...uleb(off)), // v128.load8x8_s: 8 bytes, each sign-extended to an i16 lane
  vsplat32: (off: number) => simd(0x09, 2, ...uleb(off)),
  vstore: (off: number) => simd(0x0b, 4, ...uleb(off)),
  vzero: simd(0x0c, ...new Array(16).fill(0)),
  fadd: simd(0xe4),
  fsub: simd(0xe5),
  fmul: simd(0xe6),
  dot16: simd(0xba), // i32x4.dot_i16x8_s
  add32x4: simd(0xae), // i32x4.add
  lane32: (lane: number) => simd(0x1b, lane), // i32x4.extract_lane
  pmax: simd(0xeb), // f32x4.pmax; f32x4.max (0xe9) made JSC spill the accumulators (a third slower)
  vxor: simd(0x51),
  store16: (off: number) => [0x3b, 1, ...uleb(off)], // i32.store16
  load32: (off: number) => [0x28, 2, ...uleb(off)], // i32.load
  load16: (off: number) => [0x2f, 1, ...uleb(off)], // i32.load16_u
  load64: (off: number) => [0x29, 3, ...uleb(off)], // i64.load
  xor64: [0x85],
  popcnt64: [0x7b], // i64.popcnt: one instruction where the CPU has POPCNT (x86-64 since ~2008, arm64)
  add64: [0x7c],
  wrap64: [0xa7], // i32.wrap_i64
  fstore: (off: number) => [0x38, 2, ...uleb(off)], // f32.store
  store32: (off: number) => [0x36, 2, ...uleb(off)], // i32.store
  flane: (lane: number) => simd(0x1f, lane), // f32x4.extract_lane
  f32add: [0x92],
  f32: (v: number) => [0x43, ...new Uint8Array(new Float32Array([v]).buffer)], // f32.const
  f32load: (off: number) => [0x2a, 2, ...uleb(off)], // f32.load
  f32abs: [0x8b],
  f32max: [0x97],
  f32mul: [0x94],
  f32div: [0x95],
  f32gt: [0x5e],
  f32sqrt: [0x91],
  f32convert: [0xb2], // f32.convert_i32_s
  reinterpret32: [0xbc], // i32.reinterpret_f32
  fsplat: simd(0x13), // f32x4.splat
  fabs: simd(0xe0), // f32x4.abs
  sub32x4: simd(0xb1), // i32x4.sub
  narrow16: simd(0x85), // i16x8.narrow_i32x4_s: two i32x4, each lane saturated to an i16 lane
  convert32: simd(0xfa), // f32x4.convert_i32x4_s
  fconst: (v: number) => simd(0x0c, ...new Uint8Array(new Float32Array([v, v, v, v]).buffer)), // v128.const of four equal floats
  shl32x4: simd(0xab), // i32x4.shl
  block: (body: Code): Code => [0x02, 0x40, body, 0x0b],
  loop: (body: Code): Code => [0x03, 0x40, body, 0x0b],
  if: (then: Code, otherwise?: Code): Code => (otherwise ? [0x04, 0x40, then, 0x05, otherwise, 0x0b] : [0x04, 0x40, then, 0x0b]),
  br: (l: number) => [0x0c, ...uleb(l)],
  br_if: (l: number) => [0x0d, ...uleb(l)],
};

export interface WasmFunction {
  name: string;
  /** How many parameters: i32 ones, unless `paramTypes` gives their value types. */
  params: number;
  paramTypes?: number[];
  /** True when the function returns an i32 (the value left on the stack); otherwise it returns nothing. */
  returnsI32?: boolean;
  /** The value types of the locals after the parameters. */
  locals: number[];
  body: Code;
}

/**
 * A module exporting `fns` over one imported memory, `env.mem`: `initial` (and `maximum`) 64 KiB
 * pages; a shared memory needs a maximum.
 */
export function moduleBytes(fns: WasmFunction[], memory: { initial: number; maximum?: number; shared?: boolean }): Uint8Array<ArrayBuffer> {
  const str = (s: string) => [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
  const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];
  const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
  const types = fns.map((f) => [0x60, ...vec((f.paramTypes ?? new Array(f.params).fill(I32)).map((t) => [t])), ...(f.returnsI32 ? [0x01, I32] : [0x00])]);
  const bodies = fns.map((f) => {
    const b = [...vec(f.locals.map((t) => [1, t])), ...flatten(f.body), 0x0b];
    return [...uleb(b.length), ...b];
  });
  const limits =
    memory.maximum === undefined
      ? [0x00, ...uleb(memory.initial)]
      : [memory.shared ? 0x03 : 0x01, ...uleb(memory.initial), ...uleb(memory.maximum)];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types)),
    ...section(2, vec([[...str("env"), ...str("mem"), 0x02, ...limits]])),
    ...section(3, vec(fns.map((_, i) => uleb(i)))),
    ...section(7, vec(fns.map((f, i) => [...str(f.name), 0x00, ...uleb(i)]))),
    ...section(10, vec(bodies)),
  ]);
}
