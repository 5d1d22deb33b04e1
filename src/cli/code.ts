// `signet code search|context|blast|status|doctor|constants|clear|briefing`: the signet_code_* tools
// on the command line (docs/code.md#cli), through the daemon like every client command, for the
// project of the current directory (or --project). The daemon checks each request with the
// operation's schema and its refusal names the field (exit 2): checking it here first would load zod
// and build the code contract's schemas at every command (docs/benchmarks.md#cli-start).
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { resolve } from "node:path";
import { defined } from "../contracts/parse";
import { blastText, briefingText, clearText, constantsText, contextText, doctorText, searchText, statusText } from "../present/code";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { EXIT, ExitError } from "./errors";
import { num } from "./flags";
import { emit } from "./output";

const projectArgs = {
  project: { type: "string", description: "The project (a folder in it) whose index answers; default: the current directory's" },
} as const;

/** The folder a command asks about: --project, or the current directory; absolute, as the daemon needs it. */
const projectFrom = (args: { project?: string }) => resolve(args.project ?? process.cwd());

const symbolArg = {
  symbol: { type: "positional", description: "Symbol name: name, Container.name, or path:name when a name has several definitions", required: true },
} as const;

/** A symbol that names nothing answers with exit code 1 after printing what was found (nothing, or the candidates). */
function failIfUnresolved(found: boolean): void {
  if (!found) throw new ExitError(EXIT.failed);
}

const search = defineCommand({
  meta: { name: "search", description: "Search the project's symbols by name or by a question in plain words (name, doc comment, signature, body, path)" },
  args: {
    query: { type: "positional", text: true, description: "What to look for: an identifier (camelCase and snake_case are split) or a question (\"where is the admin token checked\")", required: true },
    top: { type: "string", description: "How many results (default 10, max 100)" },
    file: { type: "string", description: "Only symbols in files whose path contains this" },
    debug: { type: "boolean", description: "Show each score's parts" },
    ...projectArgs,
    ...clientArgs,
  },
  async run({ args }) {
    const body = defined({ query: args.query, top: num("top", args.top), file: args.file, debug: args.debug, project: projectFrom(args) });
    emit(await clientFor(configFromFlags(args)).code.search(body), args, searchText);
  },
});

const context = defineCommand({
  meta: { name: "context", description: "A symbol's source, container, callers, callees and its file's imports" },
  args: { ...symbolArg, ...projectArgs, ...clientArgs },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).code.context({ symbol: args.symbol, project: projectFrom(args) });
    emit(result, args, contextText);
    failIfUnresolved(result.definition !== undefined || (result.candidates?.length ?? 0) > 0);
  },
});

const blast = defineCommand({
  meta: { name: "blast", description: "What depends on a symbol (backward), what it depends on (forward), or both, to a depth" },
  args: {
    ...symbolArg,
    depth: { type: "string", description: "How many hops (default 2, max 10)" },
    direction: { type: "string", description: "backward (default: dependents), forward (dependencies) or both" },
    ...projectArgs,
    ...clientArgs,
  },
  async run({ args }) {
    // Any other direction is the daemon's to refuse, naming the field.
    const direction = args.direction as "backward" | "forward" | "both" | undefined;
    const body = defined({ symbol: args.symbol, depth: num("depth", args.depth), direction, project: projectFrom(args) });
    const result = await clientFor(configFromFlags(args)).code.blast(body);
    emit(result, args, blastText);
    failIfUnresolved(result.root !== undefined || (result.candidates?.length ?? 0) > 0);
  },
});

const status = defineCommand({
  meta: { name: "status", description: "The project's index: files and symbols per language, the last run, stale files" },
  args: { ...projectArgs, ...clientArgs },
  async run({ args }) {
    emit(await clientFor(configFromFlags(args)).code.status({ project: projectFrom(args) }), args, statusText);
  },
});

const doctor = defineCommand({
  meta: { name: "doctor", description: "Check the code index: database integrity, manifest against disk, grammars; exit 1 on a problem" },
  args: { ...projectArgs, ...clientArgs },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).code.doctor({ project: projectFrom(args) });
    emit(result, args, doctorText);
    if (!result.ok) throw new ExitError(EXIT.failed);
  },
});

const constants = defineCommand({
  meta: { name: "constants", description: "String and number literals shared across files, with where they occur" },
  args: {
    limit: { type: "string", description: "How many literals (default 50, max 500)" },
    "min-files": { type: "string", description: "Only literals found in at least this many files (default 2)" },
    ...projectArgs,
    ...clientArgs,
  },
  async run({ args }) {
    const query = defined({ limit: num("limit", args.limit), min_files: num("min-files", args["min-files"]), project: projectFrom(args) });
    emit(await clientFor(configFromFlags(args)).code.constants(query), args, constantsText);
  },
});

const clear = defineCommand({
  meta: { name: "clear", description: "Delete the project's code index (no backup) and leave an empty one; needs --confirm" },
  args: {
    confirm: { type: "boolean", description: "Required: the index is deleted, not backed up" },
    ...projectArgs,
    ...clientArgs,
  },
  async run({ args }) {
    // Without --confirm the daemon refuses, naming the field: nothing is deleted.
    const body = defined({ confirm: args.confirm as true, project: projectFrom(args) });
    emit(await clientFor(configFromFlags(args)).code.clear(body), args, clearText);
  },
});

const briefing = defineCommand({
  meta: { name: "briefing", description: "Architecture overview: subsystems (folders and their links), public API, hub symbols" },
  args: {
    compact: { type: "boolean", description: "A short version" },
    ...projectArgs,
    ...clientArgs,
  },
  async run({ args }) {
    emit(await clientFor(configFromFlags(args)).code.briefing(defined({ compact: args.compact, project: projectFrom(args) })), args, briefingText);
  },
});

export const code = defineCommand({
  meta: { name: "code", description: COMMAND_DESCRIPTIONS.code },
  subCommands: { search, context, blast, status, doctor, constants, clear, briefing },
});
