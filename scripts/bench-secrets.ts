// secret_exec job latency (docs/api.md#secret-exec): an in-process daemon on a throwaway data
// directory runs `true` with one injected secret, one job at a time, and the job's own timestamps
// give queue-to-done (createdAt to finishedAt); the client's view (POST until a poll sees it done,
// polling every 5 ms) is shown beside it.
//
//   bun scripts/bench-secrets.ts               50 jobs
//   bun scripts/bench-secrets.ts --runs 200    more
//   bun scripts/bench-secrets.ts --sandbox off jobs without the bubblewrap sandbox (as where none works)
//   bun scripts/bench-secrets.ts --json        machine-readable results on stdout
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config/load";
import { startDaemon } from "../src/server/daemon";
import { parseFlags } from "./lib/args";
import { installCleanup, makeTempDir, removeTempDir } from "./lib/daemon";
import { markdownTable } from "./lib/format";

const USAGE = "usage: bun scripts/bench-secrets.ts [--runs N] [--sandbox auto|off] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  { runs: { kind: "int", min: 1 }, sandbox: { kind: "string", choices: ["auto", "off"] }, json: { kind: "bool" } },
  { runs: 50, sandbox: "auto", json: false },
  { script: "bench-secrets", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[secrets] ${line}\n`);
installCleanup(progress);

const dir = makeTempDir();
writeFileSync(join(dir, "agent.yaml"), `embedding:\n  provider: none\nsecrets:\n  sandbox: ${opts.sandbox}\n`);
const config = loadConfig({ env: { SIGNET_PATH: dir, HOME: dir } });
const silent = { info() {}, warn() {}, error() {} };
const daemon = await startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } }, { log: silent });
const headers = {
  "content-type": "application/json",
  authorization: `Bearer ${daemon.context.credentials.adminToken}`,
};
const api = async (method: string, path: string, body?: unknown) =>
  (await fetch(`${daemon.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<any>;

const nearest = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;

try {
  await api("PUT", "/api/secrets/BENCH", { value: "bench-secret-value" });
  const server: number[] = [];
  const client: number[] = [];
  progress(`${opts.runs} jobs of \`true\`, one at a time, sandbox ${opts.sandbox}`);
  for (let i = 0; i < opts.runs; i++) {
    const t0 = performance.now();
    const { id } = await api("POST", "/api/secrets/exec", { command: "true", secrets: { X: "BENCH" } });
    let job = await api("GET", `/api/secrets/exec/${id}`);
    while (job.status === "queued" || job.status === "running") {
      await Bun.sleep(5);
      job = await api("GET", `/api/secrets/exec/${id}`);
    }
    client.push(performance.now() - t0);
    if (job.status !== "completed" || job.exitCode !== 0) throw new Error(`job ${id} ended ${job.status}: ${job.error ?? ""}`);
    server.push(Date.parse(job.finishedAt) - Date.parse(job.createdAt));
  }
  server.sort((a, b) => a - b);
  client.sort((a, b) => a - b);
  const figures = {
    runs: opts.runs,
    queueToDoneMs: { p50: nearest(server, 50), p95: nearest(server, 95), max: server.at(-1)! },
    clientRoundTripMs: { p50: nearest(client, 50), p95: nearest(client, 95), max: client.at(-1)! },
  };
  if (opts.json) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  else {
    const f = (v: number) => `${v.toFixed(1)} ms`;
    process.stdout.write(
      `${markdownTable(
        ["secret_exec `true`", "p50", "p95", "max"],
        [
          ["queue to done (job timestamps)", f(figures.queueToDoneMs.p50), f(figures.queueToDoneMs.p95), f(figures.queueToDoneMs.max)],
          ["client: POST to a poll seeing it done", f(figures.clientRoundTripMs.p50), f(figures.clientRoundTripMs.p95), f(figures.clientRoundTripMs.max)],
        ],
        ["l", "r", "r", "r"],
      )}\n`,
    );
  }
} finally {
  await daemon.stop();
  removeTempDir(dir);
}
