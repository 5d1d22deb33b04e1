// /proc/<pid>/stat on Linux, as fields from the state on: the command name before them may hold
// spaces and parentheses, so the split starts after its last ")". fields[0] is the state, [1] the
// parent pid, [2] the process group, [11]/[12] user/system CPU ticks, [19] the start time in ticks.
import { readFileSync } from "node:fs";

/** Null off Linux, or when the process is gone. */
export function procStatFields(pid: number | "self"): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}
