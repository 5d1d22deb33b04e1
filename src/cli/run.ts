// Running a citty command tree: follow the words to the command they name, show help where asked,
// refuse unknown flags, then run it. `signet` and `signet mcp` share it.
import { runCommand, showUsage, type ArgsDef, type CommandDef } from "citty";
import { EXIT, UsageError } from "./errors";

export type AnyCommand = CommandDef<ArgsDef>;
type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);

async function resolve<T>(value: Resolvable<T> | undefined): Promise<T | undefined> {
  return typeof value === "function" ? await (value as () => T | Promise<T>)() : await value;
}

/** Follows positional words down the tree to the command they name, with the arguments left for it. */
async function resolveLeaf(cmd: AnyCommand, rawArgs: string[], parent?: AnyCommand) {
  const subs = await resolve(cmd.subCommands as Resolvable<Record<string, Resolvable<AnyCommand>>>);
  const index = rawArgs.findIndex((a) => !a.startsWith("-"));
  const name = index >= 0 ? rawArgs[index]! : undefined;
  if (subs && name !== undefined) {
    if (!(name in subs)) throw new UsageError(`unknown command "${name}"; see \`${cmdName(cmd)} --help\``);
    const sub = (await resolve(subs[name]))!;
    return resolveLeaf(sub, rawArgs.slice(index + 1), cmd);
  }
  return { cmd, parent, rest: rawArgs };
}

function cmdName(cmd: AnyCommand): string {
  const meta = cmd.meta as { name?: string } | undefined;
  return meta?.name === "signet" || !meta?.name ? "signet" : `signet ${meta.name}`;
}

/** citty accepts any flag; a typo should be a usage error naming the valid ones instead. */
async function checkFlags(cmd: AnyCommand, rest: string[]): Promise<void> {
  const defs = ((await resolve(cmd.args as Resolvable<ArgsDef>)) ?? {}) as Record<
    string,
    { type?: string; alias?: string | string[] }
  >;
  const names = new Map<string, string>();
  for (const [name, def] of Object.entries(defs)) {
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

/** Runs a command tree: help where asked, unknown flags refused, then the command itself. */
export async function runTree(top: AnyCommand, rawArgs: string[]): Promise<number> {
  const { cmd, parent, rest } = await resolveLeaf(top, rawArgs);
  const beforeDashes = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (beforeDashes.includes("--help") || beforeDashes.includes("-h") || (cmd === top && rest.length === 0)) {
    await showUsage(cmd, parent);
    return EXIT.ok;
  }
  await checkFlags(cmd, rest);
  await runCommand(top, { rawArgs });
  return EXIT.ok;
}
