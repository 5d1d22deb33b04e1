// `signet mcp ...`: the reserved words are commands of their own (list, add, remove, ...); any
// other first word names an installed server, whose tools become subcommands (docs/api.md#bridge).
import { defineCommand } from "../command";
import { COMMAND_DESCRIPTIONS } from "../descriptions";
import { RESERVED_SERVER_NAMES } from "../../contracts/bridge-names";
import { UsageError } from "../errors";
import { runTree, type AnyCommand } from "../run";

const manage = () => import("./manage");

export const mcpRoot = defineCommand({
  meta: {
    // The full name: its help is shown on its own, without the root's.
    name: "signet mcp",
    description: COMMAND_DESCRIPTIONS.mcp,
  },
  subCommands: {
    list: () => manage().then((m) => m.list),
    add: () => manage().then((m) => m.add),
    remove: () => manage().then((m) => m.remove),
    enable: () => manage().then((m) => m.enable),
    disable: () => manage().then((m) => m.disable),
    import: () => manage().then((m) => m.importServers),
    analytics: () => import("../mcp-analytics").then((m) => m.analyticsCommand),
    serve: () => import("./serve").then((m) => m.serve),
  },
});

export async function runMcp(rawArgs: string[]): Promise<number> {
  const first = rawArgs[0];
  if (first === "list-tools") throw new UsageError("list-tools needs a server: `signet mcp <server> list-tools`");
  if (first === "help") {
    // `signet mcp help <server> [<tool>]` is that server's (or tool's) help.
    return rawArgs[1] ? runMcp([...rawArgs.slice(1), "--help"]) : runTree(mcpRoot as AnyCommand, ["--help"]);
  }
  const reserved = (RESERVED_SERVER_NAMES as readonly string[]).includes(first ?? "");
  if (first === undefined || first.startsWith("-") || reserved) {
    const args = first === "help" ? ["--help", ...rawArgs.slice(1)] : rawArgs;
    return runTree(mcpRoot as AnyCommand, args);
  }
  const { runServerCommand } = await import("./call");
  return runServerCommand(first, rawArgs.slice(1));
}
