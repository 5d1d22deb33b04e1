// `signet completion bash|zsh|fish`, loaded into the real shells: bash's completion function asked
// for partial words (COMPREPLY), zsh's with the completion builtins it calls stubbed to print what
// they are given, fish through `complete -C`. Installed server names come from the daemon.
// zsh and fish are skipped where they are not installed (system-tool.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, run, sandbox, type Sandbox } from "../helpers/binary";
import { hasSystemTool } from "../helpers/system-tool";

let s: Sandbox;
/** The sandbox with this build first on PATH: the scripts call `signet mcp list` for server names. */
let env: Record<string, string>;
const scripts: Record<string, string> = {};

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  env = { ...s.env, PATH: `${dirname(BIN)}:${s.env.PATH}` };
  mkdirSync(s.home, { recursive: true });
  for (const shell of ["bash", "zsh", "fish"]) {
    const r = await run(["completion", shell], { env });
    if (r.code !== 0) throw new Error(`signet completion ${shell}: ${r.stderr}`);
    scripts[shell] = join(s.home, `completion.${shell}`);
    writeFileSync(scripts[shell]!, r.stdout);
  }
  if ((await run(["daemon", "start"], { env })).code !== 0) throw new Error("daemon did not start");
  // Installed, not started: listing it needs no server process.
  const add = await run(["mcp", "add", "demo-server", "--", "node", "/nonexistent/server.js"], { env });
  if (add.code !== 0) throw new Error(`mcp add: ${add.stderr}`);
});

afterAll(async () => {
  await run(["daemon", "stop"], { env });
});

function shell(argv: string[], script: string): string {
  const r = Bun.spawnSync([...argv, script], { env, stdout: "pipe", stderr: "pipe", timeout: 20_000 });
  if (r.exitCode !== 0) throw new Error(`${argv[0]} exited ${r.exitCode}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** One line of words a line: what the completion offers for each command line (the last word partial). */
function bashComplete(lines: string[][]): string[][] {
  const calls = lines.map((words) => `t ${words.map((w) => `'${w}'`).join(" ")}`).join("\n");
  const out = shell(
    ["bash", "--norc", "-c"],
    `source '${scripts.bash}'
complete -p signet
t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _signet signet "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"; echo "\${COMPREPLY[*]}"; }
${calls}`,
  );
  // One line a call, an empty one when nothing is offered: only the last newline goes.
  const [registration, ...replies] = out.replace(/\n$/, "").split("\n");
  expect(registration).toBe("complete -o default -F _signet signet");
  return replies.map((r) => r.split(" ").filter(Boolean).sort());
}

describe("signet completion", () => {
  test("bash: commands, subcommands, flags per command, values, server names", () => {
    expect(
      bashComplete([
        ["signet", "d"],
        ["signet", "daemon", "st"],
        ["signet", "daemon", "logs", "--f"],
        ["signet", "remember", "--imp"],
        ["signet", "setup", "--harness", "co"],
        ["signet", "mcp", "d"],
        ["signet", "mcp", "remove", ""],
        ["signet", "mcp", "demo-server", ""],
        ["signet", "mcp", "analytics", "--source", ""],
        ["signet", "completion", ""],
        // A flag's value is not a command: the words after it still are.
        ["signet", "embed", "--url", "http://127.0.0.1:1", "re"],
        // After --, another program's command line: nothing of ours.
        ["signet", "mcp", "add", "x", "--", "da"],
      ]),
    ).toEqual([
      ["daemon", "doctor", "dream"],
      ["start", "status", "stop"],
      ["--follow"],
      ["--importance"],
      ["codex"],
      ["demo-server", "disable"],
      ["demo-server"],
      ["list-tools"],
      ["agent", "cli", "mcp"],
      ["bash", "fish", "zsh"],
      ["reindex"],
      [],
    ]);
  });

  test("bash: no daemon, no server names, no daemon started", async () => {
    expect((await run(["daemon", "stop"], { env })).code).toBe(0);
    try {
      expect(bashComplete([["signet", "mcp", "d"]])).toEqual([["disable"]]);
      expect((await run(["daemon", "status"], { env })).code).toBe(1);
    } finally {
      expect((await run(["daemon", "start"], { env })).code).toBe(0);
    }
  });

  test.skipIf(!hasSystemTool("zsh"))("zsh: parses, and offers the same with descriptions", () => {
    expect(shell(["zsh", "-n"], scripts.zsh!)).toBe("");
    const out = shell(
      ["zsh", "-f", "-c"],
      `compdef() { print -r -- "compdef $*"; }
_describe() { print -rl -- "\${(@P)4}"; print @@; }
compadd() { print -r -- "compadd $*"; print @@; }
_files() { print files; print @@; }
source '${scripts.zsh}'
t() { words=("$@"); CURRENT=$#; _signet; }
t signet d
t signet daemon logs -
t signet setup --harness ''
t signet mcp ''
t signet mcp add x -- ''`,
    );
    const [registration, ...rest] = out.trimEnd().split("\n");
    expect(registration).toBe("compdef _signet signet");
    const blocks = rest.join("\n").split("\n@@").map((b) => b.trim().split("\n"));
    expect(blocks[0]).toContain("daemon:Run, start, stop and inspect the Signet daemon");
    expect(blocks[0]).toContain("doctor:Check the installation: the daemon, the store, the embedder, file modes, each harness's registration, signet-mcp on PATH and secret exec's sandbox");
    expect(blocks[1]).toEqual([
      "--follow:Keep printing new lines as they are written",
      "-f:Keep printing new lines as they are written",
      "--lines:How many of the last lines to print first (default 200)",
      "--help:Show this help",
      "-h:Show this help",
    ]);
    expect(blocks[2]).toEqual(["compadd -- claude-code codex opencode"]);
    expect(blocks[3]).toContain("demo-server");
    expect(blocks[3]).toContain("list:List installed MCP servers, enabled or not");
    expect(blocks[4]).toEqual(["files"]);
  });

  test.skipIf(!hasSystemTool("fish"))("fish: parses, and `complete -C` offers the same with descriptions", () => {
    expect(shell(["fish", "--no-execute"], scripts.fish!)).toBe("");
    const out = shell(
      ["fish", "--no-config", "-c"],
      `source '${scripts.fish}'
for line in 'signet d' 'signet daemon st' 'signet setup --harness ' 'signet mcp d' 'signet mcp remove '
    complete -C "$line"
    echo @@
end`,
    );
    const blocks = out.split("@@\n").map((b) => b.trimEnd().split("\n").sort());
    expect(blocks[0]).toEqual([
      "daemon\tRun, start, stop and inspect the Signet daemon",
      expect.stringMatching(/^doctor\tCheck the installation/),
      expect.stringMatching(/^dream\tConsolidate the agent's graph now/),
    ]);
    expect(blocks[1]!.map((l) => l.split("\t")[0])).toEqual(["start", "status", "stop"]);
    expect(blocks[2]!.map((l) => l.split("\t")[0])).toEqual(["claude-code", "codex", "opencode"]);
    expect(blocks[3]).toEqual(["demo-server\tinstalled MCP server", "disable\tDisable an installed MCP server (calls are refused; its process is stopped)"]);
    expect(blocks[4]).toEqual(["demo-server\tinstalled MCP server"]);
  });

  test("an unknown shell is a usage error", async () => {
    const r = await run(["completion", "tcsh"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown shell "tcsh": one of bash, zsh, fish');
  });
});
