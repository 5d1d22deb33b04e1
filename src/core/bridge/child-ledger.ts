// A file listing the bridged servers' process groups while they run. A daemon that is killed
// outright (kill -9, OOM) cannot reap them; most servers exit when their stdin closes, but one that
// ignores it would live on. The next daemon start reads the ledger and ends those groups, checking
// each leader's start time first so a reused pid is never signalled.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { procStatFields } from "../proc-stat";

interface Entry {
  pid: number;
  /** The leader's start time in clock ticks since boot (/proc/<pid>/stat field 22). */
  started: string;
}

function startTime(pid: number): string | undefined {
  return procStatFields(pid)?.[19];
}

export class ChildLedger {
  private readonly entries = new Map<number, Entry>();

  constructor(private readonly path: string) {}

  /** Ends the process groups a previous daemon left running; returns how many it ended. */
  sweep(): number {
    let previous: Entry[] = [];
    try {
      previous = JSON.parse(readFileSync(this.path, "utf8")) as Entry[];
    } catch {
      return 0;
    }
    let ended = 0;
    for (const e of Array.isArray(previous) ? previous : []) {
      // Without /proc (macOS) there is no start time to compare: leave the pid alone.
      if (typeof e?.pid !== "number" || !e.started || startTime(e.pid) !== e.started) continue;
      try {
        process.kill(-e.pid, "SIGKILL");
        ended++;
      } catch {
        // gone already
      }
    }
    this.write();
    return ended;
  }

  add(pid: number): void {
    const started = startTime(pid);
    if (started === undefined) return;
    this.entries.set(pid, { pid, started });
    this.write();
  }

  remove(pid: number): void {
    if (this.entries.delete(pid)) this.write();
  }

  private write(): void {
    try {
      const tmp = `${this.path}.tmp`;
      writeFileSync(tmp, JSON.stringify([...this.entries.values()]));
      renameSync(tmp, this.path);
    } catch {
      // The ledger is a safety net for crashes; failing to write it must not fail a call.
    }
  }
}
