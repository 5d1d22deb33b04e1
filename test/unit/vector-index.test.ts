// The in-memory vector index: sign-code pre-selection plus exact re-scoring must find what an exact
// scan finds, respect owners and allowed sets, and stay consistent through removals and growth.
import { describe, expect, test } from "bun:test";
import { mulberry32 } from "../../scripts/lib/content";
import { VectorIndex } from "../../src/core/search/vector-index";

function unit(dims: number, next: () => number): Float32Array {
  const v = new Float32Array(dims);
  let n = 0;
  for (let i = 0; i < dims; i++) {
    v[i] = next() * 2 - 1;
    n += v[i]! * v[i]!;
  }
  for (let i = 0; i < dims; i++) v[i]! /= Math.sqrt(n);
  return v;
}

function exactTop(vectors: Map<number, Float32Array>, q: Float32Array, k: number): number[] {
  return [...vectors.entries()]
    .map(([seq, v]) => ({ seq, s: v.reduce((a, x, i) => a + x * q[i]!, 0) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => x.seq);
}

describe("VectorIndex", () => {
  const dims = 64;
  const next = mulberry32(7);
  const vectors = new Map<number, Float32Array>();
  const index = new VectorIndex(dims);
  for (let seq = 1; seq <= 3000; seq++) {
    const v = unit(dims, next);
    vectors.set(seq, v);
    index.upsert(seq, seq % 3 === 0 ? "other" : "me", v);
  }
  const everyone = new Set([index.ownerCode("me"), index.ownerCode("other")]);

  test("re-scoring every candidate gives exactly the brute-force top k", () => {
    for (let i = 0; i < 20; i++) {
      const q = unit(dims, next);
      const got = index.search(q, { k: 10, owners: everyone, rescore: 3000 }).map((h) => h.seq);
      expect(got).toEqual(exactTop(vectors, q, 10));
    }
  });

  test("the default re-scoring depth keeps nearly all of the exact top 10", () => {
    let found = 0;
    for (let i = 0; i < 50; i++) {
      const q = unit(dims, next);
      const got = new Set(index.search(q, { k: 10, owners: everyone }).map((h) => h.seq));
      found += exactTop(vectors, q, 10).filter((s) => got.has(s)).length;
    }
    expect(found / 500).toBeGreaterThan(0.95);
  });

  test("scores are cosines, best first", () => {
    const q = vectors.get(42)!;
    const hits = index.search(q, { k: 5, owners: everyone });
    expect(hits[0]!.seq).toBe(42);
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
  });

  test("owners and allowed sets filter before ranking", () => {
    const q = vectors.get(3)!; // owned by "other"
    const mine = index.search(q, { k: 20, owners: new Set([index.ownerCode("me")]) });
    expect(mine.every((h) => h.seq % 3 !== 0)).toBe(true);
    const allowed = new Set([5, 6, 7]);
    const only = index.search(q, { k: 20, owners: everyone, allowed });
    expect(new Set(only.map((h) => h.seq))).toEqual(allowed);
  });

  test("remove, re-insert and growth keep the index consistent", () => {
    const small = new VectorIndex(8);
    const vs = Array.from({ length: 2500 }, () => unit(8, next));
    vs.forEach((v, i) => small.upsert(i + 1, "a", v));
    expect(small.count).toBe(2500);
    for (let seq = 1; seq <= 2500; seq += 2) small.remove(seq);
    expect(small.count).toBe(1250);
    const owners = new Set([small.ownerCode("a")]);
    for (let i = 0; i < 10; i++) {
      const seq = 2 * (i + 1);
      const hits = small.search(vs[seq - 1]!, { k: 1, owners });
      expect(hits[0]!.seq).toBe(seq);
    }
    expect(small.search(vs[0]!, { k: 1250, owners, rescore: 2500 }).some((h) => h.seq % 2 === 1)).toBe(false);
    small.upsert(1, "a", vs[0]!);
    expect(small.search(vs[0]!, { k: 1, owners })[0]!.seq).toBe(1);
    // Upserting an existing seq replaces its vector instead of adding a slot.
    small.upsert(1, "a", vs[2]!);
    expect(small.count).toBe(1251);
  });

  test("a project scope keeps only that project's memories, also after slots move", () => {
    const scoped = new VectorIndex(8);
    const vs = Array.from({ length: 300 }, () => unit(8, next));
    vs.forEach((v, i) => scoped.upsert(i + 1, "a", v, i % 3 === 0 ? "web" : i % 3 === 1 ? "api" : null));
    for (let seq = 1; seq <= 300; seq += 5) scoped.remove(seq);
    const owners = new Set([scoped.ownerCode("a")]);
    const web = scoped.search(vs[0]!, { k: 300, owners, project: "web", rescore: 300 });
    const expected = vs.map((_, i) => i + 1).filter((seq) => (seq - 1) % 3 === 0 && (seq - 1) % 5 !== 0);
    expect(web.map((h) => h.seq).sort((a, b) => a - b)).toEqual(expected);
    expect(scoped.search(vs[0]!, { k: 10, owners, project: "nowhere" })).toEqual([]);
    expect(scoped.search(vs[0]!, { k: 300, owners, rescore: 300 })).toHaveLength(240);
  });

  test("the same pass also gives the best of some authors' memories, also after slots move and the index grows", () => {
    const byAuthor = new VectorIndex(8);
    const authorOf = (seq: number) => (seq % 4 === 0 ? "Priya" : seq % 4 === 1 ? "Tom" : seq % 4 === 2 ? null : "Lee");
    const vs = Array.from({ length: 1500 }, () => unit(8, next)); // past the initial capacity of 1024
    vs.forEach((v, i) => byAuthor.upsert(i + 1, "a", v, null, authorOf(i + 1)));
    for (let seq = 1; seq <= 1500; seq += 7) byAuthor.remove(seq);
    const owners = new Set([byAuthor.ownerCode("a")]);
    const live = vs.map((_, i) => i + 1).filter((seq) => (seq - 1) % 7 !== 0);
    const found = (names: string[]) =>
      byAuthor
        .searchWithAuthors(vs[0]!, { k: 10, owners, rescore: 1500 }, { names, k: 1500 })
        .authorHits.map((h) => h.seq)
        .sort((a, b) => a - b);
    expect(found(["Priya"])).toEqual(live.filter((seq) => authorOf(seq) === "Priya"));
    expect(found(["Priya", "Lee"])).toEqual(live.filter((seq) => authorOf(seq) === "Priya" || authorOf(seq) === "Lee"));
    expect(found(["nobody"])).toEqual([]);
    expect([...byAuthor.authors()].sort()).toEqual(["Lee", "Priya", "Tom"]);
    // Both lists in the exact order; everyone's is what a plain search gives.
    const both = byAuthor.searchWithAuthors(vs[0]!, { k: 5, owners, rescore: 1500 }, { names: ["Tom"], k: 5 });
    const tom = new Map(live.filter((seq) => authorOf(seq) === "Tom").map((seq) => [seq, vs[seq - 1]!]));
    expect(both.authorHits.map((h) => h.seq)).toEqual(exactTop(tom, vs[0]!, 5));
    expect(both.hits).toEqual(byAuthor.search(vs[0]!, { k: 5, owners, rescore: 1500 }));
    expect(both.hits.map((h) => h.seq)).toEqual(exactTop(new Map(live.map((seq) => [seq, vs[seq - 1]!])), vs[0]!, 5));
  });

  test("a vector of the wrong size is refused; an empty index finds nothing", () => {
    const empty = new VectorIndex(4);
    expect(empty.search(new Float32Array(4), { k: 3, owners: new Set([0]) })).toEqual([]);
    expect(() => empty.upsert(1, "a", new Float32Array(5))).toThrow("5 dimensions");
  });
});
