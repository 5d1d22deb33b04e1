// CLI start benchmark: the whole-process wall time and peak RSS of the commands a user (or a
// harness, at every prompt) starts most, each next to Bun's own start (`bun -e 0`) measured in the
// same run, one floor run right before each command run, so a busy machine slows both alike: the
// ratio of the medians is the figure that counts (the CPU ratio, user + system time, moves less with
// the machine's load). `signet list` and `signet hook` talk to a real
// daemon (the compiled binary) on a throwaway SIGNET_PATH holding --memories memories, stopped at
// the end. Peak RSS comes from GNU time (`/usr/bin/time`; "n/a" without it) in a few extra runs of
// each: the rusage Bun reports for a child it spawned also counts the spawning Bun's own pages.
//
//   bun scripts/bench-cli-start.ts [--runs 21] [--memories 200] [--binary dist/signet] [--json]
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Subprocess } from "bun";
import { parseFlags } from "./lib/args";
import { ROOT, agentYaml, installCleanup, makeTempDir, runBench, spawnDaemon } from "./lib/daemon";
import { markdownTable, mib, ms, verdict } from "./lib/format";
import { makeQueryGenerator } from "./lib/content";
import { rememberSynthetic } from "./lib/http";

const USAGE = "usage: bun scripts/bench-cli-start.ts [--runs N] [--memories N] [--binary PATH] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  { runs: { kind: "int", min: 1 }, memories: { kind: "int", min: 1 }, binary: { kind: "string" }, json: { kind: "bool" } },
  { runs: 21, memories: 200, binary: "dist/signet", json: false },
  { script: "bench-cli-start", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[cli-start] ${line}\n`);
installCleanup(progress);

const BIN = resolve(ROOT, opts.binary);
if (!existsSync(BIN)) {
  process.stderr.write(`bench-cli-start: ${BIN} is missing; build it with \`bun run build\`\n`);
  process.exit(2);
}
const WARMUP_ROUNDS = 2;

// A command's children are short-lived, but a Ctrl-C can land while one runs: it goes too.
const live = new Set<Subprocess>();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

const GNU_TIME = "/usr/bin/time";
const RSS_RUNS = 3;

interface Case {
  label: string;
  argv: string[];
  /** What the command reads on stdin, made anew for each run. */
  stdin?: () => string;
  /** Ratio to `bun -e 0` the command should stay within; none for commands the issue sets none for. */
  target?: number;
  /** Throws unless the output is what the command answers when it works. */
  check(stdout: string): void;
}

async function run(argv: string[], env: Record<string, string>, stdin?: string): Promise<{ ms: number; cpuMs: number; stdout: string; stderr: string }> {
  const t0 = performance.now();
  const proc = Bun.spawn(argv, { env, stdin: stdin === undefined ? "ignore" : new Blob([stdin]), stdout: "pipe", stderr: "pipe" });
  live.add(proc);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const elapsed = performance.now() - t0;
  live.delete(proc);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${stderr.trim()}`);
  const cpu = proc.resourceUsage()?.cpuTime;
  return { ms: elapsed, cpuMs: cpu ? Number(cpu.user + cpu.system) / 1000 : Number.NaN, stdout, stderr };
}

/** The highest peak RSS in bytes over a few runs under GNU time; NaN without it. */
async function peakRss(argv: string[], env: Record<string, string>, stdin?: () => string): Promise<number> {
  if (!existsSync(GNU_TIME)) return Number.NaN;
  let peak = 0;
  for (let i = 0; i < RSS_RUNS; i++) {
    const { stderr } = await run([GNU_TIME, "-f", "maxrss_kb=%M", ...argv], env, stdin?.());
    const kb = /maxrss_kb=(\d+)\s*$/.exec(stderr)?.[1];
    if (kb === undefined) throw new Error(`${GNU_TIME} printed no peak RSS for ${argv.join(" ")}: ${stderr.trim()}`);
    peak = Math.max(peak, Number(kb) * 1024);
  }
  return peak;
}

const rss = (bytes: number) => (Number.isFinite(bytes) ? mib(bytes) : "n/a");
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<string> {
  const dataDir = makeTempDir("signet-bench-cli-start-");
  const daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml("none"), binary: true });
  progress(`daemon ${daemon.baseUrl} (pid ${daemon.pid}), loading ${opts.memories} memories`);
  await rememberSynthetic(daemon.baseUrl, opts.memories);

  // The CLI finds the daemon the way a user's does: through the record in its data directory.
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dataDir, SIGNET_PATH: dataDir, NO_COLOR: "1" };
  // A new session each run: the daemon adds no memory twice to one session, and each prompt should
  // cost a whole recall.
  const queries = makeQueryGenerator(7);
  let sessions = 0;
  const prompt = () => JSON.stringify({ session_id: `bench-cli-start-${++sessions}`, cwd: dataDir, hook_event_name: "UserPromptSubmit", prompt: queries().query });
  const cases: Case[] = [
    { label: "signet --version", argv: [BIN, "--version"], target: 1.4, check: (out) => expect(/^signet \S+\n$/.test(out), `unexpected --version output: ${out}`) },
    { label: "signet --help", argv: [BIN, "--help"], check: (out) => expect(out.includes("list") && out.includes("hook"), "--help does not list the commands") },
    {
      label: "signet list --limit 1",
      argv: [BIN, "list", "--limit", "1"],
      target: 2.0,
      check: (out) => expect((JSON.parse(out) as { memories: unknown[] }).memories.length === 1, "list --limit 1 did not return one memory"),
    },
    {
      label: "signet recall <query>",
      argv: [BIN, "recall", "which database do we use for the orders service?"],
      check: (out) => expect(Array.isArray((JSON.parse(out) as { results?: unknown }).results), "recall did not answer its results"),
    },
    {
      label: "signet hook user-prompt-submit",
      argv: [BIN, "hook", "user-prompt-submit", "--harness", "claude-code"],
      stdin: prompt,
      target: 1.6,
      check: (out) => expect(out.trim() === "" || "hookSpecificOutput" in (JSON.parse(out) as object), `unexpected hook output: ${out}`),
    },
  ];
  const floorArgv = [process.execPath, "-e", "0"];
  const samples = cases.map(() => ({ cmd: [] as number[], floor: [] as number[], cmdCpu: [] as number[], floorCpu: [] as number[] }));

  progress(`${WARMUP_ROUNDS} warm-up rounds, then ${opts.runs} rounds of ${cases.length} commands, each after a \`bun -e 0\``);
  for (let round = 0; round < WARMUP_ROUNDS + opts.runs; round++) {
    for (const [i, c] of cases.entries()) {
      const floor = await run(floorArgv, env);
      const cmd = await run(c.argv, env, c.stdin?.());
      c.check(cmd.stdout);
      if (round < WARMUP_ROUNDS) continue;
      samples[i]!.floor.push(floor.ms);
      samples[i]!.cmd.push(cmd.ms);
      samples[i]!.floorCpu.push(floor.cpuMs);
      samples[i]!.cmdCpu.push(cmd.cpuMs);
    }
  }
  progress(`peak RSS: ${RSS_RUNS} more runs of each under ${GNU_TIME}`);
  const floorRss = await peakRss(floorArgv, env);
  const cmdRss: number[] = [];
  for (const c of cases) cmdRss.push(await peakRss(c.argv, env, c.stdin));
  await daemon.stop();

  const rows = cases.map((c, i) => {
    const s = samples[i]!;
    const cmdMs = median(s.cmd);
    const floorMs = median(s.floor);
    return {
      command: c.label,
      medianMs: cmdMs,
      peakRssBytes: cmdRss[i]!,
      floorMedianMs: floorMs,
      floorPeakRssBytes: floorRss,
      ratio: cmdMs / floorMs,
      cpuMedianMs: median(s.cmdCpu),
      floorCpuMedianMs: median(s.floorCpu),
      target: c.target ?? null,
    };
  });
  if (opts.json) return JSON.stringify({ runs: opts.runs, memories: opts.memories, binary: BIN, rows }, null, 2);
  const table = markdownTable(
    ["whole process", "median", "peak RSS", "`bun -e 0` median", "`bun -e 0` peak RSS", "ratio", "target", "", "CPU ratio"],
    rows.map((r) => [
      `\`${r.command}\``,
      ms(r.medianMs),
      rss(r.peakRssBytes),
      ms(r.floorMedianMs),
      rss(r.floorPeakRssBytes),
      `${r.ratio.toFixed(2)}×`,
      r.target === null ? "" : `≤ ${r.target.toFixed(1)}×`,
      r.target === null ? "" : verdict(r.ratio <= r.target),
      `${(r.cpuMedianMs / r.floorCpuMedianMs).toFixed(2)}×`,
    ]),
    ["l", "r", "r", "r", "r", "r", "r", "l", "r"],
  );
  return `Signet CLI start: ${opts.runs} paired runs (medians), ${opts.memories} memories, ${BIN}\n\n${table}`;
}

function expect(ok: boolean, message: string): void {
  if (!ok) throw new Error(message);
}

await runBench(main, progress);
