// `signet mcp import`: reading the MCP servers Claude Code, Codex and OpenCode have configured,
// from realistic config files under a temporary home and project directory.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { RESERVED_SERVER_NAMES } from "../../src/contracts/bridge-names";
import { readHarnessServers } from "../../src/harness/mcp-import";
import { HarnessConfigError } from "../../src/harness/plan";

const root = mkdtempSync(join(tmpdir(), "signet-import-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function dirs(): { home: string; cwd: string; env: Record<string, string> } {
  n++;
  const home = join(root, `home-${n}`);
  const cwd = join(root, `project-${n}`);
  mkdirSync(home);
  mkdirSync(cwd);
  return { home, cwd, env: {} };
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const json = (v: unknown) => JSON.stringify(v, null, 2);
const RESERVED = `is a reserved word of \`signet mcp\` (${RESERVED_SERVER_NAMES.join(", ")}); choose another name`;
const BAD_NAME = "server names are 1-64 letters, digits and . _ - (starting with a letter or digit)";
const OWN = "enabled: from your own config";
const off = (harness: string) => `disabled: switched off in ${harness}`;
const unapproved = (name: string) => `disabled: project server not approved in your own config; enable with \`signet mcp enable ${name}\``;

describe("claude-code", () => {
  test("user, project and local servers; local wins; approvals and /mcp toggles decide enabled", () => {
    const opts = dirs();
    write(
      join(opts.home, ".claude.json"),
      json({
        numStartups: 12,
        mcpServers: {
          signet: { type: "stdio", command: "signet-mcp", args: [] },
          github: { type: "http", url: "https://api.githubcopilot.com/mcp/", headers: { Authorization: "Bearer ghp_abc" } },
          fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
          legacy: { type: "sse", url: "https://example.com/sse" },
          list: { command: "list-server" },
          "bad name!": { command: "x" },
          broken: { type: "stdio", args: ["--port", "3"] },
          helper: { type: "http", url: "https://h.example.com/mcp", headersHelper: "./headers.sh" },
          "my-signet": { command: "/usr/local/bin/signet-mcp" },
          ws: { type: "ws", url: "wss://example.com" },
        },
        projects: {
          [opts.cwd]: {
            mcpServers: {
              fs: { type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", opts.cwd], env: { DEBUG: "1" } },
              sentry: { command: "sentry-mcp", env: { SENTRY_TOKEN: "sntrys_secret" } },
            },
            disabledMcpServers: ["github"],
            enabledMcpjsonServers: ["db"],
            disabledMcpjsonServers: ["rejected"],
          },
          "/elsewhere": { mcpServers: { other: { command: "o" } } },
        },
      }),
    );
    write(
      join(opts.cwd, ".mcp.json"),
      json({
        mcpServers: {
          db: { command: "db-mcp", args: ["--read-only"] },
          rejected: { command: "r-mcp" },
          pending: { type: "streamable-http", url: "http://localhost:8080/mcp" },
          sentry: { command: "overridden-by-local" },
        },
      }),
    );

    expect(readHarnessServers("claude-code", opts)).toEqual({
      servers: [
        {
          request: {
            name: "github",
            transport: { type: "http", url: "https://api.githubcopilot.com/mcp/", headers: { Authorization: "Bearer ghp_abc" } },
            enabled: false,
          },
          why: off("Claude Code"),
        },
        {
          request: {
            name: "fs",
            transport: { type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", opts.cwd], env: { DEBUG: "1" } },
            enabled: true,
          },
          why: OWN,
        },
        {
          request: { name: "db", transport: { type: "stdio", command: "db-mcp", args: ["--read-only"], env: {} }, enabled: true },
          why: `enabled: project server approved in your own config (${join(opts.home, ".claude.json")})`,
        },
        { request: { name: "rejected", transport: { type: "stdio", command: "r-mcp", args: [], env: {} }, enabled: false }, why: off("Claude Code") },
        { request: { name: "pending", transport: { type: "http", url: "http://localhost:8080/mcp", headers: {} }, enabled: false }, why: unapproved("pending") },
        {
          request: { name: "sentry", transport: { type: "stdio", command: "sentry-mcp", args: [], env: { SENTRY_TOKEN: "sntrys_secret" } }, enabled: true },
          why: OWN,
        },
      ],
      skipped: [
        { name: "signet", reason: "Signet itself" },
        { name: "legacy", reason: "it uses the SSE transport; Signet bridges stdio and streamable HTTP servers only" },
        { name: "list", reason: RESERVED },
        { name: "bad name!", reason: BAD_NAME },
        { name: "broken", reason: "transport.command: Invalid input: expected string, received undefined" },
        { name: "helper", reason: "its headers come from a headersHelper command, which Signet does not run" },
        { name: "my-signet", reason: "Signet itself" },
        { name: "ws", reason: 'unsupported transport type "ws"' },
      ],
      sources: [join(opts.home, ".claude.json"), join(opts.cwd, ".mcp.json")],
    });
  });

  test("approvals inside the repository are not trusted, its rejections are; CLAUDE_CONFIG_DIR moves the state file", () => {
    const opts = dirs();
    const configDir = join(opts.home, "cc");
    opts.env.CLAUDE_CONFIG_DIR = configDir;
    write(join(opts.home, ".claude.json"), json({ mcpServers: { ignored: { command: "i" } } }));
    write(join(configDir, ".claude.json"), json({ mcpServers: { user: { command: "u" } } }));
    write(join(configDir, "settings.json"), json({ disabledMcpjsonServers: ["no"] }));
    write(join(opts.cwd, ".claude", "settings.local.json"), json({ enableAllProjectMcpServers: true }));
    // Settings only hold approvals: without a .mcp.json they are not read.
    expect(readHarnessServers("claude-code", opts).sources).toEqual([join(configDir, ".claude.json")]);
    write(join(opts.cwd, ".mcp.json"), json({ mcpServers: { yes: { command: "y" }, no: { command: "n" } } }));

    expect(readHarnessServers("claude-code", opts)).toEqual({
      servers: [
        { request: { name: "user", transport: { type: "stdio", command: "u", args: [], env: {} }, enabled: true }, why: OWN },
        { request: { name: "yes", transport: { type: "stdio", command: "y", args: [], env: {} }, enabled: false }, why: unapproved("yes") },
        { request: { name: "no", transport: { type: "stdio", command: "n", args: [], env: {} }, enabled: false }, why: off("Claude Code") },
      ],
      skipped: [],
      sources: [
        join(configDir, ".claude.json"),
        join(opts.cwd, ".mcp.json"),
        join(configDir, "settings.json"),
        join(opts.cwd, ".claude", "settings.local.json"),
      ],
    });
  });

  test("project servers are approved only by the user's own files: the project's entry in .claude.json or settings.json", () => {
    const opts = dirs();
    write(join(opts.cwd, ".mcp.json"), json({ mcpServers: { a: { command: "a" }, b: { command: "b" } } }));
    write(join(opts.cwd, ".claude", "settings.json"), json({ enableAllProjectMcpServers: true, enabledMcpjsonServers: ["a", "b"] }));
    const why = () => readHarnessServers("claude-code", opts).servers.map((s) => [s.request.name, s.request.enabled, s.why]);
    expect(why()).toEqual([
      ["a", false, unapproved("a")],
      ["b", false, unapproved("b")],
    ]);

    write(join(opts.home, ".claude", "settings.json"), json({ enabledMcpjsonServers: ["b"] }));
    const settings = `enabled: project server approved in your own config (${join(opts.home, ".claude", "settings.json")})`;
    expect(why()).toEqual([
      ["a", false, unapproved("a")],
      ["b", true, settings],
    ]);

    // Another project's approval is not this one's.
    write(join(opts.home, ".claude.json"), json({ projects: { [`${opts.cwd}-other`]: { enableAllProjectMcpServers: true } } }));
    expect(why().map(([, enabled]) => enabled)).toEqual([false, true]);
    write(join(opts.home, ".claude.json"), json({ projects: { [opts.cwd]: { enableAllProjectMcpServers: true } } }));
    const state = `enabled: project server approved in your own config (${join(opts.home, ".claude.json")})`;
    expect(why()).toEqual([
      ["a", true, state],
      ["b", true, state],
    ]);
  });

  test("relative paths are resolved where they were declared: the home's config, the project's .mcp.json, the project's local servers", () => {
    const opts = dirs();
    write(
      join(opts.home, ".claude.json"),
      json({
        mcpServers: { user: { command: "bin/user-mcp", args: ["./conf.json", "--flag", "rel/kept"] } },
        projects: { [opts.cwd]: { mcpServers: { local: { command: "npx", args: ["@modelcontextprotocol/server-filesystem", "."] } } } },
      }),
    );
    write(
      join(opts.cwd, ".mcp.json"),
      json({ mcpServers: { repo: { command: "./server.sh", args: ["../shared"] } } }),
    );
    const transports = Object.fromEntries(readHarnessServers("claude-code", opts).servers.map((s) => [s.request.name, s.request.transport]));
    expect(transports).toEqual({
      user: { type: "stdio", command: join(opts.home, "bin", "user-mcp"), args: [join(opts.home, "conf.json"), "--flag", "rel/kept"], env: {} },
      repo: { type: "stdio", command: join(opts.cwd, "server.sh"), args: [join(opts.cwd, "..", "shared")], env: {} },
      local: { type: "stdio", command: "npx", args: ["@modelcontextprotocol/server-filesystem", opts.cwd], env: {} },
    });
  });

  test("a file that is not JSON, or whose mcpServers is not an object, throws naming the file", () => {
    const opts = dirs();
    write(join(opts.cwd, ".mcp.json"), "{ mcpServers: ");
    expect(() => readHarnessServers("claude-code", opts)).toThrow(HarnessConfigError);
    expect(() => readHarnessServers("claude-code", opts)).toThrow(`${join(opts.cwd, ".mcp.json")}: not valid JSON (`);
    write(join(opts.cwd, ".mcp.json"), json({ mcpServers: ["a"] }));
    expect(() => readHarnessServers("claude-code", opts)).toThrow(`${join(opts.cwd, ".mcp.json")}: "mcpServers" is not an object`);
  });
});

describe("codex", () => {
  const CONFIG = `model = "gpt-5-codex"

# written by \`signet setup codex\`
[mcp_servers.signet]
command = "signet-mcp"
env_vars = ["SIGNET_TOKEN"]

[mcp_servers.signet.env]
SIGNET_DAEMON_URL = "http://127.0.0.1:3850"

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
cwd = "/srv/tools"
env = { CONTEXT7_API_KEY = "ctx7sk-123" }
startup_timeout_sec = 20

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
http_headers = { "X-Figma-Region" = "us-east-1" }
enabled = false

[mcp_servers.linear]
url = "https://mcp.linear.app/mcp"
bearer_token_env_var = "LINEAR_TOKEN"

[mcp_servers.notion]
url = "https://mcp.notion.com/mcp"
env_http_headers = { "X-Notion-Key" = "NOTION_KEY" }

[mcp_servers.gh]
command = "github-mcp-server"
args = ["stdio"]
env_vars = ["GITHUB_TOKEN", "GH_HOST"]

[mcp_servers.serve]
command = "serve-mcp"

[mcp_servers.both]
command = "x"
url = "https://x.example.com/mcp"

[mcp_servers.badargs]
command = "x"
args = "--verbose"
`;

  test("stdio and http tables, disabled, Signet's own, reserved, environment-bound and bad entries", () => {
    const opts = dirs();
    write(join(opts.home, ".codex", "config.toml"), CONFIG);
    const take = (vars: string) =>
      `it takes ${vars} from Codex's environment, which Signet cannot carry; add it with \`signet mcp add\`, passing those values as secret:NAME references`;

    expect(readHarnessServers("codex", opts)).toEqual({
      servers: [
        {
          request: {
            name: "context7",
            transport: { type: "stdio", command: "npx", args: ["-y", "@upstash/context7-mcp"], env: { CONTEXT7_API_KEY: "ctx7sk-123" }, cwd: "/srv/tools" },
            enabled: true,
          },
          why: OWN,
        },
        {
          request: { name: "figma", transport: { type: "http", url: "https://mcp.figma.com/mcp", headers: { "X-Figma-Region": "us-east-1" } }, enabled: false },
          why: off("Codex"),
        },
      ],
      skipped: [
        { name: "signet", reason: "Signet itself" },
        { name: "linear", reason: take("LINEAR_TOKEN") },
        { name: "notion", reason: take("NOTION_KEY") },
        { name: "gh", reason: take("GITHUB_TOKEN, GH_HOST") },
        { name: "serve", reason: RESERVED },
        { name: "both", reason: "it needs exactly one of command and url" },
        { name: "badargs", reason: "transport.args: Invalid input: expected array, received string" },
      ],
      sources: [join(opts.home, ".codex", "config.toml")],
    });
  });

  test("CODEX_HOME is where the config is; invalid TOML throws naming the file", () => {
    const opts = dirs();
    opts.env.CODEX_HOME = join(opts.home, "cx");
    write(join(opts.home, ".codex", "config.toml"), '[mcp_servers.home]\ncommand = "h"\n');
    write(join(opts.home, "cx", "config.toml"), '[mcp_servers.cx]\ncommand = "c"\n');
    expect(readHarnessServers("codex", opts).servers).toEqual([
      { request: { name: "cx", transport: { type: "stdio", command: "c", args: [], env: {} }, enabled: true }, why: OWN },
    ]);

    write(join(opts.home, "cx", "config.toml"), '[mcp_servers.a]\ncommand = "a"\n[mcp_servers.a]\nargs = []\n');
    expect(() => readHarnessServers("codex", opts)).toThrow(HarnessConfigError);
    expect(() => readHarnessServers("codex", opts)).toThrow(`${join(opts.home, "cx", "config.toml")}: not valid TOML (`);
    write(join(opts.home, "cx", "config.toml"), 'mcp_servers = "none"\n');
    expect(() => readHarnessServers("codex", opts)).toThrow(`${join(opts.home, "cx", "config.toml")}: mcp_servers is not a table`);
  });
});

test("codex: a relative cwd is the config directory's; the command and arguments are relative to that cwd", () => {
  const opts = dirs();
  write(join(opts.home, ".codex", "config.toml"), '[mcp_servers.t]\ncommand = "./bin/t"\nargs = ["./data", "-v"]\ncwd = "tools"\n');
  const codexDir = join(opts.home, ".codex");
  expect(readHarnessServers("codex", opts).servers.map((s) => s.request.transport)).toEqual([
    { type: "stdio", command: join(codexDir, "tools", "bin", "t"), args: [join(codexDir, "tools", "data"), "-v"], env: {}, cwd: join(codexDir, "tools") },
  ]);
});

describe("opencode", () => {
  test("global .json and .jsonc (comments), then the project's files merged over them; what the project touches comes disabled", () => {
    const opts = dirs();
    const dir = join(opts.home, ".config", "opencode");
    write(
      join(dir, "opencode.json"),
      json({
        $schema: "https://opencode.ai/config.json",
        mcp: {
          signet: { type: "local", command: ["signet-mcp"], enabled: true },
          memory: { type: "local", command: ["signet", "mcp", "serve"] },
          everything: { type: "local", command: ["npx", "-y", "@modelcontextprotocol/server-everything"], environment: { API_KEY: "k-1" } },
          jira: { type: "remote", url: "https://jira.example.com/mcp", headers: { Authorization: "Bearer j" } },
        },
      }),
    );
    write(
      join(dir, "opencode.jsonc"),
      `{
  // servers added by hand
  "mcp": {
    "sentry": { "type": "remote", "url": "https://mcp.sentry.dev/mcp", "enabled": false }, /* off for now */
    "help": { "type": "local", "command": ["help-mcp"] },
    "empty": { "type": "local", "command": [] },
    "claude-style": { "type": "stdio", "command": "x" },
  },
}
`,
    );
    write(
      join(opts.cwd, "opencode.json"),
      json({
        mcp: {
          jira: { enabled: false },
          proj: { type: "local", command: ["bun", "x", "proj-mcp"], enabled: true },
          files: { type: "remote", url: "ftp://files.example.com" },
        },
      }),
    );

    expect(readHarnessServers("opencode", opts)).toEqual({
      servers: [
        {
          request: {
            name: "everything",
            transport: { type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: { API_KEY: "k-1" } },
            enabled: true,
          },
          why: OWN,
        },
        {
          request: { name: "jira", transport: { type: "http", url: "https://jira.example.com/mcp", headers: { Authorization: "Bearer j" } }, enabled: false },
          why: off("OpenCode"),
        },
        { request: { name: "sentry", transport: { type: "http", url: "https://mcp.sentry.dev/mcp", headers: {} }, enabled: false }, why: off("OpenCode") },
        { request: { name: "proj", transport: { type: "stdio", command: "bun", args: ["x", "proj-mcp"], env: {} }, enabled: false }, why: unapproved("proj") },
      ],
      skipped: [
        { name: "signet", reason: "Signet itself" },
        { name: "memory", reason: "Signet itself" },
        { name: "help", reason: RESERVED },
        { name: "empty", reason: "command must be a list: [program, ...arguments]" },
        { name: "claude-style", reason: 'unsupported type "stdio" (expected "local" or "remote")' },
        { name: "files", reason: "transport.url: must be an http:// or https:// URL" },
      ],
      sources: [join(dir, "opencode.json"), join(dir, "opencode.jsonc"), join(opts.cwd, "opencode.json")],
    });
  });

  test("a project that changes a global server's command takes it over: disabled, its paths the project's", () => {
    const opts = dirs();
    const dir = join(opts.home, ".config", "opencode");
    write(
      join(dir, "opencode.json"),
      json({ mcp: { tool: { type: "local", command: ["./tool-mcp", "./conf"] }, kept: { type: "local", command: ["bin/kept"] } } }),
    );
    write(join(opts.cwd, "opencode.jsonc"), json({ mcp: { tool: { command: ["./evil.sh"] }, kept: { environment: { K: "v" } } } }));
    expect(readHarnessServers("opencode", opts).servers.map((s) => [s.request.transport, s.request.enabled, s.why])).toEqual([
      [{ type: "stdio", command: join(opts.cwd, "evil.sh"), args: [], env: {} }, false, unapproved("tool")],
      // Only the environment came from the project: the command is still the global file's.
      [{ type: "stdio", command: join(dir, "bin", "kept"), args: [], env: { K: "v" } }, false, unapproved("kept")],
    ]);
  });

  test("XDG_CONFIG_HOME and OPENCODE_CONFIG are where the configs are; broken JSONC throws naming the file", () => {
    const opts = dirs();
    opts.env.XDG_CONFIG_HOME = join(opts.home, "xdg");
    opts.env.OPENCODE_CONFIG = "custom.json";
    write(join(opts.home, ".config", "opencode", "opencode.json"), json({ mcp: { ignored: { type: "local", command: ["i"] } } }));
    write(join(opts.home, "xdg", "opencode", "opencode.json"), json({ mcp: { xdg: { type: "local", command: ["x"] } } }));
    write(join(opts.cwd, "custom.json"), json({ mcp: { custom: { type: "local", command: ["c"] } } }));
    const result = readHarnessServers("opencode", opts);
    expect(result.servers.map((s) => [s.request.name, s.why])).toEqual([
      ["xdg", OWN],
      ["custom", OWN],
    ]);
    expect(result.sources).toEqual([join(opts.home, "xdg", "opencode", "opencode.json"), join(opts.cwd, "custom.json")]);

    write(join(opts.cwd, "opencode.jsonc"), '{ "mcp": { "a": { // unterminated\n');
    expect(() => readHarnessServers("opencode", opts)).toThrow(HarnessConfigError);
    expect(() => readHarnessServers("opencode", opts)).toThrow(`${join(opts.cwd, "opencode.jsonc")}: not valid JSONC (`);
  });
});

test("no config files: nothing found, nothing read", () => {
  const opts = dirs();
  for (const harness of ["claude-code", "codex", "opencode"] as const) {
    expect(readHarnessServers(harness, opts)).toEqual({ servers: [], skipped: [], sources: [] });
  }
});
