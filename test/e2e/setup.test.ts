// `signet setup --harness ...` (and its alias `signet install`) run as the compiled binary with a
// temporary HOME: what lands in each harness's config, and what must not.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { json, run, sandbox } from "../helpers/binary";

const DOC_CLAUDE = { type: "stdio", command: "signet-mcp", args: [] };
const DOC_OPENCODE = { type: "local", command: ["signet-mcp"], enabled: true };

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
  return { home: s.home, cli, path, write };
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .sort();
}

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe("signet setup: fresh installs", () => {
  test("claude-code writes the document's entry to settings.json and .claude.json", async () => {
    const h = await home();
    const r = await h.cli(["setup", "--harness", "claude-code"]);
    expect(r.code).toBe(0);
    expect(json(r)).toMatchObject({
      harness: "claude-code",
      files: [
        { path: h.path(".claude", "settings.json"), action: "created" },
        { path: h.path(".claude.json"), action: "created" },
      ],
    });
    expect(readJson(h.path(".claude", "settings.json"))).toEqual({ mcpServers: { signet: DOC_CLAUDE } });
    expect(readJson(h.path(".claude.json"))).toEqual({ mcpServers: { signet: DOC_CLAUDE } });
    expect(readFileSync(h.path(".claude.json"), "utf8")).toBe(`${JSON.stringify({ mcpServers: { signet: DOC_CLAUDE } }, null, 2)}\n`);
    expect(files(h.home)).toHaveLength(2);
  });

  test("codex writes [mcp_servers.signet] with the daemon URL in its env table", async () => {
    const h = await home();
    const r = await h.cli(["setup", "--harness", "codex"]);
    expect(r.code).toBe(0);
    expect(json(r).files).toEqual([{ path: h.path(".codex", "config.toml"), action: "created" }]);
    expect(readFileSync(h.path(".codex", "config.toml"), "utf8")).toBe(
      '[mcp_servers.signet]\ncommand = "signet-mcp"\n\n[mcp_servers.signet.env]\nSIGNET_DAEMON_URL = "http://127.0.0.1:3850"\n',
    );
  });

  test("opencode writes the document's mcp.signet entry; `install` is the same command", async () => {
    const h = await home();
    const r = await h.cli(["install", "--harness", "opencode"]);
    expect(r.code).toBe(0);
    expect(json(r)).toMatchObject({ harness: "opencode", files: [{ path: h.path(".config", "opencode", "opencode.json"), action: "created" }] });
    expect(readJson(h.path(".config", "opencode", "opencode.json"))).toEqual({ mcp: { signet: DOC_OPENCODE } });
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
    expect(out.files.map((f: { action: string }) => f.action)).toEqual(["updated", "updated"]);
    expect(out.files[0].backup).toMatch(/settings\.json\.signet-backup-\d{8}T\d{6}Z$/);
    expect(readFileSync(out.files[0].backup, "utf8")).toBe(JSON.stringify(settings));
    expect(readJson(h.path(".claude", "settings.json"))).toEqual({
      permissions: settings.permissions,
      mcpServers: { other: settings.mcpServers.other, signet: DOC_CLAUDE },
    });
    expect(readJson(h.path(".claude.json"))).toEqual({ ...state, mcpServers: { signet: DOC_CLAUDE } });
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
    expect(data.mcp_servers.signet).toEqual({ command: "signet-mcp", env: { SIGNET_DAEMON_URL: "http://127.0.0.1:3850" } });
    expect(data.profiles).toEqual({ fast: { model: "o4-mini" } });

    const again = await h.cli(["setup", "--harness", "codex"]);
    expect(json(again).files).toEqual([{ path: file, action: "unchanged" }]);
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
    expect(readJson(file)).toEqual({ ...existing, mcp: { other: existing.mcp.other, signet: DOC_OPENCODE } });
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

    const dry = json(await h.cli(["setup", "--harness", "opencode", "--dry-run"]));
    expect(dry.files).toEqual([{ path: file, action: "updated", diff: expect.any(String) }]);
    expect(dry.files[0].diff.split("\n").filter((l: string) => /^[-+][^-+]/.test(l))).toEqual([
      '+    "signet": {',
      '+      "type": "local",',
      '+      "command": [',
      '+        "signet-mcp"',
      "+      ],",
      '+      "enabled": true',
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
      mcp: { other: { type: "remote", url: "https://x" }, signet: DOC_OPENCODE },
    });

    expect(json(await h.cli(["setup", "--harness", "opencode"])).files).toEqual([{ path: file, action: "unchanged" }]);
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
    expect((Bun.JSONC.parse(readFileSync(file, "utf8")) as any).mcp.signet).toEqual(DOC_OPENCODE);
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
    expect(Bun.JSONC.parse(after)).toEqual({ numStartups: 12, userID: "abc", mcpServers: { signet: DOC_CLAUDE } });
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

describe("signet setup --dry-run", () => {
  test("shows the diff and writes nothing", async () => {
    const h = await home();
    const settings = h.path(".claude", "settings.json");
    h.write(settings, '{"theme": "dark"}\n');
    const r = await h.cli(["setup", "--harness", "claude-code", "--dry-run"]);
    expect(r.code).toBe(0);
    const out = json(r);
    expect(out.dryRun).toBe(true);
    expect(out.files.map((f: { action: string }) => f.action)).toEqual(["updated", "created"]);
    expect(out.files[0].diff).toContain(`--- ${settings}`);
    expect(out.files[0].diff).toContain('-{"theme": "dark"}');
    expect(out.files[0].diff).toContain('+      "command": "signet-mcp",');
    expect(out.files[1].diff).toContain("--- /dev/null");
    expect(readFileSync(settings, "utf8")).toBe('{"theme": "dark"}\n');
    expect(files(h.home)).toEqual([settings]);

    const pretty = await h.cli(["setup", "--harness", "codex", "--dry-run", "--pretty"]);
    expect(pretty.code).toBe(0);
    expect(pretty.stdout).toContain(`+++ ${h.path(".codex", "config.toml")}`);
    expect(pretty.stdout).toContain('+[mcp_servers.signet]');
    expect(pretty.stdout).toContain("dry run: nothing was written");
    expect(files(h.home)).toEqual([settings]);
  });
});

describe("signet setup --uninstall", () => {
  test("removes only the signet entries", async () => {
    const h = await home();
    const settings = h.path(".claude", "settings.json");
    const opencodeFile = h.path(".config", "opencode", "opencode.json");
    h.write(settings, JSON.stringify({ theme: "dark", mcpServers: { other: { command: "o" } } }));
    h.write(opencodeFile, JSON.stringify({ theme: "x", mcp: { other: { type: "local", command: ["o"] } } }));
    await h.cli(["setup", "--harness", "claude-code"]);
    await h.cli(["setup", "--harness", "opencode"]);

    const r = await h.cli(["setup", "--harness", "claude-code", "--uninstall"]);
    expect(r.code).toBe(0);
    expect(json(r).files.map((f: { action: string }) => f.action)).toEqual(["removed", "removed"]);
    expect(readJson(settings)).toEqual({ theme: "dark", mcpServers: { other: { command: "o" } } });
    expect(readJson(h.path(".claude.json")).mcpServers?.signet).toBeUndefined();
    expect((await h.cli(["install", "--harness", "opencode", "--uninstall"])).code).toBe(0);
    expect(readJson(opencodeFile)).toEqual({ theme: "x", mcp: { other: { type: "local", command: ["o"] } } });

    const again = await h.cli(["setup", "--harness", "claude-code", "--uninstall"]);
    expect(json(again)).toMatchObject({ changed: false, files: [{ action: "unchanged" }, { action: "unchanged" }] });
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
});

describe("signet setup: daemon URL and token", () => {
  test("a non-default SIGNET_DAEMON_URL is written to each harness's env", async () => {
    const h = await home({ SIGNET_DAEMON_URL: "http://10.0.0.5:3850" });
    for (const harness of ["claude-code", "codex", "opencode"]) expect((await h.cli(["setup", "--harness", harness])).code).toBe(0);
    const url = { SIGNET_DAEMON_URL: "http://10.0.0.5:3850" };
    expect(readJson(h.path(".claude", "settings.json")).mcpServers.signet).toEqual({ ...DOC_CLAUDE, env: url });
    expect(readJson(h.path(".claude.json")).mcpServers.signet).toEqual({ ...DOC_CLAUDE, env: url });
    expect((Bun.TOML.parse(readFileSync(h.path(".codex", "config.toml"), "utf8")) as any).mcp_servers.signet).toEqual({
      command: "signet-mcp",
      env: url,
    });
    expect(readJson(h.path(".config", "opencode", "opencode.json")).mcp.signet).toEqual({ ...DOC_OPENCODE, environment: url });
  });

  test("SIGNET_TOKEN is never written; Codex forwards it by name, the others are told", async () => {
    const token = "sgt_super_secret_token_value_123";
    const h = await home({ SIGNET_TOKEN: token });
    const notes: string[] = [];
    for (const harness of ["claude-code", "codex", "opencode"]) {
      const r = await h.cli(["setup", "--harness", harness]);
      expect(r.code).toBe(0);
      notes.push(...json(r).notes);
    }
    const written = files(h.home);
    expect(written.length).toBe(4);
    for (const f of written) expect(readFileSync(f, "utf8")).not.toContain(token);
    const codex = Bun.TOML.parse(readFileSync(h.path(".codex", "config.toml"), "utf8")) as any;
    expect(codex.mcp_servers.signet.env_vars).toEqual(["SIGNET_TOKEN"]);
    expect(notes.filter((n) => n.includes("SIGNET_TOKEN"))).toHaveLength(3);
    expect(notes.join("\n")).not.toContain(token);
  });

  test("new config files are readable by their owner only", async () => {
    const h = await home();
    await h.cli(["setup", "--harness", "codex"]);
    expect(statSync(h.path(".codex", "config.toml")).mode & 0o777).toBe(0o600);
  });
});
