// Entry point of the one binary. The mode comes from the name it was invoked by (process.argv0:
// in a compiled binary argv[0] is always "bun" and execPath resolves links), then from argv.
import { basename } from "node:path";
import { VERSION } from "./version";

const args = process.argv.slice(2);
const invokedAs = basename(process.argv0 ?? "");

async function main(): Promise<number> {
  if (invokedAs === "signet-mcp" || invokedAs.startsWith("signet-mcp.")) {
    if (args[0] === "--version") return print(`signet-mcp ${VERSION}`);
    const { runStdioServer } = await import("./mcp/stdio");
    return runStdioServer();
  }
  // Answered before anything else loads: --version must not open the database or import the app.
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) return print(`signet ${VERSION}`);
  // A harness waits on `signet hook` at every prompt: it skips the command tree (src/cli/hook.ts).
  if (args[0] === "hook" && !args.includes("--help") && !args.includes("-h")) return (await import("./cli/hook")).runHookArgs(args.slice(1));
  // Help text is colored only for a terminal.
  if (process.env.NO_COLOR === undefined && !(await import("./os/terminal")).isTerminal(1)) process.env.NO_COLOR = "1";
  const { runCli } = await import("./cli/index");
  return runCli(args);
}

// console.log, not process.stdout: building Node's stdout stream costs more than the rest of --version.
function print(line: string): number {
  console.log(line);
  return 0;
}

const code = await main();
// Commands that leave nothing running end here; long-running modes resolve only when they are done.
process.exit(code);
