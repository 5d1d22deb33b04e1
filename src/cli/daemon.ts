// `signet daemon`: run in the foreground, or start/stop/restart a background daemon and inspect it.
import { defineCommand } from "citty";
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { SignetClient } from "../client/client";
import type { Config } from "../config/schema";
import { isLockHeld, readPidFile, type PidInfo } from "../server/lock";
import { daemonFiles } from "../server/paths";
import { selfCommand } from "../self";
import { clientArgs, configFromFlags } from "./context";
import { EXIT, ExitError } from "./errors";
import { emit, outputArgs, type OutputFlags } from "./output";

const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;

const listenArgs = {
  port: { type: "string", description: "Port to listen on (default daemon.port / SIGNET_PORT, 3850)" },
  bind: { type: "string", description: "Address to bind (default daemon.bind / SIGNET_BIND, 127.0.0.1)" },
} as const;

/** True while `pid` runs. A zombie (exited, not yet reaped by init) counts as gone. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    // No /proc (macOS) or no such process: ask the kernel directly.
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(stepMs);
  }
  return check();
}

function tailLog(path: string, lines: number): string {
  if (!existsSync(path)) return "";
  const text = readFileSync(path, "utf8");
  return text.split("\n").filter(Boolean).slice(-lines).join("\n");
}

interface Status {
  running: boolean;
  dataDir: string;
  pid: number | null;
  url: string | null;
  healthy: boolean;
  version?: string;
  uptimeS?: number;
  memories?: number | null;
}

async function readStatus(config: Config): Promise<Status> {
  const held = isLockHeld(config.dataDir);
  const info = held ? readPidFile(config.dataDir) : null;
  const status: Status = { running: held, dataDir: config.dataDir, pid: info?.pid ?? null, url: info?.url ?? null, healthy: false };
  if (info) {
    try {
      const health = await new SignetClient({ baseUrl: info.url, timeoutMs: 2000 }).health();
      Object.assign(status, { healthy: true, version: health.version, uptimeS: health.uptimeS, memories: health.db.memories });
    } catch {
      status.healthy = false;
    }
  }
  return status;
}

function renderStatus(s: Status): string {
  if (!s.running) return `signet daemon: not running (data ${s.dataDir})`;
  const detail = s.healthy ? `v${s.version}, up ${s.uptimeS}s, ${s.memories} memories` : "not answering /health";
  return `signet daemon: running at ${s.url ?? "?"} (pid ${s.pid ?? "?"}, ${detail}, data ${s.dataDir})`;
}

async function startBackground(config: Config, flags: { port?: string; bind?: string }): Promise<PidInfo> {
  if (isLockHeld(config.dataDir)) {
    const info = readPidFile(config.dataDir);
    throw new ExitError(
      EXIT.failed,
      `a daemon is already running for ${config.dataDir}${info ? ` (pid ${info.pid}, ${info.url})` : ""}`,
    );
  }
  const files = daemonFiles(config.dataDir);
  mkdirSync(dirname(files.log), { recursive: true, mode: 0o700 });
  const logStart = existsSync(files.log) ? statSync(files.log).size : 0;
  const logFd = openSync(files.log, "a", 0o600);
  const [cmd, ...baseArgs] = selfCommand();
  const args = [...baseArgs, "daemon", "run"];
  if (flags.port !== undefined) args.push("--port", flags.port);
  if (flags.bind !== undefined) args.push("--bind", flags.bind);
  const child = spawn(cmd!, args, { detached: true, stdio: ["ignore", logFd, logFd], env: process.env });
  closeSync(logFd);
  let exitCode: number | null = null;
  child.on("exit", (code) => (exitCode = code ?? 1));
  child.unref();
  const started = await waitFor(async () => {
    if (exitCode !== null) return true;
    const info = readPidFile(config.dataDir);
    if (!info || info.pid !== child.pid) return false;
    try {
      await new SignetClient({ baseUrl: info.url, timeoutMs: 1000 }).health();
      return true;
    } catch {
      return false;
    }
  }, START_TIMEOUT_MS);
  const info = readPidFile(config.dataDir);
  if (exitCode !== null || !started || !info || info.pid !== child.pid) {
    if (exitCode === null && child.pid) process.kill(child.pid, "SIGKILL");
    const log = readFileSync(files.log, "utf8").slice(logStart).trim().split("\n").slice(-5).join("\n");
    throw new ExitError(EXIT.failed, `the daemon did not start${log ? `:\n${log}` : ""}\n(log: ${files.log})`);
  }
  return info;
}

async function stopDaemon(config: Config): Promise<{ stopped: boolean; pid: number | null }> {
  if (!isLockHeld(config.dataDir)) return { stopped: false, pid: null };
  const info = readPidFile(config.dataDir);
  if (!info) throw new ExitError(EXIT.failed, `a daemon holds the lock for ${config.dataDir} but wrote no pid file; stop it by hand`);
  process.kill(info.pid, "SIGTERM");
  const released = () => !isLockHeld(config.dataDir) && !alive(info.pid);
  if (!(await waitFor(released, STOP_TIMEOUT_MS))) {
    process.kill(info.pid, "SIGKILL");
    await waitFor(released, 2000);
  }
  return { stopped: true, pid: info.pid };
}

const run = defineCommand({
  meta: { name: "run", description: "Run the daemon in the foreground (logs to stderr; Ctrl-C stops it)" },
  args: listenArgs,
  async run({ args }) {
    const { runDaemonForeground } = await import("../server/daemon");
    await runDaemonForeground(configFromFlags(args));
  },
});

const start = defineCommand({
  meta: { name: "start", description: "Start the daemon in the background; returns once /health answers" },
  args: { ...listenArgs, ...outputArgs },
  async run({ args }) {
    const config = configFromFlags(args);
    const info = await startBackground(config, args);
    emit({ ...info, dataDir: config.dataDir, log: daemonFiles(config.dataDir).log }, args, (i) => `signet daemon started at ${i.url} (pid ${i.pid})`);
  },
});

async function stopAndReport(config: Config, flags: OutputFlags) {
  const result = await stopDaemon(config);
  emit(result, flags, (r) => (r.stopped ? `signet daemon stopped (pid ${r.pid})` : "signet daemon was not running"));
}

const stop = defineCommand({
  meta: { name: "stop", description: "Stop the background daemon gracefully" },
  args: outputArgs,
  async run({ args }) {
    await stopAndReport(configFromFlags({}), args);
  },
});

const restart = defineCommand({
  meta: { name: "restart", description: "Stop the daemon if it runs, then start it again" },
  args: { ...listenArgs, ...outputArgs },
  async run({ args }) {
    const config = configFromFlags(args);
    await stopDaemon(config);
    const info = await startBackground(config, args);
    emit(info, args, (i) => `signet daemon restarted at ${i.url} (pid ${i.pid})`);
  },
});

const status = defineCommand({
  meta: { name: "status", description: "Is the daemon running? Exit 0 if so, 1 if not" },
  args: outputArgs,
  async run({ args }) {
    const s = await readStatus(configFromFlags({}));
    emit(s, args, renderStatus);
    if (!s.running) throw new ExitError(EXIT.failed);
  },
});

const logs = defineCommand({
  meta: { name: "logs", description: "Print the daemon's log; -f follows it" },
  args: {
    follow: { type: "boolean", alias: "f", description: "Keep printing new lines as they are written" },
    lines: { type: "string", description: "How many of the last lines to print first (default 200)" },
  },
  async run({ args }) {
    const path = daemonFiles(configFromFlags({}).dataDir).log;
    const lines = args.lines === undefined ? 200 : Number(args.lines);
    const head = tailLog(path, Number.isFinite(lines) && lines > 0 ? lines : 200);
    if (head) process.stdout.write(`${head}\n`);
    if (!args.follow) return;
    let offset = existsSync(path) ? statSync(path).size : 0;
    for (;;) {
      await Bun.sleep(250);
      if (!existsSync(path)) continue;
      const size = statSync(path).size;
      if (size < offset) offset = 0;
      if (size > offset) {
        const chunk = await Bun.file(path).slice(offset, size).text();
        process.stdout.write(chunk);
        offset = size;
      }
    }
  },
});

const SUBCOMMANDS = { run, start, stop, restart, status, logs };

export default defineCommand({
  meta: { name: "daemon", description: "Run, start, stop and inspect the Signet daemon" },
  args: { ...clientArgs },
  subCommands: SUBCOMMANDS,
  async run({ args, rawArgs }) {
    if (rawArgs.some((a) => a in SUBCOMMANDS)) return;
    const s = await readStatus(configFromFlags({}));
    emit(s, args, (st) =>
      [
        renderStatus(st),
        "",
        "commands: signet daemon run | start | stop | restart | status | logs [-f]",
        "  run       serve in the foreground",
        "  start     start in the background and wait until it answers",
        "  stop      stop gracefully",
        "  status    exit 0 when running, 1 when not",
        "  logs      print the log (-f to follow)",
      ].join("\n"),
    );
    if (!s.running) throw new ExitError(EXIT.failed);
  },
});
