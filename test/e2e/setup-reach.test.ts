// What `signet setup` writes reaches the daemon it was set up for, run the way the harness runs it:
// the MCP entry spawned with the harness's own environment (HOME and PATH, nothing of Signet's) plus
// the entry's, through the MCP SDK's stdio client, and each hook command through `sh -c` with the
// hook JSON on stdin, as Claude Code and Codex run it. Three daemons: local mode on a non-default
// port; team mode, where setup gives the harness a token of its own in a 0600 file (and `--agent`
// binds it to another agent); and a team daemon reached at this machine's non-loopback address as
// a remote one (SIGNET_DAEMON_URL and a token the user was given).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { dirname, join, resolve } from "node:path";
import { SignetClient } from "../../src/client/client";
import { BIN, json, run, sandbox, type RunResult, type Sandbox } from "../helpers/binary";
import { callTool } from "../helpers/mcp-client";

const MCP_BIN = join(dirname(BIN), "signet-mcp");
const CLAUDE = resolve(import.meta.dir, "../../node_modules/.bin/claude");
const FACT = "The staging database lives on host orca-7 behind the bastion";
const PROMPT = "Where does the staging database live?";

/** What a harness has of its own: its HOME and PATH. Nothing tells it where Signet is but the entry. */
const harnessEnv = (s: Sandbox) => ({ HOME: s.home, PATH: process.env.PATH ?? "/usr/bin:/bin" });
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

interface Entry {
  command: string;
  env: Record<string, string>;
}

/** The MCP entry and the hook command of an event, as setup wrote them for claude-code or codex. */
function written(s: Sandbox, harness: "claude-code" | "codex"): { mcp: Entry; hook: (event: string) => string } {
  if (harness === "claude-code") {
    const entry = readJson(join(s.home, ".claude.json")).mcpServers.signet;
    const hooks = readJson(join(s.home, ".claude", "settings.json")).hooks;
    return { mcp: { command: entry.command, env: entry.env }, hook: (event) => hooks[event][0].hooks[0].command };
  }
  const entry = (Bun.TOML.parse(readFileSync(join(s.home, ".codex", "config.toml"), "utf8")) as any).mcp_servers.signet;
  const hooks = readJson(join(s.home, ".codex", "hooks.json")).hooks;
  return { mcp: { command: entry.command, env: entry.env }, hook: (event) => hooks[event][0].hooks[0].command };
}

/** Starts the MCP entry as the harness would, searches for FACT and stores a memory; the answers. */
async function useMcpEntry(s: Sandbox, entry: Entry, stored: string) {
  const client = new Client({ name: "harness", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: entry.command, args: [], env: { ...harnessEnv(s), ...entry.env }, stderr: "pipe" }));
  try {
    const search = await callTool(client, "memory_search", { query: "staging database host" });
    const store = await callTool(client, "memory_store", { content: stored });
    return { search, store };
  } finally {
    await client.close();
  }
}

/** Runs a hook command line as Claude Code and Codex run it: `sh -c`, the hook JSON on stdin. */
async function runHook(s: Sandbox, command: string, payload: Record<string, unknown>): Promise<RunResult> {
  const proc = Bun.spawn(["sh", "-c", command], {
    env: harnessEnv(s),
    cwd: s.home,
    stdin: new Blob([JSON.stringify({ cwd: s.home, ...payload })]),
    stdout: "pipe",
    stderr: "pipe",
    timeout: 20_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** The owner's view of the daemon: the admin token of its data directory, acting as `agentId`. */
const owner = (s: Sandbox, url: string, agentId = "default") => new SignetClient({ baseUrl: url, dataDir: s.dataDir, actor: "test", agentId, asOwner: true });

/** Every file under `dir`. */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

/** Both harnesses' entries reach the daemon: a tool call finds the owner's memory and stores one; each hook records its session. */
async function expectReach(s: Sandbox, url: string, harness: "claude-code" | "codex", agentId = "default") {
  const { mcp, hook } = written(s, harness);
  const { search, store } = await useMcpEntry(s, mcp, `stored through ${harness}'s entry`);
  expect({ harness, isError: search.isError, text: search.text }).toMatchObject({ isError: false, text: expect.stringContaining("orca-7") });
  expect(store.isError).toBe(false);
  expect(store.structured.agentId).toBe(agentId);

  const session = `${harness}-${crypto.randomUUID()}`;
  const started = await runHook(s, hook("SessionStart"), { session_id: session, hook_event_name: "SessionStart" });
  expect(started).toMatchObject({ code: 0, stderr: "" });
  const prompted = await runHook(s, hook("UserPromptSubmit"), { session_id: session, hook_event_name: "UserPromptSubmit", prompt: PROMPT });
  expect(prompted).toMatchObject({ code: 0, stderr: "" });
  expect(JSON.parse(prompted.stdout).hookSpecificOutput.additionalContext).toContain("orca-7");
  const recorded = await owner(s, url, agentId).sessions.get(session);
  expect(recorded).toMatchObject({ key: session, agentId, harness });
}

describe("a daemon on a non-default port (SIGNET_PORT)", () => {
  let s: Sandbox;
  const url = () => `http://127.0.0.1:${s.port}`;

  beforeAll(async () => {
    s = await sandbox("embedding:\n  provider: none\n");
    expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
    expect((await run(["remember", FACT], { env: s.env })).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await run(["daemon", "stop"], { env: s.env });
  });

  test("every entry carries the URL (the MCP entry's env, each hook's --url), and reaches the daemon from the harness's own environment", async () => {
    for (const harness of ["claude-code", "codex", "opencode"] as const) {
      const r = await run(["setup", "--harness", harness], { env: s.env });
      expect(r.code).toBe(0);
      // Nothing is left to do: no note about the URL (Codex's trust of hooks and the SIGNET_PATH reminder aside).
      expect(json(r).notes.filter((n: string) => !/open \/hooks in Codex|SIGNET_PATH=/.test(n))).toEqual([]);
    }
    const claude = written(s, "claude-code");
    expect(claude.mcp.env).toEqual({ SIGNET_PATH: s.dataDir, SIGNET_DAEMON_URL: url() });
    expect(claude.hook("SessionStart")).toBe(`'${BIN}' hook session-start --harness claude-code --data-dir '${s.dataDir}' --url '${url()}'`);
    expect(readFileSync(join(s.home, ".config", "opencode", "plugins", "signet.js"), "utf8")).toContain(
      `const FLAGS = ${JSON.stringify(["--data-dir", s.dataDir, "--url", url()])};`,
    );
    await expectReach(s, url(), "claude-code");
    await expectReach(s, url(), "codex");
    // Setup again changes nothing.
    expect(json(await run(["setup", "--harness", "claude-code"], { env: s.env }))).toMatchObject({ changed: false });
  }, 60_000);
});

describe("team mode: setup gives the harness a token of its own", () => {
  let s: Sandbox;
  const url = () => `http://127.0.0.1:${s.port}`;
  const tokenFile = (harness: string) => join(s.dataDir, ".daemon", "tokens", `${harness}.token`);

  beforeAll(async () => {
    s = await sandbox("embedding:\n  provider: none\nauth:\n  mode: team\n");
    expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
    // The owner's CLI on the daemon's machine needs no token: it sends the admin token of its data directory.
    expect((await run(["remember", FACT], { env: s.env })).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await run(["daemon", "stop"], { env: s.env });
  });

  test("an agent token bound to the store's agent, in a 0600 file the entries name; the token is in no config; both harnesses reach the daemon", async () => {
    const made: Record<string, { id: string }> = {};
    for (const harness of ["claude-code", "codex", "opencode"] as const) {
      const r = await run(["setup", "--harness", harness], { env: s.env });
      expect(r.code).toBe(0);
      const out = json(r);
      expect(out.token).toEqual({ file: tokenFile(harness), action: "created", id: expect.stringMatching(/^tok_/), agentId: "default" });
      expect(out.tokenFile).toBe(tokenFile(harness));
      made[harness] = out.token;
      expect(statSync(tokenFile(harness)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(join(s.dataDir, ".daemon", "tokens")).mode & 0o777).toBe(0o700);
    const tokens = Object.keys(made).map((h) => readFileSync(tokenFile(h), "utf8").trim());
    for (const token of tokens) expect(token).toMatch(/^sgt_/);
    for (const file of files(s.home)) for (const token of tokens) expect({ file, holds: readFileSync(file, "utf8").includes(token) }).toEqual({ file, holds: false });

    const listed = json(await run(["token", "list"], { env: s.env })).tokens;
    expect(listed.filter((t: any) => t.revokedAt === null).map((t: any) => [t.id, t.role, t.agentId, t.name]).sort()).toEqual(
      Object.entries(made)
        .map(([h, t]) => [t.id, "agent", "default", `signet setup --harness ${h}`])
        .sort(),
    );

    const claude = written(s, "claude-code");
    expect(claude.mcp.env).toEqual({ SIGNET_PATH: s.dataDir, SIGNET_DAEMON_URL: url(), SIGNET_TOKEN_FILE: tokenFile("claude-code") });
    expect(claude.hook("SessionEnd")).toBe(
      `'${BIN}' hook session-end --harness claude-code --data-dir '${s.dataDir}' --url '${url()}' --token-file '${tokenFile("claude-code")}'`,
    );
    expect(written(s, "codex").mcp.env.SIGNET_TOKEN_FILE).toBe(tokenFile("codex"));
    expect(readJson(join(s.home, ".config", "opencode", "opencode.json")).mcp.signet.environment.SIGNET_TOKEN_FILE).toBe(tokenFile("opencode"));
    await expectReach(s, url(), "claude-code");
    await expectReach(s, url(), "codex");
    // OpenCode's plugin, loaded as OpenCode loads it, runs `signet hook` with the same flags.
    const plugin = (await import(join(s.home, ".config", "opencode", "plugins", "signet.js"))).SignetHooks;
    const hooks = await plugin({ client: { session: { messages: async () => ({ data: [] }) } }, directory: s.home });
    await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_team_oc" } } } });
    expect(await owner(s, url()).sessions.get("ses_team_oc")).toMatchObject({ key: "ses_team_oc", harness: "opencode" });

    // `claude mcp list` starts the entry as Claude Code does.
    const proc = Bun.spawn([CLAUDE, "mcp", "list"], {
      env: { ...harnessEnv(s), DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
      cwd: s.home,
      stdout: "pipe",
      stderr: "pipe",
      timeout: 60_000,
    });
    const [listing] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(listing).toMatch(/^signet: .*signet-mcp\s+- ✔ Connected$/m);

    // Setup again keeps the valid token: nothing changes, no new token.
    const again = json(await run(["setup", "--harness", "claude-code"], { env: s.env }));
    expect(again).toMatchObject({ changed: false, token: { action: "kept", id: made["claude-code"]!.id } });
    expect(readFileSync(tokenFile("claude-code"), "utf8").trim()).toBe(tokens[0]!);
  }, 120_000);

  test("a revoked token is replaced, and --uninstall deletes the file and revokes its token", async () => {
    const before = json(await run(["setup", "--harness", "claude-code"], { env: s.env })).token;
    expect((await run(["token", "revoke", before.id], { env: s.env })).code).toBe(0);
    const replaced = json(await run(["setup", "--harness", "claude-code"], { env: s.env }));
    expect(replaced).toMatchObject({ changed: true, token: { action: "replaced", agentId: "default" } });
    expect(replaced.token.id).not.toBe(before.id);
    expect(replaced.token.revoked).toBeUndefined();
    await expectReach(s, url(), "claude-code");

    const removed = json(await run(["setup", "--harness", "claude-code", "--uninstall"], { env: s.env }));
    expect(removed.token).toEqual({ file: tokenFile("claude-code"), action: "deleted", id: replaced.token.id, revoked: replaced.token.id });
    expect(existsSync(tokenFile("claude-code"))).toBe(false);
    const listed = json(await run(["token", "list"], { env: s.env })).tokens;
    expect(listed.find((t: any) => t.id === replaced.token.id).revokedAt).toMatch(/^\d{4}-/);
  }, 60_000);

  test("--agent binds the harness to another agent (its token and its entries); without it, back to the store's agent", async () => {
    const bot = await run(["setup", "--harness", "claude-code", "--agent", "bot"], { env: s.env });
    expect(bot.code).toBe(0);
    const botToken = json(bot).token;
    expect(botToken).toMatchObject({ action: "created", agentId: "bot" });
    const claude = written(s, "claude-code");
    expect(claude.mcp.env.SIGNET_AGENT_ID).toBe("bot");
    expect(claude.hook("SessionStart")).toEndWith(`--token-file '${tokenFile("claude-code")}' --agent 'bot'`);
    const { store } = await useMcpEntry(s, claude.mcp, "a note of the bot's");
    expect(store.structured.agentId).toBe("bot");

    const back = json(await run(["setup", "--harness", "claude-code"], { env: s.env }));
    expect(back.token).toMatchObject({ action: "replaced", agentId: "default", revoked: botToken.id });
    expect(written(s, "claude-code").mcp.env.SIGNET_AGENT_ID).toBeUndefined();

    const invalid = await run(["setup", "--harness", "claude-code", "--agent", "not an id!"], { env: s.env });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("agent.id");
  }, 60_000);

  test("--dry-run names the token file but makes no token", async () => {
    const fresh = { ...s.env, HOME: join(s.home, "..", "home-dry") };
    mkdirSync(fresh.HOME, { recursive: true });
    const count = async () => json(await run(["token", "list"], { env: s.env })).tokens.length;
    const before = await count();
    const r = json(await run(["setup", "--harness", "codex", "--dry-run"], { env: fresh }));
    expect(r.tokenFile).toBe(tokenFile("codex"));
    expect(r.token).toBeUndefined();
    expect(r.files[0].diff).toContain(`+SIGNET_TOKEN_FILE = "${tokenFile("codex")}"`);
    expect(await count()).toBe(before);
  }, 60_000);
});

describe("a daemon on another machine (SIGNET_DAEMON_URL, a token the user was given)", () => {
  // A team daemon bound to every address, reached at this machine's non-loopback address: to the
  // client, another machine (no identity proof, no owner's files: only the token).
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address;
  let daemon: Sandbox;
  let s: Sandbox;
  const url = () => `http://${address}:${daemon.port}`;

  beforeAll(async () => {
    if (address === undefined) throw new Error("this test needs a non-loopback IPv4 address on this machine (os.networkInterfaces() lists none)");
    daemon = await sandbox(`embedding:\n  provider: none\nauth:\n  mode: team\ndaemon:\n  bind: 0.0.0.0\n  allowedHosts: ["${address}"]\n`);
    expect((await run(["daemon", "start"], { env: daemon.env })).code).toBe(0);
    expect((await run(["remember", FACT], { env: daemon.env })).code).toBe(0);
    const token = json(await run(["token", "create", "--role", "agent", "--agent", "default"], { env: daemon.env })).token;
    // The client: its own HOME and data directory, the daemon's URL and the token.
    s = await sandbox();
    s.env = { PATH: s.env.PATH!, HOME: s.home, SIGNET_PATH: s.dataDir, NO_COLOR: "1", SIGNET_DAEMON_URL: url(), SIGNET_TOKEN: token };
  }, 60_000);
  afterAll(async () => {
    if (daemon) await run(["daemon", "stop"], { env: daemon.env });
  });

  test("the entries carry the URL and a token file holding the given token; both harnesses reach the daemon", async () => {
    for (const harness of ["claude-code", "codex"] as const) {
      const r = await run(["setup", "--harness", harness], { env: s.env });
      expect(r.code).toBe(0);
      expect(json(r).token).toEqual({ file: join(s.dataDir, ".daemon", "tokens", `${harness}.token`), action: "stored" });
    }
    const claude = written(s, "claude-code");
    const file = join(s.dataDir, ".daemon", "tokens", "claude-code.token");
    expect(claude.mcp.env).toEqual({ SIGNET_PATH: s.dataDir, SIGNET_DAEMON_URL: url(), SIGNET_TOKEN_FILE: file });
    expect(claude.hook("UserPromptSubmit")).toBe(`'${BIN}' hook user-prompt-submit --harness claude-code --data-dir '${s.dataDir}' --url '${url()}' --token-file '${file}'`);
    for (const f of files(s.home)) expect(readFileSync(f, "utf8")).not.toContain(s.env.SIGNET_TOKEN!);
    const ownerView = (agentId = "default") => new SignetClient({ baseUrl: `http://127.0.0.1:${daemon.port}`, dataDir: daemon.dataDir, actor: "test", agentId, asOwner: true });
    for (const harness of ["claude-code", "codex"] as const) {
      const { mcp, hook } = written(s, harness);
      const { search, store } = await useMcpEntry(s, mcp, `stored from afar through ${harness}`);
      expect(search.text).toContain("orca-7");
      expect(store.isError).toBe(false);
      const session = `remote-${harness}-${crypto.randomUUID()}`;
      const prompted = await runHook(s, hook("UserPromptSubmit"), { session_id: session, hook_event_name: "UserPromptSubmit", prompt: PROMPT });
      expect(prompted).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(prompted.stdout).hookSpecificOutput.additionalContext).toContain("orca-7");
      expect(await ownerView().sessions.get(session)).toMatchObject({ key: session, harness });
    }
  }, 60_000);
});
