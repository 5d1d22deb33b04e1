// Running a command tree declared in citty's shape (command.ts): follow the words to the command
// they name, show help where asked, read its flags and positionals (parse-args.ts), then run it.
// `signet` and `signet mcp` share it; `signet completion` reads the same tree.
import type { ArgsDef, CommandDef } from "citty";
import { EXIT, UsageError } from "./errors";
import { renderHelp, type HelpDoc, type HelpEntry } from "./output";
import { flagNames, parseArgs, type ArgSpec } from "./parse-args";

export type AnyCommand = CommandDef<ArgsDef>;
type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);

async function resolve<T>(value: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

type Meta = { name?: string; version?: string; description?: string };

async function metaOf(cmd: AnyCommand): Promise<Meta> {
  return (await resolve(cmd.meta as Resolvable<Meta>)) ?? {};
}

async function argsOf(cmd: AnyCommand): Promise<[string, ArgSpec][]> {
  return Object.entries(((await resolve(cmd.args as Resolvable<ArgsDef>)) ?? {}) as Record<string, ArgSpec>);
}

/** A subcommand's loader may carry the command's description, so listing it does not load it (index.ts). */
export type DescribedLoader = (() => Promise<AnyCommand>) & { description?: string };

/**
 * A command's description, flags and positionals, and its subcommands as loaders (`load()` each
 * one that is needed), with citty's lazy values resolved.
 */
export async function commandParts(cmd: AnyCommand) {
  const meta = await metaOf(cmd);
  const args = await argsOf(cmd);
  const loaders = await resolve(cmd.subCommands as Resolvable<Record<string, Resolvable<AnyCommand>>>);
  const subs = Object.entries(loaders ?? {}).map(([name, loader]) => ({
    name,
    load: async () => (await resolve(loader))!,
    description: typeof loader === "function" ? (loader as DescribedLoader).description : undefined,
  }));
  return { version: meta.version, description: meta.description ?? "", args, subs, runs: typeof cmd.run === "function" };
}

/** Follows positional words down the tree to the command they name, with the arguments left for it. */
async function resolveLeaf(cmd: AnyCommand, rawArgs: string[], path: string[]): Promise<{ cmd: AnyCommand; path: string[]; rest: string[] }> {
  const subs = await resolve(cmd.subCommands as Resolvable<Record<string, Resolvable<AnyCommand>>>);
  const index = rawArgs.findIndex((a) => !a.startsWith("-"));
  const name = index >= 0 ? rawArgs[index]! : undefined;
  if (subs && name !== undefined) {
    if (!(name in subs)) throw new UsageError(`unknown command "${name}"; see \`${path.join(" ")} --help\``);
    const sub = (await resolve(subs[name]))!;
    // Flags before the name are the named command's too.
    return resolveLeaf(sub, [...rawArgs.slice(0, index), ...rawArgs.slice(index + 1)], [...path, name]);
  }
  return { cmd, path, rest: rawArgs };
}

/**
 * A command's words as its arguments, citty's way: each flag under its name and its aliases, the
 * positionals in order under theirs and all of them in `_`; a missing required one is a usage error.
 */
async function argsFor(cmd: AnyCommand, words: string[]): Promise<Record<string, unknown>> {
  const specs = await argsOf(cmd);
  const { values, positionals } = parseArgs(specs, words);
  const args: Record<string, unknown> = { _: positionals };
  let next = 0;
  for (const [name, spec] of specs) {
    const value = spec.type === "positional" ? (positionals[next++] ?? spec.default) : values[name];
    if (value === undefined) {
      if (spec.required === true) throw new UsageError(spec.type === "positional" ? `missing <${name}>` : `--${name} is required`);
      continue;
    }
    for (const key of [name, ...[spec.alias ?? []].flat()]) args[key] = value;
  }
  return args;
}

/** The first sentence of a description: what a command list shows of it. */
export function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end);
}

/** A command's help from its definition; `path` is how it is typed (`signet daemon start`). */
async function helpDoc(cmd: AnyCommand, path: string[]): Promise<HelpDoc> {
  const { version, description, args, subs, runs } = await commandParts(cmd);
  const name = path.join(" ");
  const usage = [name];
  if (subs.length > 0) usage.push(runs ? "[<command>]" : "<command>");
  usage.push("[options]");
  const positionals: HelpEntry[] = [];
  const options: HelpEntry[] = [];
  for (const [arg, spec] of args) {
    const required = spec.required === true;
    if (spec.type === "positional") {
      const label = required ? `<${arg}>` : `[${arg}]`;
      usage.push(label);
      positionals.push({ label, text: spec.description ?? "" });
      continue;
    }
    const value = spec.type === "boolean" ? "" : " <value>";
    if (required) usage.push(`--${arg}${value}`);
    const label = `${flagNames(arg, spec).reverse().join(", ")}${value}`;
    options.push({ label, text: `${spec.description ?? ""}${required ? " (required)" : ""}` });
  }
  options.push({ label: "-h, --help", text: "Show this help" });
  const commands: HelpEntry[] = [];
  for (const sub of subs) commands.push({ label: sub.name, text: firstSentence(sub.description ?? (await metaOf(await sub.load())).description ?? "") });
  const help = path.length === 1 && path[0] === "signet" ? " (or `signet help <command>`)" : "";
  return {
    summary: `${name}${version ? ` ${version}` : ""}: ${description}`,
    usage: usage.join(" "),
    sections: [
      { heading: "Arguments", entries: positionals },
      { heading: "Options", entries: options },
      { heading: "Commands", entries: commands },
    ],
    footer: subs.length > 0 ? `\`${name} <command> --help\`${help} shows a command's options.` : undefined,
  };
}

/** Runs a command tree: help where asked, unknown flags refused, then the command itself. */
export async function runTree(top: AnyCommand, rawArgs: string[]): Promise<number> {
  const topName = (await metaOf(top)).name ?? "signet";
  const { cmd, path, rest } = await resolveLeaf(top, rawArgs, [topName]);
  const beforeDashes = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (beforeDashes.includes("--help") || beforeDashes.includes("-h") || (cmd === top && rest.length === 0)) {
    // console.log, not process.stdout: building Node's stdout stream costs more than the rest of a help.
    console.log(renderHelp(await helpDoc(cmd, path)).replace(/\n$/, ""));
    return EXIT.ok;
  }
  const args = await argsFor(cmd, rest);
  await cmd.run?.({ rawArgs: rest, args: args as never, cmd });
  return EXIT.ok;
}
