// Code index benchmark (docs/code.md#performance): cold `signet index` of this repository and of a
// large real package from node_modules, then the query paths the daemon serves.
//
//   bun scripts/bench-code.ts            this repository, zod's TypeScript source, the MCP SDK's ESM build
//   bun scripts/bench-code.ts --json     machine-readable results on stdout
//   bun scripts/bench-code.ts --queries 300
//
// Each project is copied to a temporary folder first (indexing writes <project>/.graphiq, and
// node_modules is shared: nothing is written there or in this checkout). Per project:
//   - cold index: files/s = files parsed / wall time of indexProject (grammar loading included), and
//     files per CPU second (the same over the process's CPU time: on a shared, loaded machine the wall
//     time mostly measures the other processes);
//   - index size: graphiq.db after the run;
//   Latencies are wall time and, beside it, the CPU time the call used.
//   - signet_code_search: --queries searches (symbol names from the index, split into words half the
//     time, a prefix a quarter of the time), p50/p95 of searchSymbols, which is what the route calls;
//   - signet_code_blast, depth 3, backward and both, from the 30 most connected symbols: p50 and max;
//   - signet_code_context of the same symbols: p50.
// Targets (SPEC via issue 15): >= 200 files/s cold on two cores, search p50 < 10 ms, blast depth 3
// < 50 ms on this repository.
import { cpSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CodeBlastRequestSchema, CodeSearchRequestSchema } from "../src/contracts/code";
import { indexProject } from "../src/core/code/indexer";
import { identifierParts } from "../src/core/code/names";
import { blastRadius, searchSymbols, symbolContext } from "../src/core/code/queries";
import { openIndex } from "../src/core/code/store";

const root = resolve(import.meta.dir, "..");
const args = process.argv.slice(2);
const asJson = args.includes("--json");
const queriesAt = args.indexOf("--queries");
const QUERIES = queriesAt >= 0 ? Number(args[queriesAt + 1]) : 300;

interface Target {
  name: string;
  /** Folders (relative to `from`) copied into the temporary project. */
  from: string;
  folders: string[];
}

const TARGETS: Target[] = [
  { name: "signet (this repository)", from: root, folders: ["src", "test", "scripts"] },
  { name: "zod/src (node_modules)", from: join(root, "node_modules/zod"), folders: ["src"] },
  { name: "@modelcontextprotocol/sdk dist/esm (node_modules)", from: join(root, "node_modules/@modelcontextprotocol/sdk/dist"), folders: ["esm"] },
];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Wall time in ms; also adds the CPU time to `cpu` (on a loaded machine wall time mostly measures waiting). */
function timed(fn: () => void, cpu?: number[]): number {
  const c = process.cpuUsage();
  const t = performance.now();
  fn();
  const wall = performance.now() - t;
  if (cpu) {
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  return wall;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** A deterministic pseudo-random sequence, so runs ask the same queries. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

async function bench(target: Target) {
  const tmp = mkdtempSync(join(tmpdir(), "signet-bench-code-"));
  try {
    for (const folder of target.folders) {
      if (existsSync(join(target.from, folder))) cpSync(join(target.from, folder), join(tmp, folder), { recursive: true });
    }
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const run = await indexProject(tmp);
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const dbBytes = statSync(join(tmp, ".graphiq", "graphiq.db")).size;

    const db = openIndex(tmp);
    try {
      const names = db.query<{ name: string }, []>("SELECT DISTINCT name FROM symbols WHERE length(name) > 3 ORDER BY name").all().map((r) => r.name);
      const random = rng(7);
      const search: number[] = [];
      const searchCpu: number[] = [];
      const blastCpu: number[] = [];
      for (let i = 0; i < QUERIES && names.length > 0; i++) {
        const name = names[Math.floor(random() * names.length)]!;
        const roll = random();
        const query = roll < 0.5 ? identifierParts(name).join(" ") : roll < 0.75 ? name.slice(0, Math.max(3, Math.ceil(name.length / 2))) : name;
        const req = CodeSearchRequestSchema.parse({ query });
        search.push(timed(() => searchSymbols(db, tmp, req), searchCpu));
      }
      const hubs = db
        .query<{ id: number; name: string; path: string }, []>(
          `SELECT s.id, s.name, f.path FROM symbols s JOIN files f ON f.id = s.file_id
           JOIN (SELECT dst_id AS id, COUNT(*) AS n FROM edges GROUP BY dst_id) c ON c.id = s.id ORDER BY c.n DESC LIMIT 30`,
        )
        .all();
      const blastBack: number[] = [];
      const blastBoth: number[] = [];
      const context: number[] = [];
      let reached = 0;
      for (const h of hubs) {
        const symbol = `${h.path}:${h.name}`;
        blastBack.push(
          timed(() => {
            reached = Math.max(reached, blastRadius(db, tmp, CodeBlastRequestSchema.parse({ symbol, depth: 3 })).nodes.length);
          }, blastCpu),
        );
        blastBoth.push(timed(() => blastRadius(db, tmp, CodeBlastRequestSchema.parse({ symbol, depth: 3, direction: "both" }))));
        context.push(timed(() => symbolContext(db, tmp, symbol)));
      }
      for (const list of [search, searchCpu, blastBack, blastCpu, blastBoth, context]) list.sort((a, b) => a - b);
      return {
        project: target.name,
        files: run.files,
        parsed: run.parsed.length,
        failed: run.failed.length,
        symbols: run.symbols,
        edges: run.edges,
        coldMs: Math.round(wallMs),
        filesPerSecond: Math.round((run.parsed.length / wallMs) * 1000),
        cpuMs: Math.round(cpuMs),
        filesPerCpuSecond: Math.round((run.parsed.length / cpuMs) * 1000),
        indexBytes: dbBytes,
        searchP50Ms: round(percentile(search, 50)),
        searchP95Ms: round(percentile(search, 95)),
        searchCpuP50Ms: round(percentile(searchCpu, 50)),
        searchCpuP95Ms: round(percentile(searchCpu, 95)),
        blastDepth3CpuMaxMs: round(percentile(blastCpu, 100)),
        blastDepth3P50Ms: round(percentile(blastBack, 50)),
        blastDepth3MaxMs: round(percentile(blastBack, 100)),
        blastBothDepth3MaxMs: round(percentile(blastBoth, 100)),
        blastLargestReach: reached,
        contextP50Ms: round(percentile(context, 50)),
      };
    } finally {
      db.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const results = [];
for (const target of TARGETS) results.push(await bench(target));
if (asJson) {
  console.log(JSON.stringify(results, null, 2));
} else {
  for (const r of results) {
    console.log(
      `${r.project}: ${r.parsed}/${r.files} files cold in ${r.coldMs} ms = ${r.filesPerSecond} files/s wall, ${r.filesPerCpuSecond} files per CPU second (${r.cpuMs} ms CPU; ${r.failed} failed); ` +
        `${r.symbols} symbols, ${r.edges} edges; index ${(r.indexBytes / 1024 / 1024).toFixed(2)} MiB\n` +
        `  search p50 ${r.searchP50Ms} ms, p95 ${r.searchP95Ms} ms (CPU p50 ${r.searchCpuP50Ms}, p95 ${r.searchCpuP95Ms}); ` +
        `blast depth 3 p50 ${r.blastDepth3P50Ms} ms, max ${r.blastDepth3MaxMs} ms (CPU max ${r.blastDepth3CpuMaxMs}) ` +
        `(both directions max ${r.blastBothDepth3MaxMs} ms, largest reach ${r.blastLargestReach}); context p50 ${r.contextP50Ms} ms`,
    );
  }
}
