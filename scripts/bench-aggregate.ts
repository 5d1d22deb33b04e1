// Aggregate recall and re-embedding benchmark: real daemons (separate processes, temp data dirs) over
// HTTP, loaded with the synthetic memories of bench-api.ts.
//
//   bun scripts/bench-aggregate.ts                      2,000 memories, 100 aggregate recalls, then the re-embedding
//   bun scripts/bench-aggregate.ts --memories 5000 --skip-reindex
//
// Flags: --memories N (2000), --queries N (100), --seed N (1), --skip-reindex, --keep.
//
// 1. Extractive aggregate (provider none, no llm): --queries distinct aggregate recalls (budget small,
//    saveAggregate false), one at a time, against plain recalls of the same questions; latency is the
//    client's fetch round trip, nearest-rank percentiles.
// 2. Re-embedding (builtin model): the memories are embedded, then POST /api/embed/reindex {all: true}
//    (with the owner's admin token) re-embeds every one; GET /health is polled for progress. The rate
//    is memories / wall time. Meanwhile a recall a second: their latency, and how many answered with
//    the vector leg.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseFlags } from "./lib/args";
import { makeGenerator, makeQueryGenerator } from "./lib/content";
import { agentYaml, cleanupAll, installCleanup, makeTempDir, removeTempDir, spawnDaemon } from "./lib/daemon";
import { int, markdownTable, ms, secs } from "./lib/format";
import { HEADERS, postJson, waitForEmbeddings } from "./lib/http";
import { runPool } from "./lib/pool";
import { stats } from "./lib/stats";

const USAGE = "usage: bun scripts/bench-aggregate.ts [--memories N] [--queries N] [--seed N] [--skip-reindex] [--keep]";
const opts = parseFlags(
  process.argv.slice(2),
  { memories: { kind: "int", min: 1 }, queries: { kind: "int", min: 1 }, seed: { kind: "int" }, "skip-reindex": { kind: "bool" }, keep: { kind: "bool" } },
  { memories: 2000, queries: 100, seed: 1, "skip-reindex": false, keep: false },
  { script: "bench-aggregate", line: USAGE },
);
/** A recall a second during the re-embedding: each one holds background embedding back while it runs. */
const RECALL_EVERY_MS = 1000;
const progress = (line: string) => process.stderr.write(`${line}\n`);
installCleanup(progress);

async function load(baseUrl: string, n: number): Promise<void> {
  const next = makeGenerator(opts.seed);
  const bodies = Array.from({ length: n }, () => next());
  const r = await runPool(n, 8, async (i) => (await postJson(baseUrl, "/api/memory/remember", bodies[i]!)).status < 300);
  if (r.errors > 0) throw new Error(`${r.errors} remembers failed`);
  progress(`loaded ${int(n)} memories in ${secs(r.wallMs)}`);
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function extractive(): Promise<string[][]> {
  const dir = makeTempDir("signet-bench-aggregate-", opts.keep);
  const daemon = await spawnDaemon({ dataDir: dir, agentYaml: agentYaml("none") });
  try {
    await load(daemon.baseUrl, opts.memories);
    const nextQuery = makeQueryGenerator(opts.seed + 1);
    const queries = Array.from({ length: opts.queries }, () => nextQuery());
    const plain: number[] = [];
    const aggregate: number[] = [];
    let cited = 0;
    for (const q of queries) {
      plain.push((await timed(() => postJson(daemon.baseUrl, "/api/memory/recall", q))).ms);
      const a = await timed(() =>
        postJson<{ aggregate?: { citations: string[] } }>(daemon.baseUrl, "/api/memory/recall", { ...q, aggregate: true, saveAggregate: false }),
      );
      if (a.value.status !== 200) throw new Error(`aggregate recall answered ${a.value.status}: ${a.value.text.slice(0, 200)}`);
      cited += a.value.body.aggregate?.citations.length ?? 0;
      aggregate.push(a.ms);
    }
    const p = stats(plain, 1, 0);
    const a = stats(aggregate, 1, 0);
    return [
      ["recall", int(opts.memories), int(p.n), ms(p.p50Ms), ms(p.p99Ms), ""],
      ["aggregate (extractive, small)", int(opts.memories), int(a.n), ms(a.p50Ms), ms(a.p99Ms), `${(cited / a.n).toFixed(1)} citations each`],
    ];
  } finally {
    await daemon.stop();
    if (!opts.keep) removeTempDir(dir);
  }
}

async function reindex(): Promise<string[][]> {
  const dir = makeTempDir("signet-bench-reindex-", opts.keep);
  const daemon = await spawnDaemon({ dataDir: dir, agentYaml: agentYaml("builtin") });
  try {
    await load(daemon.baseUrl, opts.memories);
    await waitForEmbeddings(daemon.baseUrl, { progress, context: () => daemon.logTail() });
    const token = readFileSync(join(dir, ".daemon", "admin.token"), "utf8").trim();
    const t0 = performance.now();
    const res = await fetch(`${daemon.baseUrl}/api/embed/reindex`, {
      method: "POST",
      headers: { ...HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify({ all: true }),
    });
    if (res.status !== 202) throw new Error(`reindex answered ${res.status}: ${await res.text()}`);
    const nextQuery = makeQueryGenerator(opts.seed + 2);
    const latencies: number[] = [];
    let withVectors = 0;
    let total = 0;
    let lastReport = 0;
    for (;;) {
      const health = (await (await fetch(`${daemon.baseUrl}/health`)).json()) as {
        embedding: { reindex?: { state: string; done: number; total: number } };
      };
      const r = health.embedding.reindex;
      if (r?.state === "done") {
        total = r.done;
        break;
      }
      if (r && performance.now() - lastReport > 5000) {
        progress(`re-embedding: ${int(r.done)}/${int(r.total)}`);
        lastReport = performance.now();
      }
      const q = await timed(() => postJson<{ meta: { method: string } }>(daemon.baseUrl, "/api/memory/recall", nextQuery()));
      latencies.push(q.ms);
      if (q.value.body.meta.method !== "keyword") withVectors++;
      await Bun.sleep(RECALL_EVERY_MS);
    }
    const wall = performance.now() - t0;
    const l = stats(latencies, wall, 0);
    return [
      ["re-embedding (builtin, --all)", int(total), secs(wall), `${(total / (wall / 1000)).toFixed(1)} memories/s`],
      ["recall meanwhile", int(l.n), `p50 ${ms(l.p50Ms)}, p99 ${ms(l.p99Ms)}`, `${int(withVectors)} of ${int(l.n)} used vectors`],
    ];
  } finally {
    await daemon.stop();
    if (!opts.keep) removeTempDir(dir);
  }
}

try {
  const rows = await extractive();
  process.stdout.write(`${markdownTable(["what", "memories", "requests", "p50", "p99", ""], rows, ["l", "r", "r", "r", "r", "l"])}\n`);
  if (!opts["skip-reindex"]) {
    const r = await reindex();
    process.stdout.write(`\n${markdownTable(["what", "count", "time", ""], r, ["l", "r", "r", "l"])}\n`);
  }
  process.stdout.write("\n(figures from a shared, busy 2-core machine)\n");
} finally {
  await cleanupAll();
}
