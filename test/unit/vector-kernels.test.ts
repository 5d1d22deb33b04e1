// The vector index's WebAssembly Hamming scan: its distances must equal a plain bit count for every
// code size a model may have (padding bits included), and the index must rank exactly as an exact
// scan when every candidate is re-scored, also after its memory has grown several times.
import { describe, expect, test } from "bun:test";
import { mulberry32 } from "../../scripts/lib/content";
import { dotsKernel, hammingKernel } from "../../src/core/recall/vector-kernels";
import { VectorIndex } from "../../src/core/recall/vector-index";

function bits(x: number): number {
  let n = 0;
  for (; x !== 0; x >>>= 1) n += x & 1;
  return n;
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
      kernel(0, count * words * 4, count, outAt);
      const got = new Uint16Array(memory.buffer, outAt, count);
      for (let i = 0; i < count; i++) {
        let want = 0;
        for (let w = 0; w < words; w++) want += bits((codes[i * words + w]! ^ query[w]!) >>> 0);
        expect(got[i]).toBe(want);
      }
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
      const slotsAt = queryAt + floats * 4;
      const picked = [49, 0, 7, 7, 23];
      new Int32Array(memory.buffer, slotsAt, picked.length).set(picked);
      const outAt = slotsAt + picked.length * 4;
      kernel(0, queryAt, slotsAt, picked.length, outAt);
      const got = new Float32Array(memory.buffer, outAt, picked.length);
      picked.forEach((slot, i) => {
        let want = 0;
        for (let d = 0; d < floats; d++) want += all[slot * floats + d]! * query[d]!;
        expect(got[i]).toBeCloseTo(want, 4);
      });
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
      const index = new VectorIndex(dims);
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
});
