// `signet doctor` runs Signet's registered lifecycle hooks as the harness would: Claude Code's and
// Codex's hook commands through a shell with the hook JSON on stdin, OpenCode's plugin module loaded
// and driven through one session. Each run is bounded in time and leads its own process group,
// which is ended afterwards, so nothing it started outlives it. Whether a hook reached the daemon is
// judged by the caller from what the daemon recorded under the run's session key.
import { spawn } from "node:child_process";
import type { HookCommand } from "../harness/registered";

/** The prompt a dry-run UserPromptSubmit carries: recall runs for it; what it records goes with the dry-run session. */
const DRY_RUN_PROMPT = "signet doctor: is this hook reaching the daemon?";

/** The most of a run's stdout and stderr kept: a hook prints a few lines at most. */
const OUTPUT_CAP = 64 * 1024;

export interface HookRun {
  /** The harness's event name (`SessionStart`; `plugin` for OpenCode's). */
  event: string;
  /** The dry-run session key the run reported. */
  key: string;
  exitCode: number | null;
  stderr: string;
  timedOut: boolean;
  /** Why it could not be started at all. */
  error?: string;
}

interface Bounded {
  argv: string[];
  stdin: string;
  env: Record<string, string>;
  cwd: string;
  timeoutMs: number;
}

/** Ends a process group; it may be gone already. */
function endGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: nothing of it is left.
  }
}

/** Runs `argv` as the leader of a new process group; once it exits or its time is up, the whole group is ended. */
function runBounded(o: Bounded): Promise<Omit<HookRun, "event" | "key">> {
  return new Promise((done) => {
    let stderr = "";
    let timedOut = false;
    let failed: string | undefined;
    const child = spawn(o.argv[0]!, o.argv.slice(1), { cwd: o.cwd, env: o.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const timer = setTimeout(() => {
      timedOut = true;
      endGroup(child.pid);
    }, o.timeoutMs);
    child.stdout.resume();
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < OUTPUT_CAP) stderr += chunk.toString("utf8");
    });
    // A hook that does not read its stdin closes the pipe: not a failure of the run.
    child.stdin.on("error", () => {});
    child.stdin.end(o.stdin);
    let finished = false;
    const finish = (exitCode: number | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      done({ exitCode, stderr: stderr.slice(0, OUTPUT_CAP).trim(), timedOut, ...(failed ? { error: failed } : {}) });
    };
    // Whatever the hook left running in its group (a background job holding the pipes) ends with it.
    child.once("exit", () => endGroup(child.pid));
    // A program that cannot be started may never close its pipes.
    child.once("error", (err) => {
      failed = err.message;
      finish(null);
    });
    child.once("close", finish);
  });
}

/** The hook JSON Claude Code and Codex write on a hook's stdin (the fields Signet reads, and the event's name). */
function hookInput(event: string, key: string, cwd: string): string {
  return JSON.stringify({ session_id: key, cwd, hook_event_name: event, ...(event === "UserPromptSubmit" ? { prompt: DRY_RUN_PROMPT } : {}) });
}

export interface HookRunOptions {
  env: Record<string, string>;
  cwd: string;
  /** The longest a run may take, however long the harness would wait. */
  timeoutMs: number;
}

/** One registered hook command, through /bin/sh as Claude Code and Codex run it, within the harness's limit and ours. */
export async function runHookCommand(hook: HookCommand, key: string, o: HookRunOptions): Promise<HookRun> {
  const timeoutMs = Math.min(o.timeoutMs, (hook.timeoutS ?? Infinity) * 1000);
  const run = await runBounded({ argv: ["/bin/sh", "-c", hook.command], stdin: hookInput(hook.harnessEvent, key, o.cwd), env: o.env, cwd: o.cwd, timeoutMs });
  return { event: hook.harnessEvent, key, ...run };
}

/**
 * Loads a plugin module as OpenCode does (an ES module whose exported functions get `{client,
 * directory}` and return hooks) and drives one session through the hooks Signet's plugin uses.
 * OpenCode's SDK client is stood in for by an object answering `session.messages` with nothing.
 */
const OPENCODE_DRIVER = `
// What the plugin starts must run as itself, not as Bun. Bun.spawn's default environment is the
// one this process started with, whatever process.env says since, so it is given explicitly.
delete process.env.BUN_BE_BUN;
const env = { ...process.env };
const spawn = Bun.spawn;
Bun.spawn = (cmd, options) => (Array.isArray(cmd) ? spawn(cmd, { ...options, env: options?.env ?? env }) : spawn({ ...cmd, env: cmd.env ?? env }));
const { file, key, directory, prompt } = JSON.parse(await Bun.stdin.text());
const mod = await import(file);
const client = { session: { messages: async () => ({ data: [] }) } };
for (const plugin of Object.values(mod)) {
  if (typeof plugin !== "function") continue;
  const hooks = (await plugin({ client, directory, worktree: directory })) ?? {};
  await hooks.event?.({ event: { type: "session.created", properties: { info: { id: key } } } });
  await hooks["chat.message"]?.({ sessionID: key }, { message: {}, parts: [{ type: "text", text: prompt }] });
  await hooks["experimental.chat.system.transform"]?.({ sessionID: key, model: {} }, { system: [] });
  await hooks["experimental.session.compacting"]?.({ sessionID: key }, { context: [] });
  await hooks.event?.({ event: { type: "session.compacted", properties: { sessionID: key } } });
  await hooks.event?.({ event: { type: "session.deleted", properties: { info: { id: key } } } });
  await hooks.dispose?.();
}
`;

/**
 * OpenCode's plugin, in a Bun process of its own as OpenCode (itself a Bun program) would load it:
 * this binary run as Bun (BUN_BE_BUN), so whatever the plugin starts belongs to that process's group.
 */
export async function runOpencodePlugin(file: string, key: string, o: HookRunOptions): Promise<HookRun> {
  const stdin = JSON.stringify({ file, key, directory: o.cwd, prompt: DRY_RUN_PROMPT });
  const run = await runBounded({ argv: [process.execPath, "-e", OPENCODE_DRIVER], stdin, env: { ...o.env, BUN_BE_BUN: "1" }, cwd: o.cwd, timeoutMs: o.timeoutMs });
  return { event: "plugin", key, ...run };
}
