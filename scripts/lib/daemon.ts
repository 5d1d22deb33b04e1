// A real daemon for benchmarks: a separate process on a throwaway data directory (SIGNET_PATH and
// HOME both point there, so nothing of the operator's setup leaks in), a given agent.yaml and a
// free loopback port. Every daemon and temp dir is registered, and cleanup runs on every way out:
// normal end, error, Ctrl-C, SIGTERM, SIGHUP (graceful stop, then the dir goes) and, as a last
// resort, process exit (SIGKILL, synchronously). No orphans.
import type { Subprocess } from "bun";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The repository root (scripts/lib/../..). */
export const ROOT = join(import.meta.dir, "..", "..");

export interface BenchDaemon {
  baseUrl: string;
  port: number;
  pid: number;
  /** Time from spawn to the first good /health. */
  startMs: number;
  command: string[];
  dataDir: string;
  logPath: string;
  proc: Subprocess;
  running(): boolean;
  /** Last lines of the daemon's stderr. */
  logTail(lines?: number): string;
  /** Waits until a line of the daemon's stderr matches `pattern`; throws (with the log tail) after `timeoutMs`. */
  waitForLog(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** SIGTERM, wait (SIGKILL after `timeoutMs`); resolves once the process is gone. Idempotent. */
  stop(timeoutMs?: number): Promise<void>;
}

const daemons = new Set<BenchDaemon>();
const dirs = new Map<string, { keep: boolean }>();
let log: (line: string) => void = (line) => process.stderr.write(`${line}\n`);

function isRunning(proc: Subprocess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}

function removeDir(dir: string): void {
  const entry = dirs.get(dir);
  if (!entry) return;
  dirs.delete(dir);
  if (entry.keep) {
    log(`kept data dir ${dir}`);
    return;
  }
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // best effort
  }
}

/** Stops every registered daemon gracefully, then removes every temp dir not marked `keep`. */
export async function cleanupAll(): Promise<void> {
  await Promise.all([...daemons].map((d) => d.stop()));
  for (const dir of [...dirs.keys()]) removeDir(dir);
}

/**
 * Runs a benchmark's `main` and prints the report it returns; a failure is logged and exits 1. Every
 * daemon and temp dir is cleaned up first either way, so the report is the last thing printed.
 */
export async function runBench(main: () => Promise<string>, progress: (line: string) => void): Promise<never> {
  let exitCode = 0;
  try {
    const report = await main();
    await cleanupAll();
    process.stdout.write(`${report}\n`);
  } catch (err) {
    progress(`failed: ${(err as Error).stack ?? err}`);
    exitCode = 1;
  } finally {
    await cleanupAll();
  }
  process.exit(exitCode);
}

let installed = false;

/**
 * Installs the exit and signal handlers once. `progress` prints a line to stderr. On a signal the
 * daemons are stopped, the dirs removed and the script exits with 130.
 */
export function installCleanup(progress: (line: string) => void): void {
  log = progress;
  if (installed) return;
  installed = true;
  // Last resort: `exit` handlers must be synchronous.
  process.on("exit", () => {
    for (const d of daemons) {
      if (isRunning(d.proc)) {
        try {
          d.proc.kill("SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    for (const [dir, { keep }] of dirs) {
      if (keep) continue;
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // best effort
      }
    }
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      const what = [...dirs.keys()].join(", ") || "the temp dir";
      progress(`${signal}: stopping the daemon and removing ${what}`);
      void cleanupAll().finally(() => process.exit(130));
    });
  }
}

/** A new temp dir, removed by cleanupAll() or at exit unless `keep`. */
export function makeTempDir(prefix = "signet-bench-", keep = false): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.set(dir, { keep });
  return dir;
}

/** Removes one registered temp dir now (unless it is marked keep). */
export function removeTempDir(dir: string): void {
  removeDir(dir);
}

export async function freePort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = server.port!;
  await server.stop(true);
  return port;
}

/** agent.yaml selecting an embedding provider (builtin, none, ollama, openai). */
export function agentYaml(provider: string): string {
  return `embedding:\n  provider: ${provider}\n`;
}

export interface SpawnOptions {
  dataDir: string;
  /** Written to <dataDir>/agent.yaml when given. */
  agentYaml?: string;
  /** Run dist/signet instead of `bun src/main.ts`. */
  binary?: boolean;
  /** The stderr log's file name inside dataDir (a second daemon on the same dir should use another). */
  logName?: string;
  healthTimeoutMs?: number;
  /** Set in the daemon's environment besides SIGNET_PATH and HOME (SIGNET_DATABASE_URL, say). */
  env?: Record<string, string>;
}

/** Spawns `signet daemon run` and waits for /health; throws (with the log tail) if it never answers. */
export async function spawnDaemon(opts: SpawnOptions): Promise<BenchDaemon> {
  const { dataDir } = opts;
  if (opts.agentYaml !== undefined) writeFileSync(join(dataDir, "agent.yaml"), opts.agentYaml);
  const port = await freePort();
  let command: string[];
  if (opts.binary) {
    const bin = join(ROOT, "dist", "signet");
    if (!existsSync(bin)) throw new Error(`--binary: ${bin} does not exist; build it with \`bun run build\``);
    command = [bin, "daemon", "run", "--port", String(port)];
  } else {
    command = [process.execPath, join(ROOT, "src", "main.ts"), "daemon", "run", "--port", String(port)];
  }
  // A clean environment: nothing of the operator's Signet setup leaks into the benchmark daemon.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("SIGNET_")) env[k] = v;
  Object.assign(env, { SIGNET_PATH: dataDir, HOME: dataDir }, opts.env);
  const logPath = join(dataDir, opts.logName ?? "daemon-stderr.log");
  // The log is written over from its start, not truncated: an earlier run's lines would remain.
  rmSync(logPath, { force: true });
  const started = performance.now();
  const proc = Bun.spawn(command, { cwd: ROOT, env, stdin: "ignore", stdout: "ignore", stderr: Bun.file(logPath) });
  const baseUrl = `http://127.0.0.1:${port}`;
  let stopping: Promise<void> | undefined;
  const daemon: BenchDaemon = {
    baseUrl,
    port,
    pid: proc.pid,
    startMs: 0,
    command,
    dataDir,
    logPath,
    proc,
    running: () => isRunning(proc),
    logTail(lines = 20) {
      if (!existsSync(logPath)) return "";
      return readFileSync(logPath, "utf8").trim().split("\n").slice(-lines).join("\n");
    },
    async waitForLog(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!(existsSync(logPath) && readFileSync(logPath, "utf8").split("\n").some((line) => pattern.test(line)))) {
        if (!isRunning(proc)) throw new Error(`the daemon exited while waiting for ${pattern}:\n${daemon.logTail()}`);
        if (Date.now() > deadline) throw new Error(`no log line matched ${pattern} within ${timeoutMs / 1000} s:\n${daemon.logTail()}`);
        await Bun.sleep(100);
      }
    },
    stop(timeoutMs = 10_000) {
      stopping ??= (async () => {
        if (isRunning(proc)) {
          proc.kill("SIGTERM");
          const stopped = await Promise.race([proc.exited.then(() => true), Bun.sleep(timeoutMs).then(() => false)]);
          if (!stopped) {
            log(`daemon pid ${proc.pid} did not stop within ${timeoutMs / 1000} s of SIGTERM; killing it`);
            proc.kill("SIGKILL");
            await proc.exited;
          }
        }
        daemons.delete(daemon);
      })();
      return stopping;
    },
  };
  daemons.add(daemon);
  const deadline = Date.now() + (opts.healthTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (!isRunning(proc)) {
      throw new Error(`the daemon exited (${proc.exitCode ?? proc.signalCode}) before answering /health:\n${daemon.logTail()}`);
    }
    try {
      const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) {
        const body = (await res.json()) as { pid: number };
        if (body.pid !== proc.pid) log(`note: /health reports pid ${body.pid}, spawned pid ${proc.pid}`);
        daemon.startMs = performance.now() - started;
        return daemon;
      }
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  throw new Error(`the daemon did not answer /health within ${(opts.healthTimeoutMs ?? 30_000) / 1000} s:\n${daemon.logTail()}`);
}
