// A file noting, while bridged servers run, what a daemon killed outright (kill -9, OOM) would leave
// behind: the servers' process groups, the processes seen outside them (server-processes.ts), and
// the token of the daemon's marker. The next daemon start reads it and ends those groups and
// processes, checking each one's start time first so that a reused pid is never signalled, and
// every process that still carries the old token.
import { readFileSync } from "node:fs";
import { writeOwnerOnlyFile } from "../../os/owner-only-files";
import { allPids, procInfo } from "../../os/proc-stat";
import { killIfSame, snapshot, type ProcessLedger, type Recorded } from "./server-processes";


interface LedgerFile {
  marker?: string;
  /** Servers' process group leaders: the whole group is ended. */
  groups: Recorded[];
  /** Processes outside those groups, ended one by one. */
  processes: Recorded[];
}

const TOKEN = /^[0-9a-f]{32}$/;

function recorded(list: unknown): Recorded[] {
  return Array.isArray(list) ? list.filter((e): e is Recorded => typeof e === "object" && e !== null) : [];
}

export class ChildLedger implements ProcessLedger {
  private marker?: string;
  private readonly groups = new Map<number, Recorded>();
  private processes: Recorded[] = [];
  private written?: string;

  constructor(private readonly path: string) {}

  /**
   * Ends what a previous daemon left running; returns how many groups and processes it ended. Off
   * Linux there is no start time to compare and no environment to read: nothing is signalled.
   */
  sweep(): number {
    let previous: Partial<LedgerFile>;
    try {
      previous = JSON.parse(readFileSync(this.path, "utf8")) ?? {};
    } catch {
      return 0;
    }
    const groups = recorded(previous.groups).filter((e) => killIfSame(e.pid, e.started, true));
    const ended = new Set(groups.map((e) => e.pid));
    for (const e of recorded(previous.processes)) if (killIfSame(e.pid, e.started)) ended.add(e.pid);
    if (typeof previous.marker === "string" && TOKEN.test(previous.marker)) {
      const prefix = `${previous.marker}:`;
      const endedGroups = new Set(groups.map((e) => e.pid));
      for (const p of snapshot(allPids())) {
        if (ended.has(p.pid) || endedGroups.has(p.pgrp) || !p.marker?.startsWith(prefix)) continue;
        if (killIfSame(p.pid, p.started)) ended.add(p.pid);
      }
    }
    this.write();
    return ended.size;
  }

  /** The token in this daemon's servers' markers. */
  setMarker(marker: string): void {
    this.marker = marker;
    this.write();
  }

  addGroup(pid: number): void {
    const started = procInfo(pid)?.started;
    if (started === undefined) return;
    this.groups.set(pid, { pid, started });
    this.write();
  }

  removeGroup(pid: number): void {
    if (this.groups.delete(pid)) this.write();
  }

  setProcesses(processes: Recorded[]): void {
    this.processes = processes;
    this.write();
  }

  private write(): void {
    const file: LedgerFile = { marker: this.marker, groups: [...this.groups.values()], processes: this.processes };
    const text = JSON.stringify(file);
    if (text === this.written) return;
    try {
      writeOwnerOnlyFile(this.path, text);
      this.written = text;
    } catch {
      // The ledger is a safety net for crashes; failing to write it must not fail a call.
    }
  }
}
