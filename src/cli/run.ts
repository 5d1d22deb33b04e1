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

type Subs = Record<string, Resolvable<AnyCommand>>;

/**
 * The flags that take a value (`--agent`, `-o`) of `cmd` and of the subcommands declared with it
 * (those still to be loaded, such as the top level's, are not loaded for this: start cost).
 */
async function valueFlags(cmd: AnyCommand, into = new Set<string>()): Promise<Set<string>> {
  for (const [name, spec] of await argsOf(cmd)) {
    if (spec.type !== "positional" && spec.type !== "boolean") for (const flag of flagNames(name, spec)) into.add(flag);
  }
  const subs = cmd.subCommands;
  if (typeof subs === "object" && subs !== null && !(subs instanceof Promise)) {
    for (const sub of Object.values(subs as Subs)) if (typeof sub === "object" && !(sub instanceof Promise)) await valueFlags(sub, into);
  }
  return into;
}

/**
 * Where the words before `index` end when read as flags: each flag that takes a value (`takes`) with
 * the word after it (`--agent list`), the others alone. -1 when a word among them is not a flag or a
 * flag's value; `--` ends the flags.
 */
function endOfFlags(words: string[], takes: Set<string>, index = words.length): number {
  let i = 0;
  while (i < index) {
    const word = words[i]!;
    if (!word.startsWith("-") || word === "-" || word === "--") return -1;
    i += !word.includes("=") && takes.has(word) ? 2 : 1;
  }
  return i;
}

/**
 * Follows positional words down the tree to the command they name, with the arguments left for it.
 * A flag may come before the name, its value too (`signet token --role admin create`): the name is
 * the first word that names a subcommand with nothing but that subcommand's flags and their values
 * before it. Only that subcommand is loaded to know its flags.
 */
async function resolveLeaf(cmd: AnyCommand, rawArgs: string[], path: string[]): Promise<{ cmd: AnyCommand; path: string[]; rest: string[] }> {
  const subs = await resolve(cmd.subCommands as Resolvable<Subs>);
  if (!subs) return { cmd, path, rest: rawArgs };
  const dashes = rawArgs.indexOf("--");
  // The name may follow the flags' `--` too (`signet -- list`), as the first word after it.
  for (let index = 0; index < (dashes < 0 ? rawArgs.length : dashes + 2); index++) {
    const name = rawArgs[index];
    if (name === undefined || index === dashes || name.startsWith("-") || !Object.hasOwn(subs, name)) continue;
    const sub = (await resolve(subs[name]))!;
    const flagsEnd = index === dashes + 1 && dashes >= 0 ? dashes : index;
    if (endOfFlags(rawArgs, await valueFlags(sub), flagsEnd) !== flagsEnd) continue;
    // Flags before the name are the named command's too.
    return resolveLeaf(sub, [...rawArgs.slice(0, index), ...rawArgs.slice(index + 1)], [...path, name]);
  }
  // No subcommand named: the first word that is not a flag or a flag's value is an unknown one.
  const takes = await valueFlags(cmd);
  for (let i = 0; i < rawArgs.length; i++) {
    const word = rawArgs[i]!;
    if (!word.startsWith("-")) throw new UsageError(`unknown command "${word}"; see \`${path.join(" ")} --help\``);
    if ((dashes < 0 || i < dashes) && !word.includes("=") && takes.has(word)) i++;
  }
  return { cmd, path, rest: rawArgs };
}

/** A word as a shell would read it back: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  if (!/["$`\\!]/.test(word)) return `"${word}"`;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Words beyond a command's positionals, refused by name: a text given unquoted would otherwise be
 * cut to its first word without a sound (`signet remember Always run tests` storing "Always").
 */
function surplusError(path: string[], positionals: [string, ArgSpec][], given: string[], extra: string[]): UsageError {
  const name = path.join(" ");
  const labels = positionals.map(([arg, spec]) => (spec.required === true ? `<${arg}>` : `[${arg}]`));
  const takes = labels.length === 0 ? "takes no words" : labels.length === 1 ? `takes one ${labels[0]}` : `takes ${labels.join(" ")}`;
  const last = positionals.at(-1)?.[1];
  if (last?.surplus) return new UsageError(`${name} ${takes}: ${last.surplus}`);
  const words = `${extra.length === 1 ? "word" : "words"} ${extra.map((w) => JSON.stringify(w)).join(" ")}`;
  // A text or a path in several words: the words after it were most likely meant as part of it.
  const lastGiven = given[positionals.length - 1];
  if (last?.text && lastGiven !== undefined) {
    const quoted = [...path, ...given.slice(0, positionals.length - 1).map(shellWord), shellWord([lastGiven, ...extra].join(" "))].join(" ");
    return new UsageError(`unexpected ${words}: ${name} ${takes}; to give several words, quote them: ${quoted}`);
  }
  return new UsageError(`unexpected ${words}: ${name} ${takes}; see \`${name} --help\``);
}

/**
 * A command's words as its arguments, citty's way: each flag under its name and its aliases, the
 * positionals in order under theirs and all of them in `_`. A missing required one, or a word
 * beyond them (unless the last is declared `multiple`, taking the rest), is a usage error.
 */
async function argsFor(cmd: AnyCommand, words: string[], path: string[]): Promise<Record<string, unknown>> {
  const specs = await argsOf(cmd);
  const { values, positionals } = parseArgs(specs, words);
  const args: Record<string, unknown> = { _: positionals };
  const declared = specs.filter(([, spec]) => spec.type === "positional");
  let next = 0;
  let rest = false;
  for (const [name, spec] of specs) {
    let value: unknown;
    if (spec.type !== "positional") value = values[name];
    else if (spec.multiple === true) {
      rest = true;
      value = next < positionals.length ? positionals.slice(next) : spec.default;
      next = positionals.length;
    } else value = positionals[next++] ?? spec.default;
    if (value === undefined) {
      if (spec.required === true) throw new UsageError(spec.type === "positional" ? `missing <${name}>` : `--${name} is required`);
      continue;
    }
    for (const key of [name, ...[spec.alias ?? []].flat()]) args[key] = value;
  }
  if (!rest && positionals.length > declared.length) throw surplusError(path, declared, positionals, positionals.slice(declared.length));
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
      const label = (required ? `<${arg}>` : `[${arg}]`) + (spec.multiple === true ? "..." : "");
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
  const root = path.length === 1 && path[0] === "signet";
  if (root) options.push({ label: "--version", text: "Print the version" });
  const commands: HelpEntry[] = [];
  for (const sub of subs) commands.push({ label: sub.name, text: firstSentence(sub.description ?? (await metaOf(await sub.load())).description ?? "") });
  const help = root ? " (or `signet help <command>`)" : "";
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
  const args = await argsFor(cmd, rest, path);
  await cmd.run?.({ rawArgs: rest, args: args as never, cmd });
  return EXIT.ok;
}
