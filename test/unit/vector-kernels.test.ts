// The vector index's WebAssembly kernels: the Hamming scan's distances must equal a plain bit count
// for every code size a model may have (padding bits included), the 8-bit dot products must equal
// plain integer sums, and the index must rank exactly as an exact scan when every candidate is
// re-scored, also after its memory has grown several times and when the 8-bit estimates cannot tell
// the best apart.
import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { mulberry32 } from "../../scripts/lib/content";
import { byteDotsKernel, dotsKernel, hammingKernel, withinKernel } from "../../src/core/search/vector-kernels";
import { VectorIndex } from "../../src/core/search/vector-index";

function bits(x: number): number {
  let n = 0;
  for (; x !== 0; x >>>= 1) n += x & 1;
  return n;
}

/**
 * Runs a dot-product kernel (vectors at 0, the query, slots, count, out) over the `picked` vectors of
 * `all`, each as wide as the query, and checks each result against a plain sum.
 */
function checkDots(
  kernel: (vectors: number, query: number, slots: number, count: number, out: number) => void,
  memory: WebAssembly.Memory,
  all: Float32Array | Int8Array,
  query: Float32Array | Int16Array,
  picked: number[],
  results: (at: number, n: number) => ArrayLike<number>,
  check: (got: number, want: number) => void,
): void {
  const slotsAt = query.byteOffset + query.byteLength;
  new Int32Array(memory.buffer, slotsAt, picked.length).set(picked);
  const outAt = slotsAt + picked.length * 4;
  kernel(0, query.byteOffset, slotsAt, picked.length, outAt);
  const got = results(outAt, picked.length);
  picked.forEach((slot, i) => {
    let want = 0;
    for (let d = 0; d < query.length; d++) want += all[slot * query.length + d]! * query[d]!;
    check(got[i]!, want);
  });
}

describe("hamming kernel", () => {
  for (const vectors of [1, 3, 4, 8]) {
    test(`codes of ${vectors} v128s: each distance is the count of differing bits`, () => {
      const next = mulberry32(vectors);
      const memory = new WebAssembly.Memory({ initial: 1 });
      const kernel = hammingKernel(memory, vectors);
      const words = vectors * 4;
      const count = 300;
      const codes = new Uint32Array(memory.buffer, 0, count * words);
      const query = new Uint32Array(memory.buffer, count * words * 4, words);
      for (let i = 0; i < codes.length; i++) codes[i] = (next() * 2 ** 32) >>> 0;
      for (let i = 0; i < words; i++) query[i] = (next() * 2 ** 32) >>> 0;
      codes.fill(0xffffffff, 0, words); // all ones: the largest distance a byte can hold, 8 per byte
      const outAt = (count + 1) * words * 4;
      const histogramAt = outAt + count * 2;
      const histogram = new Uint32Array(memory.buffer, histogramAt, words * 32 + 1);
      kernel(0, count * words * 4, count, outAt, histogramAt);
      const got = new Uint16Array(memory.buffer, outAt, count);
      const want = new Uint32Array(histogram.length);
      for (let i = 0; i < count; i++) {
        let distance = 0;
        for (let w = 0; w < words; w++) distance += bits((codes[i * words + w]! ^ query[w]!) >>> 0);
        expect(got[i]).toBe(distance);
        want[distance]!++;
      }
      expect([...histogram]).toEqual([...want]);
    });
  }
});

describe("dots kernel", () => {
  for (const vectors of [1, 8, 128]) {
    test(`vectors of ${vectors} f32x4s: each score is the dot product with the slot's vector`, () => {
      const next = mulberry32(vectors + 100);
      const memory = new WebAssembly.Memory({ initial: 64 });
      const kernel = dotsKernel(memory, vectors);
      const floats = vectors * 4;
      const stored = 50;
      const all = new Float32Array(memory.buffer, 0, stored * floats);
      for (let i = 0; i < all.length; i++) all[i] = next() * 2 - 1;
      const queryAt = stored * floats * 4;
      const query = new Float32Array(memory.buffer, queryAt, floats);
      for (let i = 0; i < floats; i++) query[i] = next() * 2 - 1;
      const results = (at: number, n: number) => new Float32Array(memory.buffer, at, n);
      checkDots(kernel, memory, all, query, [49, 0, 7, 7, 23], results, (got, want) => expect(got).toBeCloseTo(want, 4));
    });
  }
});

describe("within kernel", () => {
  test("the indexes whose distance is at most the cut-off, ascending, and how many", () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const within = withinKernel(memory);
    const distances = new Uint16Array(memory.buffer, 0, 9);
    distances.set([5, 0, 7, 3, 65535, 4, 4, 8, 2]);
    const outAt = 64;
    expect(within(0, 9, 4, outAt)).toBe(5);
    expect([...new Int32Array(memory.buffer, outAt, 5)]).toEqual([1, 3, 5, 6, 8]);
    expect(within(0, 9, 65535, outAt)).toBe(9);
    expect(within(0, 0, 65535, outAt)).toBe(0);
    expect(within(2, 3, 2, outAt)).toBe(1); // from the second distance on: 0, 7, 3
    expect(within(2, 3, 3, outAt)).toBe(2);
    expect([...new Int32Array(memory.buffer, outAt, 2)]).toEqual([0, 2]);
  });
});

describe("byteDots kernel", () => {
  for (const groups of [1, 4, 16]) {
    test(`8-bit vectors of ${groups} × 32 bytes: each sum is the integer dot product with the 16-bit query`, () => {
      const next = mulberry32(groups + 200);
      const memory = new WebAssembly.Memory({ initial: 4 });
      const kernel = byteDotsKernel(memory, groups);
      const bytes = groups * 32;
      const stored = 40;
      const all = new Int8Array(memory.buffer, 0, stored * bytes);
      for (let i = 0; i < all.length; i++) all[i] = Math.floor(next() * 255) - 127;
      all.fill(127, 0, bytes); // the extremes: the largest sums the kernel must hold
      const queryAt = stored * bytes;
      const query = new Int16Array(memory.buffer, queryAt, bytes);
      for (let i = 0; i < bytes; i++) query[i] = Math.floor(next() * 65535) - 32767;
      query.fill(-32767, 0, 8);
      // An odd count: the kernel reads candidates in pairs, the last one alone.
      const results = (at: number, n: number) => new Int32Array(memory.buffer, at, n);
      checkDots(kernel, memory, all, query, [39, 0, 5, 5, 17], results, (got, want) => expect(got).toBe(want));
    });
  }
});

describe("VectorIndex over the kernels", () => {
  // 30 and 130 are not whole f32x4s: the padding must add nothing, also in slots that held scratch data.
  for (const dims of [30, 130, 300, 512]) {
    test(`${dims} dimensions: re-scoring every candidate is the exact top 10, through growth and removals`, () => {
      const next = mulberry32(dims);
      const unit = () => {
        const v = Float32Array.from({ length: dims }, () => next() * 2 - 1);
        const n = Math.hypot(...v);
        return v.map((x) => x / n);
      };
      const index = new VectorIndex(dims, tmpdir());
      const vectors = new Map<number, Float32Array>();
      // 5,000 codes and vectors outgrow the first 64 KiB page several times; each growth hands slots
      // that held a search's scratch data to new vectors.
      for (let seq = 1; seq <= 5000; seq++) {
        const v = unit();
        vectors.set(seq, v);
        index.upsert(seq, "me", v);
        if (seq % 500 === 0) index.search(unit(), { k: 5, owners: new Set([index.ownerCode("me")]) });
      }
      for (let seq = 1; seq <= 5000; seq += 7) {
        index.remove(seq);
        vectors.delete(seq);
      }
      const owners = new Set([index.ownerCode("me")]);
      for (let i = 0; i < 10; i++) {
        const q = unit();
        const exact = [...vectors]
          .map(([seq, v]) => ({ seq, s: v.reduce((a, x, d) => a + x * q[d]!, 0) }))
          .sort((a, b) => b.s - a.s)
          .slice(0, 10)
          .map((x) => x.seq);
        expect(index.search(q, { k: 10, owners, rescore: 5000 }).map((h) => h.seq)).toEqual(exact);
      }
    });
  }

  test("near-duplicates whose cosines differ by less than the 8-bit estimates' error are still ranked exactly", () => {
    // Each vector is the query tilted by a small random angle: cosines 0.9988 to 0.99995, a few
    // millionths apart, while an 8-bit estimate may be off by a thousandth. Only the error bound
    // keeps every one of the best ten in the exact pass.
    const dims = 512;
    const next = mulberry32(99);
    const normalize = (v: Float32Array) => {
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const base = normalize(Float32Array.from({ length: dims }, () => next() * 2 - 1));
    const index = new VectorIndex(dims, tmpdir());
    const cosines = new Map<number, number>();
    for (let seq = 1; seq <= 400; seq++) {
      const tilt = 0.01 + 0.04 * next();
      const v = normalize(base.map((x) => x + tilt * (next() * 2 - 1) / Math.sqrt(dims / 3)));
      index.upsert(seq, "me", v);
      cosines.set(seq, v.reduce((a, x, d) => a + x * base[d]!, 0));
    }
    const best = [...cosines].sort((a, b) => b[1] - a[1]);
    const kth = best[9]![1];
    const hits = index.search(base, { k: 10, owners: new Set([index.ownerCode("me")]), rescore: 400 });
    expect(hits).toHaveLength(10);
    // Float rounding may swap two cosines within a millionth; nothing clearly among the best is missing.
    const found = new Set(hits.map((h) => h.seq));
    for (const [seq, cosine] of best) if (cosine > kth + 1e-6) expect(found.has(seq)).toBe(true);
    for (const h of hits) expect(h.score).toBeGreaterThanOrEqual(kth - 1e-6);
  });
});
