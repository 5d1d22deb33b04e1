// Stdio servers for bridge tests built on fake-mcp-server.mjs: the plain one, and a wrapper that
// detaches processes from the server's group the way careless or hostile wrappers do.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { NODE } from "./everything";

const FAKE_SERVER = resolve(import.meta.dir, "fake-mcp-server.mjs");
export const FAKE_ERROR_SERVER = resolve(import.meta.dir, "fake-error-server.mjs");

export function fakeStdio() {
  return { type: "stdio" as const, command: NODE, args: [FAKE_SERVER] };
}

/**
 * fake-error-server.mjs: `fail` answers a JSON-RPC error with the code it is given, `echo` its `s`.
 * `failList`: its tools/list answers that error code instead. `startDelayMs`: it sleeps that long
 * before it starts (a wrapper shell), as a slow cold start.
 */
export function fakeErrorStdio(options: { failList?: number; startDelayMs?: number } = {}) {
  const args = [FAKE_ERROR_SERVER, ...(options.failList === undefined ? [] : ["--fail-list", String(options.failList)])];
  if (options.startDelayMs === undefined) return { type: "stdio" as const, command: NODE, args };
  const script = `sleep ${options.startDelayMs / 1000}; exec "$0" "$@"`;
  return { type: "stdio" as const, command: "/bin/sh", args: ["-c", script, NODE, ...args] };
}

/**
 * A shell that detaches two sleeps into sessions of their own (setsid) before it becomes the
 * server: one keeps the pipes and the environment it inherited, the other clears its environment
 * (so no marker names it) and lets go of the pipes. Their pids are in `dir` by the time the server
 * answers (detachedPids).
 */
export function detachingStdio(dir: string) {
  const script =
    'setsid sleep 1000 & echo $! > "$1/kept"; setsid env -i sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > "$1/cleared"; exec "$2" "$3"';
  return { type: "stdio" as const, command: "/bin/sh", args: ["-c", script, "sh", dir, NODE, FAKE_SERVER] };
}

/** The pids detachingStdio(dir) wrote: [kept, cleared]. */
export function detachedPids(dir: string): [number, number] {
  const read = (name: string) => Number(readFileSync(join(dir, name), "utf8"));
  return [read("kept"), read("cleared")];
}

/** A test's safety net: ends what detachingStdio(dir) detached, should the code under test not have. */
export function killDetached(dir: string): void {
  if (!existsSync(join(dir, "cleared"))) return;
  for (const pid of detachedPids(dir)) {
    try {
      // Only while the pid is still one of those sleeps, never a process that reused it.
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep\0")) process.kill(pid, "SIGKILL");
    } catch {
      // ended, as it should be
    }
  }
}

/** The processes a daemon's crash ledger lists outside servers' groups. */
export function ledgerProcesses(dataDir: string): number[] {
  const ledger = JSON.parse(readFileSync(join(dataDir, ".daemon", "bridge-children.json"), "utf8"));
  return ledger.processes.map((p: { pid: number }) => p.pid);
}
