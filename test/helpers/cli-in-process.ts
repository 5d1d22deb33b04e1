// A CLI command run in the test's own process against a test daemon, its stdout captured: for
// asserting what a command prints without building and spawning the binary.
import { runTree, type AnyCommand } from "../../src/cli/run";
import type { TestDaemon } from "./daemon";

/**
 * What `command args` prints, run with SIGNET_PATH set to `d`'s data directory and, unless `url` is
 * false (a command that never reaches the daemon, such as `signet index`), `--url` set to `d`.
 */
export async function cliOutput(d: TestDaemon, command: unknown, args: string[], url = true): Promise<string> {
  const out: string[] = [];
  const write = process.stdout.write;
  const log = console.log;
  const signetPath = process.env.SIGNET_PATH;
  // A command that prints one answer prints it with console.log (src/cli/output.ts), one that streams through process.stdout.
  process.stdout.write = ((chunk: string) => out.push(chunk) > 0) as typeof process.stdout.write;
  console.log = (...parts: unknown[]) => void out.push(`${parts.join(" ")}\n`);
  // The CLI checks that the daemon is the one of its own data directory.
  process.env.SIGNET_PATH = d.dataDir;
  try {
    // Run as the CLI runs it: the words lead to the command they name, whose flags --url joins.
    await runTree(command as AnyCommand, url ? [...args, "--url", d.url] : args);
  } finally {
    process.stdout.write = write;
    console.log = log;
    if (signetPath === undefined) delete process.env.SIGNET_PATH;
    else process.env.SIGNET_PATH = signetPath;
  }
  return out.join("");
}
