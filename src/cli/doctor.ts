// `signet doctor`: is everything in place? The daemon (running, healthy, proving who it is), the
// store, the embedder, file modes, each harness's registration, signet-mcp on PATH and secret exec's
// sandbox, each reported with what to do about it. Read-only: files are only stat'ed (the database is never opened) and
// harness configs are only read.
import { defineCommand } from "citty";
import { accessSync, constants, realpathSync, statSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { basename, resolve } from "node:path";
import { DaemonIdentityError, SignetClient } from "../client/client";
import { isLoopbackHost } from "../config/daemon-url";
import { daemonFiles, databasePath } from "../config/paths";
import type { Config } from "../config/schema";
import type { HealthResponse } from "../contracts/health";
import { ownerOnlyPaths } from "../control/data-dir";
import { probeSandbox } from "../os/sandbox";
import { readStatus } from "../control/daemon-process";
import { claudePaths } from "../harness/claude-code";
import { checkCodexToml, codexPath } from "../harness/codex";
import { isObject, readJsonObject } from "../harness/json-edit";
import { opencodeFiles } from "../harness/opencode";
import { readConfigText } from "../harness/plan";
import { getPath, parseToml } from "../harness/toml";
import { HARNESS_NAMES, MCP_COMMAND, SERVER_NAME, type HarnessName } from "../harness/types";
import { isCompiled } from "../self";
import { VERSION } from "../version";
import { clientArgs, configFromFlags } from "./context";
import { EXIT, ExitError } from "./errors";
import { emit, outputArgs } from "./output";

type Status = "ok" | "problem" | "note";

interface Check {
  area: string;
  status: Status;
  detail: string;
  /** What to do about it: a problem's fix, or how to act on a note. */
  fix?: string;
}

const check = (status: Status) => (area: string, detail: string, fix?: string): Check => (fix ? { area, status, detail, fix } : { area, status, detail });
const ok = check("ok");
const problem = check("problem");
const note = check("note");

// ---- The daemon ----

async function daemonChecks(config: Config): Promise<{ checks: Check[]; health?: HealthResponse }> {
  const checks: Check[] = [];
  let running = false;
  try {
    const s = await readStatus(config);
    running = s.running;
    if (!s.running) checks.push(problem("daemon", `not running for ${config.dataDir}`, "signet daemon start"));
    else if (!s.healthy) {
      checks.push(problem("daemon", `pid ${s.pid ?? "?"} holds the lock, but ${s.url ?? "its URL"} does not answer /health`, "signet daemon logs; then signet daemon restart"));
    } else if (s.version !== VERSION) {
      checks.push(problem("daemon", `running v${s.version} at ${s.url} (pid ${s.pid}); this signet is v${VERSION}`, "signet daemon restart"));
    } else checks.push(ok("daemon", `running at ${s.url} (pid ${s.pid}, v${s.version}, up ${s.uptimeS}s)`));
  } catch (err) {
    // A planted link where the lock should be, say: the file-mode checks name it too.
    checks.push(problem("daemon", `cannot tell whether it runs: ${(err as Error).message}`));
  }
  // What clients (the CLI, signet-mcp) reach: the configured URL, checked as they check it.
  const url = config.daemon.url;
  try {
    const health = await new SignetClient({ baseUrl: url, dataDir: config.dataDir }).health();
    checks.push(
      isLoopbackHost(new URL(url).hostname)
        ? ok("identity", `${url} proved it holds ${daemonFiles(config.dataDir).instanceKey}`)
        : note("identity", `${url} is not on this machine: clients do not check it (team mode's tokens will)`),
    );
    return { checks, health };
  } catch (err) {
    if (err instanceof DaemonIdentityError) {
      checks.push(problem("identity", err.message, `stop what listens on port ${new URL(url).port || "80"}, or use another port (SIGNET_PORT / daemon.port)`));
    } else if (running) {
      checks.push(problem("identity", `clients use ${url}, where the daemon does not answer`, "make daemon.url / SIGNET_PORT match the daemon's port, or signet daemon restart"));
    } else checks.push(note("identity", `not checked: nothing answers at ${url}`));
    return { checks };
  }
}

// ---- The store and the embedder (as /health reports them) ----

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function storeCheck(dataDir: string, health: HealthResponse | undefined): Check {
  const db = databasePath(dataDir);
  if (!statOrNull(dataDir)) return note("store", `${dataDir} does not exist yet`, "signet daemon start creates it");
  const st = statOrNull(db);
  if (!st) return note("store", `no database yet at ${db}`, "signet daemon start creates it");
  const mib = ((st.size + (statOrNull(`${db}-wal`)?.size ?? 0)) / 1048576).toFixed(1);
  if (health && !health.db.ok) return problem("store", `the daemon cannot read ${db}`, "signet daemon logs; then signet daemon restart");
  return ok("store", `${db} (${mib} MiB${health ? `, ${health.db.memories} memories` : ""})`);
}

function embedderCheck(health: HealthResponse | undefined): Check {
  if (!health) return note("embedder", "not checked: no daemon answers");
  const e = health.embedding;
  if (e.provider === "none") return ok("embedder", "off (embedding.provider none): recall is keyword-only");
  const name = `${e.provider}${e.model ? ` (${e.model})` : ""}`;
  if (!e.ok) {
    return problem(
      "embedder",
      `${name} is not available (still loading, or failing); ${e.pending} memories wait, recall is keyword-only meanwhile`,
      "if it stays so: signet daemon logs, and check embedding.* in agent.yaml",
    );
  }
  const rejected = e.rejected ? `, ${e.rejected} refused by the provider (keyword-only until changed)` : "";
  return ok("embedder", `${name}: ok, ${e.pending} pending${rejected}`);
}

// ---- File modes (docs/security.md#files): directories 0700, files 0600, owned by us, no links ----

const octal = (mode: number) => mode.toString(8).padStart(4, "0");

/** The paths the daemon secures at start (control/data-dir.ts), judged without changing any. */
function modeChecks(dataDir: string): Check[] {
  const uid = process.getuid?.();
  const found: Check[] = [];
  let seen = 0;
  try {
    for (const { path, stat, allowed } of ownerOnlyPaths(dataDir)) {
      if (stat === "link") {
        found.push(problem("file modes", `${path} is a symbolic link: the daemon refuses to start`, `remove it: rm '${path}'`));
        continue;
      }
      seen++;
      if (uid !== undefined && stat.uid !== uid) {
        found.push(problem("file modes", `${path} is owned by uid ${stat.uid}, not by you (uid ${uid})`, `chown ${uid} '${path}'`));
      }
      const mode = stat.mode & 0o7777;
      if (mode & ~allowed) {
        found.push(problem("file modes", `${path} is ${octal(mode)}, want ${octal(allowed)}`, `chmod go-rwx '${path}' (the daemon also tightens it when it starts)`));
      }
    }
  } catch (err) {
    found.push(problem("file modes", `cannot read ${dataDir}: ${(err as Error).message}`, `chmod 700 the directory it names`));
  }
  if (seen === 0 && found.length === 0) return [];
  return found.length > 0 ? found : [ok("file modes", `${seen} files and directories in ${dataDir} are yours alone`)];
}

// ---- Programs: the signet-mcp a harness would start ----

const isHarness = (name: string) => (HARNESS_NAMES as readonly string[]).includes(name);

/** The program a harness would run for `command`, looked up on this shell's PATH when it has no slash. */
function locate(command: string): string | null {
  if (command.includes("/")) return resolve(command);
  return Bun.which(command, { PATH: process.env.PATH ?? "" });
}

const versions = new Map<string, string | null>();

/** `--version` of another Signet binary (`signet-mcp 0.1.0` → `0.1.0`); other programs are not run. */
function signetVersion(path: string): string | null {
  if (!/^signet(-mcp)?(\.|$)/.test(basename(path))) return null;
  if (!versions.has(path)) {
    const r = Bun.spawnSync([path, "--version"], { stdout: "pipe", stderr: "ignore", timeout: 5000 });
    versions.set(path, /^signet(?:-mcp)? (\S+)$/.exec(r.stdout.toString().trim())?.[1] ?? null);
  }
  return versions.get(path)!;
}

/** Whether `command` would start, and which Signet it is; `where` names the config it is from. */
function programCheck(area: string, command: string, where?: string): Check {
  const at = (text: string) => (where ? `${where}: ${text}` : text);
  const path = locate(command);
  if (!path) {
    const install = "signet self-install (puts signet and signet-mcp in ~/.local/bin)";
    // `signet setup` writes full paths, so only a harness entry naming it bare needs it on PATH.
    return where ? problem(area, at(`${command} is not on PATH`), install) : note(area, `${command} is not on PATH`, install);
  }
  const st = statOrNull(path);
  if (!st) return problem(area, at(`${path} does not exist`), isHarness(area) ? `signet setup --harness ${area}` : "signet self-install");
  try {
    if (!st.isFile()) throw new Error();
    accessSync(path, constants.X_OK);
  } catch {
    return problem(area, at(`${path} is not an executable file`), `chmod +x '${path}', or signet self-install`);
  }
  if (isCompiled() && realpathSync(path) === realpathSync(process.execPath)) return ok(area, at(`${path} (this signet)`));
  const version = signetVersion(path);
  if (version === VERSION) return ok(area, at(`${path} (signet ${VERSION}, another copy)`));
  const what = version ? `signet ${version}` : "not a Signet binary this signet recognises";
  return problem(area, at(`${path} is ${what}; this is signet ${VERSION}`), "signet self-install, so harnesses run this version");
}

// ---- Harness registrations (the entries `signet setup` writes), read-only ----

interface Registration {
  file: string;
  /** The program of the entry, undefined when it names none. */
  command?: string;
  enabled: boolean;
  /** SIGNET_PATH in the entry's environment: the data directory that signet-mcp serves. */
  dataDir?: string;
}

/** `doc[parent].signet` of a JSON or JSONC config, or undefined. */
function jsonEntry(file: string, parent: string): Record<string, unknown> | undefined {
  const text = readConfigText(file);
  if (text === null) return undefined;
  let doc: Record<string, unknown>;
  try {
    doc = readJsonObject(text, "JSONC");
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  const servers = doc[parent];
  const entry = isObject(servers) ? servers[SERVER_NAME] : undefined;
  return isObject(entry) ? entry : undefined;
}

const stringOr = (v: unknown) => (typeof v === "string" ? v : undefined);

/** An entry's command and SIGNET_PATH; `envKey` is where the harness keeps a server's environment. */
function registration(file: string, command: unknown, entry: Record<string, unknown>, envKey: string): Registration {
  const env = entry[envKey];
  return { file, command: stringOr(command), enabled: entry.enabled !== false, dataDir: isObject(env) ? stringOr(env.SIGNET_PATH) : undefined };
}

function registrations(harness: HarnessName, home: string, env: Record<string, string | undefined>): Registration[] {
  const place = { home, env };
  if (harness === "claude-code") {
    // Claude Code reads user-scope servers from .claude.json only.
    const file = claudePaths(place).state;
    const entry = jsonEntry(file, "mcpServers");
    return entry ? [registration(file, entry.command, entry, "env")] : [];
  }
  if (harness === "codex") {
    const file = codexPath(place);
    const text = readConfigText(file);
    if (text === null) return [];
    let entry: unknown;
    try {
      entry = getPath(checkCodexToml(text) ?? parseToml(text), ["mcp_servers", SERVER_NAME]);
    } catch (err) {
      throw new Error(`${file}: ${(err as Error).message}`);
    }
    return isObject(entry) ? [registration(file, entry.command, entry, "env")] : [];
  }
  // OpenCode merges opencode.jsonc over opencode.json (and OPENCODE_CONFIG over both), key by key.
  const { json, jsonc } = opencodeFiles(place);
  const files = [json, jsonc, ...(env.OPENCODE_CONFIG?.trim() ? [resolve(env.OPENCODE_CONFIG.trim())] : [])];
  let merged: Record<string, unknown> | undefined;
  let from = "";
  for (const file of files) {
    const entry = jsonEntry(file, "mcp");
    if (!entry) continue;
    merged = { ...merged, ...entry };
    from = file;
  }
  if (!merged) return [];
  return [registration(from, Array.isArray(merged.command) ? merged.command[0] : undefined, merged, "environment")];
}

function harnessChecks(harness: HarnessName, dataDir: string): Check[] {
  let found: Registration[];
  try {
    found = registrations(harness, process.env.HOME || homedir(), process.env);
  } catch (err) {
    // readConfigText's errors are worded for an edit; nothing is edited here.
    return [problem(harness, (err as Error).message.replace(/; nothing was changed$/, ""), "fix the file: the harness cannot read it either")];
  }
  if (found.length === 0) return [note(harness, "signet-mcp is not registered", `signet setup --harness ${harness}`)];
  return found.map((r) => {
    if (!r.enabled) return note(harness, `${r.file}: the signet entry is disabled`, `enable it in the harness, or signet setup --harness ${harness}`);
    if (!r.command) return problem(harness, `${r.file}: the signet entry names no command`, `signet setup --harness ${harness}`);
    const program = programCheck(harness, r.command, r.file);
    if (program.status !== "ok" || r.dataDir === undefined || resolve(r.dataDir) === dataDir) return program;
    // Deliberate, maybe (one data directory per harness), but then this doctor is not checking it.
    return note(harness, `${r.file}: its signet-mcp serves ${r.dataDir}, not ${dataDir}`, `signet setup --harness ${harness} registers it for ${dataDir}`);
  });
}

// ---- Secret exec's sandbox ----

/** What a secret exec job may reach here (docs/security.md#jobs), probed as the daemon probes it at start. */
function sandboxCheck(config: Config): Check {
  const area = "secret exec";
  const probe = config.secrets.sandbox === "off" ? { sandbox: null, reason: "secrets.sandbox is off" } : probeSandbox(process.env.PATH);
  if (probe.sandbox) return ok(area, `jobs run in a bubblewrap sandbox (${probe.sandbox.bwrap}): they cannot read the data directory or the daemon's environment`);
  const unsandboxed = `jobs run without a sandbox (${probe.reason}), as your account: they can read the data directory`;
  const install = "install bubblewrap (Debian and Ubuntu: apt install bubblewrap), then signet daemon restart";
  if (config.auth.mode === "local") return note(area, unsandboxed, install);
  if (config.secrets.execUnsandboxed) {
    return note(area, `${unsandboxed}, including jobs queued with API tokens (secrets.execUnsandboxed is true)`, install);
  }
  return note(area, `${unsandboxed}; in ${config.auth.mode} mode API tokens may not run them (secrets.execUnsandboxed is false)`, install);
}

// ---- The report ----

interface Report {
  ok: boolean;
  problems: number;
  checks: Check[];
}

function render(r: Report): string {
  const lines = r.checks.flatMap((c) => {
    const head = `${c.status.padEnd(8)} ${c.area.padEnd(12)} ${c.detail}`;
    return c.fix ? [head, `${" ".repeat(9)}${c.status === "problem" ? "fix" : "to do"}: ${c.fix}`] : [head];
  });
  lines.push("", r.ok ? "signet doctor: no problems found" : `signet doctor: ${r.problems} problem${r.problems === 1 ? "" : "s"} found`);
  return lines.join("\n");
}

export const doctor = defineCommand({
  meta: {
    name: "doctor",
    description:
      "Check the installation: the daemon, the store, the embedder, file modes, each harness's registration, signet-mcp on PATH and secret exec's sandbox. Each problem comes with its fix; exit 1 when there is one. Read-only.",
  },
  args: { url: clientArgs.url, ...outputArgs },
  async run({ args }) {
    const config = configFromFlags(args);
    const { checks, health } = await daemonChecks(config);
    checks.push(storeCheck(config.dataDir, health), embedderCheck(health), ...modeChecks(config.dataDir));
    for (const harness of HARNESS_NAMES) checks.push(...harnessChecks(harness, config.dataDir));
    checks.push(programCheck("signet-mcp", MCP_COMMAND), sandboxCheck(config));
    const problems = checks.filter((c) => c.status === "problem").length;
    emit({ ok: problems === 0, problems, checks }, args, render);
    if (problems > 0) throw new ExitError(EXIT.failed);
  },
});
