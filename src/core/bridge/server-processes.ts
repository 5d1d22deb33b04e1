// What a bridged stdio server leaves outside its process group. Closing a server signals its group
// (stdio-transport.ts), but a descendant that called setsid() leads a group of its own: it would
// outlive the server, the daemon's stop and the sweep after a crash.
//
// Which processes are ours to end. Every server starts with SIGNET_BRIDGE_SERVER=<token>:<n> in
// its environment: the token is random for each daemon, n counts its server starts. Descendants
// inherit it whatever group or session they move to, and /proc/<pid>/environ (readable for the
// user's own processes) shows the environment a process started with. Once server n has exited,
// ours are: the processes carrying its marker; those in its session (the server leads one: this
// names zombies, whose environment is gone); those recorded under it while it ran (pid and start
// time: a descendant that cleared its environment); and every descendant of these. No other
// program's process carries the marker, so none is ever ours: not even in a test process, where
// daemons run next to unrelated children and grandchildren.
//
// The daemon is the child subreaper (libc.ts) where Linux allows: orphans among the servers'
// descendants become its children instead of init's, so all of them stay in its subtree, which is
// cheap to walk (the kernel lists each process's children), and it collects the exit status of
// those it ends (nobody else would: each would stay a zombie). Without it, ends look through every
// process. While servers run, a look at the subtree every few seconds records what they detached,
// for the ledger a daemon killed outright leaves behind (child-ledger.ts).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { allPids, childPids, procInfo, type ProcInfo } from "../../os/proc-stat";
import { isChildSubreaper, reapChild } from "../../os/libc";

/** A process noted by pid and start time, so a reused pid is never mistaken for it. */
export interface Recorded {
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22). */
  started: string;
}

/** Where the running servers' processes are noted for the sweep after a crash (child-ledger.ts). */
export interface ProcessLedger {
  setMarker(marker: string): void;
  addGroup(pid: number): void;
  removeGroup(pid: number): void;
  setProcesses(processes: Recorded[]): void;
}

export const MARKER_ENV = "SIGNET_BRIDGE_SERVER";
const SCAN_MS = 2000;
/** How long an end waits for what it killed to exit, to collect it. */
const REAP_WAIT_MS = 2000;

interface Proc extends ProcInfo {
  marker?: string;
}

/** SIGNET_BRIDGE_SERVER in the environment `pid` started with. */
function markerOf(pid: number): string | undefined {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return undefined;
  }
  const key = `${MARKER_ENV}=`;
  return environ
    .split("\0")
    .find((entry) => entry.startsWith(key))
    ?.slice(key.length);
}

/** The processes among `pids`; markers are read for those started at `markersSince` (ticks) or later. */
export function snapshot(pids: Iterable<number>, markersSince = 0): Proc[] {
  const procs: Proc[] = [];
  for (const pid of pids) {
    const p: Proc | null = procInfo(pid);
    if (!p) continue;
    if (p.state !== "Z" && Number(p.started) >= markersSince) p.marker = markerOf(pid);
    procs.push(p);
  }
  return procs;
}

const ownGroup = procInfo(process.pid)?.pgrp;

/**
 * Whether `pid` may be signalled at all: never 0 or 1 (kill(0) is our own group, kill(-1) every
 * process we may signal), nor this process or its group, nor anything that is not a plain pid.
 */
function signallable(pid: unknown): pid is number {
  return Number.isSafeInteger(pid) && (pid as number) > 1 && pid !== process.pid && pid !== ownGroup;
}

/** SIGKILL to `pid` (its group when `group`) if it is still the process that started at `started`. */
export function killIfSame(pid: unknown, started: unknown, group = false): boolean {
  if (!signallable(pid) || typeof started !== "string" || procInfo(pid)?.started !== started) return false;
  try {
    process.kill(group ? -pid : pid, "SIGKILL");
    return true;
  } catch {
    return false; // gone meanwhile
  }
}

/** The processes `isOurs` picks and all their descendants, minus any that may not be signalled. */
function withDescendants(procs: Proc[], isOurs: (p: Proc) => boolean): Proc[] {
  const children = new Map<number, Proc[]>();
  for (const p of procs) {
    const siblings = children.get(p.ppid);
    if (siblings) siblings.push(p);
    else children.set(p.ppid, [p]);
  }
  const found = new Map<number, Proc>();
  const stack = procs.filter(isOurs);
  for (let p = stack.pop(); p; p = stack.pop()) {
    if (found.has(p.pid) || !signallable(p.pid)) continue;
    found.set(p.pid, p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return [...found.values()];
}

/** `root`'s descendants, or every process when the kernel does not list children. */
function descendantPids(root: number): number[] {
  const found: number[] = [];
  const queue = [root];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    const children = childPids(pid);
    if (children === null && pid === root) return allPids();
    found.push(...(children ?? []));
    queue.push(...(children ?? []));
  }
  return found;
}

/** Where the servers' processes may be: all in the daemon's subtree once it is the subreaper. */
function candidatePids(): number[] {
  return isChildSubreaper() ? descendantPids(process.pid) : allPids();
}

interface Server {
  marker: string;
  leader: number;
  /** Seen under the server outside its process group: pid → start time. */
  recorded: Map<number, string>;
}

/** The rule above, less descendants (withDescendants adds them). */
function startedBy(server: Server): (p: Proc) => boolean {
  return (p) => p.marker === server.marker || p.sid === server.leader || server.recorded.get(p.pid) === p.started;
}

export class ServerProcesses {
  private readonly token = randomBytes(16).toString("hex");
  /** No process older than the daemon can carry its token: their environments are not read. */
  private readonly since = Number(procInfo(process.pid)?.started ?? 0);
  private starts = 0;
  private readonly live = new Map<string, Server>();
  private timer?: ReturnType<typeof setInterval>;

  constructor(private readonly ledger?: ProcessLedger) {
    ledger?.setMarker(this.token);
  }

  /** The marker for a server about to start, for its environment. */
  nextMarker(): string {
    return `${this.token}:${++this.starts}`;
  }

  /** The server started with `marker` runs as `pid`, the leader of its own group and session. */
  started(marker: string, pid: number): void {
    this.live.set(marker, { marker, leader: pid, recorded: new Map() });
    this.ledger?.addGroup(pid);
    if (!this.timer) {
      this.timer = setInterval(() => this.scan(), SCAN_MS);
      this.timer.unref?.();
    }
  }

  /**
   * `pid` belongs to the server started with `marker` though nothing in it may show so once it has
   * exited (a sandbox's first process, in a session of its own): it is ended and collected with the server.
   */
  adopt(marker: string, pid: number): void {
    const server = this.live.get(marker);
    const info = procInfo(pid);
    if (server && info) server.recorded.set(pid, info.started);
  }

  /** The server's leader has exited: ends whatever of the server is left, then forgets it. */
  async ended(marker: string): Promise<void> {
    const server = this.live.get(marker);
    if (!server) return;
    this.live.delete(marker);
    if (this.live.size === 0) this.stopScanning();
    await this.end(startedBy(server));
    this.ledger?.removeGroup(server.leader);
    this.record();
  }

  /** The daemon is stopping, its servers closed: ends anything that still carries its token. */
  async stop(): Promise<void> {
    this.stopScanning();
    const prefix = `${this.token}:`;
    await this.end((p) => p.marker?.startsWith(prefix) === true);
  }

  private stopScanning(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Kills what `isOurs` picks (looking again for what forked meanwhile), then collects it. */
  private async end(isOurs: (p: Proc) => boolean): Promise<void> {
    const ended = new Map<number, Proc>();
    for (let round = 0; round < 3; round++) {
      const fresh = withDescendants(snapshot(candidatePids(), this.since), isOurs).filter((p) => !ended.has(p.pid));
      for (const p of fresh) {
        ended.set(p.pid, p);
        if (p.state !== "Z") killIfSame(p.pid, p.started);
      }
      if (!fresh.some((p) => p.state !== "Z")) break;
    }
    await this.collect(ended);
  }

  /**
   * Waits for the ended processes to exit and collects the status of those that are this daemon's
   * children (adopted as the subreaper): nobody else would, and each would stay a zombie. Live
   * servers' leaders are the runtime's own children: it collects them.
   */
  private async collect(ended: Map<number, Proc>): Promise<void> {
    const leaders = this.leaders();
    const deadline = Date.now() + REAP_WAIT_MS;
    const pending = new Map(ended);
    while (pending.size > 0 && Date.now() < deadline) {
      for (const [pid, was] of pending) {
        const now = procInfo(pid);
        if (!now || now.started !== was.started) pending.delete(pid);
        else if (now.state !== "Z") continue;
        else if (now.ppid === process.pid) {
          if (!leaders.has(pid)) reapChild(pid);
          pending.delete(pid);
        } else if (!pending.has(now.ppid)) pending.delete(pid); // its living parent collects it
      }
      if (pending.size > 0) await Bun.sleep(10);
    }
  }

  private leaders(): Set<number> {
    return new Set([...this.live.values()].map((s) => s.leader));
  }

  /**
   * Looks at the daemon's subtree (and at what was recorded) for what each live server started
   * outside its group, and records it; collects those of them that exited as the daemon's children.
   */
  private scan(): void {
    const pids = new Set(descendantPids(process.pid));
    for (const server of this.live.values()) for (const pid of server.recorded.keys()) pids.add(pid);
    const procs = snapshot(pids, this.since);
    const leaders = this.leaders();
    for (const server of this.live.values()) {
      const ours = withDescendants(procs, startedBy(server));
      server.recorded = new Map(ours.filter((p) => p.pgrp !== server.leader && p.state !== "Z").map((p) => [p.pid, p.started]));
      for (const p of ours) if (p.state === "Z" && p.ppid === process.pid && !leaders.has(p.pid)) reapChild(p.pid);
    }
    this.record();
  }

  private record(): void {
    const processes: Recorded[] = [];
    for (const server of this.live.values()) for (const [pid, started] of server.recorded) processes.push({ pid, started });
    this.ledger?.setProcesses(processes);
  }
}
