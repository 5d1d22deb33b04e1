// `signet mcp import --from <harness>`: the MCP servers a harness already has configured, as install
// requests for the registry. Config files are located with `signet setup`'s path logic (and its
// location variables); nothing is written here. One unusable entry is skipped with its reason; a
// config file that cannot be read or parsed throws, naming the file.
//
// Environment and header values are copied as written, secrets included: operators who want them
// out of the registry replace them with `secret:NAME` references afterwards. What a harness reads
// from its own environment when it starts a server (Codex `env_vars`, `bearer_token_env_var`,
// `env_http_headers`) cannot be carried, so such servers are skipped with the variables named.
//
// A repository's own files (.mcp.json, the project's opencode.json) are written by whoever wrote the
// repository: their servers come disabled unless the user's own config approves them, and approvals
// found inside the repository are never trusted. Relative paths are resolved against the directory
// of the config that declared them, since the daemon runs servers from elsewhere.
import { basename, dirname, join, resolve } from "node:path";
import { anchorPaths, InstallServerRequestSchema, ServerNameSchema, type InstallServerRequest } from "../contracts/bridge";
import { defined } from "../contracts/parse";
import { claudePaths } from "./claude-code";
import { checkCodexToml, codexPath } from "./codex";
import { isObject, readJsonObject, type JsonFormat, type JsonObject } from "./json-edit";
import { opencodeFiles } from "./opencode";
import { HarnessConfigError, readConfigText } from "./plan";
import { parseToml } from "./toml";
import { SERVER_NAME, isMcpCommand, type HarnessName } from "./types";

export interface ImportOptions {
  home: string;
  /** The project directory: Claude Code's and OpenCode's project-level servers are looked up here. */
  cwd: string;
  /** For the harnesses' own location overrides (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME, OPENCODE_CONFIG). */
  env?: Record<string, string | undefined>;
}

interface SkippedServer {
  name: string;
  reason: string;
}

interface ImportedServer {
  request: InstallServerRequest;
  /** Why it comes enabled or disabled, for the import report. */
  why: string;
}

export interface HarnessServers {
  servers: ImportedServer[];
  skipped: SkippedServer[];
  /** The config files that exist and were read; empty when the harness has none. */
  sources: string[];
}

/** One harness entry in Signet's terms, before validation; `problem` is why it cannot be imported. */
interface Candidate {
  transport?: Record<string, unknown>;
  /** The harness's own switch for the entry. */
  enabled: unknown;
  /** The directory of the config that declared it, which its relative paths are relative to. */
  base: string;
  /** For a repository's server: the file of the user's own config that approves it, if one does. */
  project?: { approvedIn?: string };
  problem?: string;
}

interface Found {
  entries: [string, Candidate][];
  sources: string[];
}

type Place = Required<ImportOptions>;

export function readHarnessServers(harness: HarnessName, opts: ImportOptions): HarnessServers {
  const place: Place = { home: opts.home, cwd: resolve(opts.cwd), env: opts.env ?? process.env };
  const { read, label } = READERS[harness];
  const { entries, sources } = read(place);
  const out: HarnessServers = { servers: [], skipped: [], sources };
  for (const [name, candidate] of entries) {
    const verdict = validate(name, candidate, label);
    if (typeof verdict === "string") out.skipped.push({ name, reason: verdict });
    else out.servers.push(verdict);
  }
  return out;
}

const READERS: Record<HarnessName, { read: (place: Place) => Found; label: string }> = {
  "claude-code": { read: readClaudeCode, label: "Claude Code" },
  codex: { read: readCodex, label: "Codex" },
  opencode: { read: readOpencode, label: "OpenCode" },
};

function validate(name: string, candidate: Candidate, label: string): ImportedServer | string {
  if (isSignet(name, candidate.transport)) return "Signet itself";
  const named = ServerNameSchema.safeParse(name);
  if (!named.success) return named.error.issues.map((i) => i.message).join("; ");
  if (candidate.problem) return candidate.problem;
  const { transport, base, project } = candidate;
  const unapproved = project !== undefined && project.approvedIn === undefined;
  const parsed = InstallServerRequestSchema.safeParse({
    name,
    transport: transport?.type === "stdio" ? anchorPaths(transport, base) : transport,
    enabled: unapproved ? false : candidate.enabled,
  });
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  const why =
    candidate.enabled === false
      ? `disabled: switched off in ${label}`
      : unapproved
        ? `disabled: project server not approved in your own config; enable with \`signet mcp enable ${name}\``
        : project
          ? `enabled: project server approved in your own config (${project.approvedIn})`
          : "enabled: from your own config";
  return { request: parsed.data, why };
}

/** The entry `signet setup` writes: named signet, or starting signet-mcp / `signet mcp serve`. */
function isSignet(name: string, transport: Record<string, unknown> | undefined): boolean {
  if (name.trim().toLowerCase() === SERVER_NAME) return true;
  if (transport?.type !== "stdio" || typeof transport.command !== "string") return false;
  const args = Array.isArray(transport.args) ? transport.args : [];
  if (isMcpCommand(transport.command)) return true;
  return basename(transport.command).replace(/\.exe$/i, "") === "signet" && args[0] === "mcp" && args[1] === "serve";
}

function readJsonConfig(path: string, sources: string[], format: JsonFormat = "JSON"): JsonObject | undefined {
  const text = readConfigText(path);
  if (text === null) return undefined;
  sources.push(path);
  try {
    return readJsonObject(text, format);
  } catch (err) {
    throw new HarnessConfigError(path, (err as Error).message);
  }
}

/** `doc[key]` when it is an object (absent: undefined); anything else makes the file unusable. */
function objectAt(doc: JsonObject | undefined, key: string, path: string): JsonObject | undefined {
  const value = doc && Object.hasOwn(doc, key) ? doc[key] : undefined;
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new HarnessConfigError(path, `"${key}" is not an object`);
  return value;
}

function listed(doc: JsonObject | undefined, key: string, name: string): boolean {
  const list = doc?.[key];
  return Array.isArray(list) && list.includes(name);
}

// ---- Claude Code ----

/**
 * User servers (`mcpServers` in .claude.json), project servers (.mcp.json in the project) and
 * local servers (`projects[<cwd>].mcpServers`); on a name clash the narrower scope wins, as in
 * Claude Code. A project server comes enabled only when the user's own files approve it: the
 * project's entry in .claude.json, or the user's settings.json; the repository's
 * .claude/settings.local.json can only reject one. Servers switched off in /mcp come disabled.
 * Local servers run in the project, so their relative paths are the project's.
 */
function readClaudeCode({ home, cwd, env }: Place): Found {
  const sources: string[] = [];
  const paths = claudePaths({ home, env });
  const mcpJsonPath = join(cwd, ".mcp.json");
  const state = readJsonConfig(paths.state, sources);
  const mcpJson = readJsonConfig(mcpJsonPath, sources);
  const project = objectAt(objectAt(state, "projects", paths.state), cwd, paths.state);
  const approvals: [JsonObject | undefined, string][] = mcpJson ? [[project, paths.state], [readJsonConfig(paths.settings, sources), paths.settings]] : [];
  const rejections = mcpJson ? [...approvals.map(([doc]) => doc), readJsonConfig(join(cwd, ".claude", "settings.local.json"), sources)] : [];

  const scopes: [JsonObject | undefined, string, boolean][] = [
    [objectAt(state, "mcpServers", paths.state), dirname(paths.state), false],
    [objectAt(mcpJson, "mcpServers", mcpJsonPath), cwd, true],
    [objectAt(project, "mcpServers", paths.state), cwd, false],
  ];
  const chosen = new Map<string, { raw: unknown; base: string; fromMcpJson: boolean }>();
  for (const [servers, base, fromMcpJson] of scopes) {
    for (const [name, raw] of Object.entries(servers ?? {})) chosen.set(name, { raw, base, fromMcpJson });
  }
  const approvedIn = (name: string) =>
    approvals.find(([doc]) => doc?.enableAllProjectMcpServers === true || listed(doc, "enabledMcpjsonServers", name))?.[1];

  const entries = [...chosen].map(([name, { raw, base, fromMcpJson }]): [string, Candidate] => {
    const rejected = listed(project, "disabledMcpServers", name) || (fromMcpJson && rejections.some((doc) => listed(doc, "disabledMcpjsonServers", name)));
    const origin = fromMcpJson ? { project: { approvedIn: approvedIn(name) } } : {};
    return [name, { ...claudeCandidate(raw), enabled: !rejected, base, ...origin }];
  });
  return { entries, sources };
}

function claudeCandidate(raw: unknown): Pick<Candidate, "transport" | "problem"> {
  if (!isObject(raw)) return { problem: "the entry is not an object" };
  const type = raw.type ?? "stdio";
  if (type === "stdio") return { transport: defined({ type: "stdio", command: raw.command, args: raw.args, env: raw.env }) };
  if (type === "sse") return { problem: "it uses the SSE transport; Signet bridges stdio and streamable HTTP servers only" };
  if (type !== "http" && type !== "streamable-http") return { problem: `unsupported transport type ${JSON.stringify(type)}` };
  const transport = defined({ type: "http", url: raw.url, headers: raw.headers });
  if (raw.headersHelper !== undefined) return { transport, problem: "its headers come from a headersHelper command, which Signet does not run" };
  return { transport };
}

// ---- Codex ----

/** `[mcp_servers.<name>]` tables of the Codex config; `enabled = false` comes disabled. */
function readCodex({ home, env }: Place): Found {
  const path = codexPath({ home, env });
  const text = readConfigText(path);
  if (text === null) return { entries: [], sources: [] };
  let servers: unknown;
  try {
    checkCodexToml(text);
    servers = parseToml(text).mcp_servers;
  } catch (err) {
    throw new HarnessConfigError(path, (err as Error).message);
  }
  if (servers !== undefined && !isObject(servers)) throw new HarnessConfigError(path, "mcp_servers is not a table");
  const entries = Object.entries(servers ?? {}).map(([name, raw]): [string, Candidate] => [name, { ...codexCandidate(raw), base: dirname(path) }]);
  return { entries, sources: [path] };
}

function codexCandidate(raw: unknown): Omit<Candidate, "base"> {
  if (!isObject(raw)) return { enabled: true, problem: "the entry is not a table" };
  const enabled = raw.enabled ?? true;
  const stdio = raw.command !== undefined;
  if (stdio === (raw.url !== undefined)) return { enabled, problem: "it needs exactly one of command and url" };
  const transport = stdio
    ? defined({ type: "stdio", command: raw.command, args: raw.args, env: raw.env, cwd: raw.cwd })
    : defined({ type: "http", url: raw.url, headers: raw.http_headers });
  const inherited = [
    ...(Array.isArray(raw.env_vars) ? raw.env_vars.map(String) : []),
    ...(typeof raw.bearer_token_env_var === "string" ? [raw.bearer_token_env_var] : []),
    ...(isObject(raw.env_http_headers) ? Object.values(raw.env_http_headers).map(String) : []),
  ];
  if (inherited.length === 0) return { transport, enabled };
  return {
    transport,
    enabled,
    problem: `it takes ${inherited.join(", ")} from Codex's environment, which Signet cannot carry; add it with \`signet mcp add\`, passing those values as secret:NAME references`,
  };
}

// ---- OpenCode ----

/**
 * `mcp` of the global config (opencode.json, then opencode.jsonc, in its config directory), the
 * OPENCODE_CONFIG file, then the project's opencode.json / opencode.jsonc; later files are merged
 * over earlier ones key by key, as OpenCode does. OpenCode asks nobody before running a project's
 * servers, so any server the project's files touch (its command, its environment, its switch)
 * comes disabled. A command's relative paths are those of the file that set it.
 */
function readOpencode({ home, cwd, env }: Place): Found {
  const global = opencodeFiles({ home, env });
  const userFiles = [global.json, global.jsonc];
  if (env.OPENCODE_CONFIG?.trim()) userFiles.push(resolve(cwd, env.OPENCODE_CONFIG.trim()));
  const files = [
    ...userFiles.map((path) => ({ path, project: false })),
    ...["opencode.json", "opencode.jsonc"].map((file) => ({ path: join(cwd, file), project: true })),
  ];

  const sources: string[] = [];
  let merged: JsonObject = {};
  const origins = new Map<string, { base: string; project: boolean }>();
  for (const { path, project } of files) {
    // OpenCode reads every config file as JSONC, whatever its extension.
    const mcp = objectAt(readJsonConfig(path, sources, "JSONC"), "mcp", path) ?? {};
    for (const [name, raw] of Object.entries(mcp)) {
      const prior = origins.get(name);
      const setsCommand = isObject(raw) && raw.command !== undefined;
      origins.set(name, { base: setsCommand || !prior ? dirname(path) : prior.base, project: project || Boolean(prior?.project) });
    }
    merged = mergeDeep(merged, mcp);
  }
  const entries = Object.entries(merged).map(([name, raw]): [string, Candidate] => {
    const { base, project } = origins.get(name)!;
    return [name, { ...opencodeCandidate(raw), base, ...(project ? { project: {} } : {}) }];
  });
  return { entries, sources };
}

function mergeDeep(base: JsonObject, over: JsonObject): JsonObject {
  const out = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    out[key] = isObject(prior) && isObject(value) ? mergeDeep(prior, value) : value;
  }
  return out;
}

function opencodeCandidate(raw: unknown): Omit<Candidate, "base"> {
  if (!isObject(raw)) return { enabled: true, problem: "the entry is not an object" };
  const enabled = raw.enabled ?? true;
  if (raw.type === "remote") return { transport: defined({ type: "http", url: raw.url, headers: raw.headers }), enabled };
  if (raw.type !== "local") return { enabled, problem: `unsupported type ${JSON.stringify(raw.type ?? null)} (expected "local" or "remote")` };
  const command = raw.command;
  if (!Array.isArray(command) || command.length === 0) return { enabled, problem: "command must be a list: [program, ...arguments]" };
  return { transport: defined({ type: "stdio", command: command[0], args: command.slice(1), env: raw.environment }), enabled };
}
