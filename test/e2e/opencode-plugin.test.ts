// The OpenCode plugin `signet setup --harness opencode` writes, loaded as OpenCode loads a plugin
// (an ES module whose exported function gets `{client, directory}` and returns hooks), driven
// through OpenCode's hook signatures against a real daemon and the compiled binary. OpenCode itself
// is not installed here: its SDK client is stood in for by an object answering `session.messages`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SignetClient } from "../../src/client/client";
import { run, sandbox, type Sandbox } from "../helpers/binary";

const FACT = "The staging database lives on host orca-7 behind the bastion";
let s: Sandbox;
let project: string;
let client: SignetClient;
let plugin: (input: { client: unknown; directory: string }) => Promise<Record<string, any>>;

/** OpenCode's SDK client, as far as the plugin uses it: a session's messages. */
const opencodeClient = {
  session: {
    messages: async () => ({
      data: [
        { info: { role: "user" }, parts: [{ type: "text", text: "Where does the staging database live?" }] },
        { info: { role: "assistant" }, parts: [{ type: "text", text: "On orca-7, behind the bastion." }] },
      ],
    }),
  },
};

beforeAll(async () => {
  s = await sandbox();
  // The plugin's `signet hook` finds the daemon the way docs/hooks.md says: daemon.* in agent.yaml
  // (OpenCode's own environment would do as well, but this test process's cannot be changed for it).
  mkdirSync(s.dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(s.dataDir, "agent.yaml"), `daemon:\n  port: ${s.port}\n`, { mode: 0o600 });
  project = join(s.home, "proj");
  mkdirSync(project, { recursive: true });
  expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
  expect((await run(["remember", FACT], { env: s.env })).code).toBe(0);
  expect((await run(["setup", "--harness", "opencode"], { env: s.env })).code).toBe(0);
  plugin = (await import(join(s.home, ".config", "opencode", "plugins", "signet.js"))).SignetHooks;
  client = new SignetClient({ baseUrl: `http://127.0.0.1:${s.port}`, dataDir: s.dataDir, actor: "test" });
}, 60_000);

afterAll(async () => {
  await run(["daemon", "stop"], { env: s.env });
});

describe("Signet's OpenCode plugin", () => {
  test("a prompt's memories reach the system prompt; session end stores the messages as the transcript", async () => {
    const hooks = await plugin({ client: opencodeClient, directory: project });
    await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_oc_1" } } } });
    await hooks["chat.message"]({ sessionID: "ses_oc_1" }, { message: {}, parts: [{ type: "text", text: "Where does the staging database live?" }] });
    const system = { system: ["base prompt"] };
    await hooks["experimental.chat.system.transform"]({ sessionID: "ses_oc_1", model: {} }, system);
    expect(system.system[0]).toBe("base prompt");
    expect(system.system.slice(1).join("\n")).toContain("orca-7");
    const compaction = { context: [] as string[] };
    await hooks["experimental.session.compacting"]({ sessionID: "ses_oc_1" }, compaction);
    await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_oc_1" } } });
    expect((await client.sessions.get("ses_oc_1")).window).toBe(1);

    await hooks.dispose();
    const session = await client.sessions.get("ses_oc_1");
    expect(session.harness).toBe("opencode");
    expect(session.hasTranscript).toBe(true);
    const found = await client.sessions.search({ query: "bastion" });
    expect(found.hits.map((h) => h.sessionKey)).toContain("ses_oc_1");
  }, 60_000);

  test("with the daemon down, every hook returns at once and adds nothing", async () => {
    expect((await run(["daemon", "stop"], { env: s.env })).code).toBe(0);
    try {
      const hooks = await plugin({ client: opencodeClient, directory: project });
      await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_oc_2" } } } });
      await hooks["chat.message"]({ sessionID: "ses_oc_2" }, { message: {}, parts: [{ type: "text", text: "anything" }] });
      const system = { system: ["base prompt"] };
      await hooks["experimental.chat.system.transform"]({ sessionID: "ses_oc_2", model: {} }, system);
      expect(system.system).toEqual(["base prompt"]);
      await hooks.dispose();
    } finally {
      expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
    }
  }, 60_000);
});
