// Hook benchmark: the whole-process time of `signet hook user-prompt-submit --harness claude-code`
// (spawn, read the hook JSON, reach the daemon, recall, print Claude Code's JSON, exit): what a
// harness adds to each prompt (docs/hooks.md). Uses the compiled binary (build it first: bun run
// build) against a real daemon on a throwaway data directory holding --memories memories.
//
//   bun scripts/bench-hook.ts [--memories 10000] [--prompts 200] [--provider none|builtin] [--json]
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseFlags } from "./lib/args";
import { makeQueryGenerator } from "./lib/content";
import { ROOT, agentYaml, installCleanup, makeTempDir, spawnDaemon } from "./lib/daemon";
import { markdownTable, ms, verdict } from "./lib/format";
import { rememberSynthetic, waitForEmbeddings } from "./lib/http";

const USAGE = "usage: bun scripts/bench-hook.ts [--memories N] [--prompts N] [--provider none|builtin] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  {
    memories: { kind: "int", min: 1 },
    prompts: { kind: "int", min: 1 },
    provider: { kind: "string", choices: ["builtin", "none"] },
    json: { kind: "bool" },
  },
  { memories: 10_000, prompts: 200, provider: "none", json: false },
  { script: "bench-hook", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[hook] ${line}\n`);
installCleanup(progress);

const TARGET_MS = 60;
const BIN = join(ROOT, "dist", "signet");
if (!existsSync(BIN)) {
  process.stderr.write(`bench-hook: ${BIN} is missing; build it with \`bun run build\`\n`);
  process.exit(2);
}

const dataDir = makeTempDir("signet-bench-hook-");
const daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml(opts.provider), binary: true });
progress(`daemon ${daemon.baseUrl} (pid ${daemon.pid}), loading ${opts.memories} memories`);
await rememberSynthetic(daemon.baseUrl, opts.memories);
if (opts.provider !== "none") await waitForEmbeddings(daemon.baseUrl, { progress });

const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dataDir, SIGNET_DAEMON_URL: daemon.baseUrl };
const qgen = makeQueryGenerator(7);
const prompts = Array.from({ length: opts.prompts }, () => qgen().query);

/** One hook process, spawn to exit, and the CPU time it used; its stdout must be Claude Code's hook JSON (or nothing). */
async function hook(event: string, payload: Record<string, unknown>): Promise<{ ms: number; cpuMs: number; injected: boolean }> {
  const t0 = performance.now();
  const proc = Bun.spawn([BIN, "hook", event, "--harness", "claude-code", "--data-dir", dataDir], {
    env,
    stdin: new Blob([JSON.stringify(payload)]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const elapsed = performance.now() - t0;
  if (code !== 0 || err.trim() !== "") throw new Error(`signet hook ${event} exited ${code}: ${err.trim()}`);
  if (out.trim() !== "") JSON.parse(out);
  return { ms: elapsed, cpuMs: cpuMs(proc), injected: out.includes("additionalContext") };
}

function cpuMs(proc: Bun.Subprocess): number {
  const cpu = proc.resourceUsage()?.cpuTime;
  return cpu ? Number(cpu.user + cpu.system) / 1000 : Number.NaN;
}

/** The floor on this machine: `signet --version`, which loads nothing but the binary. */
async function version(): Promise<number> {
  const t0 = performance.now();
  const proc = Bun.spawn([BIN, "--version"], { env, stdout: "ignore", stderr: "ignore" });
  await proc.exited;
  return performance.now() - t0;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const session = { session_id: "bench-hook-session", cwd: "/work/signet", hook_event_name: "SessionStart", source: "startup" };
progress("session-start, then a warm-up");
await hook("session-start", session);
for (const prompt of prompts.slice(0, 10)) await hook("user-prompt-submit", { ...session, hook_event_name: "UserPromptSubmit", prompt });
progress(`user-prompt-submit × ${prompts.length}`);
const times: number[] = [];
const cpu: number[] = [];
const floor: number[] = [];
let injected = 0;
for (const prompt of prompts) {
  const r = await hook("user-prompt-submit", { ...session, hook_event_name: "UserPromptSubmit", prompt });
  times.push(r.ms);
  cpu.push(r.cpuMs);
  if (r.injected) injected++;
  floor.push(await version());
}
await daemon.stop();

for (const list of [times, cpu, floor]) list.sort((a, b) => a - b);
const result = {
  memories: opts.memories,
  prompts: prompts.length,
  provider: opts.provider,
  injected,
  p50Ms: percentile(times, 50),
  p95Ms: percentile(times, 95),
  maxMs: times.at(-1)!,
  cpuP50Ms: percentile(cpu, 50),
  versionP50Ms: percentile(floor, 50),
  versionP95Ms: percentile(floor, 95),
};
if (opts.json) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  process.stdout.write(
    `Signet hook benchmark: ${result.memories} memories, ${result.prompts} prompts, provider ${result.provider}; ${injected} prompts got context\n\n`,
  );
  process.stdout.write(
    `${markdownTable(
      ["whole process", "p50", "p95", "max", "CPU p50", "target", ""],
      [
        ["signet hook user-prompt-submit --harness claude-code", ms(result.p50Ms), ms(result.p95Ms), ms(result.maxMs), ms(result.cpuP50Ms), `< ${TARGET_MS} ms`, verdict(result.p50Ms < TARGET_MS)],
        ["signet --version (this machine's floor for a process)", ms(result.versionP50Ms), ms(result.versionP95Ms), "", "", "", ""],
      ],
      ["l", "r", "r", "r", "r", "r", "l"],
    )}\n`,
  );
}
