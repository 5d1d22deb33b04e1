// What a harness's config registers of Signet, read as the harness reads it: the `signet` MCP entry
// (command, arguments, environment) and the lifecycle hooks (Signet's commands in Claude Code's and
// Codex's hooks files, OpenCode's plugin file). Read-only: `signet doctor` judges and runs what is
// found here, whatever form setup gave it.
import { dirname, join } from "node:path";
import { claudePaths } from "./claude-code";
import { checkCodexToml, codexPath } from "./codex";
import { isSignetHookCommand } from "./hook-command";
import { isObject, readJsonObject } from "./json-edit";
import { opencodeFiles } from "./opencode";
import { isSignetPlugin } from "./opencode-plugin";
import { readConfigText } from "./plan";
import { getPath, parseToml } from "./toml";
import { SERVER_NAME, type HarnessContext, type HarnessName } from "./types";

type Place = Pick<HarnessContext, "home" | "env">;

export interface McpRegistration {
  file: string;
  /** The program of the entry, undefined when it names none. */
  command?: string;
  args: string[];
  /** The environment the entry gives the server. */
  env: Record<string, string>;
  /** Variables the harness passes on from its own environment (Codex's `env_vars`). */
  forwarded: string[];
  enabled: boolean;
}

/** One of Signet's hook commands, as a harness runs it: through a shell, the hook JSON on stdin. */
export interface HookCommand {
  /** The harness's event name (`SessionStart`, `UserPromptSubmit`, ...). */
  harnessEvent: string;
  command: string;
  /** The harness's limit on the command, in seconds, when the entry sets one. */
  timeoutS?: number;
}

export type HookRegistration =
  | { kind: "commands"; file: string; commands: HookCommand[] }
  /** OpenCode: Signet's plugin module, which runs the hooks itself. */
  | { kind: "plugin"; file: string; text: string };

/** The text of a config, with a read failure worded for a reader (readConfigText's words are an edit's). */
function configText(file: string): string | null {
  try {
    return readConfigText(file);
  } catch (err) {
    throw new Error((err as Error).message.replace(/; nothing was changed$/, ""));
  }
}

function jsonDoc(file: string): Record<string, unknown> | undefined {
  const text = configText(file);
  if (text === null) return undefined;
  try {
    return readJsonObject(text, "JSONC");
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}

/** `doc[parent].signet` of a JSON or JSONC config, or undefined. */
function jsonEntry(file: string, parent: string): Record<string, unknown> | undefined {
  const servers = jsonDoc(file)?.[parent];
  const entry = isObject(servers) ? servers[SERVER_NAME] : undefined;
  return isObject(entry) ? entry : undefined;
}

const stringOr = (v: unknown) => (typeof v === "string" ? v : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : []);

function stringTable(v: unknown): Record<string, string> {
  if (!isObject(v)) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** The `signet` MCP entry a harness starts, or undefined when there is none. Throws naming the file it cannot read. */
export function readMcpRegistration(harness: HarnessName, place: Place): McpRegistration | undefined {
  if (harness === "claude-code") {
    // Claude Code reads user-scope servers from .claude.json only.
    const file = claudePaths(place).state;
    const entry = jsonEntry(file, "mcpServers");
    if (!entry) return undefined;
    return { file, command: stringOr(entry.command), args: strings(entry.args), env: stringTable(entry.env), forwarded: [], enabled: entry.enabled !== false };
  }
  if (harness === "codex") {
    const file = codexPath(place);
    const text = configText(file);
    if (text === null) return undefined;
    let entry: unknown;
    try {
      entry = getPath(checkCodexToml(text) ?? parseToml(text), ["mcp_servers", SERVER_NAME]);
    } catch (err) {
      throw new Error(`${file}: ${(err as Error).message}`);
    }
    if (!isObject(entry)) return undefined;
    return {
      file,
      command: stringOr(entry.command),
      args: strings(entry.args),
      env: stringTable(entry.env),
      forwarded: strings(entry.env_vars),
      enabled: entry.enabled !== false,
    };
  }
  // OpenCode merges opencode.jsonc over opencode.json (and OPENCODE_CONFIG over both), key by key.
  const { json, jsonc, custom } = opencodeFiles(place);
  const files = [json, jsonc, ...(custom !== undefined ? [custom] : [])];
  let merged: Record<string, unknown> | undefined;
  let from = "";
  for (const file of files) {
    const entry = jsonEntry(file, "mcp");
    if (!entry) continue;
    merged = { ...merged, ...entry };
    from = file;
  }
  if (!merged) return undefined;
  const [command, ...args] = strings(merged.command);
  return { file: from, command, args, env: stringTable(merged.environment), forwarded: [], enabled: merged.enabled !== false };
}

/** Signet's handlers in a hooks file shaped `hooks.<Event>: [{hooks: [{type, command, timeout}]}]`. */
function hookCommands(file: string): HookRegistration | undefined {
  const hooks = jsonDoc(file)?.hooks;
  if (!isObject(hooks)) return undefined;
  const commands: HookCommand[] = [];
  for (const [harnessEvent, groups] of Object.entries(hooks)) {
    for (const group of Array.isArray(groups) ? groups : []) {
      for (const handler of isObject(group) && Array.isArray(group.hooks) ? group.hooks : []) {
        if (!isObject(handler) || !isSignetHookCommand(handler.command)) continue;
        const timeoutS = typeof handler.timeout === "number" && handler.timeout > 0 ? handler.timeout : undefined;
        commands.push({ harnessEvent, command: handler.command as string, ...(timeoutS ? { timeoutS } : {}) });
      }
    }
  }
  return commands.length > 0 ? { kind: "commands", file, commands } : undefined;
}

/** Signet's lifecycle hooks in a harness's config, or undefined when none are registered. */
export function readHookRegistration(harness: HarnessName, place: Place): HookRegistration | undefined {
  if (harness === "claude-code") return hookCommands(claudePaths(place).settings);
  if (harness === "codex") return hookCommands(join(dirname(codexPath(place)), "hooks.json"));
  const file = opencodeFiles(place).plugin;
  const text = configText(file);
  return text !== null && isSignetPlugin(text) ? { kind: "plugin", file, text } : undefined;
}
