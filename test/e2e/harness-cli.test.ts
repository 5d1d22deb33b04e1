// `signet setup` proven with the harnesses' own CLIs from npm (devDependencies): `claude mcp list`
// starts every registered server and health-checks it, so signet must show as connected; `codex mcp
// list --json` reads config.toml as Codex does. HOME, CLAUDE_CONFIG_DIR and CODEX_HOME are temporary
// directories; neither CLI needs the network for this (their update checks and telemetry are off).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { BIN, json, run, sandbox, type RunResult, type Sandbox } from "../helpers/binary";

const MCP_BIN = join(dirname(BIN), "signet-mcp");
const CLAUDE = resolve(import.meta.dir, "../../node_modules/.bin/claude");
const CODEX = resolve(import.meta.dir, "../../node_modules/.bin/codex");
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const QUIET = { DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" };

/** Daemons a spawned signet-mcp may have started for the entry's SIGNET_PATH, stopped after each test. */
const started: Sandbox[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await run(["daemon", "stop"], { env: s.env });
});

async function home(): Promise<Sandbox> {
  const s = await sandbox();
  mkdirSync(s.home, { recursive: true });
  started.push(s);
  return s;
}

/** The harness CLI, with nothing of the real environment but PATH (codex's launcher needs node). */
async function harness(bin: string, args: string[], env: Record<string, string>): Promise<RunResult> {
  const proc = Bun.spawn([bin, ...args], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...QUIET, ...env }, cwd: env.HOME, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

describe("Claude Code (@anthropic-ai/claude-code)", () => {
  for (const where of ["~/.claude.json", "$CLAUDE_CONFIG_DIR/.claude.json"]) {
    test(`\`claude mcp list\` connects to signet-mcp after \`signet setup --harness claude-code\` (${where}), and lists nothing after --uninstall`, async () => {
      const s = await home();
      const env: Record<string, string> = { HOME: s.home };
      if (where.startsWith("$")) env.CLAUDE_CONFIG_DIR = join(s.home, "claude-config");
      const setup = await run(["setup", "--harness", "claude-code"], { env: { ...s.env, ...env } });
      expect(setup.code).toBe(0);

      const listed = await harness(CLAUDE, ["mcp", "list"], env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(new RegExp(`^signet: ${literally(MCP_BIN)}\\s+- ✔ Connected$`, "m"));

      const details = await harness(CLAUDE, ["mcp", "get", "signet"], env);
      expect(details.stdout).toContain("Scope: User config");
      expect(details.stdout).toContain(`SIGNET_PATH=${s.dataDir}`);

      expect((await run(["setup", "--harness", "claude-code", "--uninstall"], { env: { ...s.env, ...env } })).code).toBe(0);
      const after = await harness(CLAUDE, ["mcp", "list"], env);
      expect(after.stdout).not.toContain("signet");
    }, 60_000);
  }
});

describe("Claude Code: files as users have them", () => {
  test("a ~/.claude.json on one line stays one line, and `claude mcp list` connects to signet-mcp from it", async () => {
    const s = await home();
    const env = { HOME: s.home };
    const state = join(s.home, ".claude.json");
    writeFileSync(state, '{"numStartups":1}');
    expect((await run(["setup", "--harness", "claude-code"], { env: { ...s.env, ...env } })).code).toBe(0);
    expect(readFileSync(state, "utf8")).toStartWith('{"numStartups":1,"mcpServers":{"signet":{"type":"stdio",');
    const listed = await harness(CLAUDE, ["mcp", "list"], env);
    expect(listed.stdout).toMatch(new RegExp(`^signet: ${literally(MCP_BIN)}\\s+- ✔ Connected$`, "m"));
  }, 60_000);

  test("a server of the user's own named signet: setup refuses to write over it, --uninstall keeps it, and Claude Code still has it", async () => {
    const s = await home();
    const env = { HOME: s.home };
    const state = join(s.home, ".claude.json");
    const own = '{\n  "mcpServers": {\n    "signet": {"type": "http", "url": "http://127.0.0.1:9/mcp"}\n  }\n}\n';
    writeFileSync(state, own);
    const refused = await run(["setup", "--harness", "claude-code"], { env: { ...s.env, ...env } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${state}: mcpServers.signet is a server of your own, not Signet's (it does not run signet-mcp)`);
    const removed = await run(["setup", "--harness", "claude-code", "--uninstall"], { env: { ...s.env, ...env } });
    expect(removed.code).toBe(0);
    expect(json(removed).notes).toContain(`kept mcpServers.signet in ${state}: it is a server of your own, not Signet's (it does not run signet-mcp)`);
    expect(readFileSync(state, "utf8")).toBe(own);
    const details = await harness(CLAUDE, ["mcp", "get", "signet"], env);
    expect(details.stdout).toContain("http://127.0.0.1:9/mcp");
  }, 60_000);
});

describe("Codex (@openai/codex)", () => {
  test("`codex mcp list` shows signet with the absolute signet-mcp and its env; nothing after --uninstall", async () => {
    const s = await home();
    // Codex refuses a CODEX_HOME that does not exist: it is there before setup (and so stays after --uninstall).
    const env = { HOME: s.home, CODEX_HOME: join(s.home, "codex-home") };
    mkdirSync(env.CODEX_HOME);
    expect((await run(["setup", "--harness", "codex"], { env: { ...s.env, ...env } })).code).toBe(0);

    const listed = await harness(CODEX, ["mcp", "list", "--json"], env);
    expect(listed.code).toBe(0);
    expect(json(listed)).toEqual([
      expect.objectContaining({
        name: "signet",
        enabled: true,
        transport: expect.objectContaining({
          type: "stdio",
          command: MCP_BIN,
          args: [],
          env: { SIGNET_PATH: s.dataDir, SIGNET_DAEMON_URL: `http://127.0.0.1:${s.port}` },
        }),
      }),
    ]);
    const table = await harness(CODEX, ["mcp", "list"], env);
    expect(table.stdout).toMatch(new RegExp(`^signet\\s+${literally(MCP_BIN)}\\s+-\\s+SIGNET_DAEMON_URL=\\*+, SIGNET_PATH=\\*+\\s+-\\s+enabled`, "m"));

    expect((await run(["setup", "--harness", "codex", "--uninstall"], { env: { ...s.env, ...env } })).code).toBe(0);
    expect(json(await harness(CODEX, ["mcp", "list", "--json"], env))).toEqual([]);
  }, 60_000);

  test("a config.toml with a byte order mark and no final newline: Codex reads the entry, and --uninstall gives the file back as it was", async () => {
    const s = await home();
    const env = { HOME: s.home, CODEX_HOME: join(s.home, "codex-home") };
    mkdirSync(env.CODEX_HOME);
    const config = join(env.CODEX_HOME, "config.toml");
    const original = '\uFEFF# mine\r\nmodel = "o3"';
    writeFileSync(config, original);
    expect((await run(["setup", "--harness", "codex"], { env: { ...s.env, ...env } })).code).toBe(0);
    expect(readFileSync(config, "utf8")).toStartWith(`${original}\r\n\r\n[mcp_servers.signet]\r\n`);
    const listed = await harness(CODEX, ["mcp", "list", "--json"], env);
    expect(json(listed)).toEqual([expect.objectContaining({ name: "signet", transport: expect.objectContaining({ command: MCP_BIN }) })]);
    expect((await run(["setup", "--harness", "codex", "--uninstall"], { env: { ...s.env, ...env } })).code).toBe(0);
    expect(readFileSync(config, "utf8")).toBe(original);
  }, 60_000);

  test("a [mcp_servers.signet] of the user's own: setup refuses to write over it, --uninstall keeps it, and Codex still has it", async () => {
    const s = await home();
    const env = { HOME: s.home, CODEX_HOME: join(s.home, "codex-home") };
    mkdirSync(env.CODEX_HOME);
    const config = join(env.CODEX_HOME, "config.toml");
    const own = '[mcp_servers.signet]\nurl = "http://127.0.0.1:9/mcp"\n';
    writeFileSync(config, own);
    const refused = await run(["setup", "--harness", "codex"], { env: { ...s.env, ...env } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${config}: [mcp_servers.signet] is a server of your own, not Signet's (it does not run signet-mcp)`);
    const removed = await run(["setup", "--harness", "codex", "--uninstall"], { env: { ...s.env, ...env } });
    expect(removed.code).toBe(0);
    expect(json(removed).notes).toContain(`kept [mcp_servers.signet] in ${config}: it is a server of your own, not Signet's (it does not run signet-mcp)`);
    expect(readFileSync(config, "utf8")).toBe(own);
    const listed = json(await harness(CODEX, ["mcp", "list", "--json"], env));
    expect(listed).toEqual([expect.objectContaining({ name: "signet", transport: expect.objectContaining({ url: "http://127.0.0.1:9/mcp" }) })]);
  }, 60_000);
});
