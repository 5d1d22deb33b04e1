// The process a program runs under once the shells in between are skipped: harnesses run hook
// commands through a shell, and an MCP server's command may be a wrapper script, so a hook and the
// MCP server of one harness process find the same ancestor. It is named `<pid>:<start time>`, so a
// pid reused by a later process does not pass for it. Linux reads /proc; elsewhere `ps` answers.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { procInfo } from "./proc-stat";

/** Shells (and busybox, which is one when it runs `sh -c`), by the name the process table gives. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "pdksh", "tcsh", "csh", "ash", "busybox"]);
/** Shells nest a few deep at most; a longer chain means something else is going on. */
const MAX_SHELLS = 8;

export interface ProcessFacts {
  ppid: number;
  /** The start time as the process table gives it: clock ticks since boot (/proc), or a date (ps). */
  started: string;
  /** The command's name, without a directory or a login shell's leading "-". */
  name: string;
}

function fromProc(pid: number): ProcessFacts | null {
  const info = procInfo(pid);
  if (!info) return null;
  try {
    return { ppid: info.ppid, started: info.started, name: readFileSync(`/proc/${pid}/comm`, "utf8").trim() };
  } catch {
    return null;
  }
}

/** One process as `ps` reports it (macOS and the BSDs have no /proc); null when it is gone. */
export function psProcess(pid: number): ProcessFacts | null {
  let out: string;
  try {
    const r = Bun.spawnSync(["ps", "-o", "ppid=,lstart=,comm=", "-p", String(pid)], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    out = r.stdout.toString();
  } catch {
    return null;
  }
  // lstart is fixed: "Wed Dec  2 03:39:50 2026".
  const m = /^\s*(\d+)\s+(\w{3}\s+\w{3}\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}\s+\d{4})\s+(.+?)\s*$/m.exec(out);
  if (!m) return null;
  return { ppid: Number(m[1]), started: m[2]!.replace(/\s+/g, " "), name: basename(m[3]!).replace(/^-/, "") };
}

/**
 * `<pid>:<start>` of this process's nearest ancestor that is not a shell, or null when the process
 * table cannot be read or the chain ends first.
 */
export function harnessProcess(): string | null {
  const facts = (pid: number) => fromProc(pid) ?? psProcess(pid);
  let pid = process.ppid;
  for (let depth = 0; depth <= MAX_SHELLS && pid > 1; depth++) {
    const p = facts(pid);
    if (!p) return null;
    if (!SHELLS.has(p.name)) return `${pid}:${p.started}`;
    pid = p.ppid;
  }
  return null;
}
