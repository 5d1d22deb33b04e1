// `signet setup --harness ...` (and its alias `signet install`) run as the compiled binary with a
// temporary HOME and SIGNET_PATH: what lands in each harness's config, what must not, and what
// --uninstall takes away.
import { describe, expect, test } from "bun:test";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, json, run, sandbox, type RunResult } from "../helpers/binary";

/** What setup writes: the signet-mcp beside the binary that ran it, by its absolute path. */
const MCP_BIN = join(dirname(BIN), "signet-mcp");
const claudeEntry = (dataDir: string) => ({ type: "stdio", command: MCP_BIN, args: [], env: { SIGNET_PATH: dataDir } });
const opencodeEntry = (dataDir: string) => ({ type: "local", command: [MCP_BIN], enabled: true, environment: { SIGNET_PATH: dataDir } });

/** A sandbox whose daemon URL is the default one (the sandbox's own SIGNET_PORT would change it). */
async function home(extra: Record<string, string> = {}) {
  const s = await sandbox();
  const env: Record<string, string> = { ...s.env, ...extra };
  delete env.SIGNET_PORT;
  const cli = (args: string[], more: Record<string, string> = {}) => run(args, { env: { ...env, ...more } });
  const path = (...parts: string[]) => join(s.home, ...parts);
  const write = (file: string, text: string) => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  return { home: s.home, dataDir: s.dataDir, cli, path, write };
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .sort();
}

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));
const actions = (r: RunResult) => json(r).files.map((f: { action: string }) => f.action);
/** The files of the lifecycle hooks (docs/hooks.md): tests about MCP entries leave them aside. */
const HOOK_FILE = /(\/settings\.json|\/hooks\.json|\/signet\.js)$/;
const mcpFiles = (r: RunResult) => json(r).files.filter((f: { path: string }) => !HOOK_FILE.test(f.path));
const mcpActions = (r: RunResult) => mcpFiles(r).map((f: { action: string }) => f.action);
/** The hook command setup writes for an event (every value single-quoted). */
const hookCommand = (event: string, harness: string, dataDir: string) => `'${BIN}' hook ${event} --harness ${harness} --data-dir '${dataDir}'`;
const HOOK_EVENTS = [
  ["SessionStart", "session-start", 10],
  ["UserPromptSubmit", "user-prompt-submit", 10],
  ["PreCompact", "pre-compaction", 30],
  ["PostCompact", "compaction-complete", 10],
  ["SessionEnd", "session-end", 30],
] as const;
const hooksFor = (harness: string, dataDir: string) =>
  Object.fromEntries(HOOK_EVENTS.map(([name, event, timeout]) => [name, [{ hooks: [{ type: "command", command: hookCommand(event, harness, dataDir), timeout }] }]]));

describe("signet setup: fresh installs", () => {
  test("claude-code writes the entry `claude mcp add-json --scope user` writes to .claude.json, and the hooks to settings.json", async () => {
    const h = await home();
    const r = await h.cli(["setup", "--harness", "claude-code"]);
    expect(r.code).toBe(0);
    expect(json(r)).toMatchObject({
      harness: "claude-code",
      command: MCP_BIN,
      dataDir: h.dataDir,
      files: [
        { path: h.path(".claude.json"), action: "created", entry: "mcpServers.signet" },
        { path: h.path(".claude", "settings.json"), action: "created" },
      ],
    });
    expect(readFileSync(h.path(".claude.json"), "utf8")).toBe(`${JSON.stringify({ mcpServers: { signet: claudeEntry(h.dataDir) } }, null, 2)}\n`);
    expect(readJson(h.path(".claude", "settings.json"))).toEqual({ hooks: hooksFor("claude-code", h.dataDir) });
    expect(files(h.home)).toEqual([h.path(".claude.json"), h.path(".claude", "settings.json")]);
    // No MCP entry of an earlier setup was in settings.json: none is said to be taken out.
    expect(json(r).files[1].reason).toBeUndefined();
    const other = await home();
    const pretty = await other.cli(["setup", "--harness", "claude-code", "--pretty"]);
    expect(pretty.code).toBe(0);
    expect(pretty.stdout).toContain(`  created   ${other.path(".claude", "settings.json")} with Signet's hooks (SessionStart, UserPromptSubmit, PreCompact, PostCompact, SessionEnd)\n`);
    expect(pretty.stdout).not.toContain("taken out");
  });

  test("codex writes [mcp_servers.signet] with SIGNET_PATH in its env table (a default daemon URL is not written)", async () => {
    const h = await home();
    const r = await h.cli(["setup", "--harness", "codex"]);
    expect(r.code).toBe(0);
    expect(mcpFiles(r)).toEqual([{ path: h.path(".codex", "config.toml"), action: "created", entry: "mcp_servers.signet" }]);
    expect(readJson(h.path(".codex", "hooks.json"))).toEqual({ hooks: hooksFor("codex", h.dataDir) });
    expect(json(r).notes.join("\n")).toContain("open /hooks in Codex");
    expect(readFileSync(h.path(".codex", "config.toml"), "utf8")).toBe(
      `[mcp_servers.signet]\ncommand = "${MCP_BIN}"\n\n[mcp_servers.signet.env]\nSIGNET_PATH = "${h.dataDir}"\n`,
    );
  });

  test("opencode writes mcp.signet; `install` is the same command", async () => {
    const h = await home();
    const r = await h.cli(["install", "--harness", "opencode"]);
    expect(r.code).toBe(0);
    expect(json(r)).toMatchObject({
      harness: "opencode",
      files: [
        { path: h.path(".config", "opencode", "opencode.json"), action: "created" },
        { path: h.path(".config", "opencode", "plugins", "signet.js"), action: "created" },
      ],
    });
    expect(readJson(h.path(".config", "opencode", "opencode.json"))).toEqual({ mcp: { signet: opencodeEntry(h.dataDir) } });
    expect(readFileSync(h.path(".config", "opencode", "plugins", "signet.js"), "utf8")).toContain(`const SIGNET = ${JSON.stringify(BIN)};`);
  });

  test("opencode with OPENCODE_CONFIG: the entry goes to the file OpenCode merges last, which doctor reads; --uninstall takes it out there", async () => {
    const h = await home();
    const custom = h.path("custom.json");
    h.write(custom, JSON.stringify({ theme: "x", mcp: { signet: { ...opencodeEntry("/another/store") } } }));
    const env = { OPENCODE_CONFIG: custom, SIGNET_AUTOSTART: "0" };
    const r = await h.cli(["setup", "--harness", "opencode"], env);
    expect(r.code).toBe(0);
    expect(mcpFiles(r)).toMatchObject([{ path: custom, action: "updated", entry: "mcp.signet" }]);
    expect(readJson(custom)).toEqual({ theme: "x", mcp: { signet: opencodeEntry(h.dataDir) } });
    expect(existsSync(h.path(".config", "opencode", "opencode.json"))).toBe(false);
    // Doctor reads the same file: no stale entry, so no fix that would change nothing.
    const doctor = await h.cli(["doctor", "--json"], env);
    const opencode = json(doctor).checks.filter((c: { area: string }) => c.area === "opencode");
    expect(JSON.stringify(opencode)).not.toContain("/another/store");
    expect(opencode.filter((c: { status: string }) => c.status !== "ok")).toEqual([
      { area: "opencode", status: "note", detail: expect.stringContaining("were not run: no daemon") },
    ]);
    expect(json(await h.cli(["setup", "--harness", "opencode"], env)).changed).toBe(false);
    expect((await h.cli(["setup", "--harness", "opencode", "--uninstall"], env)).code).toBe(0);
    // The mcp object was there before setup: it stays.
    expect(readJson(custom)).toEqual({ theme: "x", mcp: {} });
  });

  test("the data directory is written absolute, and the note says the CLI needs the same SIGNET_PATH", async () => {
    const h = await home();
    mkdirSync(h.home, { recursive: true });
    const r = await run(["setup", "--harness", "opencode", "--pretty"], { env: { PATH: "/usr/bin:/bin", HOME: h.home, SIGNET_PATH: "my-store", NO_COLOR: "1" }, cwd: h.home });
    expect(r.code).toBe(0);
    const dataDir = join(h.home, "my-store");
    expect(readJson(h.path(".config", "opencode", "opencode.json")).mcp.signet.environment).toEqual({ SIGNET_PATH: dataDir });
    expect(r.stdout).toContain(`registered ${MCP_BIN} with OpenCode (SIGNET_PATH ${dataDir})`);
    expect(r.stdout).toContain(`note: the entry gives signet-mcp SIGNET_PATH=${dataDir}, from this shell`);
  });
});

describe("signet setup: existing configs", () => {
  test("claude-code keeps other servers and keys, backs up once, and a second run changes nothing", async () => {
    const h = await home();
    const settings = { permissions: { allow: ["Bash(ls)"] }, mcpServers: { other: { command: "other-mcp", args: ["-x"] } } };
    const state = { numStartups: 12, userID: "abc", projects: { "/src": { allowedTools: [] } } };
    h.write(h.path(".claude", "settings.json"), JSON.stringify(settings));
    h.write(h.path(".claude.json"), JSON.stringify(state, null, 2));
    const first = await h.cli(["setup", "--harness", "claude-code"]);
    expect(first.code).toBe(0);
    const out = json(first);
    expect(actions(first)).toEqual(["updated", "updated"]);
    expect(out.files[0].backup).toMatch(/\.claude\.json\.signet-backup-\d{8}T\d{6}Z$/);
    expect(readFileSync(out.files[0].backup, "utf8")).toBe(JSON.stringify(state, null, 2));
    expect(readFileSync(out.files[1].backup, "utf8")).toBe(JSON.stringify(settings));
    expect(readJson(h.path(".claude.json"))).toEqual({ ...state, mcpServers: { signet: claudeEntry(h.dataDir) } });
    expect(readJson(h.path(".claude", "settings.json"))).toEqual({ ...settings, hooks: hooksFor("claude-code", h.dataDir) });
    const written = files(h.home).map((f) => [f, readFileSync(f, "utf8")]);

    const second = await h.cli(["setup", "--harness", "claude-code"]);
    expect(second.code).toBe(0);
    expect(json(second)).toMatchObject({ changed: false, files: [{ action: "unchanged" }, { action: "unchanged" }] });
    expect(json(second).files.some((f: { backup?: string }) => f.backup)).toBe(false);
    expect(files(h.home).map((f) => [f, readFileSync(f, "utf8")])).toEqual(written);
    const pretty = await h.cli(["setup", "--harness", "claude-code", "--pretty"]);
    expect(pretty.stdout).toContain("already registered with Claude Code: nothing changed");
    expect(files(h.home).filter((f) => f.includes("signet-backup"))).toHaveLength(2);
  });

  test("claude-code: the entry an earlier setup wrote to settings.json is taken out, and setup says so", async () => {
    const h = await home();
    const settings = h.path(".claude", "settings.json");
    const old = { type: "stdio", command: "signet-mcp", args: [] };
    h.write(settings, JSON.stringify({ theme: "dark", mcpServers: { signet: old } }));
    h.write(h.path(".claude.json"), JSON.stringify({ mcpServers: { signet: old } }));
    const r = await h.cli(["setup", "--harness", "claude-code", "--pretty"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  updated   mcpServers.signet in ${h.path(".claude.json")}`);
    expect(r.stdout).toContain(
      `  updated   Signet's hooks (SessionStart, UserPromptSubmit, PreCompact, PostCompact, SessionEnd) in ${settings} (the lifecycle hooks; an MCP entry an earlier signet setup wrote here is taken out, as Claude Code reads MCP servers from ${h.path(".claude.json")})`,
    );
    expect(readJson(settings)).toEqual({ theme: "dark", hooks: hooksFor("claude-code", h.dataDir) });
    expect(readJson(h.path(".claude.json"))).toEqual({ mcpServers: { signet: claudeEntry(h.dataDir) } });
  });

  test("codex keeps comments and other tables byte for byte", async () => {
    const h = await home();
    const original = [
      "# My Codex settings",
      'model = "o3" # inline comment',
      "",
      "[mcp_servers.github]",
      'command = "npx"',
      'args = ["-y", "@modelcontextprotocol/server-github"]',
      "",
      "[mcp_servers.github.env]",
      'GITHUB_PERSONAL_ACCESS_TOKEN = "keep-me"',
      "",
      "# fast profile",
      "[profiles.fast]",
      'model = "o4-mini"',
      "",
    ].join("\n");
    const file = h.path(".codex", "config.toml");
    h.write(file, original);
    const r = await h.cli(["setup", "--harness", "codex"]);
    expect(r.code).toBe(0);
    expect(json(r).files[0]).toMatchObject({ action: "updated", backup: expect.stringContaining("config.toml.signet-backup-") });
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(original)).toBe(true);
    const data = Bun.TOML.parse(after) as any;
    expect(data.model).toBe("o3");
    expect(data.mcp_servers.github).toEqual({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github"],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "keep-me" },
    });
    expect(data.mcp_servers.signet).toEqual({ command: MCP_BIN, env: { SIGNET_PATH: h.dataDir } });
    expect(data.profiles).toEqual({ fast: { model: "o4-mini" } });

    const again = await h.cli(["setup", "--harness", "codex"]);
    expect(mcpFiles(again)).toEqual([{ path: file, action: "unchanged", entry: "mcp_servers.signet" }]);
    expect(actions(again)).toEqual(["unchanged", "unchanged"]);
    expect(readFileSync(file, "utf8")).toBe(after);

    const removed = await h.cli(["setup", "--harness", "codex", "--uninstall"]);
    expect(removed.code).toBe(0);
    expect(json(removed).files[0]).toMatchObject({ action: "removed" });
    expect(readFileSync(file, "utf8")).toBe(original);
  });

  test("opencode keeps other servers and keys", async () => {
    const h = await home();
    const file = h.path(".config", "opencode", "opencode.json");
    const existing = { $schema: "https://opencode.ai/config.json", theme: "tokyonight", mcp: { other: { type: "remote", url: "https://x" } } };
    h.write(file, JSON.stringify(existing));
    expect((await h.cli(["setup", "--harness", "opencode"])).code).toBe(0);
    expect(readJson(file)).toEqual({ ...existing, mcp: { other: existing.mcp.other, signet: opencodeEntry(h.dataDir) } });
  });
});

describe("signet setup: JSONC configs", () => {
  const OPENCODE_JSONC = [
    "{",
    '  "$schema": "https://opencode.ai/config.json",',
    "  // keep the theme dark",
    '  "theme": "tokyonight",',
    '  "mcp": {',
    '    "other": {',
    '      "type": "remote", /* hosted */',
    '      "url": "https://x",',
    "    },",
    "  },",
    "}",
    "",
  ].join("\n");

  test("opencode.jsonc: comments and trailing commas stay, dry run, backup, idempotence, uninstall back to the original", async () => {
    const h = await home();
    const file = h.path(".config", "opencode", "opencode.jsonc");
    h.write(file, OPENCODE_JSONC);

    const dryRun = await h.cli(["setup", "--harness", "opencode", "--dry-run"]);
    const dry = { files: mcpFiles(dryRun) };
    expect(dry.files).toEqual([{ path: file, action: "updated", entry: "mcp.signet", diff: expect.any(String) }]);
    expect(dry.files[0].diff.split("\n").filter((l: string) => /^[-+][^-+]/.test(l))).toEqual([
      '+    "signet": {',
      '+      "type": "local",',
      '+      "command": [',
      `+        "${MCP_BIN}"`,
      "+      ],",
      '+      "enabled": true,',
      '+      "environment": {',
      `+        "SIGNET_PATH": "${h.dataDir}"`,
      "+      }",
      "+    },",
    ]);
    expect(readFileSync(file, "utf8")).toBe(OPENCODE_JSONC);

    const r = await h.cli(["setup", "--harness", "opencode"]);
    expect(r.code).toBe(0);
    const [applied] = json(r).files;
    expect(applied).toMatchObject({ path: file, action: "updated" });
    expect(readFileSync(applied.backup, "utf8")).toBe(OPENCODE_JSONC);
    const after = readFileSync(file, "utf8");
    for (const kept of ["// keep the theme dark", "/* hosted */", '"url": "https://x",\n    },', "  },\n}\n"]) expect(after).toContain(kept);
    expect(Bun.JSONC.parse(after)).toEqual({
      $schema: "https://opencode.ai/config.json",
      theme: "tokyonight",
      mcp: { other: { type: "remote", url: "https://x" }, signet: opencodeEntry(h.dataDir) },
    });

    expect(mcpFiles(await h.cli(["setup", "--harness", "opencode"]))).toEqual([{ path: file, action: "unchanged", entry: "mcp.signet" }]);
    expect(readFileSync(file, "utf8")).toBe(after);

    const removed = await h.cli(["setup", "--harness", "opencode", "--uninstall"]);
    expect(json(removed).files[0]).toMatchObject({ path: file, action: "removed" });
    expect(readFileSync(file, "utf8")).toBe(OPENCODE_JSONC);
    expect(existsSync(h.path(".config", "opencode", "opencode.json"))).toBe(false);
  });

  test("an opencode.json with comments and trailing commas is edited the same way", async () => {
    const h = await home();
    const file = h.path(".config", "opencode", "opencode.json");
    h.write(file, OPENCODE_JSONC);
    expect((await h.cli(["setup", "--harness", "opencode"])).code).toBe(0);
    expect(readFileSync(file, "utf8")).toContain("// keep the theme dark");
    expect((Bun.JSONC.parse(readFileSync(file, "utf8")) as any).mcp.signet).toEqual(opencodeEntry(h.dataDir));
    expect((await h.cli(["setup", "--harness", "opencode", "--uninstall"])).code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(OPENCODE_JSONC);
  });

  test("claude-code: a ~/.claude.json with comments keeps them", async () => {
    const h = await home();
    const state = h.path(".claude.json");
    const original = '{\n  // Claude Code state, annotated\n  "numStartups": 12,\n  "userID": "abc" /* mine */\n}\n';
    h.write(state, original);
    const r = await h.cli(["setup", "--harness", "claude-code"]);
    expect(r.code).toBe(0);
    const after = readFileSync(state, "utf8");
    expect(after).toStartWith('{\n  // Claude Code state, annotated\n  "numStartups": 12,\n  "userID": "abc",\n  "mcpServers": {');
    expect(after).toEndWith("  } /* mine */\n}\n");
    expect(Bun.JSONC.parse(after)).toEqual({ numStartups: 12, userID: "abc", mcpServers: { signet: claudeEntry(h.dataDir) } });
    expect((await h.cli(["setup", "--harness", "claude-code", "--uninstall"])).code).toBe(0);
    expect(readFileSync(state, "utf8")).toBe(original);
  });

  test("a file that is not valid JSONC is refused, naming the file and the position", async () => {
    const h = await home();
    const file = h.path(".config", "opencode", "opencode.jsonc");
    const broken = '{\n  // a comment is fine\n  "theme": "x",\n  "mcp": { "a": {} "b": {} },\n}\n';
    h.write(file, broken);
    const r = await h.cli(["setup", "--harness", "opencode"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}: not valid JSONC (comma expected at line 4, column 20)`);
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(files(h.home)).toEqual([file]);
  });
});

describe("signet setup: the user's text is the user's", () => {
  const SETTINGS = `{
  "hooks": {
    "UserPromptSubmit": [
      // run my linter before every prompt
      { "hooks": [ { "type": "command", "command": "/usr/local/bin/mine.sh" } ] }
    ],
    "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo pre" } ] } ]
  }
}
`;

  test("claude-code: setup only adds Signet's entries (the comment stays, PreToolUse stays on its line); --uninstall gives back both files byte for byte", async () => {
    const h = await home();
    const settings = h.path(".claude", "settings.json");
    const state = h.path(".claude.json");
    h.write(settings, SETTINGS);
    h.write(state, '{"numStartups":1}');
    expect((await h.cli(["setup", "--harness", "claude-code"])).code).toBe(0);
    const after = readFileSync(settings, "utf8");
    expect(after).toContain("      // run my linter before every prompt\n");
    expect(after).toContain('\n    "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo pre" } ] } ],\n');
    expect(readFileSync(state, "utf8")).toBe(JSON.stringify({ numStartups: 1, mcpServers: { signet: claudeEntry(h.dataDir) } }));
    expect((await h.cli(["setup", "--harness", "claude-code", "--uninstall"])).code).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(SETTINGS);
    expect(readFileSync(state, "utf8")).toBe('{"numStartups":1}');
  });

  test("containers the user had, empty, stay; a byte order mark stays", async () => {
    const h = await home();
    const state = h.path(".claude.json");
    const settings = h.path(".claude", "settings.json");
    const opencodeFile = h.path(".config", "opencode", "opencode.json");
    const originals: [string, string][] = [
      [state, '\uFEFF{\n  "numStartups": 2,\n  "mcpServers": {}\n}\n'],
      [settings, '{\n  "hooks": {\n    "SessionStart": []\n  }\n}\n'],
      [opencodeFile, '\uFEFF{\r\n  "mcp": {}\r\n}'],
    ];
    for (const [file, text] of originals) h.write(file, text);
    for (const harness of ["claude-code", "opencode"]) expect((await h.cli(["setup", "--harness", harness])).code).toBe(0);
    expect(readFileSync(state, "utf8")).toStartWith('\uFEFF{\n  "numStartups": 2,\n  "mcpServers": {\n    "signet": {');
    for (const harness of ["claude-code", "opencode"]) expect((await h.cli(["setup", "--harness", harness, "--uninstall"])).code).toBe(0);
    for (const [file, text] of originals) expect(readFileSync(file, "utf8")).toBe(text);
  });

  test("a key written twice on the way to the entry is refused, naming the file and the key; nothing changes", async () => {
    const h = await home();
    const state = h.path(".claude.json");
    const text = '{\n  "mcpServers": {},\n  "numStartups": 4,\n  "mcpServers": {"other": {"command": "o"}}\n}\n';
    h.write(state, text);
    const r = await h.cli(["setup", "--harness", "claude-code"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${state}: "mcpServers" is there 2 times (lines 2 and 4) and the harness reads only the last; merge them into one, then run this again; nothing was changed`,
    );
    expect(readFileSync(state, "utf8")).toBe(text);
    expect(files(h.home)).toEqual([state]);
  });

  test("opencode: an mcp.signet of the user's own is refused by setup and kept by --uninstall, which says so", async () => {
    const h = await home();
    const file = h.path(".config", "opencode", "opencode.json");
    const own = JSON.stringify({ mcp: { signet: { type: "remote", url: "https://signet.example.com/mcp" } } });
    h.write(file, own);
    const refused = await h.cli(["setup", "--harness", "opencode"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${file}: mcp.signet is a server of your own, not Signet's (it does not run signet-mcp): rename or remove it, then run this again; nothing was changed`);
    expect(files(h.home)).toEqual([file]);
    const removed = await h.cli(["setup", "--harness", "opencode", "--uninstall", "--pretty"]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`note: kept mcp.signet in ${file}: it is a server of your own, not Signet's (it does not run signet-mcp)`);
    expect(readFileSync(file, "utf8")).toBe(own);
  });

  test("a hook whose transcript_path is a FIFO does not wait on it: one line on stderr, and the hook goes on", async () => {
    // The sandbox's own port, where no daemon runs: the hook ends as soon as it has tried (the run
    // is ended, and the test fails, if it waits on the FIFO instead).
    const s = await sandbox();
    const fifo = join(s.home, "transcript.fifo");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const r = await run(["hook", "session-end", "--harness", "claude-code"], {
      env: s.env,
      stdin: JSON.stringify({ session_id: "s-fifo", hook_event_name: "SessionEnd", cwd: s.home, transcript_path: fifo }),
    });
    expect(r).toEqual({ code: 0, stdout: "", stderr: `signet hook: cannot read the transcript ${fifo}: it is not a regular file; session-end is sent without it\n` });
  });
});

describe("signet setup --dry-run", () => {
  test("shows the diff and writes nothing", async () => {
    const h = await home();
    const state = h.path(".claude.json");
    h.write(state, '{"theme": "dark"}\n');
    const r = await h.cli(["setup", "--harness", "claude-code", "--dry-run"]);
    expect(r.code).toBe(0);
    const out = json(r);
    expect(out.dryRun).toBe(true);
    expect(out.files.map((f: { action: string }) => f.action)).toEqual(["updated", "created"]);
    expect(out.files[1].diff).toContain(`+++ ${h.path(".claude", "settings.json")}`);
    expect(out.files[1].diff).toContain(`hook user-prompt-submit --harness claude-code`);
    expect(out.files[0].diff).toContain(`--- ${state}`);
    // A file on one line stays on one line.
    expect(out.files[0].diff).toContain('\n-{"theme": "dark"}\n');
    expect(out.files[0].diff).toContain(`\n+{"theme": "dark", "mcpServers": {"signet": {"type": "stdio", "command": "${MCP_BIN}", "args": [], "env": {"SIGNET_PATH": "${h.dataDir}"}}}}\n`);
    expect(readFileSync(state, "utf8")).toBe('{"theme": "dark"}\n');
    expect(files(h.home)).toEqual([state]);

    const pretty = await h.cli(["setup", "--harness", "codex", "--dry-run", "--pretty"]);
    expect(pretty.code).toBe(0);
    expect(pretty.stdout).toContain(`+++ ${h.path(".codex", "config.toml")}`);
    expect(pretty.stdout).toContain("+[mcp_servers.signet]");
    expect(pretty.stdout).toContain("dry run: nothing was written");
    expect(files(h.home)).toEqual([state]);
    expect(existsSync(h.dataDir)).toBe(false);
  });
});

describe("signet setup --uninstall", () => {
  test("removes only the signet entries from files that were there before", async () => {
    const h = await home();
    const state = h.path(".claude.json");
    const opencodeFile = h.path(".config", "opencode", "opencode.json");
    h.write(state, JSON.stringify({ theme: "dark", mcpServers: { other: { command: "o" } } }));
    h.write(opencodeFile, JSON.stringify({ theme: "x", mcp: { other: { type: "local", command: ["o"] } } }));
    await h.cli(["setup", "--harness", "claude-code"]);
    await h.cli(["setup", "--harness", "opencode"]);

    const r = await h.cli(["setup", "--harness", "claude-code", "--uninstall"]);
    expect(r.code).toBe(0);
    // .claude.json was there before; settings.json was created by setup for the hooks alone.
    expect(actions(r)).toEqual(["removed", "deleted"]);
    expect(readJson(state)).toEqual({ theme: "dark", mcpServers: { other: { command: "o" } } });
    expect((await h.cli(["install", "--harness", "opencode", "--uninstall"])).code).toBe(0);
    expect(readJson(opencodeFile)).toEqual({ theme: "x", mcp: { other: { type: "local", command: ["o"] } } });

    const again = await h.cli(["setup", "--harness", "claude-code", "--uninstall"]);
    expect(json(again)).toMatchObject({ changed: false, files: [{ action: "unchanged" }] });
    expect(json(again).files).toHaveLength(1);
  });

  test("deletes the files and directories setup created, naming each, and leaves the home as it was", async () => {
    const h = await home();
    mkdirSync(h.home, { recursive: true });
    for (const harness of ["claude-code", "codex", "opencode"]) expect((await h.cli(["setup", "--harness", harness])).code).toBe(0);
    expect(files(h.home).length).toBe(6);
    expect(readJson(join(h.dataDir, ".daemon", "setup-created.json")).files).toHaveLength(6);

    const codex = await h.cli(["setup", "--harness", "codex", "--uninstall", "--pretty"]);
    expect(codex.code).toBe(0);
    expect(codex.stdout.trimEnd().split("\n")).toEqual([
      "removed signet from Codex",
      `  deleted   ${h.path(".codex", "config.toml")}: setup created it, and mcp_servers.signet was all it held`,
      `  deleted   ${h.path(".codex", "hooks.json")}: setup created it, and Signet's hooks (SessionStart, UserPromptSubmit, PreCompact, PostCompact, SessionEnd) was all it held`,
      `  deleted   ${h.path(".codex")}/: setup created it, and it is empty now`,
    ]);
    const opencode = json(await h.cli(["setup", "--harness", "opencode", "--uninstall"]));
    expect(opencode.files).toEqual([
      { path: h.path(".config", "opencode", "opencode.json"), action: "deleted", entry: "mcp.signet" },
      { path: h.path(".config", "opencode", "plugins", "signet.js"), action: "deleted", entry: "Signet's lifecycle plugin" },
    ]);
    expect(opencode.removedDirs).toEqual([h.path(".config", "opencode", "plugins"), h.path(".config", "opencode"), h.path(".config")]);
    const claude = json(await h.cli(["setup", "--harness", "claude-code", "--uninstall"]));
    expect(claude.files.map((f: { action: string }) => f.action)).toEqual(["deleted", "deleted"]);
    expect(readdirSync(h.home)).toEqual([]);
    expect(existsSync(join(h.dataDir, ".daemon", "setup-created.json"))).toBe(false);
  });

  test("a file setup created but the harness has written to since is kept", async () => {
    const h = await home();
    expect((await h.cli(["setup", "--harness", "codex"])).code).toBe(0);
    const file = h.path(".codex", "config.toml");
    writeFileSync(file, `${readFileSync(file, "utf8")}\n[projects."/src"]\ntrust_level = "trusted"\n`);
    const r = await h.cli(["setup", "--harness", "codex", "--uninstall"]);
    expect(json(r)).toMatchObject({ files: [{ action: "removed" }, { action: "deleted" }], removedDirs: [] });
    expect(Bun.TOML.parse(readFileSync(file, "utf8"))).toEqual({ projects: { "/src": { trust_level: "trusted" } } } as never);
  });
});

describe("signet setup: errors", () => {
  test("a file that is not valid JSON is named, and nothing changes", async () => {
    const h = await home();
    const state = h.path(".claude.json");
    h.write(state, "{ this is not json");
    const r = await h.cli(["setup", "--harness", "claude-code"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(state);
    expect(r.stderr).toContain("not valid JSON");
    expect(readFileSync(state, "utf8")).toBe("{ this is not json");
    expect(files(h.home)).toEqual([state]);
  });

  test("--harness missing or unknown is a usage error listing the valid ones", async () => {
    const h = await home();
    for (const args of [["setup"], ["setup", "--harness", "vim"], ["install", "--harness="]]) {
      const r = await h.cli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("claude-code, codex, opencode");
    }
    expect(files(h.home)).toEqual([]);
  });

  test("an invalid SIGNET_DAEMON_URL exits 2 and writes nothing", async () => {
    const h = await home({ SIGNET_DAEMON_URL: "http://10.0.0.5:3850/api" });
    for (const harness of ["claude-code", "codex", "opencode"]) {
      const r = await h.cli(["setup", "--harness", harness]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("a path is not allowed");
    }
    expect(files(h.home)).toEqual([]);
  });

  test("without a signet-mcp beside the binary or on PATH, setup refuses and says how to install one", async () => {
    const h = await home();
    // A copy of the binary alone in its directory (a hard link: the same file, another directory),
    // inside the sandbox so it is removed with it (a leftover link keeps an old build's 150 MB).
    const lone = join(dirname(h.home), "lone", "signet");
    mkdirSync(dirname(lone));
    linkSync(BIN, lone);
    const env = { PATH: "/usr/bin:/bin", HOME: h.home, SIGNET_PATH: h.dataDir, NO_COLOR: "1" };
    const refused = await run(["setup", "--harness", "codex"], { env, bin: lone });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`there is no signet-mcp beside ${lone} or on PATH for Codex to start`);
    expect(refused.stderr).toContain("signet self-install");
    expect(files(h.home)).toEqual([]);

    // One on PATH is used by its absolute path (the link itself: its name makes it the MCP server).
    const bin = join(dirname(lone), "bin");
    mkdirSync(bin);
    symlinkSync(lone, join(bin, "signet-mcp"));
    const found = await run(["setup", "--harness", "codex"], { env: { ...env, PATH: `${bin}:/usr/bin:/bin` }, bin: lone });
    expect(found.code).toBe(0);
    expect(json(found).command).toBe(join(bin, "signet-mcp"));
    // --uninstall needs no signet-mcp.
    expect((await run(["setup", "--harness", "codex", "--uninstall"], { env, bin: lone })).code).toBe(0);
  });
});

describe("signet setup: daemon URL and token", () => {
  test("a non-default SIGNET_DAEMON_URL is written to each harness's env beside SIGNET_PATH, and into every hook command", async () => {
    const h = await home({ SIGNET_DAEMON_URL: "http://10.0.0.5:3850", SIGNET_TOKEN: "sgt_remote_token" });
    const notes: string[] = [];
    for (const harness of ["claude-code", "codex", "opencode"]) {
      const r = await h.cli(["setup", "--harness", harness]);
      expect(r.code).toBe(0);
      notes.push(...json(r).notes);
    }
    const tokenFile = (harness: string) => join(h.dataDir, ".daemon", "tokens", `${harness}.token`);
    const env = (harness: string) => ({ SIGNET_PATH: h.dataDir, SIGNET_DAEMON_URL: "http://10.0.0.5:3850", SIGNET_TOKEN_FILE: tokenFile(harness) });
    expect(readJson(h.path(".claude.json")).mcpServers.signet).toEqual({ ...claudeEntry(h.dataDir), env: env("claude-code") });
    expect((Bun.TOML.parse(readFileSync(h.path(".codex", "config.toml"), "utf8")) as any).mcp_servers.signet).toEqual({ command: MCP_BIN, env: env("codex") });
    expect(readJson(h.path(".config", "opencode", "opencode.json")).mcp.signet).toEqual({ ...opencodeEntry(h.dataDir), environment: env("opencode") });
    const reach = (harness: string) => `--data-dir '${h.dataDir}' --url 'http://10.0.0.5:3850' --token-file '${tokenFile(harness)}'`;
    expect(readJson(h.path(".claude", "settings.json")).hooks.SessionStart[0].hooks[0].command).toBe(`'${BIN}' hook session-start --harness claude-code ${reach("claude-code")}`);
    expect(readJson(h.path(".codex", "hooks.json")).hooks.SessionEnd[0].hooks[0].command).toBe(`'${BIN}' hook session-end --harness codex ${reach("codex")}`);
    expect(readFileSync(h.path(".config", "opencode", "plugins", "signet.js"), "utf8")).toContain(
      `const FLAGS = ${JSON.stringify(["--data-dir", h.dataDir, "--url", "http://10.0.0.5:3850", "--token-file", tokenFile("opencode")])};`,
    );
    // Nothing is left for the user to do but Codex's trust of new hooks.
    expect(notes.filter((n) => !n.includes("open /hooks in Codex") && !n.includes("SIGNET_PATH="))).toEqual([]);
  });

  test("a remote daemon's token (SIGNET_TOKEN) goes into a 0600 file the entries name, never into a config; without one setup says what to do", async () => {
    const token = "sgt_super_secret_token_value_123";
    const h = await home({ SIGNET_DAEMON_URL: "http://10.0.0.5:3850", SIGNET_TOKEN: token });
    for (const harness of ["claude-code", "codex", "opencode"]) {
      const r = await h.cli(["setup", "--harness", harness]);
      expect(r.code).toBe(0);
      expect(json(r).token).toEqual({ file: join(h.dataDir, ".daemon", "tokens", `${harness}.token`), action: "stored" });
      expect(json(r).notes.join("\n")).not.toContain(token);
      const again = json(await h.cli(["setup", "--harness", harness]));
      expect(again).toMatchObject({ changed: false, token: { action: "unchanged" } });
    }
    for (const f of files(h.home)) expect(readFileSync(f, "utf8")).not.toContain(token);
    const tokens = files(join(h.dataDir, ".daemon", "tokens"));
    expect(tokens.map((f) => f.slice(f.lastIndexOf("/") + 1))).toEqual(["claude-code.token", "codex.token", "opencode.token"]);
    for (const f of tokens) {
      expect(readFileSync(f, "utf8")).toBe(`${token}\n`);
      expect(statSync(f).mode & 0o777).toBe(0o600);
    }
    expect(statSync(join(h.dataDir, ".daemon", "tokens")).mode & 0o777).toBe(0o700);
    // --uninstall takes the file away with the entries.
    const removed = json(await h.cli(["setup", "--harness", "codex", "--uninstall"]));
    expect(removed.token).toEqual({ file: join(h.dataDir, ".daemon", "tokens", "codex.token"), action: "deleted" });
    expect(existsSync(join(h.dataDir, ".daemon", "tokens", "codex.token"))).toBe(false);

    const none = await home({ SIGNET_DAEMON_URL: "http://10.0.0.5:3850" });
    const r = await none.cli(["setup", "--harness", "claude-code"]);
    expect(r.code).toBe(0);
    expect(json(r).notes.join("\n")).toContain("the daemon at http://10.0.0.5:3850 is on another machine, where every request needs an API token");
    expect(readJson(none.path(".claude.json")).mcpServers.signet.env).toEqual({ SIGNET_PATH: none.dataDir, SIGNET_DAEMON_URL: "http://10.0.0.5:3850" });
  });

  test("in local mode a configured SIGNET_TOKEN is neither needed nor written, and nothing is said about it", async () => {
    const token = "sgt_super_secret_token_value_123";
    const h = await home({ SIGNET_TOKEN: token });
    const r = await h.cli(["setup", "--harness", "claude-code"]);
    expect(r.code).toBe(0);
    expect(json(r).notes.join("\n")).not.toContain("token");
    expect(readJson(h.path(".claude.json")).mcpServers.signet).toEqual(claudeEntry(h.dataDir));
    for (const f of [...files(h.home), ...files(h.dataDir)]) expect(readFileSync(f, "utf8")).not.toContain(token);
  });

  test("new config files are readable by their owner only", async () => {
    const h = await home();
    await h.cli(["setup", "--harness", "codex"]);
    expect(statSync(h.path(".codex", "config.toml")).mode & 0o777).toBe(0o600);
  });
});
