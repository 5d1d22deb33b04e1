// The in-memory vector index: sign-code pre-selection plus exact re-scoring must find what an exact
// scan finds, respect owners and allowed sets, and stay consistent through removals and growth.
import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
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
  const index = new VectorIndex(dims, tmpdir());
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
    const small = new VectorIndex(8, tmpdir());
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
    const scoped = new VectorIndex(8, tmpdir());
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
    const byAuthor = new VectorIndex(8, tmpdir());
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

  test("vectors replaced and removed are read back as last given: hits and cosines exact", () => {
    // 512 dimensions, the builtin model's: each replace writes a record over the old one, each
    // removal moves the last slot's record into the hole.
    const wide = new VectorIndex(512, tmpdir());
    const live = new Map<number, Float32Array>();
    for (let seq = 1; seq <= 3000; seq++) {
      const v = unit(512, next);
      live.set(seq, v);
      wide.upsert(seq, "me", v);
    }
    for (let seq = 1; seq <= 3000; seq += 3) {
      const v = unit(512, next);
      live.set(seq, v);
      wide.upsert(seq, "me", v);
    }
    for (let seq = 2; seq <= 3000; seq += 5) {
      live.delete(seq);
      wide.remove(seq);
    }
    const owners = new Set([wide.ownerCode("me")]);
    for (let i = 0; i < 10; i++) {
      const q = unit(512, next);
      const hits = wide.search(q, { k: 10, owners, rescore: 3000 });
      expect(hits.map((h) => h.seq)).toEqual(exactTop(live, q, 10));
      for (const h of hits) expect(h.score).toBeCloseTo(live.get(h.seq)!.reduce((a, x, d) => a + x * q[d]!, 0), 5);
    }
    const [a, b] = [4, 3000];
    expect(wide.cosineBetween(a, b)).toBeCloseTo(live.get(a)!.reduce((s, x, d) => s + x * live.get(b)![d]!, 0), 6);
    expect(wide.cosineBetween(a, 2)).toBeNull();
    wide.close();
  });

  test("vectors with one large entry, coarse in 8 bits, are still ranked exactly", () => {
    // Each vector has one entry far larger than the rest, so its 8-bit copy has a coarse step and
    // misses much of the others: the error bounds must still keep every one of the best.
    const spiky = new VectorIndex(512, tmpdir());
    const live = new Map<number, Float32Array>();
    for (let seq = 1; seq <= 2000; seq++) {
      const v = unit(512, next);
      v[seq % 512] = 4 + 4 * next();
      const n = Math.hypot(...v);
      live.set(seq, v.map((x) => x / n));
      spiky.upsert(seq, "me", live.get(seq)!);
    }
    const owners = new Set([spiky.ownerCode("me")]);
    for (let i = 0; i < 10; i++) {
      const q = live.get(1 + Math.floor(next() * 2000))!.map((x) => x + 0.05 * (next() - 0.5));
      expect(spiky.search(q, { k: 20, owners, rescore: 2000 }).map((h) => h.seq)).toEqual(exactTop(live, q, 20));
    }
    spiky.close();
  });

  test("a closed index finds nothing and takes no vector", () => {
    const closing = new VectorIndex(8, tmpdir());
    const v = unit(8, next);
    closing.upsert(1, "me", v);
    closing.upsert(2, "me", unit(8, next));
    closing.close();
    expect(closing.count).toBe(0);
    expect(closing.search(v, { k: 1, owners: new Set([closing.ownerCode("me")]) })).toEqual([]);
    expect(closing.cosineBetween(1, 2)).toBeNull();
    expect(() => closing.upsert(3, "me", v)).toThrow("vector file: closed");
    expect(closing.count).toBe(0);
  });

  test("the float vectors are not held in memory: 20,000 of 512 dimensions add about their 8-bit copies", () => {
    // In a process of its own, so nothing else moves its memory: 20,000 float vectors are 41 MB,
    // their 8-bit copies 10 MB (measured: the index grew the process by 59 MiB with the floats in
    // memory, 19 MiB without). One vector buffer, filled again for each: no garbage to collect.
    const script = `
      const { VectorIndex } = await import(${JSON.stringify(new URL("../../src/core/search/vector-index.ts", import.meta.url).pathname)});
      const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(require("fs").readFileSync("/proc/self/status", "utf8"))[1]) * 1024;
      const index = new VectorIndex(512, ${JSON.stringify(tmpdir())});
      const v = new Float32Array(512);
      index.upsert(0, "me", v.fill(1 / Math.sqrt(512)));
      Bun.gc(true);
      const before = rss();
      let x = 1;
      for (let seq = 1; seq <= 20000; seq++) {
        for (let d = 0; d < 512; d++) v[d] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5;
        index.upsert(seq, "me", v);
      }
      Bun.gc(true);
      console.log(rss() - before, index.count);
    `;
    const run = Bun.spawnSync([process.execPath, "-e", script], { stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    const [grown, count] = run.stdout.toString().trim().split(" ").map(Number);
    expect(count).toBe(20001);
    expect(grown!).toBeLessThan(35 * 2 ** 20);
  });

  test("a vector of the wrong size is refused; an empty index finds nothing", () => {
    const empty = new VectorIndex(4, tmpdir());
    expect(empty.search(new Float32Array(4), { k: 3, owners: new Set([0]) })).toEqual([]);
    expect(() => empty.upsert(1, "a", new Float32Array(5))).toThrow("5 dimensions");
  });
});
