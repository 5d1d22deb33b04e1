// API benchmark: starts a real daemon as a separate process on a throwaway data directory, loads it
// with memories over HTTP, then measures reads with the database full.
//
//   bun scripts/bench-api.ts                      100,000 memories, 8 clients, daemon from src/main.ts
//   bun scripts/bench-api.ts --count 20000        a quicker run
//   bun scripts/bench-api.ts --binary             use dist/signet (build it first: bun run build)
//   bun scripts/bench-api.ts --json               machine-readable results on stdout
//
// Flags: --count N (100000), --clients N (8), --gets N (2000), --lists N (500), --seed N (1),
//        --binary, --json, --keep (keep the temp data dir for inspection; the daemon is still stopped).
// Progress goes to stderr; the results table (markdown) or JSON goes to stdout.
// Percentiles are nearest-rank over every request of a phase; times come from performance.now().
//
// The daemon lifecycle, statistics, /proc readings, the request pool and the content generator live
// in scripts/lib/, shared with bench-locomo.ts and bench-recall.ts.
import { cpus } from "node:os";
import { join } from "node:path";
import { parseFlags } from "./lib/args";
import { makeGenerator, mulberry32, PROJECTS, TAG_POOL, TYPES } from "./lib/content";
import { agentYaml, cleanupAll, installCleanup, makeTempDir, ROOT, spawnDaemon, type BenchDaemon } from "./lib/daemon";
import { int, kbMib, mib, ms, verdict } from "./lib/format";
import { GET_HEADERS, HEADERS } from "./lib/http";
import { runPool } from "./lib/pool";
import { fileSize, procCpuMs, procStatusKb } from "./lib/proc";
import { stats, type LatencyStats } from "./lib/stats";

// ---------------------------------------------------------------------------------------------
// Arguments

const USAGE = "usage: bun scripts/bench-api.ts [--count N] [--clients N] [--gets N] [--lists N] [--seed N] [--binary] [--json] [--keep]";
const opts = parseFlags(
  process.argv.slice(2),
  {
    count: { kind: "int", min: 1 },
    clients: { kind: "int", min: 1 },
    gets: { kind: "int", min: 1 },
    lists: { kind: "int", min: 1 },
    seed: { kind: "int" },
    binary: { kind: "bool" },
    json: { kind: "bool" },
    keep: { kind: "bool" },
  },
  { count: 100_000, clients: 8, gets: 2000, lists: 500, seed: 1, binary: false, json: false, keep: false },
  { script: "bench-api", line: USAGE },
);
const root = ROOT;
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// Daemon lifecycle (scripts/lib/daemon.ts): cleanup on every way out (normal end, error, Ctrl-C, SIGTERM).

installCleanup(progress);
let dataDir: string | undefined;
let daemon: BenchDaemon | undefined;

async function startDaemon(): Promise<{ baseUrl: string; pid: number; startMs: number; command: string[] }> {
  dataDir = makeTempDir("signet-bench-", opts.keep);
  daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml("none"), binary: opts.binary });
  return { baseUrl: daemon.baseUrl, pid: daemon.pid, startMs: daemon.startMs, command: daemon.command };
}

function daemonLogTail(lines = 20): string {
  return daemon?.logTail(lines) ?? "";
}

// ---------------------------------------------------------------------------------------------
// The benchmark

interface Results {
  config: {
    count: number;
    clients: number;
    gets: number;
    lists: number;
    seed: number;
    mode: "source" | "binary";
    command: string[];
    bunVersion: string;
    cpus: number;
    platform: string;
  };
  daemonStartMs: number;
  remember: LatencyStats & {
    created: number;
    deduped: number;
    statuses: Record<string, number>;
    /** The daemon's CPU time over the load; busyPct near 100 means its one JS thread is saturated. */
    daemonCpu: { userMs: number; sysMs: number; busyPct: number } | null;
  };
  getSequential: LatencyStats;
  getConcurrent: LatencyStats;
  list: LatencyStats & { variants: Record<string, LatencyStats> };
  memoriesReported: number | null;
  db: { dbBytes: number; walBytes: number; shmBytes: number; totalBytes: number };
  rss: { afterStartKb: number | null; afterLoadKb: number | null; afterReadsKb: number | null; peakKb: number | null };
  targets: { rememberPerSec: number; getP99Ms: number; rememberOk: boolean; getP99Ok: boolean };
}

async function bench(): Promise<Results> {
  const { baseUrl, pid, startMs, command } = await startDaemon();
  progress(`daemon pid ${pid} on ${baseUrl} (started in ${startMs.toFixed(0)} ms), data ${dataDir}`);
  const rssAfterStart = procStatusKb(pid, "VmRSS");

  // Bodies are generated up front so the client's own work during the load is just fetch + JSON.parse.
  const gen = makeGenerator(opts.seed);
  const bodies: string[] = new Array(opts.count);
  for (let i = 0; i < opts.count; i++) bodies[i] = gen();
  let minLen = Infinity, maxLen = 0, sumLen = 0;
  for (const b of bodies) {
    const n = (JSON.parse(b) as { content: string }).content.length;
    (minLen = Math.min(minLen, n)), (maxLen = Math.max(maxLen, n)), (sumLen += n);
  }
  progress(
    `generated ${opts.count} distinct request bodies (content ${minLen}-${maxLen} chars, mean ${(sumLen / opts.count).toFixed(0)}); ` +
      `loading with ${opts.clients} clients`,
  );

  const ids: string[] = new Array(opts.count);
  const statuses: Record<string, number> = {};
  let deduped = 0;
  let firstError: string | undefined;
  const step = 10_000;
  let lastMark = performance.now();
  const cpuBefore = procCpuMs(pid);
  const loadStart = performance.now();
  const load = await runPool(
    opts.count,
    opts.clients,
    async (i) => {
      try {
        const res = await fetch(`${baseUrl}/api/memory/remember`, { method: "POST", headers: HEADERS, body: bodies[i] });
        const text = await res.text();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status !== 201 && res.status !== 200) {
          firstError ??= `HTTP ${res.status}: ${text.slice(0, 300)}`;
          return false;
        }
        const body = JSON.parse(text) as { id: string; deduped: boolean };
        if (body.deduped) deduped++;
        ids[i] = body.id;
        return true;
      } catch (err) {
        statuses.network = (statuses.network ?? 0) + 1;
        firstError ??= (err as Error).message;
        return false;
      }
    },
    (done) => {
      if (done % step === 0 || done === opts.count) {
        const now = performance.now();
        const chunk = done % step === 0 ? step : done % step;
        progress(
          `remember ${done}/${opts.count}  ${(chunk / ((now - lastMark) / 1000)).toFixed(0)}/s last chunk, ` +
            `${(done / ((now - loadStart) / 1000)).toFixed(0)}/s overall, RSS ${((procStatusKb(pid, "VmRSS") ?? 0) / 1024).toFixed(0)} MiB`,
        );
        lastMark = now;
      }
    },
  );
  const cpuAfter = procCpuMs(pid);
  const daemonCpu =
    cpuBefore && cpuAfter
      ? {
          userMs: cpuAfter.userMs - cpuBefore.userMs,
          sysMs: cpuAfter.sysMs - cpuBefore.sysMs,
          busyPct: (100 * (cpuAfter.userMs + cpuAfter.sysMs - cpuBefore.userMs - cpuBefore.sysMs)) / load.wallMs,
        }
      : null;
  if (firstError) progress(`first remember error: ${firstError}`);
  const created = ids.filter(Boolean);
  const rememberStats = {
    ...stats(load.latencies, load.wallMs, load.errors),
    created: created.length - deduped,
    deduped,
    statuses,
    daemonCpu,
  };
  const rssAfterLoad = procStatusKb(pid, "VmRSS");
  if (created.length === 0) throw new Error(`no memory was stored; first error: ${firstError}`);

  // Reads with the database full. Random ids from those created, seeded for repeatability.
  const rnd = mulberry32(opts.seed + 7);
  const randomId = () => created[Math.floor(rnd() * created.length)]!;
  const getIds = Array.from({ length: opts.gets }, randomId);
  const getJob = async (i: number) => {
    const res = await fetch(`${baseUrl}/api/memory/${getIds[i]}`, { headers: GET_HEADERS });
    const body = (await res.json()) as { id?: string };
    return res.status === 200 && body.id === getIds[i];
  };
  // Warm-up outside the measurement: a few reads so the first measured request pays no lazy setup.
  for (let i = 0; i < 20; i++) await (await fetch(`${baseUrl}/api/memory/${randomId()}`, { headers: GET_HEADERS })).text();
  progress(`GET /api/memory/:id x${opts.gets} sequential`);
  const getSeq = await runPool(opts.gets, 1, getJob);
  progress(`GET /api/memory/:id x${opts.gets} with ${opts.clients} clients`);
  const getsConc = Array.from({ length: opts.gets }, randomId);
  const getConc = await runPool(opts.gets, opts.clients, async (i) => {
    const res = await fetch(`${baseUrl}/api/memory/${getsConc[i]}`, { headers: GET_HEADERS });
    const body = (await res.json()) as { id?: string };
    return res.status === 200 && body.id === getsConc[i];
  });

  // GET /api/memories?limit=100: half unfiltered, the rest with type / tags / project filters.
  const listQueries: { variant: string; query: string }[] = [];
  for (let i = 0; i < opts.lists; i++) {
    const r = i % 10;
    if (r < 5) listQueries.push({ variant: "limit=100", query: "limit=100" });
    else if (r < 7) listQueries.push({ variant: "limit=100&type=", query: `limit=100&type=${TYPES[Math.floor(rnd() * TYPES.length)]}` });
    else if (r === 7) listQueries.push({ variant: "limit=100&tags=<1>", query: `limit=100&tags=${TAG_POOL[Math.floor(rnd() * TAG_POOL.length)]}` });
    else if (r === 8) {
      const a = TAG_POOL[Math.floor(rnd() * TAG_POOL.length)]!;
      let b = TAG_POOL[Math.floor(rnd() * TAG_POOL.length)]!;
      if (b === a) b = TAG_POOL[(TAG_POOL.indexOf(a) + 1) % TAG_POOL.length]!;
      listQueries.push({ variant: "limit=100&tags=<2>", query: `limit=100&tags=${a},${b}` });
    } else listQueries.push({ variant: "limit=100&project=", query: `limit=100&project=${PROJECTS[Math.floor(rnd() * PROJECTS.length)]}` });
  }
  let listFirstError: string | undefined;
  await (await fetch(`${baseUrl}/api/memories?limit=100`, { headers: GET_HEADERS })).text();
  progress(`GET /api/memories x${opts.lists} sequential`);
  const list = await runPool(opts.lists, 1, async (i) => {
    const res = await fetch(`${baseUrl}/api/memories?${listQueries[i]!.query}`, { headers: GET_HEADERS });
    const text = await res.text();
    if (res.status !== 200) {
      listFirstError ??= `HTTP ${res.status}: ${text.slice(0, 300)}`;
      return false;
    }
    const body = JSON.parse(text) as { memories: unknown[] };
    return Array.isArray(body.memories);
  });
  if (listFirstError) progress(`first list error: ${listFirstError}`);
  const variants: Record<string, LatencyStats> = {};
  for (const v of [...new Set(listQueries.map((q) => q.variant))]) {
    const idx = listQueries.map((q, i) => (q.variant === v ? i : -1)).filter((i) => i >= 0);
    const lat = idx.map((i) => list.latencies[i]!);
    variants[v] = stats(lat, lat.reduce((a, b) => a + b, 0), 0);
  }

  let memoriesReported: number | null = null;
  try {
    const health = (await (await fetch(`${baseUrl}/health`)).json()) as { db: { memories: number | null } };
    memoriesReported = health.db.memories;
  } catch {
    // reported as null
  }

  const dbPath = join(dataDir!, "memory", "memories.db");
  const db = { dbBytes: fileSize(dbPath), walBytes: fileSize(`${dbPath}-wal`), shmBytes: fileSize(`${dbPath}-shm`), totalBytes: 0 };
  db.totalBytes = db.dbBytes + db.walBytes;
  const rss = {
    afterStartKb: rssAfterStart,
    afterLoadKb: rssAfterLoad,
    afterReadsKb: procStatusKb(pid, "VmRSS"),
    peakKb: procStatusKb(pid, "VmHWM"),
  };

  const getConcStats = stats(getConc.latencies, getConc.wallMs, getConc.errors);
  const getSeqStats = stats(getSeq.latencies, getSeq.wallMs, getSeq.errors);
  const targets = {
    rememberPerSec: 2000,
    getP99Ms: 5,
    rememberOk: rememberStats.perSec >= 2000 && rememberStats.errors === 0,
    getP99Ok: getSeqStats.p99Ms < 5 && getConcStats.p99Ms < 5,
  };
  return {
    config: {
      count: opts.count,
      clients: opts.clients,
      gets: opts.gets,
      lists: opts.lists,
      seed: opts.seed,
      mode: opts.binary ? "binary" : "source",
      command: command.map((c) => c.replace(root + "/", "")),
      bunVersion: Bun.version,
      cpus: cpus().length,
      platform: `${process.platform}-${process.arch}`,
    },
    daemonStartMs: startMs,
    remember: rememberStats,
    getSequential: getSeqStats,
    getConcurrent: getConcStats,
    list: { ...stats(list.latencies, list.wallMs, list.errors), variants },
    memoriesReported,
    db,
    rss,
    targets,
  };
}

// ---------------------------------------------------------------------------------------------
// Output

function table(r: Results): string {
  const c = r.config;
  const rows: string[][] = [
    ["remember throughput", `${int(r.remember.perSec)} /s (${int(r.remember.n)} in ${(r.remember.wallMs / 1000).toFixed(1)} s, ${c.clients} clients)`, ">= 2,000 /s", verdict(r.targets.rememberOk)],
    ["remember p50 / p99", `${ms(r.remember.p50Ms)} / ${ms(r.remember.p99Ms)} (max ${ms(r.remember.maxMs)})`, "", ""],
    ["remember created / deduped / errors", `${int(r.remember.created)} / ${int(r.remember.deduped)} / ${int(r.remember.errors)}`, "", ""],
    [
      "daemon CPU during load (user / sys)",
      r.remember.daemonCpu
        ? `${(r.remember.daemonCpu.userMs / 1000).toFixed(1)} s / ${(r.remember.daemonCpu.sysMs / 1000).toFixed(1)} s = ${r.remember.daemonCpu.busyPct.toFixed(0)}% of one core`
        : "n/a",
      "",
      "",
    ],
    ["get p50 / p99 (1 client)", `${ms(r.getSequential.p50Ms)} / ${ms(r.getSequential.p99Ms)} (${int(r.getSequential.perSec)} /s, n=${r.getSequential.n})`, "p99 < 5 ms", verdict(r.getSequential.p99Ms < 5 && r.getSequential.errors === 0)],
    [`get p50 / p99 (${c.clients} clients)`, `${ms(r.getConcurrent.p50Ms)} / ${ms(r.getConcurrent.p99Ms)} (${int(r.getConcurrent.perSec)} /s, n=${r.getConcurrent.n})`, "p99 < 5 ms", verdict(r.getConcurrent.p99Ms < 5 && r.getConcurrent.errors === 0)],
    ["list limit=100 p50 / p99 (all)", `${ms(r.list.p50Ms)} / ${ms(r.list.p99Ms)} (${int(r.list.perSec)} /s, n=${r.list.n}, errors ${r.list.errors})`, "", ""],
    ...Object.entries(r.list.variants).map(([v, s]) => [`  list ${v}`, `${ms(s.p50Ms)} / ${ms(s.p99Ms)} (n=${s.n})`, "", ""]),
    ["memories (GET /health)", r.memoriesReported === null ? "n/a" : int(r.memoriesReported), "", ""],
    ["db size (memories.db + -wal)", `${mib(r.db.totalBytes)} (db ${mib(r.db.dbBytes)}, wal ${mib(r.db.walBytes)})`, "", ""],
    ["daemon RSS start / after load / after reads", `${kbMib(r.rss.afterStartKb)} / ${kbMib(r.rss.afterLoadKb)} / ${kbMib(r.rss.afterReadsKb)}`, "", ""],
    ["daemon peak RSS (VmHWM)", kbMib(r.rss.peakKb), "", ""],
  ];
  const head = `Signet API benchmark: ${int(c.count)} memories, ${c.clients} clients, daemon from ${c.mode} (bun ${c.bunVersion}, ${c.cpus} CPUs, ${c.platform})`;
  return [
    head,
    "",
    "| metric | result | target | |",
    "|---|---|---|---|",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}

let exitCode = 0;
try {
  const results = await bench();
  await cleanupAll();
  process.stdout.write(opts.json ? `${JSON.stringify(results, null, 2)}\n` : `${table(results)}\n`);
  if (results.remember.errors > 0 || results.getSequential.errors > 0 || results.getConcurrent.errors > 0 || results.list.errors > 0) {
    progress("some requests failed; see the error counts above");
    exitCode = 1;
  }
} catch (err) {
  progress(`failed: ${(err as Error).stack ?? err}`);
  const tail = daemonLogTail();
  if (tail) progress(`daemon log tail:\n${tail}`);
  exitCode = 1;
} finally {
  await cleanupAll();
}
process.exit(exitCode);
