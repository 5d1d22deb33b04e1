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
import type { Subprocess } from "bun";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { normalizeContent } from "../src/core/memory/normalize";

// ---------------------------------------------------------------------------------------------
// Arguments

interface Options {
  count: number;
  clients: number;
  gets: number;
  lists: number;
  seed: number;
  binary: boolean;
  json: boolean;
  keep: boolean;
}

function usage(message?: string): never {
  if (message) process.stderr.write(`bench-api: ${message}\n`);
  process.stderr.write(
    "usage: bun scripts/bench-api.ts [--count N] [--clients N] [--gets N] [--lists N] [--seed N] [--binary] [--json] [--keep]\n",
  );
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { count: 100_000, clients: 8, gets: 2000, lists: 500, seed: 1, binary: false, json: false, keep: false };
  const intFlags = { "--count": "count", "--clients": "clients", "--gets": "gets", "--lists": "lists", "--seed": "seed" } as const;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    const [flag, inline] = raw.includes("=") ? [raw.slice(0, raw.indexOf("=")), raw.slice(raw.indexOf("=") + 1)] : [raw, undefined];
    if (flag === "--binary") opts.binary = true;
    else if (flag === "--json") opts.json = true;
    else if (flag === "--keep") opts.keep = true;
    else if (flag === "--help" || flag === "-h") usage();
    else if (flag in intFlags) {
      const value = inline ?? argv[++i];
      if (value === undefined || !/^\d+$/.test(value.replace(/_/g, ""))) usage(`${flag} needs a whole number`);
      const n = Number(value.replace(/_/g, ""));
      const key = intFlags[flag as keyof typeof intFlags];
      if (key !== "seed" && n < 1) usage(`${flag} must be at least 1`);
      opts[key] = n;
    } else usage(`unknown argument ${raw}`);
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const root = join(import.meta.dir, "..");
const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// Daemon lifecycle, with cleanup on every way out (normal end, error, Ctrl-C, SIGTERM).

let dataDir: string | undefined;
let daemon: Subprocess | undefined;
let cleaned = false;

function killDaemonSync(): void {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    try {
      daemon.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

function removeDataDir(): void {
  if (dataDir && !opts.keep) {
    try {
      rmSync(dataDir, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }
}

/** Graceful stop (SIGTERM, then SIGKILL after 10 s), then the temp dir goes. Idempotent. */
async function cleanup(): Promise<void> {
  if (cleaned) return;
  cleaned = true;
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    daemon.kill("SIGTERM");
    const stopped = await Promise.race([daemon.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
    if (!stopped) {
      killDaemonSync();
      await daemon.exited;
    }
  }
  removeDataDir();
  if (opts.keep && dataDir) progress(`kept data dir ${dataDir}`);
}

// Last resort: `exit` handlers must be synchronous.
process.on("exit", () => {
  killDaemonSync();
  if (!cleaned) removeDataDir();
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    progress(`${signal}: stopping the daemon and removing ${dataDir ?? "the temp dir"}`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function freePort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = server.port!;
  await server.stop(true);
  return port;
}

function daemonLogTail(lines = 20): string {
  if (!dataDir) return "";
  const path = join(dataDir, "daemon-stderr.log");
  if (!existsSync(path)) return "";
  return readFileSync(path, "utf8").trim().split("\n").slice(-lines).join("\n");
}

async function startDaemon(): Promise<{ baseUrl: string; pid: number; startMs: number; command: string[] }> {
  dataDir = mkdtempSync(join(tmpdir(), "signet-bench-"));
  writeFileSync(join(dataDir, "agent.yaml"), "embedding:\n  provider: none\n");
  const port = await freePort();
  let command: string[];
  if (opts.binary) {
    const bin = join(root, "dist", "signet");
    if (!existsSync(bin)) throw new Error(`--binary: ${bin} does not exist; build it with \`bun run build\``);
    command = [bin, "daemon", "run", "--port", String(port)];
  } else {
    command = [process.execPath, join(root, "src", "main.ts"), "daemon", "run", "--port", String(port)];
  }
  // A clean environment: nothing of the operator's Signet setup leaks into the benchmark daemon.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("SIGNET_")) env[k] = v;
  Object.assign(env, { SIGNET_PATH: dataDir, HOME: dataDir });
  const logFile = Bun.file(join(dataDir, "daemon-stderr.log"));
  const started = performance.now();
  daemon = Bun.spawn(command, { cwd: root, env, stdin: "ignore", stdout: "ignore", stderr: logFile });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (daemon.exitCode !== null || daemon.signalCode !== null) {
      throw new Error(`the daemon exited (${daemon.exitCode ?? daemon.signalCode}) before answering /health:\n${daemonLogTail()}`);
    }
    try {
      const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) {
        const body = (await res.json()) as { pid: number; status: string };
        if (body.pid !== daemon.pid) progress(`note: /health reports pid ${body.pid}, spawned pid ${daemon.pid}`);
        return { baseUrl, pid: daemon.pid, startMs: performance.now() - started, command };
      }
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  throw new Error(`the daemon did not answer /health within 30 s:\n${daemonLogTail()}`);
}

// ---------------------------------------------------------------------------------------------
// Measurements

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

interface LatencyStats {
  n: number;
  errors: number;
  wallMs: number;
  perSec: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

function stats(latencies: Float64Array | number[], wallMs: number, errors: number): LatencyStats {
  const sorted = Float64Array.from(latencies).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n: sorted.length,
    errors,
    wallMs,
    perSec: sorted.length / (wallMs / 1000),
    meanMs: sorted.length ? sum / sorted.length : NaN,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
  };
}

function procStatusKb(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** The daemon's CPU time so far (user, system) in ms, from /proc/<pid>/stat; null off Linux. */
function procCpuMs(pid: number): { userMs: number; sysMs: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const tick = 1000 / 100; // USER_HZ is 100 on Linux
    return { userMs: Number(fields[11]) * tick, sysMs: Number(fields[12]) * tick };
  } catch {
    return null;
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Runs `total` jobs over `clients` workers, each with one request in flight; returns per-job latency. */
async function runPool(
  total: number,
  clients: number,
  job: (i: number) => Promise<boolean>,
  onProgress?: (done: number) => void,
): Promise<{ latencies: Float64Array; wallMs: number; errors: number }> {
  const latencies = new Float64Array(total);
  let next = 0;
  let done = 0;
  let errors = 0;
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const t0 = performance.now();
      const ok = await job(i);
      latencies[i] = performance.now() - t0;
      if (!ok) errors++;
      done++;
      onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(clients, total) }, worker));
  return { latencies, wallMs: performance.now() - started, errors };
}

// ---------------------------------------------------------------------------------------------
// Realistic, distinct memory content (deterministic for a given --seed)

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const W = {
  subject: [
    "the build", "the test suite", "the auth middleware", "the migration runner", "the session cache", "the CLI parser",
    "the HTTP client", "the retry loop", "the embedding worker", "the release script", "the config loader", "the logger",
    "the websocket handler", "the job queue", "the rate limiter", "the search index", "the payment webhook", "the CI pipeline",
    "the docker image", "the linter", "the dashboard", "the sqlite pool", "the feature flag service", "the upload handler",
    "the cron scheduler", "the metrics exporter", "the GraphQL resolver", "the token refresher", "the backup job", "the router",
  ],
  verb: [
    "breaks", "times out", "leaks memory", "hangs", "retries forever", "drops requests", "returns stale data", "double-counts",
    "crashes", "slows down", "skips validation", "logs secrets", "deadlocks", "loses the cursor", "rejects valid input",
    "ignores the timeout", "swallows errors", "misreads the header", "truncates output", "races with shutdown",
  ],
  condition: [
    "when the payload exceeds 1 MiB", "under load from 8 clients", "after a daemon restart", "on macOS only", "with an empty config",
    "if the clock skews", "when the disk is full", "behind the corporate proxy", "on the first run after install",
    "when two agents write at once", "with unicode file names", "after the token expires", "with IPv6 localhost",
    "when WAL checkpoints run", "during a schema migration", "on arm64 runners", "when the network flaps", "with a cold cache",
  ],
  fix: [
    "pin the version", "add a busy timeout", "batch the inserts", "close the handle in finally", "use a prepared statement",
    "raise the limit", "retry with backoff", "move it behind a feature flag", "check the exit code", "normalize the path first",
    "stream the body instead", "cache the parsed config", "set keep-alive", "wrap it in a transaction", "validate with zod first",
    "read the pid file before signalling", "escape the shell argument", "fall back to polling", "index the column", "debounce it",
  ],
  pref: [
    "prefers tabs over spaces", "wants small focused commits", "uses bun instead of npm", "likes early returns", "avoids default exports",
    "asks for tests before merging", "writes commit messages in the imperative", "prefers explicit types on exports",
    "keeps functions under 40 lines", "reviews PRs in the morning", "wants errors a person can act on", "dislikes magic numbers",
    "prefers sqlite for local state", "runs the linter before pushing", "wants the README updated with every flag",
  ],
  person: ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Juno", "Kai", "Lena", "Mateo", "Noor", "Olu"],
  dir: ["src", "lib", "app", "pkg", "cmd", "internal", "server", "client", "core", "scripts", "test"],
  file: [
    "auth", "config", "daemon", "store", "router", "queue", "index", "cache", "parse", "main", "worker", "http", "db",
    "session", "hooks", "schema", "errors", "retry", "limits", "upload",
  ],
  ext: ["ts", "tsx", "go", "rs", "py", "sql", "sh", "yaml"],
  tool: ["bun", "vitest", "eslint", "tsc", "docker", "sqlite3", "git", "curl", "jq", "ripgrep", "prettier", "cargo", "pytest"],
  adj: ["flaky", "slow", "brittle", "noisy", "fragile", "surprising", "undocumented", "legacy", "duplicated", "unbounded"],
};
const TYPES = ["fact", "fact", "fact", "decision", "preference", "learning", "issue", "rule", "event", "note"] as const;
const PROJECTS = ["signet", "webapp", "billing-service", "infra", "mobile-app"] as const;
const TAG_POOL = [
  "bug", "perf", "ci", "testing", "auth", "db", "sqlite", "api", "cli", "config", "deploy", "docs", "security",
  "refactor", "ux", "release", "flaky", "infra", "memory", "network",
];

function makeGenerator(seed: number) {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const path = () => `${pick(W.dir)}/${pick(W.file)}${rnd() < 0.4 ? `-${pick(W.file)}` : ""}.${pick(W.ext)}`;
  const num = () => Math.floor(rnd() * 9000) + 100;
  const templates: (() => string)[] = [
    () => `${cap(pick(W.subject))} ${pick(W.verb)} ${pick(W.condition)}; ${pick(W.fix)} in ${path()} (line ${num()}).`,
    () => `${pick(W.person)} ${pick(W.pref)} and ${pick(W.pref)}, especially in ${path()}.`,
    () => `Decided to ${pick(W.fix)} for ${pick(W.subject)} after it ${pick(W.verb)} ${pick(W.condition)}.`,
    () => `Run \`${pick(W.tool)} ${pick(W.file)}\` before touching ${path()}: ${pick(W.subject)} is ${pick(W.adj)} and ${pick(W.verb)} ${pick(W.condition)}.`,
    () => `Issue #${num()}: ${pick(W.subject)} ${pick(W.verb)} ${pick(W.condition)}. Workaround: ${pick(W.fix)}, then ${pick(W.fix)}.`,
    () => `Learned that ${pick(W.subject)} in ${path()} is ${pick(W.adj)}; ${pick(W.person)} suggests we ${pick(W.fix)}.`,
    () => `Rule: never let ${pick(W.subject)} run ${pick(W.condition)} without a test; ${pick(W.fix)} and ${pick(W.fix)}.`,
    () => `Release ${1 + Math.floor(rnd() * 4)}.${Math.floor(rnd() * 30)}.${Math.floor(rnd() * 20)} shipped; ${pick(W.subject)} still ${pick(W.verb)} ${pick(W.condition)} per ${pick(W.person)}.`,
  ];
  // Every content is distinct after the daemon's own normalization, so dedupe never answers.
  const seen = new Set<string>();
  const sentence = (): string => {
    let content = pick(templates)();
    // Short ones get a second clause, long ones are cut at a word boundary: 60-200 characters.
    while (content.length < 60) content += ` Also ${pick(W.subject)} ${pick(W.verb)} ${pick(W.condition)}.`;
    if (content.length > 200) content = `${content.slice(0, 199).replace(/\s+\S*$/, "")}.`;
    return content;
  };
  return (): string => {
    let content = sentence();
    while (seen.has(normalizeContent(content))) content = sentence();
    seen.add(normalizeContent(content));
    const tags: string[] = [];
    const nTags = Math.floor(rnd() * 4); // 0-3 tags
    while (tags.length < nTags) {
      const t = pick(TAG_POOL);
      if (!tags.includes(t)) tags.push(t);
    }
    const body: Record<string, unknown> = {
      content,
      type: pick(TYPES),
      importance: Math.round(rnd() * 100) / 100,
      tags,
    };
    if (rnd() < 0.8) body.project = pick(PROJECTS);
    return JSON.stringify(body);
  };
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// ---------------------------------------------------------------------------------------------
// The benchmark

const HEADERS = { "content-type": "application/json", accept: "application/json", "x-signet-actor": "bench", "x-signet-actor-type": "script" };
const GET_HEADERS = { accept: "application/json", "x-signet-actor": "bench" };

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

const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)} ms` : "n/a");
const int = (v: number) => Math.round(v).toLocaleString("en-US");
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const kbMib = (kb: number | null) => (kb === null ? "n/a" : `${(kb / 1024).toFixed(1)} MiB`);
const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");

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
  await cleanup();
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
  await cleanup();
}
process.exit(exitCode);
