// Autostart from the CLI's side (src/control/autostart.ts, docs/mcp.md#autostart), with the
// compiled binary: a memory command that finds no daemon starts one for a store the user chose,
// and refuses, creating nothing, otherwise. Then the whole point of `signet setup` writing
// SIGNET_PATH: what the agent stores through the harness entry, the user's CLI sees.
import { afterEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, sandbox } from "../helpers/binary";

const KEYWORD_ONLY = "embedding:\n  provider: none\n";

/** Daemons a test may have started, stopped after it whatever happened. */
const started: Record<string, string>[] = [];
afterEach(async () => {
  for (const env of started.splice(0)) await run(["daemon", "stop"], { env });
});

/** A sandbox without SIGNET_PATH: the data directory is the default, $HOME/.agents. */
async function defaultPath(yaml?: string) {
  const s = await sandbox();
  const env = { ...s.env };
  delete env.SIGNET_PATH;
  const dataDir = join(s.home, ".agents");
  if (yaml !== undefined) {
    mkdirSync(dataDir, { recursive: true });
    await Bun.write(join(dataDir, "agent.yaml"), yaml);
  }
  started.push(env);
  return { ...s, env, dataDir };
}

describe("CLI autostart", () => {
  test("a memory command starts the daemon for an explicit SIGNET_PATH not created yet, and says so", async () => {
    const s = await sandbox();
    started.push(s.env);
    expect(existsSync(s.dataDir)).toBe(false);
    const r = await run(["remember", "started on demand"], { env: s.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`signet: started the daemon for ${s.dataDir} at http://127.0.0.1:${s.port}`);
    expect(json(r).content).toBe("started on demand");
    const status = json(await run(["daemon", "status"], { env: s.env }));
    expect(status).toMatchObject({ running: true, dataDir: s.dataDir });
  });

  test("an existing store in the default data directory is started without SIGNET_PATH", async () => {
    const s = await defaultPath(KEYWORD_ONLY);
    const r = await run(["list"], { env: s.env });
    expect(r.code).toBe(0);
    expect(json(r).memories).toEqual([]);
    expect(r.stderr).toContain(`started the daemon for ${s.dataDir}`);
  });

  test("no store and SIGNET_PATH unset: exit 3 naming the path and what to do, and nothing is created", async () => {
    const s = await defaultPath();
    const r = await run(["list"], { env: s.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`there is no Signet store at ${s.dataDir} and SIGNET_PATH is not set`);
    expect(r.stderr).toContain("Run `signet daemon start` once to create it there, or set SIGNET_PATH");
    expect(existsSync(s.dataDir)).toBe(false);
  });

  test("with autostart off: exit 3 with the way to start it", async () => {
    const s = await sandbox(KEYWORD_ONLY);
    const r = await run(["list"], { env: { ...s.env, SIGNET_AUTOSTART: "false" } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("daemon not running");
    expect(r.stderr).toContain("signet daemon start");
  });

  test("a URL on a loopback address the daemon would not bind is refused, not started elsewhere", async () => {
    const s = await sandbox(KEYWORD_ONLY);
    started.push(s.env);
    const url = `http://127.0.0.2:${s.port}`;
    const r = await run(["list"], { env: { ...s.env, SIGNET_DAEMON_URL: url } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`no Signet daemon answers at ${url}, and none was started: a daemon started here listens on 127.0.0.1`);
    expect((await run(["daemon", "status"], { env: s.env })).code).toBe(1);
  });
});

describe("the agent and the user see the same store", () => {
  test("what signet-mcp stores through Codex's entry, `signet list` shows, with SIGNET_PATH set nowhere else", async () => {
    const s = await defaultPath();
    mkdirSync(s.home, { recursive: true });
    expect((await run(["setup", "--harness", "codex"], { env: s.env })).code).toBe(0);
    const entry = (Bun.TOML.parse(readFileSync(join(s.home, ".codex", "config.toml"), "utf8")) as any).mcp_servers.signet;
    expect(entry.env).toEqual({ SIGNET_PATH: s.dataDir, SIGNET_DAEMON_URL: `http://127.0.0.1:${s.port}` });

    // As Codex starts it: a few variables of its own environment, plus the entry's env.
    const transport = new StdioClientTransport({ command: entry.command, args: [], env: { HOME: s.home, PATH: s.env.PATH!, ...entry.env }, stderr: "pipe" });
    const client = new Client({ name: "codex-like", version: "1.0.0" });
    await client.connect(transport);
    try {
      const stored = (await client.callTool({ name: "memory_store", arguments: { content: "The agent learned this" } })) as { isError?: boolean };
      expect(stored.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const listed = json(await run(["list"], { env: s.env }));
    expect(listed.memories.map((m: { content: string }) => m.content)).toEqual(["The agent learned this"]);
  });
});
