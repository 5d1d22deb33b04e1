// Controlling the daemon as a background process: start it detached and wait until it answers,
// stop it gracefully, read its status. Used by `signet daemon` and by autostart (autostart.ts).
import { spawn } from "node:child_process";
import { closeSync, constants, fstatSync, readFileSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import { SignetClient } from "../client/client";
import type { Config } from "../config/schema";
import type { Logger } from "../logger";
import { procStatFields } from "../os/proc-stat";
import { secureDataDir } from "./data-dir";
import { makeOwnerOnlyDir, openOwnerOnly } from "../os/owner-only-files";
import { assertDataDir, isLockHeld } from "./lock";
import { readPidFile, recordedProcessLives, type PidInfo } from "../config/daemon-record";
import { daemonFiles } from "../config/paths";
import { selfCommand } from "../self";

class DaemonControlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DaemonControlError";
  }
}

const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;


/** True while `pid` runs. A zombie (exited, not yet reaped by init) counts as gone. */
export function alive(pid: number): boolean {
  const fields = procStatFields(pid);
  if (fields) return fields[0] !== "Z";
  // No /proc (macOS) or no such process: ask the kernel directly.
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(stepMs);
  }
  return check();
}


export interface Status {
  running: boolean;
  dataDir: string;
  pid: number | null;
  url: string | null;
  healthy: boolean;
  version?: string;
  uptimeS?: number;
  memories?: number | null;
}

/**
 * The data directory's record when the process it names is the one that wrote it: a record left
 * by a daemon that died names another process, or none, while a new daemon starts.
 */
function liveRecord(dataDir: string): PidInfo | null {
  const info = readPidFile(dataDir);
  return info && recordedProcessLives(info) ? info : null;
}

/** Needs the data directory alone (no valid configuration): `signet daemon status` and `stop` answer whatever agent.yaml holds. */
export async function readStatus({ dataDir }: { dataDir: string }): Promise<Status> {
  const held = isLockHeld(dataDir);
  const info = held ? liveRecord(dataDir) : null;
  const status: Status = { running: held, dataDir, pid: info?.pid ?? null, url: info?.url ?? null, healthy: false };
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

/**
 * The data directory's daemon when one runs: the process its pid file names is alive and holds the
 * lock. One read of the pid file; the lock is probed only when that process lives.
 */
export function runningDaemon(dataDir: string): PidInfo | null {
  const info = liveRecord(dataDir);
  return info && isLockHeld(dataDir) ? info : null;
}

/**
 * The daemon that holds the data directory's lock, once it answers /health: one that runs, or one
 * another `signet daemon start` (or a client's autostart) started a moment ago and that is still
 * opening its store. Null when the lock is released first (that daemon stopped, or failed to
 * start); throws when it holds the lock without answering for `timeoutMs`.
 */
export async function answeringDaemon(dataDir: string, timeoutMs = START_TIMEOUT_MS): Promise<PidInfo | null> {
  let found: PidInfo | null = null;
  let released = false;
  await waitFor(async () => {
    if (!isLockHeld(dataDir)) return (released = true);
    const info = liveRecord(dataDir);
    if (!info || info.stopping) return false;
    try {
      await new SignetClient({ baseUrl: info.url, timeoutMs: 1000 }).health();
      found = info;
      return true;
    } catch {
      return false;
    }
  }, timeoutMs);
  if (found || released) return found;
  const info = liveRecord(dataDir);
  const who = info ? ` (pid ${info.pid}, ${info.url})` : "";
  throw new DaemonControlError(
    `a daemon holds the lock of ${dataDir}${who} but did not answer /health within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}: ` +
      `look at its log (${daemonFiles(dataDir).log}), then \`signet daemon restart\``,
  );
}

/**
 * What to tell a client that got no answer at `url` while the data directory's daemon runs
 * (`info`, looked up unless the caller has): that it hangs on that port, or that it runs on
 * another. Undefined when no daemon of this data directory runs, where "not running" is right.
 */
export function explainNoAnswer(config: Config, url: string, detail: string, silent: boolean, info = runningDaemon(config.dataDir)): string | undefined {
  if (!info) return undefined;
  const called = new URL(url);
  if (silent && info.port === (Number(called.port) || 80)) {
    return (
      `the Signet daemon for ${config.dataDir} runs (pid ${info.pid}, port ${info.port}) but does not answer (${detail}): ` +
      `restart it with \`signet daemon restart\`, and look at its log at ${daemonFiles(config.dataDir).log} for why it hangs`
    );
  }
  if (new URL(info.url).origin === called.origin) return undefined;
  // Clients find the running daemon by themselves (src/config/daemon-record.ts) unless told another URL.
  return (
    `${url} did not answer (${detail}), but the Signet daemon for ${config.dataDir} runs at ${info.url} (pid ${info.pid}): ` +
    `clients reach it by themselves unless SIGNET_DAEMON_URL or --url names another address: unset it or set it to ${info.url}, or move the daemon with \`signet daemon restart\``
  );
}

/** `log` is the caller's (the CLI's or signet-mcp's): the daemon logs to its own file. */
export async function startBackground(config: Config, flags: { port?: string; bind?: string }, log: Logger): Promise<PidInfo> {
  // Before anything is opened in .daemon: the log below is created there, ahead of the daemon's own check.
  assertDataDir(config.dataDir);
  secureDataDir(config.dataDir, log);
  if (isLockHeld(config.dataDir)) {
    const info = readPidFile(config.dataDir);
    throw new DaemonControlError(
      `a daemon is already running for ${config.dataDir}${info ? ` (pid ${info.pid}, ${info.url})` : ""}`,
    );
  }
  const files = daemonFiles(config.dataDir);
  makeOwnerOnlyDir(dirname(files.log));
  const logFd = openOwnerOnly(files.log, constants.O_WRONLY | constants.O_APPEND);
  const logStart = fstatSync(logFd).size;
  const [cmd, ...baseArgs] = selfCommand();
  const args = [...baseArgs, "daemon", "run"];
  if (flags.port !== undefined) args.push("--port", flags.port);
  if (flags.bind !== undefined) args.push("--bind", flags.bind);
  // argv0 "signet": a copy of the binary named signet-mcp must still start the daemon, not MCP mode.
  const child = spawn(cmd!, args, { argv0: "signet", detached: true, stdio: ["ignore", logFd, logFd], env: process.env });
  closeSync(logFd);
  let exitCode: number | null = null;
  let exitSignal: string | null = null;
  child.on("exit", (code, signal) => {
    exitCode = code ?? 1;
    exitSignal = signal;
  });
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
    const tail = readFileSync(files.log, "utf8").slice(logStart).trim().split("\n").slice(-5).join("\n");
    const why = tail || whyNothingLogged(config.dataDir, exitCode !== null ? { code: exitCode, signal: exitSignal } : null);
    throw new DaemonControlError(`the daemon did not start${why ? `:\n${why}` : ""}\n(log: ${files.log})`);
  }
  return info;
}

/**
 * Why a daemon that did not start left nothing in its log: the file system holding `dataDir` is full
 * (its own error could not be written either), or how it ended (`exit`; null when it was still
 * running and was killed for not answering). `statfs` is node:fs's, given for tests.
 */
export function whyNothingLogged(
  dataDir: string,
  exit: { code: number | null; signal: string | null } | null,
  statfs: (path: string) => { bavail: number | bigint; bsize: number | bigint } = statfsSync,
): string {
  try {
    const fs = statfs(dataDir);
    if (Number(fs.bavail) === 0) return `the file system holding ${dataDir} is full: the daemon cannot write its database or its log; free some space and start it again`;
  } catch {
    // No answer about the file system: say what is known of the process.
  }
  if (exit === null) return `it did not answer within ${START_TIMEOUT_MS / 1000} s and wrote nothing to its log`;
  return `it ended (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`}) before writing anything to its log`;
}

/** Needs the data directory alone: an invalid agent.yaml does not keep a daemon from being stopped. */
export async function stopDaemon({ dataDir }: { dataDir: string }): Promise<{ stopped: boolean; pid: number | null }> {
  if (!isLockHeld(dataDir)) return { stopped: false, pid: null };
  const info = liveRecord(dataDir);
  if (!info) throw new DaemonControlError(`a daemon holds the lock for ${dataDir} but its pid file names no process of it (it may still be starting); try again, or stop it by hand`);
  process.kill(info.pid, "SIGTERM");
  const released = () => !isLockHeld(dataDir) && !alive(info.pid);
  if (!(await waitFor(released, STOP_TIMEOUT_MS))) {
    process.kill(info.pid, "SIGKILL");
    await waitFor(released, 2000);
  }
  return { stopped: true, pid: info.pid };
}

