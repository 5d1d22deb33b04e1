// The process table from /proc on Linux. /proc/<pid>/stat is read as fields from the state on: the
// command name before them may hold spaces and parentheses, so the split starts after its last
// ")". fields[0] is the state, [1] the parent pid, [2] the process group, [3] the session, [11]/[12]
// user/system CPU ticks, [19] the start time in ticks.
import { readdirSync, readFileSync } from "node:fs";

/** Null off Linux, or when the process is gone. */
export function procStatFields(pid: number | "self"): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  sid: number;
  /** "Z" for a zombie: exited, its status not yet collected by its parent. */
  state: string;
  /** Start time in clock ticks since boot: with the pid, names one process even after pid reuse. */
  started: string;
}

export function procInfo(pid: number): ProcInfo | null {
  const f = procStatFields(pid);
  if (!f) return null;
  return { pid, ppid: Number(f[1]), pgrp: Number(f[2]), sid: Number(f[3]), state: f[0]!, started: f[19]! };
}

/** Every pid in /proc; empty off Linux. */
export function allPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * The pids of `pid`'s children, from each thread's children list; null when the kernel has no such
 * lists (CONFIG_PROC_CHILDREN) or `pid` is gone. Walking down from one process this way costs what
 * its subtree holds, not the whole table.
 */
export function childPids(pid: number): number[] | null {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const children: number[] = [];
  for (const tid of threads) {
    let list: string;
    try {
      list = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT" && tid === String(pid)) return null;
      continue; // a thread that ended while we looked
    }
    for (const child of list.split(" ")) if (child) children.push(Number(child));
  }
  return children;
}
