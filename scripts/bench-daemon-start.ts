// Daemon start benchmark: `signet daemon run` on an empty throwaway store, once with the builtin
// embedding provider and once with `none` (keyword-only, the floor), alternated in each round so a
// busy machine slows both alike. Per start: the wall time to the first good /health (polled every
// 50 ms), the daemon's CPU time then and --settle-ms later, its RSS and its threads then. The builtin
// model loads at the first text to embed, so an idle builtin daemon should cost what a `none` one does.
// With --data-dir DIR (a store `bench-recall.ts --keep` left, say) each run starts the builtin daemon
// on a fresh copy of it instead: the wall time to the first /health, to the stored vectors loaded
// (/health names the model) and to the keyword index loaded (its log line), the daemon's CPU time and
// its peak RSS (VmHWM) then.
//
//   bun scripts/bench-daemon-start.ts [--runs 11] [--settle-ms 3000] [--binary] [--json]
//   bun scripts/bench-daemon-start.ts --data-dir DIR [--runs 3] [--binary] [--json]
import { cpSync, readdirSync } from "node:fs";
import { parseFlags } from "./lib/args";
import { agentYaml, installCleanup, makeTempDir, removeTempDir, runBench, spawnDaemon } from "./lib/daemon";
import { markdownTable, ms } from "./lib/format";
import { getHealth } from "./lib/http";
import { procCpuMs, procStatusKb } from "./lib/proc";

const USAGE = "usage: bun scripts/bench-daemon-start.ts [--runs N] [--settle-ms N] [--data-dir DIR] [--binary] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  { runs: { kind: "int", min: 1 }, "settle-ms": { kind: "int", min: 0 }, "data-dir": { kind: "string" }, binary: { kind: "bool" }, json: { kind: "bool" } },
  { runs: 11, "settle-ms": 3000, "data-dir": "", binary: false, json: false },
  { script: "bench-daemon-start", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[daemon-start] ${line}\n`);
installCleanup(progress);

const PROVIDERS = ["builtin", "none"] as const;
type Provider = (typeof PROVIDERS)[number];

interface Start {
  wallMs: number;
  cpuReadyMs: number;
  cpuSettledMs: number;
  rssMib: number;
  threads: number;
}

const cpuMs = (pid: number): number => {
  const c = procCpuMs(pid);
  return c ? c.userMs + c.sysMs : NaN;
};

async function startOnce(provider: Provider): Promise<Start> {
  const dataDir = makeTempDir(`signet-start-${provider}-`);
  const daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml(provider), binary: opts.binary });
  const cpuReadyMs = cpuMs(daemon.pid);
  await Bun.sleep(opts["settle-ms"]);
  const start: Start = {
    wallMs: daemon.startMs,
    cpuReadyMs,
    cpuSettledMs: cpuMs(daemon.pid),
    rssMib: (procStatusKb(daemon.pid, "VmRSS") ?? NaN) / 1024,
    threads: readdirSync(`/proc/${daemon.pid}/task`).length,
  };
  await daemon.stop();
  removeTempDir(dataDir);
  return start;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface StoreStart {
  healthMs: number;
  vectorsMs: number;
  keywordsMs: number;
  cpuMs: number;
  peakMib: number;
}

/** The builtin daemon on a copy of `store`, until its stored vectors and its keyword index are loaded. */
async function startOnStore(store: string): Promise<StoreStart> {
  const dataDir = makeTempDir("signet-start-store-");
  cpSync(store, dataDir, { recursive: true });
  const started = performance.now();
  const daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml("builtin"), binary: opts.binary, healthTimeoutMs: 120_000 });
  const healthMs = performance.now() - started;
  let vectorsMs = Number.NaN;
  const keywords = daemon.waitForLog(/keyword index: \d+ memories loaded/, 600_000).then(() => performance.now() - started);
  while (Number.isNaN(vectorsMs)) {
    if ((await getHealth(daemon.baseUrl)).embedding.model !== null) vectorsMs = performance.now() - started;
    else await Bun.sleep(50);
  }
  const keywordsMs = await keywords;
  const result = { healthMs, vectorsMs, keywordsMs, cpuMs: cpuMs(daemon.pid), peakMib: (procStatusKb(daemon.pid, "VmHWM") ?? NaN) / 1024 };
  await daemon.stop();
  removeTempDir(dataDir);
  return result;
}

async function storeStarts(store: string): Promise<string> {
  const starts: StoreStart[] = [];
  for (let r = 0; r < opts.runs; r++) {
    starts.push(await startOnStore(store));
    progress(`run ${r + 1}/${opts.runs}`);
  }
  const m = (f: (x: StoreStart) => number) => median(starts.map(f));
  const row = { healthMs: m((x) => x.healthMs), vectorsMs: m((x) => x.vectorsMs), keywordsMs: m((x) => x.keywordsMs), cpuMs: m((x) => x.cpuMs), peakMib: m((x) => x.peakMib) };
  if (opts.json) return JSON.stringify({ store, runs: opts.runs, binary: opts.binary, starts, median: row }, null, 2);
  return [
    `Daemon start on a copy of ${store} (builtin provider), ${opts.runs} runs, medians (${opts.binary ? "compiled binary" : "from source"}):`,
    "",
    markdownTable(
      ["wall to /health", "to the vectors loaded", "to the keyword index loaded", "CPU then", "peak RSS"],
      [[ms(row.healthMs), ms(row.vectorsMs), ms(row.keywordsMs), ms(row.cpuMs), `${row.peakMib.toFixed(1)} MiB`]],
    ),
  ].join("\n");
}

await runBench(async () => {
  if (opts["data-dir"] !== "") return storeStarts(opts["data-dir"]);
  const starts: Record<Provider, Start[]> = { builtin: [], none: [] };
  for (let r = 0; r < opts.runs; r++) {
    for (const provider of PROVIDERS) starts[provider].push(await startOnce(provider));
    progress(`round ${r + 1}/${opts.runs}`);
  }
  const row = (provider: Provider) => {
    const s = starts[provider];
    const m = (f: (x: Start) => number) => median(s.map(f));
    return { provider, wallMs: m((x) => x.wallMs), cpuReadyMs: m((x) => x.cpuReadyMs), cpuSettledMs: m((x) => x.cpuSettledMs), rssMib: m((x) => x.rssMib), threads: m((x) => x.threads) };
  };
  const rows = PROVIDERS.map(row);
  if (opts.json) return JSON.stringify({ runs: opts.runs, settleMs: opts["settle-ms"], binary: opts.binary, rows }, null, 2);
  return [
    `Daemon start on an empty store, ${opts.runs} alternated runs, medians (${opts.binary ? "compiled binary" : "from source"}):`,
    "",
    markdownTable(
      ["provider", "wall to /health", "CPU at /health", `CPU ${opts["settle-ms"] / 1000} s later`, "RSS then", "threads"],
      rows.map((r) => [r.provider, ms(r.wallMs), ms(r.cpuReadyMs), ms(r.cpuSettledMs), `${r.rssMib.toFixed(1)} MiB`, String(r.threads)]),
    ),
    "",
    `builtin / none: wall ${(rows[0]!.wallMs / rows[1]!.wallMs).toFixed(2)}×, CPU ${(rows[0]!.cpuSettledMs / rows[1]!.cpuSettledMs).toFixed(2)}×`,
  ].join("\n");
}, progress);
