// `signet mcp <server> ...`: an installed server's tools as subcommands. Parameters are typed from
// each tool's JSON Schema; the daemon starts the server, makes the call and records it.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError, type SignetClient } from "../../client/client";
import type { BridgeTool } from "../../contracts/bridge";
import { ParamError, argumentsJson, isPlainObject, toolNamed, validateArguments } from "../../contracts/bridge-params";
import { configFromFlags, clientFor } from "../context";
import { EXIT, ExitError, UsageError } from "../errors";
import { parseArgs, type ArgSpec } from "../parse-args";
import { wantsJson, writeJson, writeText } from "../output";
import { terminalText } from "../terminal-text";
import { renderCallResult, renderCallUpdate, renderServerHelp, renderToolHelp, renderToolList } from "./render";

interface CallFlags {
  params: string[];
  /** Raw arguments: a JSON object, or `-` to read one from stdin. */
  jsonArgs?: string;
  batch?: string;
  timeoutMs?: number;
  json?: boolean;
  pretty?: boolean;
  help?: boolean;
  url?: string;
  agent?: string;
  saveDir?: string;
  words: string[];
}

const OPTION_HELP: [string, string][] = [
  ["--param k=v", "a parameter, typed by the tool's schema (repeatable)"],
  ["--json '{...}' | --json -", "raw arguments as a JSON object (or read from stdin), passed as given"],
  ["--batch -", "JSON lines {tool, arguments} on stdin, one JSON result per line out"],
  ["--timeout <ms>", "how long the call may take (default bridge.callTimeoutMs)"],
  ["--pretty | --json", "readable output (saves images) or the CallToolResult as JSON (the default in a pipe)"],
  ["--save-dir <dir>", "where --pretty saves images and audio (default: a new temp folder)"],
  ["--url <daemon> --agent <id>", "the daemon to use and the agent to act as"],
];
const OPTIONS = OPTION_HELP.map(([flag]) => flag);

function optionsHelp(): string {
  const width = Math.max(...OPTION_HELP.map(([flag]) => flag.length));
  return `Options:\n${OPTION_HELP.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`).join("\n")}`;
}

const CALL_OPTIONS: Record<string, ArgSpec> = {
  param: { type: "string", alias: "p", multiple: true },
  json: { type: "boolean" },
  // Internal: `--json <object or ->` is rewritten to this before parsing (see parseCallArgs).
  arguments: { type: "string" },
  batch: { type: "string" },
  timeout: { type: "string" },
  "save-dir": { type: "string" },
  pretty: { type: "boolean" },
  url: { type: "string" },
  agent: { type: "string" },
  help: { type: "boolean", alias: "h" },
};

/** A JSON object, or `-` for stdin: what makes `--json` carry the call's arguments. */
const isArgumentsValue = (value: string | undefined) => value !== undefined && (value === "-" || /^\s*[[{]/.test(value));

/**
 * Reads the words and flags after the server name (`--param` repeats). `--json` followed by a JSON
 * object or `-` is the call's arguments; alone it asks for JSON output, so such a pair is renamed to
 * the internal `--arguments` first.
 */
export function parseCallArgs(args: string[]): CallFlags {
  const renamed: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    if (token.startsWith("--json=")) renamed.push(`--arguments=${token.slice("--json=".length)}`);
    else if (token === "--json" && isArgumentsValue(args[i + 1])) renamed.push(`--arguments=${args[++i]}`);
    else renamed.push(token);
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(Object.entries(CALL_OPTIONS), renamed, OPTIONS);
  } catch (err) {
    throw new UsageError((err as Error).message.replaceAll("--arguments", "--json"));
  }
  const values = parsed.values as Partial<Record<"arguments" | "batch" | "timeout" | "save-dir" | "url" | "agent", string>> &
    Partial<Record<"json" | "pretty" | "help", boolean>> & { param?: string[] };
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    if (!/^\d+$/.test(values.timeout) || Number(values.timeout) < 1) {
      throw new UsageError(`--timeout ${JSON.stringify(values.timeout)} is not a number of milliseconds`);
    }
    timeoutMs = Number(values.timeout);
  }
  return {
    params: values.param ?? [],
    jsonArgs: values.arguments,
    batch: values.batch,
    timeoutMs,
    json: values.json,
    pretty: values.pretty,
    help: values.help,
    url: values.url,
    agent: values.agent,
    saveDir: values["save-dir"],
    words: parsed.positionals,
  };
}

async function readStdinText(): Promise<string> {
  return await new Response(Bun.stdin.stream()).text();
}

/**
 * `--json` arguments: a JSON object, passed to the tool as given. They are not checked against the
 * tool's schema here, as the daemon does not check `arguments` either (an agent's, `--batch`'s): they
 * are the way around the typing of `--param`, and the server judges them (its answer is the result).
 */
async function argumentsFor(tool: string, params: string[], jsonArgs: string): Promise<Record<string, unknown>> {
  if (params.length > 0) throw new UsageError("give either --param or --json arguments, not both");
  const text = jsonArgs === "-" ? await readStdinText() : jsonArgs;
  let parsed: unknown;
  try {
    parsed = argumentsJson(text);
  } catch (err) {
    throw new UsageError(err instanceof ParamError ? `--json: ${err.message}` : `--json: not valid JSON (${(err as Error).message})`);
  }
  // Only the tool's name is read: the schema is never consulted.
  return asUsage(() => validateArguments({ name: tool, inputSchema: { type: "object" } }, parsed));
}

/**
 * A call with `--json` arguments names its tool unchecked: a tool the server does not have is the
 * daemon's 404 (naming the server's tools), a usage error here as it is for `--param`.
 */
async function asUsageIfNoTool<T>(server: string, tool: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found" && err.message.startsWith(`server "${server}" has no tool "${tool}";`)) {
      throw new UsageError(`${err.message} (see \`signet mcp ${server} list-tools\`)`);
    }
    throw err;
  }
}

/** `f`'s answer; what the tool's schema refuses (a ParamError) is a usage error here, its message after `prefix`. */
function asUsage<T>(f: () => T, prefix = ""): T {
  try {
    return f();
  } catch (err) {
    throw err instanceof ParamError ? new UsageError(prefix + err.message) : err;
  }
}

/**
 * One line on stderr, rewritten in place (`\r`) and wiped when done, saying what a command waits
 * for. Only on a terminal: in a pipe or a log file it would be noise, so nothing is written there.
 */
class StatusLine {
  private shown = false;
  private pending: ReturnType<typeof setTimeout> | undefined;

  /** Shows `text` after `ms`, unless something else is shown or the line cleared first. */
  later(ms: number, text: string): void {
    this.pending = setTimeout(() => this.show(text), ms);
  }

  show(text: string): void {
    clearTimeout(this.pending);
    const err = process.stderr;
    if (!err.isTTY) return;
    // One screen line at most: a wrapped line could not be rewritten by \r.
    const width = Math.max(10, (err.columns || 80) - 1);
    err.write(`\r\x1b[2K${terminalText(text, { oneLine: true }).slice(0, width)}`);
    this.shown = true;
  }

  clear(): void {
    clearTimeout(this.pending);
    if (this.shown) process.stderr.write("\r\x1b[2K");
    this.shown = false;
  }
}

/**
 * A cold server may take a while to start: after a second without an answer, a terminal says so.
 * `defaultMs` is the daemon's start budget when no timeout is given (bridge.callTimeoutMs).
 */
async function toolsOf(client: SignetClient, server: string, timeoutMs: number | undefined, defaultMs: number): Promise<BridgeTool[]> {
  const status = new StatusLine();
  status.later(1000, `waiting for ${server} to start… (timeout ${Math.ceil((timeoutMs ?? defaultMs) / 1000)}s)`);
  try {
    return (await client.bridge.tools(server, timeoutMs)).tools;
  } finally {
    status.clear();
  }
}

/**
 * A call whose progress (MCP progress notifications, a task's status) is shown on a terminal as it
 * comes. It is asked for in a pipe too, so that progress renews the call's timeout the same way.
 */
async function callWatched(client: SignetClient, server: string, body: Parameters<SignetClient["bridge"]["call"]>[1]): Promise<CallToolResult> {
  const status = new StatusLine();
  // A cold server may take a while to start before the call's own news comes.
  status.later(1000, `waiting for ${server} (${body.tool})…`);
  try {
    return await client.bridge.call(server, body, { onUpdate: (update) => status.show(renderCallUpdate(body.tool, update)) });
  } finally {
    status.clear();
  }
}

function print(result: CallToolResult, flags: CallFlags): void {
  if (wantsJson(flags)) {
    writeJson(result);
    return;
  }
  writeText(renderCallResult(result, { saveDir: flags.saveDir }).text);
}

/** The fields of a `--batch` line. */
const BATCH_LINE_FIELDS = ["tool", "arguments"];

/** `--batch -`: JSON lines `{tool, arguments}` in, one JSON result per line out, in order. */
async function runBatch(client: SignetClient, server: string, flags: CallFlags): Promise<number> {
  if (flags.batch !== "-") throw new UsageError("--batch reads JSON lines from stdin: use --batch -");
  if (flags.words.length > 0 || flags.params.length > 0 || flags.jsonArgs !== undefined) {
    throw new UsageError("--batch takes the tool and arguments from each input line: `{\"tool\": ..., \"arguments\": {...}}`");
  }
  let failed = false;
  const lines = (await readStdinText()).split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let out: unknown;
    try {
      const item = asUsage(() => argumentsJson(line), `line ${index + 1}: `) as { tool?: unknown; arguments?: unknown };
      if (typeof item !== "object" || item === null || typeof item.tool !== "string") {
        throw new UsageError(`line ${index + 1}: expected {"tool": "<name>", "arguments": {...}}`);
      }
      // A misspelt "arguments" would otherwise call the tool with none.
      const unknown = Object.keys(item).find((key) => !BATCH_LINE_FIELDS.includes(key));
      if (unknown !== undefined) {
        throw new UsageError(`line ${index + 1}: unknown field ${JSON.stringify(unknown)}: a line is {"tool": "<name>", "arguments": {...}}`);
      }
      const args = item.arguments ?? {};
      if (!isPlainObject(args)) throw new UsageError(`line ${index + 1}: arguments must be a JSON object`);
      const result = await callWatched(client, server, { tool: item.tool, arguments: args, timeoutMs: flags.timeoutMs, source: "cli", client: "cli" });
      if (result.isError) failed = true;
      out = result;
    } catch (err) {
      failed = true;
      if (err instanceof SyntaxError) out = { error: `line ${index + 1}: not valid JSON (${err.message})`, code: "invalid_input" };
      else if (err instanceof ApiError) out = { error: err.message, code: err.code };
      else if (err instanceof UsageError) out = { error: err.message, code: "invalid_input" };
      else throw err;
    }
    writeJson(out, { compact: true });
  }
  return failed ? EXIT.failed : EXIT.ok;
}

export async function runServerCommand(server: string, args: string[]): Promise<number> {
  const flags = parseCallArgs(args);
  const config = configFromFlags({ url: flags.url, agent: flags.agent });
  const client = clientFor(config);
  if (flags.batch !== undefined) return runBatch(client, server, flags);
  const [word, ...extra] = flags.words;
  if (extra.length > 0) throw new UsageError(`unexpected ${JSON.stringify(extra[0])}: parameters go as --param k=v`);
  if (word === undefined) {
    // The metadata comes first: an unknown server is a plain "not found", not a failed start.
    const info = await client.bridge.get(server);
    const tools = await toolsOf(client, server, flags.timeoutMs, config.bridge.callTimeoutMs);
    // Off a terminal (or with --json) the overview is data, as every command's answer is; --help is help.
    if (!flags.help && wantsJson(flags)) writeJson({ server: info, tools });
    else writeText(`${renderServerHelp(info, server, tools)}\n\n${optionsHelp()}`);
    return EXIT.ok;
  }
  if (word === "list-tools") {
    const tools = await toolsOf(client, server, flags.timeoutMs, config.bridge.callTimeoutMs);
    if (wantsJson(flags)) writeJson({ server, tools });
    else writeText(renderToolList(server, tools));
    return EXIT.ok;
  }
  const { jsonArgs } = flags;
  // A call is one request, so the daemon starts the server, makes the call and records it, the
  // start included: --param words (the daemon types them by the tool's schema) or --json arguments.
  if (!flags.help) {
    const common = { tool: word, timeoutMs: flags.timeoutMs, source: "cli", client: "cli" } as const;
    if (jsonArgs === undefined) return finish(await callWatched(client, server, { ...common, params: flags.params }), flags);
    const args = await argumentsFor(word, flags.params, jsonArgs);
    return finish(await asUsageIfNoTool(server, word, () => callWatched(client, server, { ...common, arguments: args })), flags);
  }
  const tools = await toolsOf(client, server, flags.timeoutMs, config.bridge.callTimeoutMs);
  writeText(`${renderToolHelp(server, asUsage(() => toolNamed(server, tools, word)))}\n\n${optionsHelp()}`);
  return EXIT.ok;
}

function finish(result: CallToolResult, flags: CallFlags): number {
  print(result, flags);
  if (result.isError) throw new ExitError(EXIT.failed);
  return EXIT.ok;
}
