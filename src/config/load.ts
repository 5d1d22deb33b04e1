// The one configuration loader: flags > environment > agent.yaml > defaults.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { z } from "zod";
import { cachedParse } from "./cache";
import { runningDaemonUrl } from "./daemon-record";
import { parseDaemonUrl, reachableHost, DaemonUrlError } from "./daemon-url";
import { configPath } from "./paths";
import type { Config, ParsedConfig } from "./schema";

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;
type Tree = Record<string, unknown>;

function homeDir(env: Env): string {
  // node:os only without HOME: loading it costs every command about 2 ms.
  return env.HOME?.trim() || (require("node:os") as typeof import("node:os")).homedir();
}

/**
 * SIGNET_PATH with a leading `~` or `~/` as the home directory: a value no shell expanded (a harness
 * config's env entry, a systemd unit, a .env file) must not become `./~/.agents`, a store of its
 * own under each working directory. `~user` is refused: its home is not ours to look up.
 */
function expandHome(path: string, env: Env): string {
  if (path === "~") return homeDir(env);
  if (path.startsWith("~/")) return join(homeDir(env), path.slice(2));
  if (path.startsWith("~")) {
    throw new ConfigError(
      `SIGNET_PATH=${JSON.stringify(path)}: only a leading ~ or ~/ (your home, ${homeDir(env)}) is expanded, not ~user; give the directory's full path`,
    );
  }
  return path;
}

export function resolveDataDir(env: Env = process.env): string {
  const explicit = env.SIGNET_PATH?.trim();
  // Absolute: the daemon changes to a fixed directory, and clients compare it with the daemon's.
  if (explicit) return resolve(expandHome(explicit, env));
  return join(homeDir(env), ".agents");
}

function readConfigFile(path: string): Tree {
  if (!existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = Bun.YAML.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new ConfigError(`${path}: not valid YAML: ${(err as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`${path}: expected a mapping of configuration keys at the top level`);
  }
  return parsed as Tree;
}

function envInt(env: Env, name: string): number | undefined {
  const v = env[name]?.trim();
  if (!v) return undefined;
  if (!/^\d+$/.test(v)) throw new ConfigError(`${name}=${JSON.stringify(v)} is not a whole number`);
  return Number(v);
}

function envBool(env: Env, name: string): boolean | undefined {
  const v = env[name]?.trim().toLowerCase();
  if (!v) return undefined;
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name}=${JSON.stringify(v)} must be true or false`);
}

function envString(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

/**
 * The token in the file SIGNET_TOKEN_FILE names (`signet setup` writes one for a harness, and points
 * the harness's entry at it, so the token itself is in no harness config). The file must be the
 * caller's own and readable by it alone, like the data directory's files, and hold the token alone.
 */
function readTokenFile(path: string): string {
  const refuse = (problem: string) => new ConfigError(`SIGNET_TOKEN_FILE ${path}: ${problem}`);
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw refuse("not a regular file");
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) throw refuse(`it belongs to uid ${st.uid}, not to uid ${uid} that reads it; a token file must be your own`);
    const mode = st.mode & 0o777;
    if (mode & 0o077) throw refuse(`other accounts may read or change it (mode 0${mode.toString(8)}): run \`chmod 600 ${path}\``);
    text = readFileSync(path, "utf8");
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw refuse("no such file (when `signet setup` wrote the entry that names it, run setup again)");
    throw refuse(`cannot read it (${code === "EACCES" ? "permission denied" : (err as Error).message})`);
  }
  const token = text.trim();
  if (token === "") throw refuse("it is empty; it must hold the token");
  if (/\s/.test(token)) throw refuse("it holds more than one word; it must hold the token alone");
  return token;
}

/** The environment's layer, shaped like agent.yaml so the same merge applies. */
function envLayer(env: Env): Tree {
  const origins = envString(env, "SIGNET_ACP_ALLOWED_ORIGINS");
  // The file a harness entry names is more specific than a SIGNET_TOKEN the harness inherited.
  const tokenFile = envString(env, "SIGNET_TOKEN_FILE");
  return {
    daemon: { port: envInt(env, "SIGNET_PORT"), bind: envString(env, "SIGNET_BIND"), autostart: envBool(env, "SIGNET_AUTOSTART") },
    storage: { url: envString(env, "SIGNET_DATABASE_URL") },
    agent: { id: envString(env, "SIGNET_AGENT_ID") },
    auth: { mode: envString(env, "SIGNET_AUTH_MODE"), token: tokenFile ? readTokenFile(tokenFile) : envString(env, "SIGNET_TOKEN") },
    acp: { allowedOrigins: origins?.split(",").map((s) => s.trim()).filter(Boolean) },
  };
}

function isTree(v: unknown): v is Tree {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Deep merge where `undefined` in the upper layer never hides a lower value, and a lower value
 * that is not a mapping where one belongs (`daemon: 5`) is kept, so validation reports it.
 */
export function mergeLayers(lower: Tree, upper: Tree): Tree {
  const out: Tree = { ...lower };
  for (const [k, v] of Object.entries(upper)) {
    if (v === undefined) continue;
    if (isTree(v)) {
      if (out[k] === undefined) out[k] = mergeLayers({}, v);
      else if (isTree(out[k])) out[k] = mergeLayers(out[k] as Tree, v);
      continue;
    }
    out[k] = v;
  }
  return out;
}

function describeIssues(source: string, error: z.ZodError): string {
  const lines = error.issues.map((i) => {
    const key = i.path.join(".") || "(top level)";
    if (i.code === "unrecognized_keys") {
      const prefix = i.path.length ? `${i.path.join(".")}.` : "";
      return `unknown key ${i.keys.map((k) => prefix + k).join(", ")}`;
    }
    return `${key}: ${i.message}`;
  });
  return `invalid configuration (${source}): ${lines.join("; ")}`;
}

export interface LoadConfigOptions {
  env?: Env;
  /** Values from command-line flags: the highest layer. */
  flags?: Tree;
  /** Reuse the last validation of the same input (src/config/cache.ts): for `signet hook` and CLI commands. */
  cached?: boolean;
  /**
   * false: `daemon.url` is what the configuration says, not where the data directory's daemon runs
   * now (`signet setup` writes the configured one into harness entries; their clients find the
   * running daemon themselves).
   */
  running?: boolean;
  /** false: agent.yaml is not read (`signet doctor` goes on with the rest when that file is invalid). */
  file?: boolean;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const dataDir = resolveDataDir(env);
  const file = configPath(dataDir);
  const fileLayer = options.file === false ? {} : readConfigFile(file);
  const merged = mergeLayers(mergeLayers(fileLayer, envLayer(env)), options.flags ?? {});
  const parse = (input: Tree): ParsedConfig => {
    // Required when first used, not imported: building the schema (zod) costs more than the rest of
    // a hook's start, and a hook mostly reuses the last validation (./cache.ts).
    const { ConfigSchema }: typeof import("./schema") = require("./schema");
    const parsed = ConfigSchema.safeParse(input);
    if (!parsed.success) throw new ConfigError(describeIssues(`${file}, environment and flags`, parsed.error));
    return parsed.data as ParsedConfig;
  };
  const config = options.cached ? cachedParse(dataDir, merged, parse) : parse(merged);
  const running = options.running === false ? undefined : () => runningDaemonUrl(dataDir);
  return { ...config, daemon: { ...config.daemon, url: resolveDaemonUrl(config, env, options.flags, running) }, dataDir };
}

/**
 * `--url`, then SIGNET_DAEMON_URL, then where the data directory's daemon runs now (its record in
 * .daemon/), then the configured address: SIGNET_HOST/SIGNET_PORT, daemon.url, daemon.bind/port.
 */
function resolveDaemonUrl(config: ParsedConfig, env: Env, flags: Tree | undefined, running: (() => string | undefined) | undefined): string {
  try {
    const flagUrl = isTree(flags?.daemon) ? (flags.daemon as Tree).url : undefined;
    if (typeof flagUrl === "string") return parseDaemonUrl(flagUrl);
    const envUrl = env.SIGNET_DAEMON_URL;
    if (envUrl !== undefined && envUrl !== "") return parseDaemonUrl(envUrl);
    const found = running?.();
    if (found) return found;
    const host = envString(env, "SIGNET_HOST");
    if (host || envString(env, "SIGNET_PORT")) {
      return parseDaemonUrl(`http://${host ?? "127.0.0.1"}:${config.daemon.port}`);
    }
    if (config.daemon.url) return parseDaemonUrl(config.daemon.url);
    return parseDaemonUrl(`http://${reachableHost(config.daemon.bind)}:${config.daemon.port}`);
  } catch (err) {
    if (err instanceof DaemonUrlError) throw new ConfigError(err.message);
    throw err;
  }
}
