// What `signet doctor` reads of a harness's config (src/harness/registered.ts): Signet's MCP entry
// (command, arguments, environment, Codex's forwarded variables, OpenCode's merged files) and only
// Signet's hook commands, beside the user's own; a config the harness cannot read names its file.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { opencodePlugin } from "../../src/harness/opencode-plugin";
import { readHookRegistration, readMcpRegistration } from "../../src/harness/registered";
import { tempDir } from "../helpers/temp-cleanup";

function place(): { home: string; env: Record<string, string | undefined> } {
  return { home: tempDir("signet-registered-"), env: {} };
}

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const SIGNET_HOOK = "'/opt/signet/bin/signet' hook session-start --harness claude-code --data-dir '/d'";

describe("registered entries", () => {
  test("Claude Code: the MCP entry as written, and Signet's hook commands only, with their limits", () => {
    const p = place();
    write(join(p.home, ".claude.json"), JSON.stringify({ mcpServers: { signet: { type: "stdio", command: "/opt/signet/bin/signet-mcp", args: ["-x"], env: { SIGNET_PATH: "/d", N: 1 } } } }));
    const settings = write(
      join(p.home, ".claude", "settings.json"),
      `// comments are allowed
      {"hooks": {
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo mine"}, {"type": "command", "command": ${JSON.stringify(SIGNET_HOOK)}, "timeout": 10}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "echo also mine"}]}]
      }}`,
    );
    expect(readMcpRegistration("claude-code", p)).toEqual({
      file: join(p.home, ".claude.json"),
      command: "/opt/signet/bin/signet-mcp",
      args: ["-x"],
      env: { SIGNET_PATH: "/d" },
      forwarded: [],
      enabled: true,
    });
    expect(readHookRegistration("claude-code", p)).toEqual({ kind: "commands", file: settings, commands: [{ harnessEvent: "SessionStart", command: SIGNET_HOOK, timeoutS: 10 }] });
  });

  test("Codex: env and env_vars of [mcp_servers.signet], hooks.json beside config.toml ($CODEX_HOME)", () => {
    const p = place();
    p.env.CODEX_HOME = join(p.home, "codex");
    write(join(p.home, "codex", "config.toml"), `[mcp_servers.signet]\ncommand = "/s/signet-mcp"\nenv_vars = ["SIGNET_TOKEN"]\n\n[mcp_servers.signet.env]\nSIGNET_PATH = "/d"\n`);
    write(join(p.home, "codex", "hooks.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: SIGNET_HOOK.replace("session-start", "user-prompt-submit") }] }] } }));
    expect(readMcpRegistration("codex", p)).toMatchObject({ command: "/s/signet-mcp", args: [], env: { SIGNET_PATH: "/d" }, forwarded: ["SIGNET_TOKEN"] });
    expect(readHookRegistration("codex", p)).toMatchObject({ kind: "commands", commands: [{ harnessEvent: "UserPromptSubmit" }] });
  });

  test("OpenCode: opencode.jsonc over opencode.json, the command list split; the plugin only when it is Signet's", () => {
    const p = place();
    const dir = join(p.home, ".config", "opencode");
    write(join(dir, "opencode.json"), JSON.stringify({ mcp: { signet: { type: "local", command: ["/old/signet-mcp"], environment: { SIGNET_PATH: "/d" } } } }));
    const jsonc = write(join(dir, "opencode.jsonc"), `{ "mcp": { "signet": { "command": ["/s/signet-mcp", "--flag"], "enabled": false } } }`);
    expect(readMcpRegistration("opencode", p)).toEqual({ file: jsonc, command: "/s/signet-mcp", args: ["--flag"], env: { SIGNET_PATH: "/d" }, forwarded: [], enabled: false });
    const plugin = write(join(dir, "plugins", "signet.js"), "export const Mine = async () => ({});\n");
    expect(readHookRegistration("opencode", p)).toBeUndefined();
    const text = opencodePlugin("/s/signet", { SIGNET_PATH: "/d" });
    write(plugin, text);
    expect(readHookRegistration("opencode", p)).toEqual({ kind: "plugin", file: plugin, text });
  });

  test("nothing registered is undefined; a config the harness cannot read is an error naming the file", () => {
    const p = place();
    expect(readMcpRegistration("claude-code", p)).toBeUndefined();
    expect(readHookRegistration("codex", p)).toBeUndefined();
    const settings = write(join(p.home, ".claude", "settings.json"), "{ not json");
    expect(() => readHookRegistration("claude-code", p)).toThrow(`${settings}: not valid JSONC`);
    const toml = write(join(p.home, ".codex", "config.toml"), "[mcp_servers.signet\n");
    expect(() => readMcpRegistration("codex", p)).toThrow(toml);
  });
});
