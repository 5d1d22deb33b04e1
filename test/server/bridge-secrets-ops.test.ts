// The bridge and secrets operations as declared once (src/contracts/bridge.ts, secrets.ts): the typed
// client's methods against a real daemon and a real MCP server, each answer exactly its operation's
// response schema (a streamed call's result too, which the daemon's answer check does not see), the
// permission every route and secret_* / mcp_server_* tool takes from its operation, and paths under
// the areas that no operation declares.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { z } from "zod";
import { BRIDGE_API } from "../../src/contracts/bridge";
import { fillPath, type Operation } from "../../src/contracts/operation";
import type { RouteNeed } from "../../src/contracts/routes";
import { SECRETS_API } from "../../src/contracts/secrets";
import { permissionFor } from "../../src/server/permissions";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { bearer, exactly, roleTokens } from "../helpers/operations";
import { fakeStdio } from "../helpers/fake-server";
import { callTool, McpClients } from "../helpers/mcp-client";
import { call, expectError } from "../helpers/memory-api";
import { eventually } from "../helpers/wait";

describe("the typed client", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(() => td.stop());

  test("install, list, get, update, tools, call (plain and streamed) and remove each answer what their operation declares", async () => {
    const client = td.client("ops-bridge");
    const installed = await client.bridge.install({ name: "ops-fake", transport: fakeStdio(), description: "a fake" });
    expect(installed).toMatchObject({ name: "ops-fake", enabled: true, description: "a fake", transport: { type: "stdio", args: fakeStdio().args, env: {} } });
    exactly(BRIDGE_API.install.response, installed);
    exactly(BRIDGE_API.get.response, await client.bridge.get("ops-fake"));

    const updated = await client.bridge.update("ops-fake", { description: null });
    expect(updated.description).toBeNull();
    exactly(BRIDGE_API.update.response, updated);

    const tools = await client.bridge.tools("ops-fake");
    expect(tools.tools.map((t) => t.name)).toEqual(["text", "cwd"]);
    exactly(BRIDGE_API.tools.response, tools);
    const listed = await client.bridge.list({ enabled: true });
    expect(listed.servers.map((s) => [s.name, s.running])).toEqual([["ops-fake", true]]);
    exactly(BRIDGE_API.list.response, listed);
    expect((await client.bridge.list({ enabled: false })).servers).toEqual([]);

    const plain = await client.bridge.call("ops-fake", { tool: "text", arguments: { bytes: 5 } });
    expect(plain.isError).toBeFalsy();
    exactly(BRIDGE_API.call.response, plain);
    const streamed = await client.bridge.call("ops-fake", { tool: "text", arguments: { bytes: 5 } }, { onUpdate: () => {} });
    expect(streamed).toEqual(plain);
    exactly(BRIDGE_API.call.response, streamed);

    const removed = await client.bridge.remove("ops-fake");
    expect(removed.name).toBe("ops-fake");
    exactly(BRIDGE_API.remove.response, removed);
    expect((await client.bridge.list()).servers).toEqual([]);
  });

  test("set, list, exec, status and remove each answer what their operation declares, and no value comes back", async () => {
    const client = td.client("ops-secrets");
    const value = "ops-secret-value-31337";
    const saved = await client.secrets.set("OPS_KEY", { value });
    expect(saved).toMatchObject({ name: "OPS_KEY", created: true });
    exactly(SECRETS_API.set.response, saved);
    const listed = await client.secrets.list();
    expect(listed.secrets.map((s) => s.name)).toEqual(["OPS_KEY"]);
    exactly(SECRETS_API.list.response, listed);

    const accepted = await client.secrets.exec({ command: 'printf "%s" "$KEY"', secrets: { KEY: "OPS_KEY" } });
    expect(accepted.status).toBe("queued");
    exactly(SECRETS_API.exec.response, accepted);
    const queued = await client.secrets.status(accepted.id);
    exactly(SECRETS_API.status.response, queued);
    let job = queued;
    expect(await eventually(async () => (job = await client.secrets.status(accepted.id)).status === "completed")).toBe(true);
    expect(job).toMatchObject({ exitCode: 0, timedOut: false });
    expect(job.stdout).not.toContain(value);
    exactly(SECRETS_API.status.response, job);

    const removed = await client.secrets.remove("OPS_KEY");
    expect(removed).toEqual({ name: "OPS_KEY", removed: true });
    exactly(SECRETS_API.remove.response, removed);
  });
});

describe("permissions from the operations", () => {
  let td: TestDaemon;
  const tokens: Record<"agent" | "readonly" | "admin", string> = { agent: "", readonly: "", admin: "" };
  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "auth:\n  mode: team\n" });
    Object.assign(tokens, await roleTokens(td, "ops-agent"));
  });
  afterAll(() => td.stop());

  const needs: Record<string, RouteNeed> = {
    "bridge.list": "mcp-call",
    "bridge.get": "mcp-call",
    "bridge.tools": "mcp-call",
    "bridge.call": "mcp-call",
    "bridge.install": "mcp-manage",
    "bridge.update": "mcp-manage",
    "bridge.remove": "mcp-manage",
    "secrets.list": "secrets-exec",
    "secrets.exec": "secrets-exec",
    "secrets.status": "secrets-exec",
    "secrets.set": "secrets-manage",
    "secrets.remove": "secrets-manage",
  };
  const ops: [string, Operation][] = [
    ...Object.entries(BRIDGE_API).map(([name, op]): [string, Operation] => [`bridge.${name}`, op]),
    ...Object.entries(SECRETS_API).map(([name, op]): [string, Operation] => [`secrets.${name}`, op]),
  ];

  test("each route needs its operation's permission: a readonly token is refused on every one", async () => {
    expect(Object.fromEntries(ops.map(([name, op]) => [name, permissionFor(op.method, fillPath(op.path, ["x"]))]))).toEqual(needs);
    for (const [name, op] of ops) {
      const res = await call(td, op.method, fillPath(op.path, ["x"]), { body: op.body ? {} : undefined, headers: bearer(tokens.readonly) });
      expect([name, res.status, res.body.error]).toEqual([name, 403, `${op.method} ${fillPath(op.path, ["x"])} needs permission ${op.need}, which a readonly token does not have`]);
    }
  });

  test("a path under the areas that no operation declares is refused to every token", async () => {
    for (const [method, path] of [
      ["GET", "/api/marketplace/servers/x/call"],
      ["POST", "/api/marketplace/servers/x/tools"],
      ["GET", "/api/marketplace"],
      ["GET", "/api/secrets/NAME"],
      ["PUT", "/api/secrets/exec/job"],
    ] as const) {
      expectError(await call(td, method, path, { body: method === "GET" ? undefined : {}, headers: bearer(tokens.admin) }), 403, "forbidden", "not open to tokens");
    }
  });

  test("the secret_* and mcp_server_* tools take their permission from the operation they call, and list its answer as their output", async () => {
    const mcp = new McpClients(() => td.url, "bridge-secrets-ops-test");
    const readonly = await mcp.withToken(tokens.readonly);
    const agent = await mcp.withToken(tokens.agent);
    try {
      const listed = (await agent.listTools()).tools;
      const outputs: Record<string, z.ZodObject> = { secret_exec: SECRETS_API.exec.response, secret_exec_status: SECRETS_API.status.response };
      for (const [name, schema] of Object.entries(outputs)) {
        const tool = listed.find((t) => t.name === name);
        expect([name, Object.keys(tool?.outputSchema?.properties ?? {}).sort()]).toEqual([name, Object.keys(schema.shape).sort()]);
      }
      const refusals: [string, Record<string, unknown>, string][] = [
        ["secret_list", {}, "secrets-exec"],
        ["secret_exec", { command: "true", secrets: {} }, "secrets-exec"],
        ["secret_exec_status", { jobId: "x" }, "secrets-exec"],
        ["mcp_server_list", {}, "mcp-call"],
        ["mcp_server_call", { server: "x", tool: "y" }, "mcp-call"],
      ];
      for (const [name, args, need] of refusals) {
        expect(await callTool(readonly, name, args)).toMatchObject({ isError: true, text: `${name} needs permission ${need}, which a readonly token does not have` });
      }
      // The agent's role has both: its calls reach the daemon.
      expect(await callTool(agent, "secret_list", {})).toMatchObject({ isError: false, structured: { secrets: [] } });
      expect(await callTool(agent, "mcp_server_list", {})).toMatchObject({ isError: false, structured: { servers: [] } });
      const queued = await callTool(agent, "secret_exec", { command: "true", secrets: {} });
      expect(queued.isError).toBe(false);
      exactly(SECRETS_API.exec.response, queued.structured);
      const status = await callTool(agent, "secret_exec_status", { jobId: queued.structured.id });
      expect(status.isError).toBe(false);
      exactly(SECRETS_API.status.response, status.structured);
      // A variable named __proto__ reaches the daemon's contract, which refuses it by name, not dropped on the way.
      const proto = await callTool(agent, "secret_exec", { command: 'echo "[$__proto__]"', secrets: JSON.parse('{"__proto__":"X"}') });
      expect(proto).toMatchObject({ isError: true, text: expect.stringContaining("secrets: the name __proto__ cannot be used") });
      // And the tool still requires its map.
      expect(await callTool(agent, "secret_exec", { command: "true" })).toMatchObject({ isError: true, text: expect.stringMatching(/received undefined at secrets/) });
    } finally {
      await mcp.closeAll();
    }
  });
});
