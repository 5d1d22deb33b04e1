// Write-path benchmark: remember/s with concurrent clients and memory_search over /mcp, each next to
// its floor measured in the same run on the same machine, so the ratio holds on a busy machine too.
//
//   bun scripts/bench-write.ts                 3 rounds × 5,000 remembers, 8 clients, daemon from src/main.ts
//   bun scripts/bench-write.ts --binary        use dist/signet (build it first: bun run build)
//
// Floors: remember/s against a bare Bun.serve in its own process that parses the JSON body and answers
// 201 with a small JSON (scripts/lib/floor-server.ts), the same clients, rounds interleaved with the
// daemon's; memory_search p50 against GET /health p50 of the same daemon over the same connections.
// Durability: after the load the daemon is killed with SIGKILL and started again on the same data,
// and every memory answered 2xx must be there.
//
// Flags: --rounds N (3), --per-round N (5000), --clients N (8), --queries N (300), --seed N (1),
//        --binary, --json. Progress goes to stderr; the report (markdown) or JSON to stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { join } from "node:path";
import { parseFlags } from "./lib/args";
import { makeGenerator, makeQueryGenerator } from "./lib/content";
import { ROOT, agentYaml, installCleanup, makeTempDir, runBench, spawnDaemon, type BenchDaemon } from "./lib/daemon";
import { int, markdownTable, ms } from "./lib/format";
import { GET_HEADERS, HEADERS, getHealth } from "./lib/http";
import { runPool } from "./lib/pool";
import { procCpuMs } from "./lib/proc";
import { stats, type LatencyStats } from "./lib/stats";

const USAGE = "usage: bun scripts/bench-write.ts [--rounds N] [--per-round N] [--clients N] [--queries N] [--seed N] [--binary] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  {
    rounds: { kind: "int", min: 1 },
    "per-round": { kind: "int", min: 1 },
    clients: { kind: "int", min: 1 },
    queries: { kind: "int", min: 1 },
    seed: { kind: "int" },
    binary: { kind: "bool" },
    json: { kind: "bool" },
  },
  { rounds: 3, "per-round": 5000, clients: 8, queries: 300, seed: 1, binary: false, json: false },
  { script: "bench-write", line: USAGE },
);
const perRound = opts["per-round"];
const progress = (line: string) => process.stderr.write(`[write] ${line}\n`);
installCleanup(progress);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

async function startFloor(): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port!;
  await probe.stop(true);
  const proc = Bun.spawn([process.execPath, join(ROOT, "scripts", "lib", "floor-server.ts"), String(port)], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  process.on("exit", () => proc.kill("SIGKILL"));
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) break;
    } catch {
      await Bun.sleep(50);
    }
  }
  return {
    baseUrl,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** POSTs `bodies` to `url` with the clients; the ids answered 2xx are added to `ids`. */
async function load(url: string, bodies: string[], ids: Set<string>, pid?: number) {
  const statuses: Record<string, number> = {};
  const cpu0 = pid ? procCpuMs(pid) : null;
  const run = await runPool(bodies.length, opts.clients, async (i) => {
    const res = await fetch(url, { method: "POST", headers: HEADERS, body: bodies[i] });
    const text = await res.text();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (res.status !== 201 && res.status !== 200) return false;
    ids.add((JSON.parse(text) as { id: string }).id);
    return true;
  });
  const cpu1 = pid ? procCpuMs(pid) : null;
  const cpu = cpu0 && cpu1 ? { userMs: cpu1.userMs - cpu0.userMs, sysMs: cpu1.sysMs - cpu0.sysMs } : null;
  return { ...stats(run.latencies, run.wallMs, run.errors), statuses, cpu };
}

async function sequential(n: number, call: (i: number) => Promise<void>): Promise<LatencyStats> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call(i);
    latencies.push(performance.now() - t0);
  }
  return stats(latencies, performance.now() - started, 0);
}

async function main(): Promise<string> {
  const dataDir = makeTempDir("signet-bench-write-");
  let daemon: BenchDaemon = await spawnDaemon({ dataDir, agentYaml: agentYaml("none"), binary: opts.binary });
  const floor = await startFloor();
  progress(`daemon ${daemon.baseUrl} (pid ${daemon.pid}), floor ${floor.baseUrl}; ${opts.rounds} rounds × ${perRound} with ${opts.clients} clients`);

  const gen = makeGenerator(opts.seed);
  const warm = 500;
  const bodies = Array.from({ length: warm + opts.rounds * perRound }, gen);
  const ids = new Set<string>();
  const floorIds = new Set<string>();
  await load(`${floor.baseUrl}/remember`, bodies.slice(0, warm), floorIds);
  await load(`${daemon.baseUrl}/api/memory/remember`, bodies.slice(0, warm), ids);

  const floorRates: number[] = [];
  const daemonRates: number[] = [];
  const daemonRuns: Awaited<ReturnType<typeof load>>[] = [];
  for (let r = 0; r < opts.rounds; r++) {
    const slice = bodies.slice(warm + r * perRound, warm + (r + 1) * perRound);
    const f = await load(`${floor.baseUrl}/remember`, slice, floorIds);
    const d = await load(`${daemon.baseUrl}/api/memory/remember`, slice, ids, daemon.pid);
    floorRates.push(f.perSec);
    daemonRates.push(d.perSec);
    daemonRuns.push(d);
    const cpu = d.cpu ? `, daemon CPU user ${(d.cpu.userMs / 1000).toFixed(1)} s / sys ${(d.cpu.sysMs / 1000).toFixed(1)} s` : "";
    progress(
      `round ${r + 1}: floor ${int(f.perSec)}/s, remember ${int(d.perSec)}/s (${(d.perSec / f.perSec).toFixed(2)} of floor), ` +
        `p50 ${ms(d.p50Ms)} p99 ${ms(d.p99Ms)}, statuses ${JSON.stringify(d.statuses)}${cpu}`,
    );
  }

  // memory_search over /mcp against GET /health of the same daemon, interleaved in blocks.
  const qgen = makeQueryGenerator(7);
  const queries = Array.from({ length: opts.queries }, () => qgen().query);
  const client = new Client({ name: "bench-write", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${daemon.baseUrl}/mcp`)));
  const search = async (i: number) => {
    const r = await client.callTool({ name: "memory_search", arguments: { query: queries[i % queries.length], limit: 10 } });
    if (r.isError) throw new Error(`memory_search failed: ${JSON.stringify(r.content)}`);
  };
  const health = (base: string) => async () => {
    const res = await fetch(`${base}/health`, { headers: GET_HEADERS });
    if (!res.ok) throw new Error(`GET /health answered ${res.status}`);
    await res.text();
  };
  for (let i = 0; i < 30; i++) await search(i); // warm-up
  const searchP50: number[] = [];
  const healthP50: number[] = [];
  const floorGetP50: number[] = [];
  let searchStats: LatencyStats | undefined;
  for (let r = 0; r < opts.rounds; r++) {
    floorGetP50.push((await sequential(opts.queries, health(floor.baseUrl))).p50Ms);
    healthP50.push((await sequential(opts.queries, health(daemon.baseUrl))).p50Ms);
    searchStats = await sequential(opts.queries, search);
    searchP50.push(searchStats.p50Ms);
  }
  await client.close();
  progress(`memory_search p50 ${searchP50.map(ms).join(", ")}; GET /health p50 ${healthP50.map(ms).join(", ")}`);

  // Every 2xx durable: SIGKILL, start again on the same data, count.
  daemon.proc.kill("SIGKILL");
  await daemon.proc.exited;
  daemon = await spawnDaemon({ dataDir, binary: opts.binary, logName: "daemon-restart.log" });
  const after = (await getHealth(daemon.baseUrl)).db.memories ?? 0;
  await daemon.stop();
  await floor.stop();
  progress(`after kill -9 and restart: ${after} memories stored, ${ids.size} answered 2xx`);

  const result = {
    clients: opts.clients,
    rounds: opts.rounds,
    perRound,
    mode: opts.binary ? "binary" : "source",
    remember: {
      perSec: median(daemonRates),
      floorPerSec: median(floorRates),
      ratio: median(daemonRates.map((d, i) => d / floorRates[i]!)),
      p50Ms: median(daemonRuns.map((d) => d.p50Ms)),
      p99Ms: median(daemonRuns.map((d) => d.p99Ms)),
      daemonCpuMsPerWrite: daemonRuns[0]!.cpu
        ? median(daemonRuns.map((d) => (d.cpu!.userMs + d.cpu!.sysMs) / d.n))
        : null,
    },
    durable: { answered2xx: ids.size, storedAfterKill: after, ok: after === ids.size },
    mcpSearch: {
      p50Ms: median(searchP50),
      healthP50Ms: median(healthP50),
      floorGetP50Ms: median(floorGetP50),
      p99Ms: searchStats?.p99Ms ?? NaN,
    },
  };
  if (opts.json) return JSON.stringify(result, null, 2);
  const rm = result.remember;
  const s = result.mcpSearch;
  return [
    `Signet write path: ${opts.clients} clients, ${opts.rounds} rounds × ${int(perRound)} remembers (medians of rounds), ${result.mode}, provider none`,
    "",
    markdownTable(
      ["figure", "Signet", "floor", "ratio"],
      [
        ["remember/s (8 clients)", int(rm.perSec), `${int(rm.floorPerSec)} (bare Bun.serve, JSON body, 201)`, `${rm.ratio.toFixed(2)}`],
        ["remember p50 / p99", `${ms(rm.p50Ms)} / ${ms(rm.p99Ms)}`, "", ""],
        ["daemon CPU per remember", rm.daemonCpuMsPerWrite === null ? "n/a" : ms(rm.daemonCpuMsPerWrite), "", ""],
        ["memory_search over /mcp, p50", ms(s.p50Ms), `${ms(s.healthP50Ms)} (GET /health, same daemon); bare server GET ${ms(s.floorGetP50Ms)}`, `${(s.p50Ms / s.healthP50Ms).toFixed(1)}× /health`],
        ["every 2xx durable after kill -9", result.durable.ok ? "yes" : "NO", `${int(after)} stored / ${int(ids.size)} answered 2xx`, ""],
      ],
      ["l", "r", "l", "r"],
    ),
  ].join("\n");
}

await runBench(main, progress);
