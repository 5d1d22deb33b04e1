// The `signet` command tree. Subcommands load lazily so `--version` and small commands start fast.
import { defineCommand } from "./command";
import { VERSION } from "../version";
import { createLogger } from "../logger";
import { EXIT, exitCodeOf } from "./errors";
import { endQuietlyOnBrokenPipe, isBrokenPipe } from "./output";
import { COMMAND_DESCRIPTIONS, type CommandName } from "./descriptions";
import { runTree, type AnyCommand, type DescribedLoader } from "./run";
import { terminalText } from "./terminal-text";

const memory = () => import("./memory");

/** Each command's loader, with its description: `signet --help` lists the commands without loading them. */
const described = (loaders: Record<CommandName, () => Promise<unknown>>): Record<string, DescribedLoader> =>
  Object.fromEntries(
    Object.entries(loaders).map(([name, load]) => [name, Object.assign(load as DescribedLoader, { description: COMMAND_DESCRIPTIONS[name as CommandName] })]),
  );

const root: AnyCommand = defineCommand({
  meta: { name: "signet", version: VERSION, description: "Local-first memory daemon for AI coding agents" },
  subCommands: described({
    daemon: () => import("./daemon").then((m) => m.default),
    remember: () => memory().then((m) => m.remember),
    recall: () => import("./recall").then((m) => m.default),
    get: () => memory().then((m) => m.get),
    list: () => memory().then((m) => m.list),
    modify: () => memory().then((m) => m.modify),
    forget: () => memory().then((m) => m.forget),
    recover: () => memory().then((m) => m.recover),
    history: () => memory().then((m) => m.history),
    export: () => import("./transfer").then((m) => m.exportCommand),
    import: () => import("./transfer").then((m) => m.importCommand),
    backup: () => import("./transfer").then((m) => m.backup),
    source: () => import("./source").then((m) => m.default),
    embed: () => import("./embed").then((m) => m.default),
    graph: () => import("./graph").then((m) => m.graph),
    dream: () => import("./graph").then((m) => m.dream),
    migrate: () => import("./migrate").then((m) => m.migrate),
    store: () => import("./store").then((m) => m.store),
    secret: () => import("./secret").then((m) => m.secret),
    agents: () => import("./agents").then((m) => m.agents),
    message: () => import("./message").then((m) => m.message),
    "self-install": () => import("./admin").then((m) => m.selfInstall),
    token: () => import("./token").then((m) => m.token),
    setup: () => import("./setup").then((m) => m.setup),
    install: () => import("./setup").then((m) => m.install),
    hook: () => import("./hook").then((m) => m.hook),
    // Listed for --help; runCli hands `signet mcp ...` to the bridge, whose server names are dynamic.
    mcp: () => import("./mcp").then((m) => m.mcpRoot),
    doctor: () => import("./doctor").then((m) => m.doctor),
    index: () => import("./code-index").then((m) => m.indexCommand),
    code: () => import("./code").then((m) => m.code),
    // Given the tree it describes (a thunk: `root` is still being defined here).
    completion: () => import("./completion").then((m) => m.completionCommand(() => root)),
  }),
});

export async function runCli(args: string[]): Promise<number> {
  // `signet help [<command> ...]` is `signet [<command> ...] --help`.
  const rawArgs = args[0] === "help" ? [...args.slice(1), "--help"] : args;
  endQuietlyOnBrokenPipe();
  try {
    if (rawArgs[0] === "mcp") return await (await import("./mcp")).runMcp(rawArgs.slice(1));
    return await runTree(root, rawArgs);
  } catch (err) {
    if (isBrokenPipe(err)) return EXIT.ok;
    const message = (err as Error)?.message;
    // Messages may quote a server's stderr: colour codes go, any other control is shown, not obeyed.
    if (message) createLogger("signet").error(terminalText(message.replace(/\x1b\[[0-9;]*m/g, "")));
    return exitCodeOf(err);
  }
}
