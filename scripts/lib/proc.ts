// What Linux's /proc says about a process (the daemon), and file sizes. Everything is null/0 off Linux.
import { readFileSync, statSync } from "node:fs";
import { procStatFields } from "../../src/os/proc-stat";

/** A `kB` field of /proc/<pid>/status: VmRSS (resident now) or VmHWM (peak resident). */
export function procStatusKb(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** The process's CPU time so far (user, system) in ms, from /proc/<pid>/stat; null off Linux. */
export function procCpuMs(pid: number): { userMs: number; sysMs: number } | null {
  const fields = procStatFields(pid);
  if (!fields) return null;
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  return { userMs: Number(fields[11]) * tick, sysMs: Number(fields[12]) * tick };
}

export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Samples the process's VmRSS every `everyMs` until stop(), which returns the highest reading
 * combined with VmHWM. (The kernel updates VmHWM lazily, so on its own it can read below a VmRSS
 * seen moments earlier.) `phase(name)` names what runs from then on; `peakPhase` is the phase of
 * the highest sample (the peak's own moment may fall between samples).
 */
export function rssPeakSampler(pid: number, everyMs = 250): { phase(name: string): void; readonly peakPhase: string | null; stop(): number | null } {
  let max: number | null = null;
  let current = "start";
  let peakPhase: string | null = null;
  const sample = () => {
    const kb = procStatusKb(pid, "VmRSS");
    if (kb !== null && kb > (max ?? -1)) {
      max = kb;
      peakPhase = current;
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    phase(name) {
      sample();
      current = name;
    },
    get peakPhase() {
      return peakPhase;
    },
    stop() {
      clearInterval(timer);
      sample();
      const hwm = procStatusKb(pid, "VmHWM");
      return hwm === null && max === null ? null : Math.max(hwm ?? 0, max ?? 0);
    },
  };
}
