// Recall latency benchmark: a real daemon (separate process, temp data dir) loaded over HTTP with
// synthetic but realistic memories (the generator of bench-api.ts), then recall measured while other
// clients keep writing.
//
//   bun scripts/bench-recall.ts                               builtin embeddings, 10k then 100k memories
//   bun scripts/bench-recall.ts --sizes 10000                 one size only
//   bun scripts/bench-recall.ts --provider none --sizes 10000 keyword only
//   bun scripts/bench-recall.ts --json                        machine-readable results on stdout
//
// Flags: --provider builtin|none|ollama|openai (builtin), --sizes N,N (10000,100000), --queries N (300),
//        --writers N (4), --write-rate N (100 remembers/s from all writers together; 0 = back to back),
//        --clients N (8, for the load), --seed N (1), --drain-timeout S (180: fail when the embedding
//        backlog has not shrunk for this long), --binary, --json, --keep,
//        --data-dir DIR (a data dir a --keep run left, with one --sizes size: skips the load and the first
//        drain, for measuring a change to the recall path again without loading 100k memories again).
//
// Per size, each on its own data dir:
//   1. load N memories over POST /api/memory/remember with --clients writers;
//   2. wait until GET /health shows the provider loaded and embedding.pending == 0 (progress, ETA),
//      and, on a reused data dir, until the daemon's log says its keyword index has loaded;
//   3. "under writes": --queries natural-language recalls, one at a time (each distinct, so each pays
//      for its query embedding; about 30% scoped to a project), while --writers other clients keep
//      calling remember, --write-rate a second together; the new memories are embedded meanwhile too.
//      The default 100/s is about what the builtin model embeds a second on a small machine, so the
//      embedding worker is busy for the whole measurement while the data set stays near its size.
//      Back to back (--write-rate 0), the writers add several times the data set during a slow
//      measurement and the backlog grows without bound: that measures something else;
//   4. "idle": after the writes are embedded, another --queries distinct recalls with nothing else going on;
//   5. "keyword-only": the daemon is stopped and restarted on the same data dir with
//      `embedding: provider: none`, and the queries of step 3 are asked again. That is the real keyword
//      path end to end; `keywordQuery` would not isolate it (it only replaces the keyword leg's text,
//      the vector leg still embeds the query). With --provider none, step 4 already is keyword-only.
// Latency is client-side (fetch round trip on loopback), nearest-rank percentiles; the daemon's own
// meta.tookMs is reported beside it. RSS is the daemon's, from /proc.
import { cpus } from "node:os";
import { parseFlags } from "./lib/args";
import { makeGenerator, makeQueryGenerator, type RecallQuery } from "./lib/content";
import { agentYaml, installCleanup, makeTempDir, removeTempDir, spawnDaemon, runBench, type BenchDaemon } from "./lib/daemon";
import { duration, int, kbMib, markdownTable, ms, secs, verdict } from "./lib/format";
import { getHealth, postJson, waitForEmbeddings } from "./lib/http";
import { runPool, runUntilStopped } from "./lib/pool";
import { procStatusKb, rssPeakSampler } from "./lib/proc";
import { stats, type LatencyStats } from "./lib/stats";

const USAGE =
  "usage: bun scripts/bench-recall.ts [--provider builtin|none|ollama|openai] [--sizes N,N] [--queries N] [--writers N] " +
  "[--write-rate N] [--clients N] [--seed N] [--drain-timeout S] [--binary] [--json] [--keep] [--data-dir DIR]";
const opts = parseFlags(
  process.argv.slice(2),
  {
    provider: { kind: "string", choices: ["builtin", "none", "ollama", "openai"] },
    sizes: { kind: "intList", min: 1 },
    queries: { kind: "int", min: 1 },
    writers: { kind: "int", min: 0 },
    "write-rate": { kind: "int", min: 0 },
    clients: { kind: "int", min: 1 },
    seed: { kind: "int" },
    "drain-timeout": { kind: "int", min: 1 },
    binary: { kind: "bool" },
    json: { kind: "bool" },
    keep: { kind: "bool" },
    "data-dir": { kind: "string" },
  },
  {
    provider: "builtin",
    sizes: [10_000, 100_000],
    queries: 300,
    writers: 4,
    "write-rate": 100,
    clients: 8,
    seed: 1,
    "drain-timeout": 180,
    binary: false,
    json: false,
    keep: false,
    "data-dir": "",
  },
  { script: "bench-recall", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[recall] ${line}\n`);
if (opts["data-dir"] !== "" && opts.sizes.length !== 1) {
  process.stderr.write(`bench-recall: --data-dir needs one --sizes size, the number of memories in it\n${USAGE}\n`);
  process.exit(2);
}
installCleanup(progress);

const TARGETS = { p50Ms: 40, p99Ms: 150, atSize: 100_000, keywordP50Ms: 3, keywordAtSize: 10_000, rssBytes: 300 * 1024 ** 2 };

interface RecallPhase extends LatencyStats {
  /** The daemon's meta.tookMs. */
  server: { p50Ms: number; p99Ms: number };
  embedding: Record<string, number>;
  methods: Record<string, number>;
  emptyResults: number;
}

interface SizeResult {
  size: number;
  load: LatencyStats & { statuses: Record<string, number> };
  embed: { afterLoadMs: number; model: string | null };
  underWrites: RecallPhase & {
    writes: LatencyStats;
    /** Memories in the daemon when the phase started and ended, and the embedding backlog at the end. */
    memoriesBefore: number | null;
    memoriesAfter: number | null;
    pendingAfter: number | null;
  };
  idle: RecallPhase & { drainMs: number };
  keywordOnly: RecallPhase & { how: string };
  rss: { afterLoadKb: number | null; afterDrainKb: number | null; afterWritesKb: number | null; peakKb: number | null; peakPhase: string | null };
}

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

interface RecallBody {
  results: unknown[];
  meta: { tookMs: number; embedding: string; method: string };
}

/** `queries` one at a time; every request must succeed. */
async function measureRecall(daemon: BenchDaemon, queries: RecallQuery[], label: string): Promise<RecallPhase> {
  const took: number[] = [];
  const embedding: string[] = [];
  const methods: string[] = [];
  let empty = 0;
  let firstError: string | undefined;
  const run = await runPool(queries.length, 1, async (i) => {
    const res = await postJson<RecallBody>(daemon.baseUrl, "/api/memory/recall", { ...queries[i]!, limit: 10 });
    if (res.status !== 200) {
      firstError ??= `HTTP ${res.status}: ${res.text.slice(0, 300)}`;
      return false;
    }
    took.push(res.body.meta.tookMs);
    embedding.push(res.body.meta.embedding);
    methods.push(res.body.meta.method);
    if (res.body.results.length === 0) empty++;
    return true;
  });
  if (firstError) throw new Error(`${label}: recall failed: ${firstError}`);
  const server = stats(took, 0, 0);
  return {
    ...stats(run.latencies, run.wallMs, run.errors),
    server: { p50Ms: server.p50Ms, p99Ms: server.p99Ms },
    embedding: countBy(embedding),
    methods: countBy(methods),
    emptyResults: empty,
  };
}

async function warmUp(daemon: BenchDaemon, queries: RecallQuery[]): Promise<void> {
  for (const q of queries) await postJson(daemon.baseUrl, "/api/memory/recall", { ...q, limit: 10 });
}

async function waitForKeywordIndex(daemon: BenchDaemon, size: number): Promise<void> {
  const started = performance.now();
  await daemon.waitForLog(/keyword index: \d+ memories loaded/, 300_000);
  progress(`${int(size)}: keyword index loaded (waited ${duration(performance.now() - started)})`);
}

async function runSize(size: number): Promise<SizeResult> {
  const reused = opts["data-dir"] !== "";
  const dataDir = reused ? opts["data-dir"] : makeTempDir(`signet-recall-${size}-`, opts.keep);
  const daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml(opts.provider), binary: opts.binary });
  progress(`${int(size)}: daemon pid ${daemon.pid} on ${daemon.baseUrl}, provider ${opts.provider}, data ${dataDir}`);
  const rssPeak = rssPeakSampler(daemon.pid);

  // 1. Load.
  rssPeak.phase("load");
  const gen = makeGenerator(opts.seed);
  const bodies: string[] = Array.from({ length: size }, () => gen());
  // A reused data dir holds these already: the writers below go on with the generator's next ones.
  if (reused) {
    bodies.length = 0;
    progress(`${int(size)}: reusing ${dataDir}, no load`);
  }
  const statuses: Record<string, number> = {};
  let firstError: string | undefined;
  const step = Math.max(1000, Math.round(size / 10 / 1000) * 1000);
  const loadStart = performance.now();
  const load = await runPool(
    bodies.length,
    opts.clients,
    async (i) => {
      try {
        const res = await postJson(daemon.baseUrl, "/api/memory/remember", bodies[i]!);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status !== 201) firstError ??= `HTTP ${res.status}: ${res.text.slice(0, 300)}`;
        return res.status === 201;
      } catch (err) {
        statuses.network = (statuses.network ?? 0) + 1;
        firstError ??= (err as Error).message;
        return false;
      }
    },
    (done) => {
      if (done % step === 0 || done === size) {
        const elapsed = performance.now() - loadStart;
        const rate = done / (elapsed / 1000);
        progress(`${int(size)}: remember ${int(done)}/${int(size)}, ${int(rate)}/s, ETA ${duration(((size - done) / rate) * 1000)}`);
      }
    },
  );
  if (load.errors > 0) throw new Error(`${load.errors} of ${size} remembers failed; first error: ${firstError}`);
  const afterLoadKb = procStatusKb(daemon.pid, "VmRSS");

  // 2. Embeddings.
  rssPeak.phase("embedding");
  const drained = await waitForEmbeddings(daemon.baseUrl, {
    progress: (line) => progress(`${int(size)}: ${line}`),
    stallTimeoutMs: opts["drain-timeout"] * 1000,
    context: () => `daemon log tail:\n${daemon.logTail()}`,
  });
  const afterDrainKb = procStatusKb(daemon.pid, "VmRSS");
  // A daemon started on stored memories loads its keyword index in steps; recalls meanwhile run on
  // FTS5, slower: the measurement is of the daemon once loaded (a fresh data dir has nothing to load).
  if (reused) await waitForKeywordIndex(daemon, size);

  // 3. Recall under writes. Queries are distinct across phases so no query-vector cache answers.
  const qgen = makeQueryGenerator(opts.seed * 7919 + size);
  const warm = Array.from({ length: 20 }, qgen);
  const underWritesQueries = Array.from({ length: opts.queries }, qgen);
  const idleQueries = Array.from({ length: opts.queries }, qgen);
  await warmUp(daemon, warm);
  rssPeak.phase("recalls under writes");
  const before = await getHealth(daemon.baseUrl);
  const pace = opts["write-rate"] > 0 ? `${opts["write-rate"]}/s together` : "back to back";
  progress(`${int(size)}: ${opts.queries} recalls with ${opts.writers} clients writing (${pace})`);
  let writeError: string | undefined;
  const writers = runUntilStopped(opts.writers, async () => {
    const res = await postJson(daemon.baseUrl, "/api/memory/remember", gen());
    if (res.status !== 201 && res.status !== 200) writeError ??= `HTTP ${res.status}: ${res.text.slice(0, 300)}`;
    return res.status === 201 || res.status === 200;
  }, opts["write-rate"]);
  await Bun.sleep(500); // the writers are in full swing before the first measured recall
  const measured = await measureRecall(daemon, underWritesQueries, "under writes").then(
    (phase) => ({ phase, error: null }),
    (error: unknown) => ({ phase: null, error }),
  );
  const written = await writers.stop();
  if (!measured.phase) throw measured.error;
  const underWrites = measured.phase;
  if (writeError) progress(`${int(size)}: first write error during the measurement: ${writeError}`);
  const writes = stats(written.latencies, written.wallMs, written.errors);
  const afterWrites = await getHealth(daemon.baseUrl);
  const afterWritesKb = procStatusKb(daemon.pid, "VmRSS");
  progress(
    `${int(size)}: under writes p50 ${ms(underWrites.p50Ms)}, p99 ${ms(underWrites.p99Ms)}; ` +
      `${int(writes.n)} writes (${int(writes.perSec)}/s), ${int(afterWrites.embedding.pending)} pending`,
  );

  // 4. Idle, after the new writes are embedded.
  rssPeak.phase("idle recalls");
  const drain2 = await waitForEmbeddings(daemon.baseUrl, {
    progress: (line) => progress(`${int(size)}: ${line}`),
    stallTimeoutMs: opts["drain-timeout"] * 1000,
    context: () => `daemon log tail:\n${daemon.logTail()}`,
  });
  progress(`${int(size)}: ${opts.queries} recalls, idle`);
  const idle = { ...(await measureRecall(daemon, idleQueries, "idle")), drainMs: drain2.ms };
  const peakKb = rssPeak.stop();

  // 5. Keyword-only on the same data.
  let keywordOnly: SizeResult["keywordOnly"];
  if (opts.provider === "none") {
    keywordOnly = { ...idle, how: "provider none: the idle measurement above" };
  } else {
    await daemon.stop();
    const kw = await spawnDaemon({ dataDir, agentYaml: agentYaml("none"), binary: opts.binary, logName: "daemon-keyword-stderr.log" });
    progress(`${int(size)}: keyword-only: daemon restarted on the same data with provider none (pid ${kw.pid})`);
    await waitForKeywordIndex(kw, size);
    await warmUp(kw, warm);
    keywordOnly = {
      ...(await measureRecall(kw, underWritesQueries, "keyword-only")),
      how: "same data dir, daemon restarted with embedding provider none, the under-writes queries again, idle",
    };
    await kw.stop();
  }
  await daemon.stop();
  if (!reused) removeTempDir(dataDir);

  return {
    size,
    load: { ...stats(load.latencies, load.wallMs, load.errors), statuses },
    embed: { afterLoadMs: drained.ms, model: drained.model },
    underWrites: { ...underWrites, writes, memoriesBefore: before.db.memories, memoriesAfter: afterWrites.db.memories, pendingAfter: afterWrites.embedding.pending },
    idle,
    keywordOnly,
    rss: { afterLoadKb, afterDrainKb, afterWritesKb, peakKb, peakPhase: rssPeak.peakPhase },
  };
}

// ---------------------------------------------------------------------------------------------
// Output

function output(results: SizeResult[]): string {
  const cols = results.map((r) => `${int(r.size)}`);
  const row = (name: string, f: (r: SizeResult) => string) => [name, ...results.map(f)];
  const nn = (v: number | null) => (v === null ? "n/a" : int(v));
  const pp = (p: RecallPhase) => `${ms(p.p50Ms)} / ${ms(p.p99Ms)}`;
  const emb = (p: RecallPhase) => Object.entries(p.embedding).map(([k, n]) => `${k} ${n}`).join(", ");
  const model = results.find((r) => r.embed.model)?.embed.model;
  const rows = [
    row(`load (remember, ${opts.clients} clients)`, (r) => (opts["data-dir"] ? "reused data dir" : `${secs(r.load.wallMs)} (${int(r.load.perSec)}/s)`)),
    row("embeddings drained after load", (r) => (opts.provider === "none" ? "n/a" : duration(r.embed.afterLoadMs))),
    row(`recall p50 / p99, ${opts.writers} clients writing`, (r) => pp(r.underWrites)),
    row("  (writers' pace)", () => (opts["write-rate"] > 0 ? `${opts["write-rate"]}/s together` : "back to back")),
    row("  daemon meta.tookMs p50 / p99", (r) => `${ms(r.underWrites.server.p50Ms)} / ${ms(r.underWrites.server.p99Ms)}`),
    row("  query embedding (meta.embedding)", (r) => emb(r.underWrites)),
    row("  writes meanwhile: n, rate, p99", (r) => `${int(r.underWrites.writes.n)}, ${int(r.underWrites.writes.perSec)}/s, ${ms(r.underWrites.writes.p99Ms)}`),
    row("  memories before → after / backlog after", (r) => `${nn(r.underWrites.memoriesBefore)} → ${nn(r.underWrites.memoriesAfter)} / ${nn(r.underWrites.pendingAfter)}`),
    row("recall p50 / p99, idle", (r) => pp(r.idle)),
    row("  daemon meta.tookMs p50 / p99", (r) => `${ms(r.idle.server.p50Ms)} / ${ms(r.idle.server.p99Ms)}`),
    row("keyword-only recall p50 / p99", (r) => pp(r.keywordOnly)),
    row("  daemon meta.tookMs p50 / p99", (r) => `${ms(r.keywordOnly.server.p50Ms)} / ${ms(r.keywordOnly.server.p99Ms)}`),
    row("recalls with no result (writes / idle / keyword)", (r) => `${r.underWrites.emptyResults} / ${r.idle.emptyResults} / ${r.keywordOnly.emptyResults}`),
    row("daemon RSS after load / drained / after writes", (r) => `${kbMib(r.rss.afterLoadKb)} / ${kbMib(r.rss.afterDrainKb)} / ${kbMib(r.rss.afterWritesKb)}`),
    row("daemon peak RSS (VmHWM, VmRSS sampled every 250 ms)", (r) => `${kbMib(r.rss.peakKb)} (highest sample: ${r.rss.peakPhase ?? "n/a"})`),
  ];
  const at = (size: number) => results.find((r) => r.size === size);
  const big = at(TARGETS.atSize);
  const small = at(TARGETS.keywordAtSize);
  const maxPeak = Math.max(...results.map((r) => r.rss.peakKb ?? 0));
  const notRun = (size: number) => `not run (add ${size} to --sizes)`;
  const targetRows = [
    ["recall p50 at 100k, under writes", big ? ms(big.underWrites.p50Ms) : "-", `< ${TARGETS.p50Ms} ms`, big ? verdict(big.underWrites.p50Ms < TARGETS.p50Ms) : notRun(TARGETS.atSize)],
    ["recall p99 at 100k, under writes", big ? ms(big.underWrites.p99Ms) : "-", `< ${TARGETS.p99Ms} ms`, big ? verdict(big.underWrites.p99Ms < TARGETS.p99Ms) : notRun(TARGETS.atSize)],
    ["keyword-only recall p50 at 10k", small ? ms(small.keywordOnly.p50Ms) : "-", `<= ${TARGETS.keywordP50Ms} ms`, small ? verdict(small.keywordOnly.p50Ms <= TARGETS.keywordP50Ms) : notRun(TARGETS.keywordAtSize)],
    ["daemon peak RSS (all sizes)", kbMib(maxPeak), "< 300 MiB", verdict(maxPeak * 1024 < TARGETS.rssBytes)],
  ];
  return [
    `Signet recall latency benchmark: provider ${opts.provider}${model ? ` (${model})` : ""}, ${opts.queries} queries per phase, ` +
      `daemon from ${opts.binary ? "binary" : "source"} (bun ${Bun.version}, ${cpus().length} CPUs, ${process.platform}-${process.arch})`,
    "",
    markdownTable(["metric", ...cols], rows, ["l", ...cols.map(() => "r" as const)]),
    "",
    markdownTable(["target", "result", "target", ""], targetRows),
    "",
    "Latency is the client's round trip over loopback HTTP (one query at a time), nearest-rank percentiles; queries are distinct " +
      "natural-language questions (about 30% scoped to a project), so with a provider each embeds its query. Keyword-only: " +
      (opts.provider === "none" ? "provider none, so the idle run is the keyword path." : "the same data dir, daemon restarted with provider none."),
  ].join("\n");
}

await runBench(async () => {
  const results: SizeResult[] = [];
  for (const size of opts.sizes) results.push(await runSize(size));
  return opts.json ? JSON.stringify({ provider: opts.provider, queries: opts.queries, writers: opts.writers, targets: TARGETS, results }, null, 2) : output(results);
}, progress);
