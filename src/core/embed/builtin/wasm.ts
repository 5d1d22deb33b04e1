// A minimal WebAssembly binary encoder for the kernels in kernel.ts: LEB128 numbers, nested code
// flattened to bytes, and the few opcodes they use.

export type Code = (number | Code)[];

export function uleb(v: number): number[] {
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

export function flatten(code: Code, out: number[] = []): number[] {
  for (const x of code) typeof x === "number" ? out.push(x) : flatten(x, out);
  return out;
}

export const I32 = 0x7f;
export const V128 = 0x7b;
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
export const W = {
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
