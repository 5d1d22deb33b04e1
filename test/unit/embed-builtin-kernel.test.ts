// src/core/embed/builtin/kernel.ts: the WebAssembly kernels against plain JavaScript references.
// Integer work (quantize, gemm_q's sums) and float32 rounding that JavaScript can reproduce step by
// step (Math.fround) must match exactly; the rest within float32 rounding. Sizes cover every path of
// the kernels: rows that are not a multiple of the 2-row tile, an odd number of k pairs (the unroll
// by 2 leaves one), an odd k (half a pair of padding), k below one vector, column panels other than
// the first, and the flags.
import { describe, expect, test } from "bun:test";
import { A_MAX, kernelModuleBytes, packPairs } from "../../src/core/embed/builtin/kernel";

const PAGES = 64; // 4 MiB
const f = Math.fround;

function kernels() {
  const memory = new WebAssembly.Memory({ initial: PAGES, maximum: PAGES, shared: true });
  const ex = new WebAssembly.Instance(new WebAssembly.Module(kernelModuleBytes(PAGES)), { env: { mem: memory } }).exports as Record<string, (...args: number[]) => void>;
  let top = 64;
  /** `bytes` of the memory, 64-byte aligned. */
  const alloc = (bytes: number) => {
    const at = top;
    top += Math.ceil(bytes / 64) * 64 + 64;
    return at;
  };
  return {
    ex,
    alloc,
    f32: new Float32Array(memory.buffer),
    i16: new Int16Array(memory.buffer),
  };
}

/** A deterministic pseudo-random sequence in [-1, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

/** Round half to even, as the kernel's float-to-integer rounding does. */
function roundEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The quantize kernel in JavaScript: int16 values (pairs padded) and the row scales. */
function quantizeRef(a: Float32Array, m: number, k: number): { q: Int16Array; scales: Float32Array; stride: number } {
  const stride = ((k + 1) >> 1) * 2;
  const q = new Int16Array(m * stride);
  const scales = new Float32Array(m);
  for (let r = 0; r < m; r++) {
    let max = 0;
    for (let j = 0; j < k; j++) max = Math.max(max, Math.abs(a[r * k + j]!));
    scales[r] = f(max / A_MAX);
    const inv = max > 0 ? f(A_MAX / max) : 0;
    for (let j = 0; j < k; j++) q[r * stride + j] = roundEven(f(a[r * k + j]! * inv));
  }
  return { q, scales, stride };
}

/** A float32 matrix with some structure: mixed magnitudes, a zero row, exact ties for the rounding. */
function activations(m: number, k: number, seed: number): Float32Array {
  const next = random(seed);
  const a = new Float32Array(m * k);
  for (let r = 0; r < m; r++) {
    const magnitude = r % 3 === 0 ? 1000 : r % 3 === 1 ? 1 : 0.001;
    for (let j = 0; j < k; j++) a[r * k + j] = r === 1 ? 0 : next() * magnitude;
  }
  return a;
}

describe("quantize", () => {
  for (const [m, k] of [
    [1, 1],
    [3, 3],
    [5, 8],
    [4, 13],
    [7, 37],
    [3, 256],
  ] as const) {
    test(`${m} x ${k}: the same int16 values and scales as the reference, odd k padded with 0`, () => {
      const { ex, alloc, f32, i16 } = kernels();
      const a = activations(m, k, m * 31 + k);
      // a row of step 1 (its largest value is A_MAX) with values halfway between steps: ties go to even
      if (m > 2) for (let j = 0; j < k; j++) a[2 * k + j] = j === 0 ? A_MAX : (j % 7) - 3 + 0.5;
      const ref = quantizeRef(a, m, k);
      const x = alloc(a.byteLength);
      const q = alloc(ref.q.byteLength + 64);
      const scales = alloc(m * 4);
      f32.set(a, x >> 2);
      i16.fill(12345, q >> 1, (q >> 1) + ref.q.length); // poison: the padding must be written
      ex.quantize!(x, k * 4, q, ref.stride * 2, scales, m, k);
      expect(Array.from(i16.subarray(q >> 1, (q >> 1) + ref.q.length))).toEqual(Array.from(ref.q));
      expect(Array.from(f32.subarray(scales >> 2, (scales >> 2) + m))).toEqual(Array.from(ref.scales));
      // every value within the range that keeps the int32 sums from overflowing
      expect(Math.max(...Array.from(ref.q, Math.abs))).toBeLessThanOrEqual(A_MAX);
      expect(f32[(scales >> 2) + 1]).toBe(0); // the zero row
    });
  }

  test("A_MAX keeps gemm_q's int32 sums from overflowing at the model's widest k", () => {
    expect(A_MAX * 127 * 1536).toBeLessThan(2 ** 31);
    expect(A_MAX).toBeGreaterThanOrEqual(4095); // and keeps 13 bits of each activation
  });
});

describe("gemm_q", () => {
  interface Case {
    m: number;
    k: number;
    n: number;
    p0: number;
    p1: number;
    flags: number;
    bias: boolean;
  }
  const cases: Case[] = [
    { m: 1, k: 2, n: 16, p0: 0, p1: 1, flags: 0, bias: true },
    { m: 2, k: 4, n: 16, p0: 0, p1: 1, flags: 0, bias: false },
    { m: 3, k: 7, n: 32, p0: 0, p1: 2, flags: 1, bias: true },
    { m: 5, k: 37, n: 48, p0: 1, p1: 3, flags: 2, bias: true },
    { m: 67, k: 38, n: 32, p0: 0, p1: 2, flags: 3, bias: true },
    { m: 4, k: 256, n: 64, p0: 1, p1: 2, flags: 1, bias: false },
    { m: 3, k: 1536, n: 16, p0: 0, p1: 1, flags: 0, bias: true },
  ];
  for (const c of cases) {
    test(`${c.m} x ${c.k} x ${c.n}, panels ${c.p0}..${c.p1}, flags ${c.flags}${c.bias ? ", bias" : ""}: exact against the reference, within the quantization bound of the float product`, () => {
      const { ex, alloc, f32, i16 } = kernels();
      const { m, k, n } = c;
      const next = random(m * 7 + k * 3 + n);
      const a = activations(m, k, k);
      const w = Int8Array.from({ length: k * n }, (_, i) => (i % 11 === 0 ? 127 : i % 13 === 0 ? -127 : Math.round(next() * 127)));
      const colScales = Float32Array.from({ length: n }, () => f(0.001 + Math.abs(next()) * 0.01));
      const bias = Float32Array.from({ length: n }, () => f(next()));
      const before = Float32Array.from({ length: m * n }, () => f(next()));
      const ref = quantizeRef(a, m, k);
      const pairs = (k + 1) >> 1;
      const packed = new Int16Array(pairs * 2 * n);
      packPairs(w, k, n, packed);
      const pq = alloc(ref.q.byteLength);
      const ps = alloc(m * 4);
      const pb = alloc(packed.byteLength);
      const pcs = alloc(n * 4);
      const pbias = alloc(n * 4);
      const pc = alloc(m * n * 4);
      i16.set(ref.q, pq >> 1);
      f32.set(ref.scales, ps >> 2);
      i16.set(packed, pb >> 1);
      f32.set(colScales, pcs >> 2);
      f32.set(bias, pbias >> 2);
      f32.set(before, pc >> 2);
      ex.gemm_q!(pq, ref.stride * 2, ps, pb, pcs, c.bias ? pbias : 0, pc, n * 4, m, pairs, c.p0, c.p1, c.flags);
      const got = f32.subarray(pc >> 2, (pc >> 2) + m * n);
      for (let r = 0; r < m; r++) {
        for (let col = 0; col < n; col++) {
          const i = r * n + col;
          if (col < 16 * c.p0 || col >= 16 * c.p1) {
            expect(got[i]).toBe(before[i]!); // other panels untouched
            continue;
          }
          // the kernel: an exact integer sum, then float32 steps
          let sum = 0;
          for (let j = 0; j < k; j++) sum += ref.q[r * ref.stride + j]! * w[j * n + col]!;
          let v = f(f(sum) * f(colScales[col]! * ref.scales[r]!));
          if (c.bias) v = f(v + bias[col]!);
          if (c.flags & 2) v = f(v + before[i]!);
          if (c.flags & 1) v = Math.max(v, 0);
          expect(got[i]).toBe(v);
          // against the float product of the unquantized activations: off by at most half a step of
          // the row's scale per weight, plus float32 rounding
          let exact = 0;
          let bound = 0;
          for (let j = 0; j < k; j++) {
            const weight = w[j * n + col]! * colScales[col]!;
            exact += a[r * k + j]! * weight;
            bound += Math.abs(weight) * ref.scales[r]! * 0.5;
          }
          if (c.bias) exact += bias[col]!;
          if (c.flags & 2) exact += before[i]!;
          if (c.flags & 1) exact = Math.max(exact, 0);
          expect(Math.abs(got[i]! - exact)).toBeLessThanOrEqual(bound * 1.001 + 1e-6 * (Math.abs(exact) + 1));
        }
      }
    });
  }

  test("packPairs refuses a column count that is not whole panels", () => {
    expect(() => packPairs(new Int8Array(8 * 20), 8, 20, new Int16Array(8 * 20))).toThrow(/multiple of 16/);
  });
});

describe("gemm_strided", () => {
  test("float32 sums in k order, a row-major B of another stride, the leftover row of an odd m", () => {
    const { ex, alloc, f32 } = kernels();
    const m = 5;
    const k = 9;
    const n = 32;
    const ldb = 40; // floats per row of B, more than n
    const next = random(99);
    const a = Float32Array.from({ length: m * k }, () => f(next()));
    const b = Float32Array.from({ length: k * ldb }, () => f(next()));
    const pa = alloc(a.byteLength);
    const pbm = alloc(b.byteLength);
    const pc = alloc(m * n * 4);
    f32.set(a, pa >> 2);
    f32.set(b, pbm >> 2);
    ex.gemm_strided!(pa, k * 4, pbm, ldb * 4, 0, pc, n * 4, m, k, 0, n / 16, 0);
    for (let r = 0; r < m; r++) {
      for (let col = 0; col < n; col++) {
        let acc = 0;
        for (let j = 0; j < k; j++) acc = f(acc + f(a[r * k + j]! * b[j * ldb + col]!));
        expect(f32[(pc >> 2) + r * n + col]).toBe(acc);
      }
    }
  });
});

describe("row kernels", () => {
  test("layer_norm: (x - mean) / sqrt(variance + 1e-6) * scale + bias, per row", () => {
    const { ex, alloc, f32 } = kernels();
    const m = 3;
    const dim = 12;
    const next = random(5);
    // the last row's variance is ~1e-6, so the 1e-6 beside it matters
    const x = Float32Array.from({ length: m * dim }, (_, i) => f(i >= 2 * dim ? next() * 2e-3 : next() * 10 + (i < dim ? 100 : 0)));
    const scale = Float32Array.from({ length: dim }, () => f(next() + 1));
    const bias = Float32Array.from({ length: dim }, () => f(next()));
    const px = alloc(x.byteLength);
    const py = alloc(x.byteLength);
    const ps = alloc(dim * 4);
    const pb = alloc(dim * 4);
    f32.set(x, px >> 2);
    f32.set(scale, ps >> 2);
    f32.set(bias, pb >> 2);
    ex.layer_norm!(px, py, m, dim, ps, pb);
    for (let r = 0; r < m; r++) {
      const row = Array.from(x.subarray(r * dim, (r + 1) * dim));
      const mean = row.reduce((s, v) => s + v, 0) / dim;
      const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / dim;
      row.forEach((v, j) => {
        const want = ((v - mean) / Math.sqrt(variance + 1e-6)) * scale[j]! + bias[j]!;
        expect(Math.abs(f32[(py >> 2) + r * dim + j]! - want)).toBeLessThan(1e-4 * (Math.abs(want) + 1));
      });
    }
  });

  test("mean_rows: the mean of consecutive rows, zeros for none", () => {
    const { ex, alloc, f32 } = kernels();
    const width = 8;
    const rows = 5;
    const x = Float32Array.from({ length: rows * width }, (_, i) => f(i * 0.37 - 3));
    const px = alloc(x.byteLength);
    const py = alloc(width * 4);
    f32.set(x, px >> 2);
    ex.mean_rows!(px, rows, width, py);
    for (let j = 0; j < width; j++) {
      let sum = 0;
      for (let r = 0; r < rows; r++) sum += x[r * width + j]!;
      expect(Math.abs(f32[(py >> 2) + j]! - sum / rows)).toBeLessThan(1e-5);
    }
    f32.fill(7, py >> 2, (py >> 2) + width);
    ex.mean_rows!(px, 0, width, py);
    expect(Array.from(f32.subarray(py >> 2, (py >> 2) + width))).toEqual(new Array(width).fill(0));
  });

  test("softmax: of the scaled row, over its first cols values only, to ~1e-7", () => {
    const { ex, alloc, f32 } = kernels();
    const stride = 16;
    const next = random(11);
    for (const cols of [1, 3, 4, 13]) {
      const rows = 3;
      const s = Float32Array.from({ length: rows * stride }, (_, i) => (i % stride < cols ? f(next() * 40) : f(1e30)));
      s[stride] = -1000; // far below the row's largest: exp underflows to ~0
      const ps = alloc(s.byteLength);
      f32.set(s, ps >> 2);
      const scale = 0.125;
      ex.softmax!(ps, stride * 4, rows, cols, scale);
      for (let r = 0; r < rows; r++) {
        const row = Array.from(s.subarray(r * stride, r * stride + cols), (v) => v * scale);
        const max = Math.max(...row);
        const e = row.map((v) => Math.exp(v - max));
        const sum = e.reduce((a, b) => a + b, 0);
        e.forEach((v, j) => expect(Math.abs(f32[(ps >> 2) + r * stride + j]! - v / sum)).toBeLessThan(3e-7));
        // what lies past the padding to a whole vector is not touched
        const padded = (cols + 3) & ~3;
        for (let j = padded; j < stride; j++) expect(f32[(ps >> 2) + r * stride + j]).toBe(f(1e30));
      }
    }
  });

  test("softmax's exponential: each probability within 5e-7 of its size over a sweep of 64 differences", () => {
    const { ex, alloc, f32 } = kernels();
    const cols = 64;
    const s = Float32Array.from({ length: cols }, (_, j) => f(-20 + (j * 20.3) / cols));
    const ps = alloc(s.byteLength);
    f32.set(s, ps >> 2);
    ex.softmax!(ps, cols * 4, 1, cols, 1);
    const max = Math.max(...s);
    const e = Array.from(s, (v) => Math.exp(v - max));
    const sum = e.reduce((a, b) => a + b, 0);
    e.forEach((v, j) => expect(Math.abs(f32[(ps >> 2) + j]! - v / sum)).toBeLessThanOrEqual((5e-7 * v) / sum));
  });
});
