// Help as the compiled binary prints it: every command's help, found by following the "Commands:"
// lists from the root, fits 80 columns (or COLUMNS, or a narrower terminal); `signet help <command>`
// is `signet <command> --help`.
import { beforeAll, describe, expect, test } from "bun:test";
import { BIN, requireBinary, run, sandbox, type Sandbox } from "../helpers/binary";

requireBinary();
let s: Sandbox;
beforeAll(async () => {
  s = await sandbox();
});

const help = (words: string[], env: Record<string, string> = {}) => run([...words, "--help"], { env: { ...s.env, ...env } });

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

/** Every command's words, from the root down, with its help text. */
async function everyHelp(env: Record<string, string> = {}): Promise<[string[], string][]> {
  const out: [string[], string][] = [];
  const queue: string[][] = [[]];
  while (queue.length > 0) {
    const words = queue.shift()!;
    const r = await help(words, env);
    expect({ words, code: r.code, stderr: r.stderr }).toEqual({ words, code: 0, stderr: "" });
    out.push([words, r.stdout]);
    for (const name of subcommands(r.stdout)) queue.push([...words, name]);
  }
  return out;
}

const tooLong = (helps: [string[], string][], width: number) =>
  helps.flatMap(([words, text]) => text.split("\n").filter((l) => l.length > width).map((l) => `signet ${words.join(" ")}: ${l}`));

describe("help", () => {
  test("every command's help fits 80 columns, and the tree is all there", async () => {
    const helps = await everyHelp();
    const names = helps.map(([words]) => words.join(" "));
    // The walk reached the depths it should: a nested daemon command, the bridge's, the new ones.
    for (const name of ["", "daemon", "daemon logs", "mcp", "mcp add", "mcp analytics", "doctor", "completion"]) expect(names).toContain(name);
    expect(helps.length).toBeGreaterThan(30);
    expect(tooLong(helps, 80)).toEqual([]);
    // Wrapped, not cut: a long description is all there.
    const add = helps.find(([words]) => words.join(" ") === "mcp add")![1];
    expect(add.replace(/\s+/g, " ")).toContain("A bare command (npx, node) is looked up on PATH.");
  }, 120_000);

  test("COLUMNS narrows it", async () => {
    const helps = await everyHelp({ COLUMNS: "50" });
    expect(tooLong(helps, 50)).toEqual([]);
  }, 120_000);

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
