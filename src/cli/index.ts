// The `signet` command tree. Subcommands load lazily so `--version` and small commands start fast.
import { terminalText } from "./terminal-text";
import { defineCommand, runCommand, showUsage, type ArgsDef, type CommandDef } from "citty";
import { VERSION } from "../version";
import { EXIT, UsageError, exitCodeOf } from "./errors";

const memory = () => import("./memory");
const admin = () => import("./admin");

export const root = defineCommand({
  meta: { name: "signet", version: VERSION, description: "Local-first memory daemon for AI coding agents" },
  subCommands: {
    daemon: () => import("./daemon").then((m) => m.default),
    remember: () => memory().then((m) => m.remember),
    recall: () => import("./recall").then((m) => m.default),
    get: () => memory().then((m) => m.get),
    list: () => memory().then((m) => m.list),
    modify: () => memory().then((m) => m.modify),
    forget: () => memory().then((m) => m.forget),
    recover: () => memory().then((m) => m.recover),
    history: () => memory().then((m) => m.history),
    migrate: () => admin().then((m) => m.migrate),
    "self-install": () => admin().then((m) => m.selfInstall),
    setup: () => import("./setup").then((m) => m.setup),
    install: () => import("./setup").then((m) => m.install),
    // Listed for --help; runCli hands `signet mcp ...` to the bridge, whose server names are dynamic.
    mcp: () => import("./mcp").then((m) => m.mcpRoot),
  },
});

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

export async function runCli(rawArgs: string[]): Promise<number> {
  try {
    if (rawArgs[0] === "mcp") return await (await import("./mcp")).runMcp(rawArgs.slice(1));
    return await runTree(root as AnyCommand, rawArgs);
  } catch (err) {
    const message = (err as Error)?.message;
    // Messages may quote a server's stderr: colour codes go, any other control is shown, not obeyed.
    if (message) process.stderr.write(`signet: ${terminalText(message.replace(/\x1b\[[0-9;]*m/g, ""))}\n`);
    return exitCodeOf(err);
  }
}
