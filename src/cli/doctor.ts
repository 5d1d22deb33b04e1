// `signet doctor`: is everything in place? The daemon (running, healthy, proving who it is), the
// store, the embedder, file modes, each harness's registration and the whole path it takes (its hooks
// and MCP server run for real, doctor-path.ts), signet-mcp on PATH and secret exec's sandbox, each
// reported with what to do about it. Files are only stat'ed (the database is never opened) and
// harness configs only read; the dry-run sessions the hooks record are removed again.
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { accessSync, constants, realpathSync, statSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { basename, resolve } from "node:path";
import { DaemonIdentityError, SignetClient } from "../client/client";
import { isLoopbackHost } from "../config/daemon-url";
import { readOwnerFile } from "../config/owner-files";
import { ConfigError, loadConfig, resolveDataDir } from "../config/load";
import { configPath, daemonFiles, databasePath } from "../config/paths";
import { displayedUrl } from "../config/storage-url";
import type { Config } from "../config/schema";
import type { HealthResponse } from "../contracts/health";
import { ownerOnlyPaths } from "../control/data-dir";
import { octalMode } from "../os/owner-only-files";
import { probeSandbox } from "../os/sandbox";
import { readStatus } from "../control/daemon-process";
import { dataDirProblem } from "../control/lock";
import { readHookRegistration, readMcpRegistration, type HookRegistration, type McpRegistration } from "../harness/registered";
import { HARNESS_NAMES, MCP_COMMAND, type HarnessName } from "../harness/types";
import { isCompiled } from "../self";
import { VERSION } from "../version";
import { clientArgs, configFromFlags } from "./context";
import { MODEL_NOT_LOADED } from "./embed";
import { note, ok, problem, type Check } from "./doctor-check";
import { hookChecks, mcpCheck, pathProbe, tokenChecks } from "./doctor-path";
import { EXIT, ExitError } from "./errors";
import { emit, outputArgs } from "./output";

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

// ---- The configuration ----

/**
 * The configuration, or, when it is invalid, a problem naming what is wrong and the defaults (with
 * the data directory, and no agent.yaml) to check the rest with: an invalid configuration is one
 * problem among others, not the end of the report.
 */
function loadedConfig(args: { url?: string }, checks: Check[]): Config {
  try {
    return configFromFlags(args);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const dataDir = resolveDataDir();
    checks.push(
      problem(
        "config",
        `${err.message}; the daemon does not start and commands refuse to run until it is fixed (\`signet daemon stop\` and \`status\` still work). The checks below use the defaults`,
        `fix ${configPath(dataDir)} or the SIGNET_* variable it names (docs/config.md lists every key)`,
      ),
    );
    return loadConfig({ env: { HOME: process.env.HOME, SIGNET_PATH: dataDir }, file: false });
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

function storeCheck(config: Config, health: HealthResponse | undefined): Check {
  if (config.storage.url) return sharedStoreCheck(displayedUrl(config.storage.url), health);
  const { dataDir } = config;
  const db = databasePath(dataDir);
  if (!statOrNull(dataDir)) return note("store", `${dataDir} does not exist yet`, "signet daemon start creates it");
  const st = statOrNull(db);
  if (!st) return note("store", `no database yet at ${db}`, "signet daemon start creates it");
  const mib = ((st.size + (statOrNull(`${db}-wal`)?.size ?? 0)) / 1048576).toFixed(1);
  if (health && !health.db.ok) return problem("store", `the daemon cannot read ${db}`, "signet daemon logs; then signet daemon restart");
  return ok("store", `${db} (${mib} MiB${health ? `, ${health.db.memories} memories` : ""})`);
}

/** A PostgreSQL store, as the daemon reaches it (doctor never opens a store): reachable, and who shares it. */
function sharedStoreCheck(url: string, health: HealthResponse | undefined): Check {
  if (!health) return note("store", `PostgreSQL at ${url}: not checked, no daemon answers`, "signet daemon start (it stops at once, naming the problem, when it cannot reach the database)");
  if (!health.db.ok) {
    return problem("store", `the daemon cannot reach PostgreSQL at ${url}`, "check that PostgreSQL runs and accepts storage.url's user (signet daemon logs); the daemon reconnects by itself");
  }
  const daemons = health.store?.daemons ?? [];
  const shared = daemons.map((d) => `${d.url} (${d.id}, v${d.version})`).join(", ");
  const detail = `PostgreSQL at ${url} (${health.db.memories} memories), shared by ${daemons.length} daemon${daemons.length === 1 ? "" : "s"}: ${shared}`;
  const versions = new Set(daemons.map((d) => d.version));
  if (versions.size > 1) return note("store", detail, `the daemons run different versions (${[...versions].join(", ")}): upgrade them all, so none meets a schema it does not know`);
  return ok("store", detail);
}

/** Why the provider fails, from GET /api/embed/status (/health says whether, not why); undefined when it cannot be read. */
async function embeddingError(config: Config): Promise<string | undefined> {
  try {
    const client = new SignetClient({ baseUrl: config.daemon.url, token: config.auth.token, dataDir: config.dataDir, asOwner: true });
    return (await client.embed.status()).error;
  } catch {
    return undefined;
  }
}

async function embedderCheck(config: Config, health: HealthResponse | undefined): Promise<Check> {
  if (!health) return note("embedder", "not checked: no daemon answers");
  const e = health.embedding;
  if (e.provider === "none") return ok("embedder", "off (embedding.provider none): recall is keyword-only");
  const name = `${e.provider}${e.model ? ` (${e.model})` : ""}`;
  if (!e.ok) {
    const error = await embeddingError(config);
    if (error) {
      return problem(
        "embedder",
        `${name} is failing: ${error}; ${e.pending} memories wait, recall is keyword-only meanwhile`,
        "check embedding.* in agent.yaml and that the provider answers; the daemon retries by itself (signet embed status shows the latest reason)",
      );
    }
    return problem(
      "embedder",
      `${name} is not available (still loading, or failing); ${e.pending} memories wait, recall is keyword-only meanwhile`,
      "if it stays so: signet embed status and signet daemon logs say why; check embedding.* in agent.yaml",
    );
  }
  const rejected = e.rejected ? `, ${e.rejected} refused by the provider (keyword-only until changed)` : "";
  const loaded = e.loaded ? "" : `, ${MODEL_NOT_LOADED}`;
  return ok("embedder", `${name}: ok${loaded}, ${e.pending} pending${rejected}`);
}

// ---- File modes (docs/security.md#files): directories 0700, files 0600, owned by us, no links ----

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
        found.push(problem("file modes", `${path} is ${octalMode(mode)}, want ${octalMode(allowed)}`, `chmod go-rwx '${path}' (the daemon also tightens it when it starts)`));
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

// ---- Harnesses: what their configs register, and the whole path run for real (doctor-path.ts) ----

type Place = { home: string; env: Record<string, string | undefined> };

/** What doctor found of one harness, and what of it can be run. */
interface HarnessFindings {
  harness: HarnessName;
  /** The registration: readable, its program, its data directory, its hooks. */
  head: Check[];
  /** The auth mode against the entries. */
  tail: Check[];
  mcp?: McpRegistration & { command: string };
  hooks?: HookRegistration;
}

/** A config the harness cannot read; readConfigText's errors are worded for an edit, nothing is edited here. */
const unreadable = (harness: HarnessName, err: unknown) => problem(harness, (err as Error).message.replace(/; nothing was changed$/, ""), "fix the file: the harness cannot read it either");

function read<T>(harness: HarnessName, head: Check[], reader: () => T): T | undefined {
  try {
    return reader();
  } catch (err) {
    head.push(unreadable(harness, err));
    return undefined;
  }
}

function harnessFindings(harness: HarnessName, place: Place, config: Config): HarnessFindings {
  const head: Check[] = [];
  const mcp = read(harness, head, () => readMcpRegistration(harness, place));
  const hooks = read(harness, head, () => readHookRegistration(harness, place));
  const found: HarnessFindings = { harness, head, tail: tokenChecks(harness, mcp, hooks, config) };
  if (head.length > 0) return found;
  if (!mcp) {
    head.push(note(harness, "signet-mcp is not registered", `signet setup --harness ${harness}`));
  } else if (!mcp.enabled) {
    head.push(note(harness, `${mcp.file}: the signet entry is disabled`, `enable it in the harness, or signet setup --harness ${harness}`));
  } else if (!mcp.command) {
    head.push(problem(harness, `${mcp.file}: the signet entry names no command`, `signet setup --harness ${harness}`));
  } else {
    const program = programCheck(harness, mcp.command, mcp.file);
    const dataDir = mcp.env.SIGNET_PATH;
    if (program.status === "ok" && dataDir !== undefined && resolve(dataDir) !== config.dataDir) {
      // Deliberate, maybe (one data directory per harness), but then this doctor is not checking it.
      head.push(note(harness, `${mcp.file}: its signet-mcp serves ${dataDir}, not ${config.dataDir}`, `signet setup --harness ${harness} registers it for ${config.dataDir}`));
      return found;
    }
    head.push(program);
    if (program.status === "ok") found.mcp = { ...mcp, command: mcp.command };
  }
  if (hooks) found.hooks = hooks;
  else if (mcp) head.push(note(harness, "no lifecycle hooks are registered: memories reach the model only when it calls the tools", `signet setup --harness ${harness}`));
  return found;
}

/** Runs what each harness registers, every harness's hooks and MCP server side by side. */
async function pathChecks(findings: HarnessFindings[], config: Config, health: HealthResponse | undefined): Promise<Check[][]> {
  const url = config.daemon.url;
  if (!health) return findings.map((f) => (f.mcp || f.hooks ? [note(f.harness, `its hooks and MCP server were not run: no daemon of ${config.dataDir} answers at ${url}`)] : []));
  const probe = pathProbe(config, process.env, process.cwd());
  // The client proves the daemon holds this data directory and sends the owner's admin token from it,
  // which alone removes the dry-run sessions: without it the hooks are not run, so nothing is left over.
  const local = isLoopbackHost(new URL(url).hostname);
  const adminToken = daemonFiles(config.dataDir).adminToken;
  const owner = local && readOwnerFile(adminToken) !== null ? new SignetClient({ baseUrl: url, dataDir: config.dataDir, actor: "doctor", actorType: "operator" }) : undefined;
  const hooks = (f: HarnessFindings): Promise<Check[]> | Check[] => {
    if (!f.hooks) return [];
    if (owner) return hookChecks(f.harness, f.hooks, owner, probe);
    const why = local ? `the owner's admin token ${adminToken} cannot be read` : `${url} is not on this machine`;
    return [note(f.harness, `its hooks were not run: ${why}, and only the owner's admin token removes the dry-run sessions they record`, local ? "signet daemon restart (it writes the token again)" : undefined)];
  };
  return Promise.all(
    findings.map(async (f) => {
      const [ran, mcp] = await Promise.all([hooks(f), f.mcp ? mcpCheck(f.harness, f.mcp, probe) : undefined]);
      return mcp ? [...ran, mcp] : ran;
    }),
  );
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
    description: COMMAND_DESCRIPTIONS.doctor,
  },
  args: { url: clientArgs.url, ...outputArgs },
  async run({ args }) {
    const checks: Check[] = [];
    const config = loadedConfig(args, checks);
    const notDirectory = dataDirProblem(config.dataDir);
    let health: HealthResponse | undefined;
    if (notDirectory) {
      // Nothing can be in it: no daemon, no store, no modes to judge (a file's would be misread).
      checks.push(problem("data dir", notDirectory.detail, notDirectory.fix));
    } else {
      const daemon = await daemonChecks(config);
      health = daemon.health;
      checks.push(...daemon.checks, storeCheck(config, health), await embedderCheck(config, health), ...modeChecks(config.dataDir));
    }
    const findings = HARNESS_NAMES.map((harness) => harnessFindings(harness, { home: process.env.HOME || homedir(), env: process.env }, config));
    const paths = await pathChecks(findings, config, health);
    findings.forEach((f, i) => checks.push(...f.head, ...paths[i]!, ...f.tail));
    checks.push(programCheck("signet-mcp", MCP_COMMAND), sandboxCheck(config));
    const problems = checks.filter((c) => c.status === "problem").length;
    emit({ ok: problems === 0, problems, checks }, args, render);
    if (problems > 0) throw new ExitError(EXIT.failed);
  },
});
