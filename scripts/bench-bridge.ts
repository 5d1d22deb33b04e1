// MCP bridge benchmark (docs/api.md#bridge, #analytics), one run: the whole-process time of
// `signet mcp everything echo --param message=hi` with the server cold and warm (each warm call right
// after a `bun -e 0`, Bun's own start, so the ratio of the two holds on a busy machine), against two
// references (a warm SDK call inside a running process; a cold SDK call: spawn, initialize, call,
// exit), then the analytics query at 1 M rows and the cost of recording a call.
// Uses the compiled binary (build it first: bun run build) and a real daemon on a throwaway data dir.
//
//   bun scripts/bench-bridge.ts [--calls 30] [--rows 1000000] [--json]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { alive } from "../src/control/daemon-process";
import { benchAnalytics } from "./lib/analytics-bench";
import { parseFlags } from "./lib/args";
import { ROOT, agentYaml, installCleanup, makeTempDir, spawnDaemon } from "./lib/daemon";
import { int, markdownTable, mib, ms, verdict } from "./lib/format";
import { stats, type LatencyStats } from "./lib/stats";
import { bunStartMs } from "./lib/bun-start";

const USAGE = "usage: bun scripts/bench-bridge.ts [--calls N] [--rows N] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  { calls: { kind: "int", min: 1 }, rows: { kind: "int", min: 1 }, json: { kind: "bool" } },
  { calls: 30, rows: 1_000_000, json: false },
  { script: "bench-bridge", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[bridge] ${line}\n`);
installCleanup(progress);

const TARGETS = { warmCallMs: 100, warmCallRatio: 2.0, analyticsMs: 200 };
const SIGNET = join(ROOT, "dist", "signet");
const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const NODE = Bun.which("node") ?? "node";
if (!existsSync(SIGNET)) {
  process.stderr.write(`bench-bridge: ${SIGNET} is missing; build it with \`bun run build\`\n`);
  process.exit(2);
}

const dataDir = makeTempDir("signet-bench-bridge-");
const daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml("none"), binary: true });
const env: Record<string, string> = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: dataDir,
  SIGNET_PATH: dataDir,
  SIGNET_DAEMON_URL: daemon.baseUrl,
};

/** One whole `signet ...` process, timed from spawn to exit; its exit code must be 0. */
async function signet(args: string[]): Promise<number> {
  const t0 = performance.now();
  const proc = Bun.spawn([SIGNET, ...args], { env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const elapsed = performance.now() - t0;
  if (code !== 0) throw new Error(`signet ${args.join(" ")} exited ${code}: ${err || out}`);
  return elapsed;
}

async function repeat(n: number, fn: () => Promise<number>): Promise<LatencyStats> {
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i++) samples.push(await fn());
  return stats(samples, performance.now() - started, 0);
}

const ECHO = ["mcp", "everything", "echo", "--param", "message=hi"];
progress(`daemon ${daemon.baseUrl} (pid ${daemon.pid}); installing server-everything`);
await signet(["mcp", "add", "everything", "--", NODE, EVERYTHING, "stdio"]);

progress("first bridge call (cold server)");
const coldBridge = await signet(ECHO);
progress(`warm bridge calls × ${opts.calls}, each after a \`bun -e 0\` (Bun's own start, the floor)`);
await signet(ECHO);
const floorRuns: number[] = [];
const warmBridge = await repeat(opts.calls, async () => {
  floorRuns.push(await bunStartMs());
  return signet(ECHO);
});
const floor = stats(floorRuns, 0, 0);
progress(`\`signet --version\` × ${opts.calls} (process start alone)`);
const version = await repeat(opts.calls, () => signet(["--version"]));

progress(`direct SDK calls, warm, × ${opts.calls * 10}`);
const client = new Client({ name: "bench-bridge", version: "1" });
await client.connect(new StdioClientTransport({ command: NODE, args: [EVERYTHING, "stdio"], stderr: "ignore" }));
await client.callTool({ name: "echo", arguments: { message: "hi" } });
const warmDirect = await repeat(opts.calls * 10, async () => {
  const t0 = performance.now();
  await client.callTool({ name: "echo", arguments: { message: "hi" } });
  return performance.now() - t0;
});
await client.close();

progress(`direct SDK calls, cold (spawn, initialize, call, exit), × ${Math.min(opts.calls, 10)}`);
const coldDirect = await repeat(Math.min(opts.calls, 10), async () => {
  const t0 = performance.now();
  const c = new Client({ name: "bench-bridge", version: "1" });
  const transport = new StdioClientTransport({ command: NODE, args: [EVERYTHING, "stdio"], stderr: "ignore" });
  await c.connect(transport);
  await c.callTool({ name: "echo", arguments: { message: "hi" } });
  const pid = transport.pid;
  await c.close();
  // Exit means the process is gone, not just the pipe closed.
  while (pid && alive(pid)) await Bun.sleep(1);
  return performance.now() - t0;
});

const rssKb = Number(/VmHWM:\s+(\d+)/.exec(await Bun.file(`/proc/${daemon.pid}/status`).text().catch(() => ""))?.[1] ?? NaN);
await daemon.stop();

progress(`analytics at ${int(opts.rows)} rows`);
const analytics = await benchAnalytics({ rows: opts.rows, progress });
const summary = analytics.queries.find((q) => q.name.startsWith("all rows")) ?? analytics.queries[0]!;

const figures = {
  bridge: {
    coldCallMs: coldBridge,
    warmCall: warmBridge,
    versionOnly: version,
    floor,
    warmRatio: warmBridge.p50Ms / floor.p50Ms,
    daemonPeakRssKb: rssKb,
  },
  direct: { warmCall: warmDirect, coldCall: coldDirect },
  analytics,
};

if (opts.json) {
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} else {
  const p = (s: LatencyStats) => `${ms(s.p50Ms)} / ${ms(s.p90Ms)} / ${ms(s.maxMs)}`;
  const us = (v: number) => `${v.toFixed(2)} µs`;
  const rows: string[][] = [
    ["`signet mcp everything echo`, first call (server cold)", ms(coldBridge), "", "whole process"],
    ["`signet mcp everything echo`, warm: p50 / p90 / max", p(warmBridge), verdict(warmBridge.p90Ms < TARGETS.warmCallMs), `whole process, target < ${TARGETS.warmCallMs} ms`],
    ["`bun -e 0` before each warm call: p50 / p90 / max", p(floor), "", "Bun's own start, the floor"],
    [
      "warm call's p50 / the floor's p50",
      `${(warmBridge.p50Ms / floor.p50Ms).toFixed(2)}×`,
      verdict(warmBridge.p50Ms / floor.p50Ms <= TARGETS.warmCallRatio),
      `target ≤ ${TARGETS.warmCallRatio.toFixed(1)}×`,
    ],
    ["`signet --version`: p50 / p90 / max", p(version), "", "process start alone"],
    ["direct SDK call, warm, in process: p50 / p90 / max", p(warmDirect), "", "reference"],
    ["direct SDK call, cold (spawn, initialize, call, exit): p50 / p90 / max", p(coldDirect), "", "reference"],
    ["bridge overhead over a warm direct call (p50)", ms(warmBridge.p50Ms - warmDirect.p50Ms), "", "the document's bar: 500 ms"],
    ["daemon peak RSS", Number.isFinite(rssKb) ? mib(rssKb * 1024) : "n/a", "", ""],
    [`analytics, ${int(analytics.rows)} rows: ${summary.name}, cold`, ms(summary.coldMs), "", "first query after the load"],
    ...analytics.queries.map((q) => [
      `analytics: ${q.name}, warm p50 / max`,
      `${ms(q.warmP50Ms)} / ${ms(q.warmMaxMs)}`,
      verdict(q.warmMaxMs < TARGETS.analyticsMs),
      `target < ${TARGETS.analyticsMs} ms`,
    ]),
    ["analytics store load at start", ms(analytics.loadMs), "", `${mib(analytics.storeBytes)} in memory`],
    ["recording: record() per call", us(analytics.record.recordUsPerCall), "", "on the call's path"],
    ["recording: flush per row (amortized)", us(analytics.record.flushUsPerRow), "", "off the call's path, batched"],
  ];
  process.stdout.write(`${markdownTable(["measure", "time", "verdict", "note"], rows, ["l", "r", "l", "l"])}\n`);
}
