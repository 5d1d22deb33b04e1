// `signet daemon`: run in the foreground, or start/stop/restart a background daemon and inspect it.
import { terminalText } from "./terminal-text";
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { existsSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { answeringDaemon, readStatus, startBackground, stopDaemon, type Status } from "../control/daemon-process";
import { readPidFile, recordedProcessLives, type PidInfo } from "../config/daemon-record";
import { resolveDataDir } from "../config/load";
import { isLockHeld } from "../control/lock";
import { daemonFiles } from "../config/paths";
import { createLogger } from "../logger";
import { configFromFlags } from "./context";
import { EXIT, ExitError, UsageError } from "./errors";
import { emit, outputArgs, stdout } from "./output";

/** What `start` and `restart` log before the daemon has its own log (tightened modes, say). */
const log = createLogger("signet");

const listenArgs = {
  port: { type: "string", description: "Port to listen on (default daemon.port / SIGNET_PORT, 3850)" },
  bind: { type: "string", description: "Address to bind (default daemon.bind / SIGNET_BIND, 127.0.0.1)" },
} as const;

function tailLog(path: string, lines: number): string {
  if (!existsSync(path)) return "";
  const text = readFileSync(path, "utf8");
  return text.split("\n").filter(Boolean).slice(-lines).join("\n");
}

/**
 * Where the running daemon's stderr goes when that is not `logPath`: a daemon run in the foreground
 * (`signet daemon run`) logs there, not to the file. Read from /proc, so on Linux only; undefined
 * when no daemon runs, it logs to the file, or this cannot be told.
 */
function foregroundOutput(dataDir: string, logPath: string): { pid: number; target: string } | undefined {
  const info = isLockHeld(dataDir) ? readPidFile(dataDir) : null;
  if (!info || !recordedProcessLives(info)) return undefined;
  let target: string;
  try {
    target = readlinkSync(`/proc/${info.pid}/fd/2`);
  } catch {
    return undefined;
  }
  const log = existsSync(logPath) ? realpathSync(logPath) : logPath;
  return target === log ? undefined : { pid: info.pid, target };
}

function renderStatus(s: Status): string {
  if (!s.running) return `signet daemon: not running (data ${s.dataDir})`;
  const detail = s.healthy ? `v${s.version}, up ${s.uptimeS}s, ${s.memories} memories` : "not answering /health";
  return `signet daemon: running at ${s.url ?? "?"} (pid ${s.pid ?? "?"}, ${detail}, data ${s.dataDir})`;
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
    const { dataDir } = config;
    const where = { dataDir, log: daemonFiles(dataDir).log };
    // What was asked for is already so: say where it runs, and succeed.
    const alreadyRunning = (info: PidInfo) =>
      emit({ alreadyRunning: true, pid: info.pid, url: info.url, ...where }, args, (r) => `signet daemon already running at ${r.url} (pid ${r.pid})`);
    // A daemon holds the lock: one that runs, or one that another start began a moment ago and that
    // is still opening its store. It is the answer once it answers /health (null: it went away first).
    const holder = async () => (isLockHeld(dataDir) ? answeringDaemon(dataDir) : null);
    const running = await holder();
    if (running) return alreadyRunning(running);
    let started: PidInfo;
    try {
      started = await startBackground(config, args, log);
    } catch (err) {
      // Another start won the race to the lock (its daemon took it; ours exited): that one is the answer.
      const winner = await holder();
      if (winner) return alreadyRunning(winner);
      throw err;
    }
    // The record's own bookkeeping (its process start time, for clients' identity check) is not the answer.
    const { pid, port, url, startedAt, version } = started;
    emit({ alreadyRunning: false, pid, port, url, startedAt, version, ...where }, args, (i) => `signet daemon started at ${i.url} (pid ${i.pid})`);
  },
});

// stop, status and logs need the data directory alone, not a valid agent.yaml: one that is not must
// not keep its daemon from being stopped or looked at.
const stop = defineCommand({
  meta: { name: "stop", description: "Stop the background daemon gracefully" },
  args: outputArgs,
  async run({ args }) {
    const result = await stopDaemon({ dataDir: resolveDataDir() });
    emit(result, args, (r) => (r.stopped ? `signet daemon stopped (pid ${r.pid})` : "signet daemon was not running"));
  },
});

const restart = defineCommand({
  meta: { name: "restart", description: "Stop the daemon if it runs, then start it again" },
  args: { ...listenArgs, ...outputArgs },
  async run({ args }) {
    const config = configFromFlags(args);
    await stopDaemon(config);
    const info = await startBackground(config, args, log);
    emit(info, args, (i) => `signet daemon restarted at ${i.url} (pid ${i.pid})`);
  },
});

const status = defineCommand({
  meta: { name: "status", description: "Is the daemon running? Exit 0 if so, 1 if not" },
  args: outputArgs,
  async run({ args }) {
    const s = await readStatus({ dataDir: resolveDataDir() });
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
    if (args.lines !== undefined && !/^[1-9]\d*$/.test(args.lines.trim())) {
      throw new UsageError(`--lines ${JSON.stringify(args.lines)} is not a number of lines: give a whole number of at least 1 (default 200)`);
    }
    const dataDir = resolveDataDir();
    const path = daemonFiles(dataDir).log;
    const head = tailLog(path, args.lines === undefined ? 200 : Number(args.lines));
    // The log quotes servers' stderr and request paths: shown, never obeyed, by the terminal.
    if (head) stdout().write(`${terminalText(head)}\n`);
    const foreground = foregroundOutput(dataDir, path);
    if (foreground) {
      const to = foreground.target.startsWith("/") ? foreground.target : "a pipe or socket";
      log.info(
        `the daemon (pid ${foreground.pid}) runs in the foreground (\`signet daemon run\`) and logs to its own stderr (${to}), ` +
          `not to ${path}${head ? ": the lines above are older" : ""}. Look where it was started, or run it with \`signet daemon start\` to log to this file.`,
      );
      return;
    }
    if (!head) log.info(`no log yet at ${path}: \`signet daemon start\` writes it (\`signet daemon run\` logs to its stderr instead)`);
    if (!args.follow) return;
    // Loaded when following only: bun:ffi is no cost of the other daemon commands.
    const { readerGone } = await import("../os/libc");
    let offset = existsSync(path) ? statSync(path).size : 0;
    for (;;) {
      await Bun.sleep(250);
      // A reader that left (`| head -1`) ends the command now, not at the next line the daemon writes.
      if (readerGone(1)) return;
      if (!existsSync(path)) continue;
      const size = statSync(path).size;
      if (size < offset) offset = 0;
      if (size > offset) {
        const chunk = await Bun.file(path).slice(offset, size).text();
        stdout().write(terminalText(chunk));
        offset = size;
      }
    }
  },
});

export default defineCommand({
  meta: { name: "daemon", description: COMMAND_DESCRIPTIONS.daemon },
  // The data directory's daemon (SIGNET_PATH), found from its lock and record: no URL or agent applies.
  args: outputArgs,
  subCommands: { run, start, stop, restart, status, logs },
  async run({ args }) {
    const s = await readStatus({ dataDir: resolveDataDir() });
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
