// Running the compiled binary (dist/signet) as a user would: real processes, temp data dirs, free ports.
import type { Subprocess } from "bun";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { freePort } from "../../scripts/lib/daemon";
import { tempDir } from "./temp-cleanup";

export { freePort };

export const BIN = resolve(import.meta.dir, "../../dist/signet");

export function requireBinary(): string {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does) before the e2e tests`);
  return BIN;
}

export interface Sandbox {
  dataDir: string;
  home: string;
  port: number;
  env: Record<string, string>;
}


/**
 * A fresh SIGNET_PATH and HOME (created, empty), and a free port, so nothing touches the real
 * ~/.agents. The data directory is created only when `yaml` is given (written to agent.yaml).
 */
export async function sandbox(yaml?: string): Promise<Sandbox> {
  // The daemons of a test are stopped by the test; their directories go when the test run ends.
  const root = tempDir("signet-e2e-");
  const port = await freePort();
  const dataDir = join(root, "agents");
  const home = join(root, "home");
  // A user's home exists: tests write harness files and tokens there before any command runs.
  mkdirSync(home, { recursive: true });
  if (yaml !== undefined) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, "agent.yaml"), yaml);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    SIGNET_PATH: dataDir,
    SIGNET_PORT: String(port),
    NO_COLOR: "1",
  };
  return { dataDir, home, port, env };
}

/** Starts the daemon of sandbox `s` (`signet daemon start`, with `env`); throws with its stderr when it does not start. */
export async function startDaemonIn(s: Sandbox, env: Record<string, string> = s.env): Promise<void> {
  const start = await run(["daemon", "start"], { env });
  if (start.code !== 0) throw new Error(`daemon did not start: ${start.stderr}`);
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function run(
  args: string[],
  options: { env: Record<string, string>; cwd?: string; bin?: string; argv0?: string; stdin?: string; timeoutMs?: number },
): Promise<RunResult> {
  const bin = options.bin ?? requireBinary();
  const proc = Bun.spawn([bin, ...args], {
    env: options.env,
    cwd: options.cwd,
    argv0: options.argv0,
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
    timeout: options.timeoutMs ?? 20_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

export function json<T = any>(r: RunResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`expected JSON on stdout (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}


/**
 * A foreground daemon of the sandbox (`signet daemon run`, with `env` added to the sandbox's), once it
 * answers /health; the caller ends it. One that does not answer within `timeoutMs` is killed, and
 * the error says so.
 */
export async function runForeground(s: Sandbox, env: Record<string, string> = {}, timeoutMs = 10_000): Promise<Subprocess> {
  const url = `http://127.0.0.1:${s.port}`;
  const proc = Bun.spawn([requireBinary(), "daemon", "run"], { env: { ...s.env, ...env }, stdout: "ignore", stderr: "ignore" });
  for (let i = 0; i < timeoutMs / 25; i++) {
    if ((await fetch(`${url}/health`).catch(() => null))?.ok) return proc;
    await Bun.sleep(25);
  }
  proc.kill("SIGKILL");
  throw new Error(`the daemon on ${url} did not come up`);
}

/**
 * `before` against a foreground daemon of the sandbox (`signet daemon run`), which is then killed with
 * SIGKILL; `after` against a second one started on the same data. Both are stopped whatever happens.
 */
export async function acrossKill9(s: Sandbox, before: (url: string) => Promise<void>, after: (url: string) => Promise<void>): Promise<void> {
  const url = `http://127.0.0.1:${s.port}`;
  const start = () => runForeground(s);
  const first = await start();
  try {
    await before(url);
  } finally {
    first.kill("SIGKILL");
    await first.exited;
  }
  const second = await start();
  try {
    await after(url);
  } finally {
    second.kill("SIGTERM");
    await second.exited;
  }
}

const NOBODY = 65534;
const setpriv = Bun.which("setpriv");

/**
 * Whether a test can run the binary as an account that may not read what it is refused: this one
 * when it is not root, nobody (setpriv) when it is, since root reads anything.
 */
export const canRunUnprivileged = process.getuid?.() !== 0 || setpriv !== null;

/** Everything under `dir`, `dir` included, owned by nobody. */
function giveToNobody(dir: string): void {
  chownSync(dir, NOBODY, NOBODY);
  if (!statSync(dir).isDirectory()) return;
  for (const name of readdirSync(dir)) giveToNobody(join(dir, name));
}

/**
 * A CLI for the binary run unprivileged in `cwd`: as this account when it is not root; as root, as
 * nobody, with everything under `root` given to nobody and the binary copied where nobody may run it
 * (the checkout may sit under a folder only its owner enters).
 */
export function unprivilegedCli(root: string, env: Record<string, string>, cwd: string): (args: string[]) => Promise<RunResult> {
  if (process.getuid?.() !== 0 || !setpriv) return (args) => run(args, { env, bin: BIN, cwd, timeoutMs: 30_000 });
  giveToNobody(root);
  chmodSync(root, 0o755);
  const dir = tempDir("signet-nobody-bin-");
  chmodSync(dir, 0o755);
  const bin = join(dir, "signet");
  copyFileSync(requireBinary(), bin);
  chmodSync(bin, 0o755);
  return (args) => run([`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", bin, ...args], { env, bin: setpriv, cwd, timeoutMs: 30_000 });
}
