// What a running daemon records about itself in `.daemon/daemon.pid` (src/control/lock.ts writes
// it once it listens, and takes it away when it stops), and how a client finds that daemon from it:
// every CLI command, `signet hook` and signet-mcp look here before they fall back to the configured
// port, so a daemon started on another port is still the one its data directory's clients reach.
import { lstatSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { procInfo } from "../os/proc-stat";
import { parseDaemonUrl } from "./daemon-url";
import { daemonFiles } from "./paths";

export interface PidInfo {
  pid: number;
  port: number;
  url: string;
  startedAt: string;
  version: string;
  /** The process's start in clock ticks since boot (/proc/<pid>/stat), on Linux: with the pid, it names one process. */
  processStart?: string;
  /** Written as the daemon begins to stop: from then on its port may be closed. */
  stopping?: boolean;
}

/** The record, or null when there is none or it cannot be read. */
export function readPidFile(dataDir: string): PidInfo | null {
  try {
    const info = JSON.parse(readFileSync(daemonFiles(dataDir).pid, "utf8")) as PidInfo;
    return Number.isInteger(info?.pid) ? info : null;
  } catch {
    return null;
  }
}

/** Whether `pid` is a process of this account: a signal 0, no more (another account's pid is not our daemon). */
function ours(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the process the record names is the one that wrote it: alive and ours, and, where the
 * record has its start time and /proc tells (Linux), started then. A record left by a daemon that
 * was killed names a process that is gone, or by now another process that got its pid: neither is
 * the daemon. One read of /proc/<pid>/stat, or a signal 0 where there is none.
 */
export function recordedProcessLives(info: PidInfo): boolean {
  if (!Number.isInteger(info.pid) || info.pid <= 0) return false;
  if (info.processStart !== undefined) {
    const proc = procInfo(info.pid);
    if (proc) return proc.state !== "Z" && proc.started === info.processStart && ours(info.pid);
  }
  return ours(info.pid);
}

/**
 * Where the data directory's daemon runs now, as a client reaches it: the recorded URL, with a
 * wildcard bind (`0.0.0.0`, `::`) reached at 127.0.0.1. Undefined when no record names the live
 * process that wrote it (recordedProcessLives). One small file read and one of /proc (or a signal
 * 0): no request, so it costs a hook nothing it would notice. The client still has the daemon prove
 * its identity before it sends anything (src/client/client.ts).
 */
export function runningDaemonUrl(dataDir: string): string | undefined {
  const info = readPidFile(dataDir);
  if (!info || !recordedProcessLives(info)) return undefined;
  try {
    const url = new URL(info.url);
    const host = url.hostname === "0.0.0.0" || url.hostname === "[::]" ? "127.0.0.1" : url.hostname;
    return parseDaemonUrl(`http://${host}:${info.port}`);
  } catch {
    return undefined;
  }
}

/**
 * Whether the record alone shows that what listens at `origin` is this data directory's daemon, so
 * a client need not have it answer a challenge first (src/client/client.ts). On Linux it does when
 * the record, an owner-only file of this account, names a live process of this account (pid and
 * start time, so not a reused pid) in this network namespace, listening on exactly `origin` and
 * not stopping: while that process lives it holds the address, and no other process of another
 * account can bind it. Anything else, or any doubt, answers false and the client asks.
 */
export function recordVouchesFor(dataDir: string, origin: string): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return false;
  try {
    const file = lstatSync(daemonFiles(dataDir).pid);
    if (!file.isFile() || file.uid !== uid || (file.mode & 0o022) !== 0) return false;
    const info = readPidFile(dataDir);
    if (!info || info.stopping || info.processStart === undefined || parseDaemonUrl(info.url) !== origin) return false;
    const proc = procInfo(info.pid);
    if (!proc || proc.state === "Z" || proc.started !== info.processStart) return false;
    return statSync(`/proc/${info.pid}`).uid === uid && readlinkSync(`/proc/${info.pid}/ns/net`) === readlinkSync("/proc/self/ns/net");
  } catch {
    return false;
  }
}
