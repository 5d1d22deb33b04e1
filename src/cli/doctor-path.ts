// `signet doctor`'s check of the whole path of a harness: the hooks and the MCP server its config
// registers are run for real against the daemon (docs/cli.md#signet-doctor), and the auth mode is
// held against what the entries carry. Hooks report dry-run sessions, which are removed afterwards
// with the owner's credential (removing a session) together with everything recorded for them.
// Probes run without this shell's SIGNET_* variables: a harness started from a launcher or another
// terminal does not have them, so what the entries carry is all that counts.
import { randomBytes } from "node:crypto";
import { ApiError, type SignetClient } from "../client/client";
import { isLoopbackHost } from "../config/daemon-url";
import type { Config } from "../config/schema";
import { harnessLabel } from "../harness/plan";
import type { HookRegistration, McpRegistration } from "../harness/registered";
import type { HarnessName } from "../harness/types";
import { ok, problem, type Check } from "./doctor-check";
import { runHookCommand, runOpencodePlugin, type HookRun } from "./doctor-hooks";
import { PROBE_TOOL, probeMcp } from "./doctor-mcp";

/** Every dry-run session key starts so, and names the doctor run and the hook it came from. */
const DRY_RUN_PREFIX = "signet-doctor-";
/** A hook that reaches the daemon answers in well under a second; one that hangs is cut off here. */
const HOOK_TIMEOUT_MS = 10_000;
const MCP_TIMEOUT_MS = 15_000;
/** The most of a hook's stderr shown in a problem: its first line says what went wrong. */
const STDERR_SHOWN = 300;

/** What the probes of one doctor run share. */
export interface PathProbe {
  config: Config;
  /** The environment probes run with: this shell's without SIGNET_*. */
  env: Record<string, string>;
  /** This shell's whole environment, standing in for the harness's where an entry names variables to pass on. */
  shell: NodeJS.ProcessEnv;
  /** Where the harness would run them: this shell's directory, the session's project. */
  cwd: string;
  /** Names this run's dry-run sessions. */
  run: string;
}

export function pathProbe(config: Config, env: NodeJS.ProcessEnv, cwd: string): PathProbe {
  const clean = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("SIGNET_")));
  return { config, env: clean, shell: env, cwd, run: randomBytes(4).toString("hex") };
}

/** `signet setup --harness <name>`, which writes entries that reach the daemon doctor checks. */
const setupFix = (harness: HarnessName, config: Config) => `signet setup --harness ${harness} (its entries then reach the daemon at ${config.daemon.url})`;

/** Whether calls to the daemon need a token: every call in team mode, a remote one in hybrid mode. */
function needsToken(config: Config): boolean {
  return config.auth.mode === "team" || (config.auth.mode === "hybrid" && !isLoopbackHost(new URL(config.daemon.url).hostname));
}

const tokenFix = (harness: HarnessName, config: Config) =>
  `signet setup --harness ${harness} (in ${config.auth.mode} mode it gives the entries a token file); a token of your own: SIGNET_TOKEN_FILE in the MCP entry's environment and --token-file in the hook commands`;

const refusedForAuth = (text: string) => /\b(401|unauthori[sz]ed|needs a token)\b/i.test(text);

// ---- The auth mode against the entries ----

const TOKEN_VARIABLES = ["SIGNET_TOKEN", "SIGNET_TOKEN_FILE"];
const TOKEN_IN_COMMAND = /--token-file\b|\bSIGNET_TOKEN(?:_FILE)?=/;

/** In team mode (and hybrid with a remote daemon) an entry that carries no token is refused at every call. */
export function tokenChecks(harness: HarnessName, mcp: McpRegistration | undefined, hooks: HookRegistration | undefined, config: Config): Check[] {
  if (!needsToken(config)) return [];
  const without: string[] = [];
  if (mcp && !TOKEN_VARIABLES.some((v) => mcp.env[v] !== undefined || mcp.forwarded.includes(v))) without.push(`the MCP entry in ${mcp.file}`);
  if (hooks?.kind === "commands" && hooks.commands.some((h) => !TOKEN_IN_COMMAND.test(h.command))) without.push(`the hook commands in ${hooks.file}`);
  if (hooks?.kind === "plugin" && !TOKEN_IN_COMMAND.test(hooks.text)) without.push(`the plugin ${hooks.file}`);
  const mode = `auth.mode is ${config.auth.mode}${config.auth.mode === "hybrid" ? ` and the daemon at ${config.daemon.url} is remote` : ""}`;
  if (without.length === 0) return mcp || hooks ? [ok(harness, `${mode}: its entries carry a token`)] : [];
  return [
    problem(
      harness,
      `${mode}, so every call needs a token, and ${without.join(" and ")} carr${without.length === 1 ? "ies" : "y"} none: every tool call and hook is refused (401) while ${harnessLabel(harness)} shows the server connected`,
      tokenFix(harness, config),
    ),
  ];
}

// ---- The MCP server ----

/** Starts the entry's server as the harness would and makes one harmless call. */
export async function mcpCheck(harness: HarnessName, mcp: McpRegistration & { command: string }, p: PathProbe): Promise<Check> {
  // Codex passes on the variables the entry names from its own environment; doctor's stands in for it.
  const forwarded = Object.fromEntries(mcp.forwarded.flatMap((name) => (p.shell[name] === undefined ? [] : [[name, p.shell[name]!]])));
  // Its call is the dry run's (analytics records it under this key), not that of a session the server
  // would find through its parent process: the hooks' dry-run sessions, which run meanwhile.
  const session = { SIGNET_SESSION_KEY: `${DRY_RUN_PREFIX}${p.run}-${harness}-mcp` };
  // A daemon that is not there is reported, never started: doctor changes nothing of the installation.
  const env = { ...p.env, ...forwarded, ...session, ...mcp.env, SIGNET_AUTOSTART: "0" };
  const result = await probeMcp({ command: mcp.command, args: mcp.args, env, cwd: p.cwd, timeoutMs: MCP_TIMEOUT_MS });
  if (result.ok) return ok(harness, `${mcp.file}: its MCP server answered initialize, tools/list (${result.tools} tools) and a ${PROBE_TOOL} call`);
  const what =
    result.step === "tools/call"
      ? `its MCP server starts and lists its tools, but a ${PROBE_TOOL} call fails, so every tool call of the agent fails: ${result.message}`
      : `its MCP server failed at ${result.step}: ${result.message}`;
  return problem(harness, `${mcp.file}: ${what}`, refusedForAuth(result.message) ? tokenFix(harness, p.config) : setupFix(harness, p.config));
}

// ---- The lifecycle hooks ----

type Removal = { removed: true } | { removed: false; error?: string };

/** Removes a dry-run session with the owner's credential; `removed: false` without an error when nothing was recorded for it. */
async function removeDryRun(owner: SignetClient, key: string): Promise<Removal> {
  try {
    await owner.sessions.remove(key);
    return { removed: true };
  } catch (err) {
    // A daemon without the route answers 404 too ("no route ..."), but not about the session.
    if (err instanceof ApiError && err.code === "not_found" && err.message.startsWith(`session ${key} `)) return { removed: false };
    return { removed: false, error: (err as Error).message };
  }
}

const shown = (text: string) => {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > STDERR_SHOWN ? `${line.slice(0, STDERR_SHOWN)}…` : line;
};

/** Why a hook run failed (undefined when it reached the daemon): the same `why` for the hooks that share it, what the first said, the fix. */
interface Verdict {
  why: string;
  said?: string;
  fix: string;
}

function verdict(run: HookRun, removal: Removal, harness: HarnessName, config: Config): Verdict | undefined {
  const said = shown(run.stderr) || undefined;
  if (run.error) return { why: "could not be started", said: run.error, fix: setupFix(harness, config) };
  if (run.timedOut) return { why: `did not finish within ${HOOK_TIMEOUT_MS / 1000} s`, fix: "signet daemon logs (a daemon that answers slowly holds every prompt up)" };
  if (run.exitCode !== 0) return { why: `exited with ${run.exitCode}`, said, fix: setupFix(harness, config) };
  // A removal that failed says nothing of the hook: the session may be there; that is reported apart.
  if (removal.removed || removal.error) return undefined;
  if (said) return { why: "ran, but the daemon recorded nothing", said, fix: refusedForAuth(said) ? tokenFix(harness, config) : setupFix(harness, config) };
  return {
    why: "ran, but reached no daemon: nothing listens where it looks for one, and a hook says nothing then, so sessions record nothing and no memory reaches the model",
    fix: setupFix(harness, config),
  };
}

/** Runs every registered hook with a dry-run session of its own, then removes what each recorded. */
export async function hookChecks(harness: HarnessName, hooks: HookRegistration, owner: SignetClient, p: PathProbe): Promise<Check[]> {
  const key = (n: number) => `${DRY_RUN_PREFIX}${p.run}-${harness}-${n}`;
  const options = { env: p.env, cwd: p.cwd, timeoutMs: HOOK_TIMEOUT_MS };
  const runs =
    hooks.kind === "commands"
      ? await Promise.all(hooks.commands.map((hook, i) => runHookCommand(hook, key(i + 1), options)))
      : [await runOpencodePlugin(hooks.file, key(1), options)];
  const removals = await Promise.all(runs.map((r) => removeDryRun(owner, r.key)));
  const named = (events: string[]) =>
    hooks.kind === "plugin" ? "Signet's plugin" : `the ${events.join(", ")} hook${events.length === 1 ? "" : "s"}`;

  // One problem per distinct failure, naming the events that share it and what the first said.
  const failures = new Map<string, Verdict & { events: string[] }>();
  runs.forEach((run, i) => {
    const v = verdict(run, removals[i]!, harness, p.config);
    if (!v) return;
    const group = `${v.why}\0${v.fix}`;
    const entry = failures.get(group) ?? { ...v, events: [] };
    entry.events.push(run.event);
    failures.set(group, entry);
  });
  const checks = [...failures.values()].map((f) => problem(harness, `${hooks.file}: ${named(f.events)} ${f.why}${f.said ? `: ${f.said}` : ""}`, f.fix));
  const errors = removals.flatMap((r, i) => (!r.removed && r.error ? [{ key: runs[i]!.key, error: r.error }] : []));
  if (errors.length > 0) {
    const keys = errors.map((e) => e.key).join(", ");
    checks.push(problem(harness, `could not remove the dry-run session${errors.length === 1 ? "" : "s"} ${keys}: ${errors[0]!.error}`, "signet daemon logs; a dry-run session holds nothing but this check"));
  }
  if (failures.size === 0 && errors.length === 0) {
    const removed = runs.length === 1 ? "its dry-run session was removed" : "their dry-run sessions were removed";
    checks.unshift(ok(harness, `${hooks.file}: ${named(runs.map((r) => r.event))} reached the daemon; ${removed}`));
  }
  return checks;
}
