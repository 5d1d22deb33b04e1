// Clients find the running daemon of their data directory from what it records in .daemon/
// (docs/config.md): a daemon started on another port than the configured one is still the one the
// CLI, `signet hook` and signet-mcp reach, with no port or URL set; an explicit URL still wins.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { dirname, join } from "node:path";
import { SignetClient } from "../../src/client/client";
import { BIN, freePort, json, run, sandbox, type Sandbox } from "../helpers/binary";
import { callTool } from "../helpers/mcp-client";

let s: Sandbox;
/** A shell of the user's with nothing set but the data directory: no SIGNET_PORT, no URL. */
let env: Record<string, string>;

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  env = { ...s.env };
  delete env.SIGNET_PORT;
  const started = await run(["daemon", "start", "--port", String(s.port)], { env });
  expect(started.code).toBe(0);
  expect((await run(["remember", "The release train leaves on Thursdays"], { env: s.env })).code).toBe(0);
}, 60_000);

afterAll(async () => {
  await run(["daemon", "stop"], { env });
});

describe("a daemon started on another port than the configured one", () => {
  test("the CLI reaches it, and `daemon start` says where it runs", async () => {
    const listed = await run(["list"], { env });
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: "" });
    expect(json(listed).memories.map((m: { content: string }) => m.content)).toEqual(["The release train leaves on Thursdays"]);
    const again = await run(["daemon", "start"], { env });
    expect(json(again)).toMatchObject({ alreadyRunning: true, url: `http://127.0.0.1:${s.port}` });
  });

  test("a hook given only the data directory records its session; signet-mcp answers from it", async () => {
    const session = `found-${crypto.randomUUID()}`;
    const hook = await run(["hook", "session-start", "--harness", "claude-code", "--data-dir", s.dataDir], {
      env: { HOME: s.home, PATH: env.PATH! },
      stdin: JSON.stringify({ session_id: session, cwd: s.home, hook_event_name: "SessionStart" }),
    });
    expect(hook).toMatchObject({ code: 0, stderr: "" });
    const owner = new SignetClient({ baseUrl: `http://127.0.0.1:${s.port}`, dataDir: s.dataDir, actor: "test" });
    expect(await owner.sessions.get(session)).toMatchObject({ key: session, harness: "claude-code" });

    const client = new Client({ name: "harness", version: "1.0.0" });
    const mcp = join(dirname(BIN), "signet-mcp");
    await client.connect(new StdioClientTransport({ command: mcp, args: [], env: { HOME: s.home, PATH: env.PATH!, SIGNET_PATH: s.dataDir }, stderr: "pipe" }));
    try {
      const found = await callTool(client, "memory_search", { query: "release train" });
      expect(found.isError).toBe(false);
      expect(found.text).toContain("Thursdays");
    } finally {
      await client.close();
    }
  }, 30_000);

  test("an explicit URL still wins: a hook told --url where nothing listens does nothing", async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const session = `elsewhere-${crypto.randomUUID()}`;
    const hook = await run(["hook", "session-start", "--harness", "claude-code", "--data-dir", s.dataDir, "--url", nowhere], {
      env: { HOME: s.home, PATH: env.PATH! },
      stdin: JSON.stringify({ session_id: session, cwd: s.home, hook_event_name: "SessionStart" }),
    });
    expect(hook).toEqual({ code: 0, stdout: "", stderr: "" });
    const owner = new SignetClient({ baseUrl: `http://127.0.0.1:${s.port}`, dataDir: s.dataDir, actor: "test" });
    expect((await owner.sessions.list()).sessions.map((x) => x.key)).not.toContain(session);
  });
});
