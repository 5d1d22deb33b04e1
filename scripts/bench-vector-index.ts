// The vector index alone (docs/architecture.md#recalls-in-memory-indexes): search latency over N
// random unit vectors of 512 dimensions (the builtin model's size), one owner, a tenth of them in a
// project, k = 30 (what recall asks for), 300 queries, unscoped and project-scoped; and how much the
// index adds to this process's resident memory (its float vectors are in a file, vector-file.ts).
//
//   bun scripts/bench-vector-index.ts              10,000 and 100,000 vectors
//   bun scripts/bench-vector-index.ts --sizes 250000 --dims 768
import { tmpdir } from "node:os";
import { parseFlags } from "./lib/args";
import { mulberry32 } from "./lib/content";
import { VectorIndex } from "../src/core/search/vector-index";
import { procStatusKb } from "./lib/proc";

const { sizes, dims, queries } = parseFlags(
  process.argv.slice(2),
  { sizes: { kind: "intList", min: 1 }, dims: { kind: "int", min: 1 }, queries: { kind: "int", min: 1 } },
  { sizes: [10_000, 100_000], dims: 512, queries: 300 },
  { script: "bench-vector-index", line: "usage: bun scripts/bench-vector-index.ts [--sizes N,N] [--dims N] [--queries N]" },
);
const next = mulberry32(1);

/** A random unit vector, in `v` (the index keeps no reference to what it is given). */
function unit(v = new Float32Array(dims)): Float32Array {
  let n = 0;
  for (let d = 0; d < dims; d++) n += (v[d] = next() - 0.5) ** 2;
  n = Math.sqrt(n);
  for (let d = 0; d < dims; d++) v[d]! /= n;
  return v;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const residentMib = () => {
  Bun.gc(true);
  return (procStatusKb(process.pid, "VmRSS") ?? 0) / 1024;
};

for (const size of sizes) {
  const before = residentMib();
  const index = new VectorIndex(dims, tmpdir());
  const v = new Float32Array(dims);
  for (let seq = 1; seq <= size; seq++) index.upsert(seq, "default", unit(v), seq % 10 === 0 ? "project" : null);
  const floatsMb = (size * dims * 4) / 1e6;
  console.log(`${size.toLocaleString("en")} vectors × ${dims}: the index holds ${(residentMib() - before).toFixed(1)} MiB resident (float vectors: ${floatsMb.toFixed(1)} MB, in its file)`);
  const owners = new Set([index.ownerCode("default")]);
  for (const project of [undefined, "project"]) {
    const times: number[] = [];
    for (let i = 0; i < queries; i++) {
      const q = unit();
      const t = performance.now();
      index.search(q, { k: 30, owners, project });
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const label = project ? "scoped to a tenth" : "unscoped";
    console.log(`${size.toLocaleString("en")} vectors × ${dims}, ${label}: p50 ${percentile(times, 50).toFixed(2)} ms, p90 ${percentile(times, 90).toFixed(2)} ms`);
  }
  index.close();
}
