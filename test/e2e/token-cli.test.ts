// `signet token` and SIGNET_TOKEN, with the compiled binary against a team-mode daemon it started
// (docs/security.md#tokens): the token is printed once, lists never show it, clients send it, roles
// and agent binding hold, revocation takes effect at once; signet-mcp sends it too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";

let s: Sandbox;
const cli = (args: string[], env: Record<string, string> = {}, stdin?: string) => run(args, { env: { ...s.env, ...env }, stdin });

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\nauth:\n  mode: team\n");
  await startDaemonIn(s);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
});

describe("signet token in team mode", () => {
  let agentToken: { token: string; id: string };
  let readonlyToken: { token: string; id: string };

  test("the owner's CLI works without SIGNET_TOKEN (it sends the admin token of its data directory); a caller without it is refused", async () => {
    const owned = await cli(["remember", "the owner's own memory in team mode"]);
    expect(owned.code).toBe(0);
    expect(json(owned).agentId).toBe("default");
    expect(json(await cli(["list"])).memories.map((m: any) => m.content)).toEqual(["the owner's own memory in team mode"]);
    // The same request without the owner's credential, as any other local process would send it.
    const anonymous = await fetch(`http://127.0.0.1:${s.port}/api/memories`);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error).toContain("needs a token");

    const made = await cli(["token", "create", "--role", "agent", "--agent", "bot", "--expires", "30d", "--name", "ci bot"]);
    expect(made.code).toBe(0);
    agentToken = json(made);
    expect(agentToken).toMatchObject({ role: "agent", agentId: "bot", name: "ci bot", revokedAt: null });
    expect(agentToken.token).toMatch(/^sgt_[A-Za-z0-9_-]{43}$/);
    // Said at creation: an agent token sees its agent's memories only, not those the owner keeps under default.
    expect(made.stderr).toContain("It acts as agent bot: it sees that agent's memories and those of agents whose agents.<id>.readPolicy is shared, and none of agent default's");
    const readonlyMade = await cli(["token", "create", "--role", "readonly"]);
    expect(readonlyMade.stderr).toBe("");
    readonlyToken = json(readonlyMade);

    const listed = await cli(["token", "list"]);
    expect(listed.code).toBe(0);
    expect(json(listed).tokens.map((t: any) => t.id).sort()).toEqual([agentToken.id, readonlyToken.id].sort());
    expect(listed.stdout).not.toContain(agentToken.token);
    expect(listed.stdout).not.toContain(readonlyToken.token);
    const pretty = await cli(["token", "list", "--pretty"]);
    expect(pretty.stdout).toContain("ci bot");
    expect(pretty.stdout).not.toContain(agentToken.token);
    const own = await cli(["token", "create", "--role", "agent", "--agent", "default", "--pretty"]);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain("for agent default");
    expect(own.stdout).not.toContain("none of agent");
  });

  test("bad token commands are usage errors (exit 2) naming the problem", async () => {
    for (const [args, mention] of [
      [["token", "create", "--role", "root"], "role"],
      [["token", "create", "--role", "agent"], "agentId"],
      [["token", "create", "--role", "admin", "--expires", "forever"], "expires"],
      [["token", "revoke", "not-an-id"], "token id"],
    ] as [string[], string][]) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain(mention);
    }
  });

  test("SIGNET_TOKEN: an agent token writes as its agent whatever --agent says; readonly reads but may not write", async () => {
    const wrote = await cli(["remember", "written with the bound token", "--agent", "someone-else"], { SIGNET_TOKEN: agentToken.token });
    expect(wrote.code).toBe(0);
    expect(json(wrote).agentId).toBe("bot");

    const read = await cli(["list"], { SIGNET_TOKEN: readonlyToken.token, SIGNET_AGENT_ID: "bot" });
    expect(read.code).toBe(0);
    expect(json(read).memories.map((m: any) => m.content)).toEqual(["written with the bound token"]);
    const denied = await cli(["remember", "readonly may not"], { SIGNET_TOKEN: readonlyToken.token });
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain("needs permission remember");
  });

  test("signet-mcp sends SIGNET_TOKEN: its tool calls act as the token's agent", async () => {
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "memory_store", arguments: { content: "stored through signet-mcp" } } },
    ];
    const out = await run([], {
      env: { ...s.env, SIGNET_TOKEN: agentToken.token, SIGNET_AGENT_ID: "forged" },
      bin: `${import.meta.dir}/../../dist/signet-mcp`,
      stdin: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`,
    });
    const answers = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const stored = answers.find((a) => a.id === 2);
    expect(stored.result.isError).toBeFalsy();
    expect(stored.result.structuredContent.agentId).toBe("bot");
  });

  test("signet token revoke: the token is refused from the next request on", async () => {
    const revoked = await cli(["token", "revoke", readonlyToken.id]);
    expect(revoked.code).toBe(0);
    expect(json(revoked).revokedAt).toMatch(/^\d{4}-/);
    const after = await cli(["list"], { SIGNET_TOKEN: readonlyToken.token });
    expect(after.code).toBe(4);
    expect(after.stderr).toContain("was revoked");
  });
});
