// Document sources benchmark: a real daemon (separate process, temp data dir) ingests this
// repository's own src/, docs/ and scripts/ and node_modules/zod through POST /api/sources (the
// owner's admin token, as `signet source add` sends it), then source search is measured.
//
//   bun scripts/bench-sources.ts                      builtin embeddings (vectors follow in the background)
//   bun scripts/bench-sources.ts --provider none      keyword only
//   bun scripts/bench-sources.ts --queries 200 --json
//
// Flags: --provider builtin|none|ollama|openai (builtin), --queries N (200), --binary (run dist/signet),
//        --json (results on stdout), --keep (keep the data dir).
//
// Figures: files/s = files parsed / wall time of the adds (each add answers once its files are
// chunked and keyword-indexed; embedding runs after, in the background); chunks written; then
// --queries distinct source searches one at a time (each a few words taken from the ingested text,
// so each pays for its own query embedding when a provider is on), client-side latency p50/p90/p99,
// with the daemon's meta.tookMs beside it. Targets: >= 100 files/s, search p50 < 20 ms.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SignetClient } from "../src/client/client";
import type { IngestReport } from "../src/contracts/sources";
import { parseFlags } from "./lib/args";
import { ROOT, agentYaml, cleanupAll, installCleanup, makeTempDir, spawnDaemon } from "./lib/daemon";
import { int, markdownTable, ms, verdict } from "./lib/format";
import { waitForEmbeddings } from "./lib/http";
import { stats } from "./lib/stats";

const FILES_PER_SEC_TARGET = 100;
const SEARCH_P50_TARGET_MS = 20;

const flags = parseFlags(
  process.argv.slice(2),
  { provider: { kind: "string" }, queries: { kind: "int", min: 1 }, binary: { kind: "bool" }, json: { kind: "bool" }, keep: { kind: "bool" } },
  { provider: "builtin", queries: 200, binary: false, json: false, keep: false },
  { script: "bench-sources.ts", line: "[--provider builtin|none|ollama|openai] [--queries N] [--binary] [--json] [--keep]" },
);

const progress = (line: string) => process.stderr.write(`${line}\n`);
installCleanup(progress);

/** Distinct queries of 2-3 words taken from the ingested text, from a fixed seed. */
function queriesFrom(texts: string[], n: number): string[] {
  let seed = 1;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const words = [...new Set(texts.join(" ").match(/[A-Za-z]{4,}/g) ?? [])];
  const out = new Set<string>();
  while (out.size < n) out.add(Array.from({ length: 2 + Math.floor(rand() * 2) }, () => words[Math.floor(rand() * words.length)]!).join(" "));
  return [...out];
}

async function main() {
  const dataDir = makeTempDir("signet-bench-sources-", flags.keep);
  const daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml(flags.provider), binary: flags.binary });
  progress(`daemon pid ${daemon.pid} at ${daemon.baseUrl} (provider ${flags.provider})`);
  // A daemon ready to work: its embedding model loaded (loading it takes the cores for a while).
  await waitForEmbeddings(daemon.baseUrl, { progress });
  // The owner's client: it proves the daemon and sends the admin token from the data directory.
  const client = new SignetClient({ baseUrl: daemon.baseUrl, dataDir, actor: "bench", timeoutMs: 600_000 });
  const roots = ["src", "docs", "scripts", "node_modules/zod"].map((r) => join(ROOT, r));
  const reports: IngestReport[] = [];
  const started = performance.now();
  for (const path of roots) {
    const r = await client.sources.add({ path });
    progress(`  ${path}: ${r.parsed} files, ${r.chunks} chunks, ${r.skipped.length} skipped in ${Math.round(r.tookMs)} ms`);
    reports.push(r);
  }
  const ingestMs = performance.now() - started;
  const files = reports.reduce((a, r) => a + r.parsed, 0);
  const chunks = reports.reduce((a, r) => a + r.chunks, 0);
  const filesPerSec = files / (ingestMs / 1000);

  // Queries from a sample of the chunks' text.
  const sample = reports.flatMap((r) => r.source.path).map((p) => readFileSync(join(p, p.endsWith("zod") ? "package.json" : "../README.md"), "utf8"));
  const queries = queriesFrom(sample, flags.queries);
  const latencies: number[] = [];
  const daemonMs: number[] = [];
  let hits = 0;
  let errors = 0;
  const searchStarted = performance.now();
  for (const query of queries) {
    const t0 = performance.now();
    try {
      const r = await client.sources.search({ query, limit: 10 });
      latencies.push(performance.now() - t0);
      daemonMs.push(r.meta.tookMs);
      if (r.results.length > 0) hits++;
    } catch {
      errors++;
    }
  }
  const search = stats(latencies, performance.now() - searchStarted, errors);
  const daemonSearch = stats(daemonMs, 0, 0);
  const embedded = (await client.sources.list()).sources.reduce((a, s) => a + s.embedded, 0);
  const result = {
    provider: flags.provider,
    files,
    chunks,
    ingestMs: Math.round(ingestMs),
    filesPerSec: Math.round(filesPerSec),
    embeddedWhenSearched: embedded,
    search: { n: search.n, errors, withHits: hits, p50Ms: search.p50Ms, p90Ms: search.p90Ms, p99Ms: search.p99Ms, daemonP50Ms: daemonSearch.p50Ms },
    targets: { filesPerSec: filesPerSec >= FILES_PER_SEC_TARGET, searchP50: search.p50Ms < SEARCH_P50_TARGET_MS },
  };
  if (flags.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    process.stdout.write(
      `${markdownTable(
        ["measure", "value", "target", ""],
        [
          ["files parsed (src, docs, scripts, node_modules/zod)", int(files), "", ""],
          ["chunks", int(chunks), "", ""],
          ["ingest, keyword-indexed", `${int(filesPerSec)} files/s (${int(ingestMs)} ms)`, `>= ${FILES_PER_SEC_TARGET} files/s`, verdict(result.targets.filesPerSec)],
          [`source search p50 (${search.n} distinct queries, ${hits} with hits)`, ms(search.p50Ms), `< ${SEARCH_P50_TARGET_MS} ms`, verdict(result.targets.searchP50)],
          ["source search p90 / p99", `${ms(search.p90Ms)} / ${ms(search.p99Ms)}`, "", ""],
          ["daemon's own tookMs p50", ms(daemonSearch.p50Ms), "", ""],
          [`chunks embedded when the search ran (${flags.provider})`, `${int(embedded)} of ${int(chunks)}`, "", ""],
        ],
        ["l", "r", "l", "l"],
      )}\n`,
    );
  }
}

try {
  await main();
} finally {
  await cleanupAll();
}
