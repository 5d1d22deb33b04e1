// Running a citty command tree: follow the words to the command they name, show help where asked,
// refuse unknown flags, then run it. `signet` and `signet mcp` share it; `signet completion` reads
// the same tree.
import { runCommand, type ArgsDef, type CommandDef } from "citty";
import { EXIT, UsageError } from "./errors";
import { renderHelp, type HelpDoc, type HelpEntry } from "./output";

export type AnyCommand = CommandDef<ArgsDef>;
type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);

/** What a flag or positional is declared as (citty's ArgDef, as the commands use it). */
export interface ArgSpec {
  type?: string;
  alias?: string | string[];
  description?: string;
  required?: boolean;
}

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

/** A command's description, flags and positionals, and subcommands, with citty's lazy values resolved. */
export async function commandParts(cmd: AnyCommand) {
  const meta = await metaOf(cmd);
  const args = await argsOf(cmd);
  const loaders = await resolve(cmd.subCommands as Resolvable<Record<string, Resolvable<AnyCommand>>>);
  const subs: [string, AnyCommand][] = [];
  for (const [name, loader] of Object.entries(loaders ?? {})) subs.push([name, (await resolve(loader))!]);
  return { version: meta.version, description: meta.description ?? "", args, subs, runs: typeof cmd.run === "function" };
}

/** The flag names of an argument, long and short: `["--follow", "-f"]`. */
export function flagNames(name: string, spec: ArgSpec): string[] {
  return [name, ...[spec.alias ?? []].flat()].map((n) => (n.length === 1 ? `-${n}` : `--${n}`));
}

/** Follows positional words down the tree to the command they name, with the arguments left for it. */
async function resolveLeaf(cmd: AnyCommand, rawArgs: string[], path: string[]): Promise<{ cmd: AnyCommand; path: string[]; rest: string[] }> {
  const subs = await resolve(cmd.subCommands as Resolvable<Record<string, Resolvable<AnyCommand>>>);
  const index = rawArgs.findIndex((a) => !a.startsWith("-"));
  const name = index >= 0 ? rawArgs[index]! : undefined;
  if (subs && name !== undefined) {
    if (!(name in subs)) throw new UsageError(`unknown command "${name}"; see \`${path.join(" ")} --help\``);
    const sub = (await resolve(subs[name]))!;
    return resolveLeaf(sub, rawArgs.slice(index + 1), [...path, name]);
  }
  return { cmd, path, rest: rawArgs };
}

/** citty accepts any flag; a typo should be a usage error naming the valid ones instead. */
async function checkFlags(cmd: AnyCommand, rest: string[]): Promise<void> {
  const names = new Map<string, string>();
  for (const [name, def] of await argsOf(cmd)) {
    if (def.type === "positional") continue;
    names.set(name, def.type ?? "string");
    for (const alias of [def.alias ?? []].flat()) names.set(alias, def.type ?? "string");
  }
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!;
    if (token === "--") break;
    if (!token.startsWith("-") || token === "-" || /^-\d/.test(token)) continue;
    const name = token.replace(/^--?/, "").split("=")[0]!;
    const base = name.startsWith("no-") && names.get(name.slice(3)) === "boolean" ? name.slice(3) : name;
    const type = names.get(base);
    if (type === undefined) {
      const valid = [...names.keys()].filter((n) => n.length > 1).map((n) => `--${n}`);
      throw new UsageError(`unknown option ${token}${valid.length ? `; valid options: ${valid.join(", ")}` : ""}`);
    }
    if (type !== "boolean" && !token.includes("=")) i++;
  }
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
  for (const [sub, def] of subs) commands.push({ label: sub, text: firstSentence((await metaOf(def)).description ?? "") });
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
  await checkFlags(cmd, rest);
  await runCommand(top, { rawArgs });
  return EXIT.ok;
}
