// Help: every command's help, found by following the "Commands:" lists from the root, fits 80
// columns (or COLUMNS, or a narrower terminal); `signet help <command>` is `signet <command> --help`.
// The tree is walked in this process (the CLI's own entry, runCli); the compiled binary is run where
// what it adds matters: the default width in a pipe, COLUMNS from its environment, a terminal, and
// `signet help`.
import { beforeAll, describe, expect, test } from "bun:test";
import { runCli } from "../../src/cli/index";
import { firstSentence } from "../../src/cli/run";
import { BIN, requireBinary, run, sandbox, type Sandbox } from "../helpers/binary";

requireBinary();
let s: Sandbox;
beforeAll(async () => {
  s = await sandbox();
});

const help = (words: string[], env: Record<string, string> = {}) => run([...words, "--help"], { env: { ...s.env, ...env } });

/**
 * `signet <words> --help` run through runCli in this process, at `columns` wide and without colour
 * (as in a pipe), in the sandbox's data directory: its exit code and what it wrote.
 */
async function helpInProcess(words: string[], columns: number): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: Record<string, string> = { HOME: s.home, SIGNET_PATH: s.dataDir, SIGNET_PORT: String(s.port), NO_COLOR: "1", COLUMNS: String(columns) };
  const savedEnv = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const { stdout, stderr } = process;
  const writes = { stdout: stdout.write, stderr: stderr.write };
  const out = { stdout: [] as string[], stderr: [] as string[] };
  // runCli sets up the binary's broken-pipe handling on the process: what it adds is taken off again.
  const rejectionListeners = process.listeners("unhandledRejection");
  const errorListeners = stdout.listeners("error");
  Object.assign(process.env, env);
  stdout.write = ((chunk: string) => out.stdout.push(String(chunk)) > 0) as typeof stdout.write;
  stderr.write = ((chunk: string) => out.stderr.push(String(chunk)) > 0) as typeof stderr.write;
  // Help is printed with console.log (src/cli/run.ts), other output through process.stdout.
  const log = console.log;
  console.log = (...parts: unknown[]) => void out.stdout.push(`${parts.join(" ")}\n`);
  try {
    const code = await runCli([...words, "--help"]);
    return { code, stdout: out.stdout.join(""), stderr: out.stderr.join("") };
  } finally {
    stdout.write = writes.stdout;
    stderr.write = writes.stderr;
    console.log = log;
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    for (const l of process.listeners("unhandledRejection")) if (!rejectionListeners.includes(l)) process.off("unhandledRejection", l);
    for (const l of stdout.listeners("error")) if (!errorListeners.includes(l)) stdout.off("error", l);
  }
}

/** The command names a help lists under "Commands:" (continuation lines are indented further). */
function subcommands(text: string): string[] {
  const lines = text.split("\n");
  const start = lines.indexOf("Commands:");
  if (start < 0) return [];
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line === "") break;
    const name = /^  (\S+)/.exec(line)?.[1];
    if (name) names.push(name);
  }
  return names;
}

/** Every command's words, from the root down, with its help text at `columns` wide. */
async function everyHelp(columns: number): Promise<[string[], string][]> {
  const out: [string[], string][] = [];
  const queue: string[][] = [[]];
  while (queue.length > 0) {
    const words = queue.shift()!;
    const r = await helpInProcess(words, columns);
    expect({ words, code: r.code, stderr: r.stderr }).toEqual({ words, code: 0, stderr: "" });
    out.push([words, r.stdout]);
    for (const name of subcommands(r.stdout)) queue.push([...words, name]);
  }
  return out;
}

const tooLong = (helps: [string[], string][], width: number) =>
  helps.flatMap(([words, text]) => text.split("\n").filter((l) => l.length > width).map((l) => `signet ${words.join(" ")}: ${l}`));

/** What the binary prints for these commands' help is what the walk found for them. */
async function binaryAgrees(helps: [string[], string][], env: Record<string, string> = {}) {
  for (const words of [[], ["mcp", "add"], ["daemon", "logs"]]) {
    const r = await help(words, env);
    const walked = helps.find(([w]) => w.join(" ") === words.join(" "))![1];
    expect({ words, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ words, code: 0, stdout: walked, stderr: "" });
  }
}

describe("help", () => {
  test("every command's help fits 80 columns, and the tree is all there", async () => {
    const helps = await everyHelp(80);
    const names = helps.map(([words]) => words.join(" "));
    // The walk reached the depths it should: a nested daemon command, the bridge's, the new ones.
    for (const name of ["", "daemon", "daemon logs", "mcp", "mcp add", "mcp analytics", "doctor", "completion"]) expect(names).toContain(name);
    expect(helps.length).toBeGreaterThan(30);
    expect(tooLong(helps, 80)).toEqual([]);
    // Wrapped, not cut: a long description is all there.
    const add = helps.find(([words]) => words.join(" ") === "mcp add")![1];
    expect(add.replace(/\s+/g, " ")).toContain("A bare command (npx, node) is looked up on PATH.");
    // In a pipe, with no COLUMNS, the binary lays help out 80 wide.
    await binaryAgrees(helps);
  });

  test("the root lists each command by the first sentence of its own help, at a width that wraps none", async () => {
    const helps = await everyHelp(400);
    const root = helps.find(([words]) => words.length === 0)![1];
    const listed = new Map(
      root
        .split("\n")
        .slice(root.split("\n").indexOf("Commands:") + 1)
        .map((l) => /^  (\S+)\s+(.*)$/.exec(l))
        .filter((m) => m !== null)
        .map((m) => [m![1]!, m![2]!] as const),
    );
    expect(listed.size).toBe(31);
    for (const [name, line] of listed) {
      const own = helps.find(([words]) => words.join(" ") === name)![1];
      // The command's own summary: "signet <name>: <description>".
      const description = /^signet [^:]+: (.*)$/m.exec(own)![1]!;
      expect({ name, line }).toEqual({ name, line: firstSentence(description) });
    }
  });

  test("COLUMNS narrows it", async () => {
    const helps = await everyHelp(50);
    expect(tooLong(helps, 50)).toEqual([]);
    await binaryAgrees(helps, { COLUMNS: "50" });
  });

  test.skipIf(!Bun.which("script"))("on a terminal, its width (and bold headings, never wider)", () => {
    // script gives the command a pseudo-terminal; stty makes it 60 columns wide.
    const r = Bun.spawnSync(["script", "-qefc", `stty cols 60; exec '${BIN}' recall --help`, "/dev/null"], {
      env: { PATH: s.env.PATH!, HOME: s.home, SIGNET_PATH: s.dataDir, TERM: "xterm" },
      stdin: "ignore",
    });
    expect(r.exitCode).toBe(0);
    const text = r.stdout.toString();
    expect(text).toContain("\x1b[1mOptions:");
    const lines = text.replace(/\x1b\[[0-9;]*m/g, "").replace(/\r/g, "").split("\n");
    expect(lines.some((l) => l.includes("--importance-min"))).toBe(true);
    expect(lines.filter((l) => l.length > 60)).toEqual([]);
  });

  test("`signet help [<command> ...]` is `signet [<command> ...] --help`", async () => {
    for (const words of [[], ["daemon"], ["daemon", "start"], ["mcp"], ["mcp", "add"], ["doctor"]]) {
      const viaHelp = await run(["help", ...words], { env: s.env });
      const viaFlag = await help(words);
      expect({ words, code: viaHelp.code, stdout: viaHelp.stdout }).toEqual({ words, code: 0, stdout: viaFlag.stdout });
    }
    const unknown = await run(["help", "nope"], { env: s.env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "nope"');
  });
});
