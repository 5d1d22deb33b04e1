// Auth modes, API tokens, roles and rate limits (docs/security.md#auth-modes), against real daemons on
// free loopback ports with real SQLite. What only a non-loopback peer can show (hybrid mode's trust
// of loopback, forged headers from a remote peer) is in test/e2e/remote-peer.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import { lackedPermission, type Role } from "../../src/contracts/auth";
import { ROLES } from "../../src/contracts/vocabulary";
import { TOOLS } from "../../src/mcp/tools";
import { OPERATIONS } from "../../src/contracts/api";
import { createHandler } from "../../src/server/app";
import { startDaemon } from "../../src/server/daemon";
import { permissionFor, permissionsNeeded } from "../../src/server/permissions";
import { pathForms } from "../../src/server/request-path";
import { setPrincipal } from "../../src/server/principal";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { call, expectError, type Res } from "../helpers/memory-api";

const MCP_ACCEPT = "application/json, text/event-stream";

/** A token made through the API with the owner's credential, as `signet token create` does. */
async function createToken(td: TestDaemon, body: Record<string, unknown>): Promise<{ token: string; id: string }> {
  const res = await call(td, "POST", "/api/tokens", { body, headers: td.ownerHeaders });
  expect(res.status).toBe(201);
  return res.body;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function memoryBody(content: string) {
  return { content, type: "fact" };
}

describe("team mode", () => {
  let td: TestDaemon;
  const tokens = {} as Record<Role, string>;
  let seeded: string;

  beforeAll(async () => {
    // API tokens may run jobs where no sandbox works (no bubblewrap): these tests check permissions, not the sandbox.
    td = await startTestDaemon({ yaml: "auth:\n  mode: team\nsecrets:\n  execUnsandboxed: true\n" });
    for (const role of ROLES) tokens[role] = (await createToken(td, role === "agent" ? { role, agentId: "bound-agent" } : { role })).token;
    const res = await call(td, "POST", "/api/memory/remember", { body: memoryBody("seeded for reads"), headers: bearer(tokens.admin) });
    expect(res.status).toBe(201);
    seeded = res.body.id;
  });
  afterAll(() => td.stop());

  test("without a token every route but /health and the dashboard's static files is 401, also from loopback", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/memories"],
      ["POST", "/api/memory/recall", { query: "x" }],
      ["POST", "/api/memory/remember", memoryBody("no token")],
      ["GET", `/api/memory/${seeded}`],
      ["GET", "/api/marketplace/servers"],
      ["GET", "/api/mcp/analytics"],
      ["GET", "/api/no-such-route"],
    ] as [string, string, unknown?][]) {
      expectError(await call(td, method, path, { body }), 401, "unauthorized", "needs a token");
    }
    // A loopback caller without a token still sees /health beyond status and version (SPEC §3: only
    // remote callers get the short form), but where the daemon runs only with the owner's credential.
    const health = await call(td, "GET", "/health");
    expect(health.status).toBe(200);
    expect(health.body.db.ok).toBe(true);
    expect(health.body.dataDir).toBeUndefined();
    expect(health.body.store).toBeUndefined();
    const owners = (await call(td, "GET", "/health", { headers: td.ownerHeaders })).body;
    expect(owners.dataDir).toBe(td.dataDir);
    expect(owners.store).toEqual({ kind: "sqlite", location: join(td.dataDir, "memory", "memories.db") });
    // The dashboard's page is public: whatever answers, it is not a refusal for want of a token.
    expect((await call(td, "GET", "/")).status).not.toBe(401);
    const list = await call(td, "GET", "/api/memories", { headers: bearer(tokens.readonly) });
    expect(list.body.memories.map((m: any) => m.content)).toEqual(["seeded for reads"]);
  });

  test("/mcp needs a Bearer token: 401 as JSON-RPC without one", async () => {
    const res = await td.fetch("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: MCP_ACCEPT },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    const body = (await res.json()) as any;
    expect(body.jsonrpc).toBe("2.0");
    expect(body.error.message).toMatch(/Unauthorized: .*needs a token/);
  });

  test("a wrong, revoked or expired token is 401 saying which", async () => {
    expectError(await call(td, "GET", "/api/memories", { headers: bearer("sgt_not-a-real-token") }), 401, "unauthorized", "not a token this daemon issued");
    // /health stays public: a dead token gets the short answer, not a refusal.
    expect(Object.keys((await call(td, "GET", "/health", { headers: bearer("sgt_not-a-real-token") })).body).sort()).toEqual(["status", "version"]);
    const doomed = await createToken(td, { role: "operator" });
    expect((await call(td, "GET", "/api/memories", { headers: bearer(doomed.token) })).status).toBe(200);
    const revoked = await call(td, "DELETE", `/api/tokens/${doomed.id}`, { headers: td.ownerHeaders });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toMatch(/^\d{4}-/);
    expectError(await call(td, "GET", "/api/memories", { headers: bearer(doomed.token) }), 401, "unauthorized", "was revoked");

    const aging = await createToken(td, { role: "operator", expires: "30d" });
    const listed = (await call(td, "GET", "/api/tokens", { headers: td.ownerHeaders })).body.tokens.find((t: any) => t.id === aging.id);
    const days = (Date.parse(listed.expiresAt) - Date.parse(listed.createdAt)) / 86_400_000;
    expect(days).toBe(30);
    expect((await call(td, "GET", "/api/memories", { headers: bearer(aging.token) })).status).toBe(200);
    // Thirty days pass (in the database): the next request is refused.
    td.daemon.context.stores.sqlite!.query("UPDATE api_tokens SET expires_at = ? WHERE id = ?").run(new Date(Date.now() - 1000).toISOString(), aging.id);
    expectError(await call(td, "GET", "/api/memories", { headers: bearer(aging.token) }), 401, "unauthorized", "has expired");
  });

  // [method, path, body, permission]: one route per permission, each tried with every role.
  const routes: [string, string, unknown, string][] = [
    ["POST", "/api/memory/recall", { query: "seeded" }, "recall"],
    ["GET", "/api/memories", undefined, "recall"],
    ["POST", "/api/memory/remember", memoryBody("written by a role"), "remember"],
    ["PATCH", "/api/memory/{id}", { reason: "role test", importance: 0.6 }, "modify"],
    ["DELETE", "/api/memory/{id}", { reason: "role test" }, "forget"],
    ["GET", "/api/mcp/analytics", undefined, "analytics-read"],
    ["GET", "/api/marketplace/servers", undefined, "mcp-call"],
    ["GET", "/api/tokens", undefined, "tokens-manage"],
  ];
  const allowed: Record<Role, string[]> = {
    admin: ["recall", "remember", "modify", "forget", "analytics-read", "mcp-call", "tokens-manage"],
    operator: ["recall", "remember", "modify", "forget", "analytics-read", "mcp-call"],
    agent: ["recall", "remember", "modify", "forget", "mcp-call"],
    readonly: ["recall", "analytics-read"],
  };

  for (const role of ROLES) {
    test(`role ${role}: allowed exactly its permissions, 403 naming the permission otherwise`, async () => {
      for (const [method, path, body, permission] of routes) {
        // Each role changes and forgets a memory of its own agent.
        let target = seeded;
        if (path.includes("{id}")) {
          const made = await call(td, "POST", "/api/memory/remember", { body: memoryBody(`${role} ${method} target`), agent: "bound-agent", headers: bearer(tokens.admin) });
          target = made.body.id;
        }
        const content = path.endsWith("remember") ? memoryBody(`written by ${role}`) : body;
        const res = await call(td, method, path.replace("{id}", target), { body: content, agent: "bound-agent", headers: bearer(tokens[role]) });
        if (permission === "tokens-manage") {
          // Token management needs the owner's credential in every mode (SPEC §3), whatever the token's role.
          expect(res.status === 401 || res.status === 403).toBe(true);
          continue;
        }
        if (allowed[role].includes(permission)) {
          expect({ role, method, path, status: res.status }).toEqual({ role, method, path, status: method === "POST" && path.endsWith("remember") ? 201 : 200 });
        } else {
          expectError(res, 403, "forbidden", `needs ${lackedPermission(role, permission)}`);
        }
      }
    });
  }

  test("token management needs the owner's credential, even for an admin token; lists never show tokens", async () => {
    expectError(await call(td, "POST", "/api/tokens", { body: { role: "admin" }, headers: bearer(tokens.admin) }), 403, "forbidden", "admin.token");
    expectError(await call(td, "POST", "/api/tokens", { body: { role: "admin" } }), 401, "unauthorized");
    const listed = await call(td, "GET", "/api/tokens", { headers: td.ownerHeaders });
    expect(listed.status).toBe(200);
    for (const secret of Object.values(tokens)) expect(listed.text).not.toContain(secret);
    expect(listed.text).not.toContain("hash");
    const stored = td.daemon.context.stores.sqlite!.query("SELECT hash FROM api_tokens").all() as { hash: string }[];
    for (const secret of Object.values(tokens)) expect(stored.map((r) => r.hash)).not.toContain(secret);
    expect(stored.every((r) => /^[0-9a-f]{64}$/.test(r.hash))).toBe(true);
  });

  test("bad token requests are 400 naming the field and create nothing", async () => {
    const before = (await call(td, "GET", "/api/tokens", { headers: td.ownerHeaders })).body.tokens.length;
    for (const [body, field] of [
      [{ role: "root" }, "role"],
      [{ role: "agent" }, "agentId"],
      [{ role: "readonly", agentId: "a" }, "agentId"],
      [{ role: "admin", expires: "soon" }, "expires"],
      [{ role: "admin", expires: "99999w" }, "expires"],
      [{ role: "admin", extra: 1 }, "extra"],
    ] as [unknown, string][]) {
      expectError(await call(td, "POST", "/api/tokens", { body, headers: td.ownerHeaders }), 400, "invalid_input", field);
    }
    expectError(await call(td, "DELETE", "/api/tokens/nope", { headers: td.ownerHeaders }), 400, "invalid_input", "token id");
    expectError(await call(td, "DELETE", "/api/tokens/tok_0000000000000000", { headers: td.ownerHeaders }), 404, "not_found");
    expect((await call(td, "GET", "/api/tokens", { headers: td.ownerHeaders })).body.tokens.length).toBe(before);
  });

  test("an agent token acts as its agent: x-signet-agent-id and body agentId cannot change it", async () => {
    const res = await call(td, "POST", "/api/memory/remember", {
      body: { ...memoryBody("bound agent wrote this"), agentId: "someone-else" },
      agent: "someone-else",
      headers: bearer(tokens.agent),
    });
    expect(res.status).toBe(201);
    expect(res.body.agentId).toBe("bound-agent");
    // Reading another agent's memories by naming it is no way around the binding either.
    const mine = await call(td, "GET", "/api/memories?agent_id=someone-else", { agent: "someone-else", headers: bearer(tokens.agent) });
    expect(mine.body.memories.every((m: any) => m.agentId === "bound-agent")).toBe(true);
    const other = await call(td, "POST", "/api/memory/remember", { body: memoryBody("someone else's"), agent: "someone-else", headers: bearer(tokens.admin) });
    expect(other.body.agentId).toBe("someone-else");
    const got = await call(td, "GET", `/api/memory/${other.body.id}`, { agent: "someone-else", headers: bearer(tokens.agent) });
    expect(got.status).toBe(404);
  });

  test("forged provenance and forwarding headers grant nothing without a token", async () => {
    const forged = {
      "x-forwarded-for": "127.0.0.1",
      "x-real-ip": "127.0.0.1",
      forwarded: "for=127.0.0.1",
      "x-signet-actor": "cli",
      "x-signet-actor-type": "operator",
      "x-signet-runtime-path": "cli",
      "x-signet-agent-id": "default",
    };
    expectError(await call(td, "GET", "/api/memories", { headers: forged }), 401, "unauthorized");
    expectError(await call(td, "POST", "/api/memory/remember", { body: memoryBody("forged"), headers: forged }), 401, "unauthorized");
    // A foreign Origin or Host is refused before any token is looked at.
    expectError(await call(td, "GET", "/api/memories", { headers: { ...bearer(tokens.admin), origin: "http://evil.example" } }), 403, "forbidden", "Origin");
  });

  test("a route no rule names is refused to every token (deny by default), however spelled", async () => {
    for (const path of ["/api/not-yet-built", "/API/Not-Yet-Built", "/api//not-yet-built/"]) {
      expectError(await call(td, "GET", path, { headers: bearer(tokens.admin) }), 403, "forbidden", "not open to tokens");
    }
    expect(permissionFor("DELETE", "/api/memory/abc")).toBe("forget");
    expect(permissionFor("GET", "/api/marketplace/servers/x/tools")).toBe("mcp-call");
    expect(permissionFor("POST", "/api/marketplace/servers")).toBe("mcp-manage");
    expect(permissionFor("POST", "/api/tokens")).toBe("tokens-manage");
    expect(permissionFor("PUT", "/api/whatever")).toBeUndefined();
  });

  test("routes of every area have their permissions, and paths no operation declares have none", () => {
    const table: [string, string, string][] = [
      ["POST", "/api/hooks/session-start", "sessions"],
      ["POST", "/api/memory/feedback", "sessions"],
      ["GET", "/api/sessions", "sessions-read"],
      ["GET", "/api/sessions/abc/tools", "sessions-read"],
      ["POST", "/api/sessions/search", "sessions-read"],
      ["POST", "/api/sessions/abc/bypass", "sessions"],
      ["POST", "/api/cross-agent/messages", "messages"],
      ["POST", "/api/secrets/exec", "secrets-exec"],
      ["GET", "/api/secrets/exec/job-1", "secrets-exec"],
      ["GET", "/api/secrets", "secrets-exec"],
      ["PUT", "/api/secrets/NAME", "secrets-manage"],
      ["DELETE", "/api/secrets/NAME", "secrets-manage"],
      ["POST", "/api/sources/search", "recall"],
      ["GET", "/api/sources", "recall"],
      ["POST", "/api/sources", "sources-manage"],
      ["DELETE", "/api/sources/x", "sources-manage"],
      ["POST", "/api/sources/sync", "sources-manage"],
      ["GET", "/api/embed/status", "recall"],
      ["POST", "/api/embed/reindex", "sources-manage"],
      ["GET", "/api/graph/entities", "recall"],
      ["GET", "/api/graph/entities/ent_1", "recall"],
      ["POST", "/api/graph/dream", "modify"],
      ["POST", "/api/code/search", "recall"],
      ["GET", "/api/code/status", "recall"],
      ["POST", "/api/code/clear", "sources-manage"],
      ["GET", "/api/mcp/alerts", "analytics-read"],
    ];
    expect(table.map(([m, p]) => [m, p, permissionFor(m, p)])).toEqual(table);
    const undeclared = [["POST", "/api/sources/x/sync"], ["POST", "/api/code/index"], ["PUT", "/api/memory/remember"], ["GET", "/api/secrets/NAME"]];
    expect(undeclared.map(([m, p]) => permissionFor(m!, p!))).toEqual([undefined, undefined, undefined, undefined]);
  });

  test("installing MCP servers and managing secrets need operator or admin, and the owner's credential on top", async () => {
    const install = { name: "x", transport: { type: "stdio", command: "/bin/true" } };
    expectError(await call(td, "POST", "/api/marketplace/servers", { body: install, headers: bearer(tokens.agent) }), 403, "forbidden", "needs permission mcp-manage, which an agent token does not have");
    expectError(await call(td, "POST", "/api/marketplace/servers", { body: install, headers: bearer(tokens.operator) }), 403, "forbidden", "admin.token");
    expectError(await call(td, "PUT", "/api/secrets/API_KEY", { body: { value: "v" }, headers: bearer(tokens.agent) }), 403, "forbidden", "needs permission secrets-manage");
    expectError(await call(td, "PUT", "/api/secrets/API_KEY", { body: { value: "v" }, headers: bearer(tokens.operator) }), 403, "forbidden", "admin.token");
    // Using secrets: an agent token stands in for the instance key (its role has secrets-exec).
    expect((await call(td, "GET", "/api/secrets", { headers: bearer(tokens.agent) })).body.secrets).toEqual([]);
    const job = await call(td, "POST", "/api/secrets/exec", { body: { command: "true", secrets: {} }, headers: bearer(tokens.agent) });
    expect(job.status).toBe(202);
    expect((await call(td, "GET", `/api/secrets/exec/${job.body.id}`, { headers: bearer(tokens.agent) })).status).toBe(200);
    expectError(await call(td, "GET", "/api/secrets", { headers: bearer(tokens.readonly) }), 403, "forbidden", "needs permission secrets-exec");
    expectError(await call(td, "POST", "/api/secrets/exec", { body: { command: "true", secrets: {} }, headers: bearer(tokens.readonly) }), 403, "forbidden", "needs permission secrets-exec");
    expect((await call(td, "GET", "/api/marketplace/servers", { headers: bearer(tokens.agent) })).body.servers).toEqual([]);
  });

  test("an aggregate is saved only for a caller that may remember: a readonly token's is skipped", async () => {
    const body = { query: "seeded reads", aggregate: true };
    const readonly = await call(td, "POST", "/api/memory/recall", { body, headers: bearer(tokens.readonly) });
    expect(readonly.status).toBe(200);
    expect(readonly.body.aggregate.saved.skipped).toContain("may not remember");
    const operator = await call(td, "POST", "/api/memory/recall", { body, headers: bearer(tokens.operator) });
    expect(typeof operator.body.aggregate.saved.id).toBe("string");
  });

  test("an encoded slash inside a parameter is part of it for tokens too: a project entity, a session key holding '/'", async () => {
    const agent = bearer(tokens.agent);
    const made = await call(td, "POST", "/api/memory/remember", { body: { content: "The p1 build runs make release.", project: "/tmp/p1" }, headers: agent });
    expect(made.status).toBe(201);
    await td.daemon.context.graph.settled();
    const entity = await call(td, "GET", "/api/graph/entities/%2Ftmp%2Fp1", { headers: agent });
    expect(entity.status).toBe(200);
    expect(entity.body.entity).toMatchObject({ name: "/tmp/p1", type: "project" });

    const started = await call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "feature/login", harness: "codex" }, headers: agent });
    expect(started.status).toBe(200);
    const session = await call(td, "GET", "/api/sessions/feature%2Flogin", { headers: agent });
    expect(session.status).toBe(200);
    expect(JSON.stringify(session.body)).toContain('"feature/login"');
    const bypass = await call(td, "POST", "/api/sessions/feature%2Flogin/bypass", { body: { enabled: true }, headers: agent });
    expect(bypass.status).toBe(200);
    expect(bypass.body.bypassed).toBe(true);
    // Each route keeps its own rules: a readonly token may not bypass, removing needs the owner's credential.
    expectError(
      await call(td, "POST", "/api/sessions/feature%2Flogin/bypass", { body: { enabled: false }, headers: bearer(tokens.readonly) }),
      403,
      "forbidden",
      "needs permission sessions, which a readonly token does not have",
    );
    expectError(await call(td, "DELETE", "/api/sessions/feature%2Flogin", { headers: agent }), 403, "forbidden", "admin.token");
    // The same key spelled as a deeper path is no route.
    expectError(await call(td, "GET", "/api/sessions/feature/login", { headers: agent }), 403, "forbidden", "not open to tokens");
  });

  test("no spelling of a path reaches a route with a lesser permission than its own, or one no rule names", async () => {
    const readonly = bearer(tokens.readonly);
    // Case, escapes, doubled and trailing slashes, and an encoded slash between a route's own segments.
    for (const path of [
      "/api/memory/rem%65mber",
      "/API/Memory/Remember",
      "//api/memory//remember/",
      "/api/memory%2Fremember",
      "/api/memory%2fremember/",
      "/api%2Fmemory%2Fremember",
    ]) {
      const res = await call(td, "POST", path, { body: memoryBody(`spelled ${path}`), headers: readonly });
      expect({ path, status: res.status, error: res.body.error }).toEqual({ path, status: 403, error: expect.stringContaining("needs permission remember") });
    }
    for (const path of ["/api/t%6Fkens", "/API/Tokens", "//api/tokens", "/api/tokens/", "/api%2Ftokens"]) {
      const res = await call(td, "GET", path, { headers: bearer(tokens.agent) });
      expect({ path, status: res.status, error: res.body.error }).toEqual({ path, status: 403, error: expect.stringContaining("needs permission tokens-manage") });
    }
    // A parameter holding `..` and slashes is a parameter: the session route reads it as a key, and finds none.
    expect((await call(td, "GET", "/api/sessions/x%2F..%2F..%2Ftokens", { headers: bearer(tokens.agent) })).status).toBe(404);
    const written = td.daemon.context.stores.sqlite!.query("SELECT COUNT(*) AS n FROM memories WHERE content LIKE 'spelled %'").get() as { n: number };
    expect(written.n).toBe(0);
    // Every form the guard reads a path in names a route whose need the caller must meet.
    expect(permissionsNeeded("GET", pathForms("/api/sessions/abc%2Ftools"))).toEqual(["sessions-read"]);
    expect(permissionsNeeded("POST", pathForms("/api/sessions/a%2Fb/bypass"))).toEqual(["sessions"]);
    expect(permissionsNeeded("POST", pathForms("/api/memory%2Fremember"))).toEqual(["remember"]);
    expect(permissionsNeeded("POST", ["/api/memory/remember", "/api/tokens"]).sort()).toEqual(["remember", "tokens-manage"]);
    expect(permissionsNeeded("GET", pathForms("/api/sessions/a/b"))).toEqual([]);
  });

  test("/mcp with a token runs each tool with the token's role and its agent", async () => {
    async function mcp(token: string, headers: Record<string, string> = {}, query = ""): Promise<Client> {
      const client = new Client({ name: "auth-test", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${td.url}/mcp${query}`), { requestInit: { headers: { ...bearer(token), ...headers } } }));
      return client;
    }
    const readonly = await mcp(tokens.readonly);
    const stored = (await readonly.callTool({ name: "memory_store", arguments: { content: "readonly must not store this" } })) as CallToolResult;
    expect(stored.isError).toBe(true);
    expect(JSON.stringify(stored.content)).toContain("memory_store needs permission remember, which a readonly token does not have");
    const found = (await readonly.callTool({ name: "memory_search", arguments: { query: "seeded" } })) as CallToolResult;
    expect(found.isError).toBeFalsy();
    await readonly.close();

    const agent = await mcp(tokens.agent, { "x-signet-agent-id": "forged-agent" }, "?agent_id=forged-agent");
    const result = (await agent.callTool({ name: "memory_store", arguments: { content: "stored over mcp by the bound agent" } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const id = (result.structuredContent as any).id;
    await agent.close();
    const row = td.daemon.context.stores.sqlite!.query("SELECT agent_id FROM memories WHERE id = ?").get(id) as { agent_id: string };
    expect(row.agent_id).toBe("bound-agent");
    const nothing = td.daemon.context.stores.sqlite!.query("SELECT COUNT(*) AS n FROM memories WHERE content LIKE 'readonly must not%'").get() as { n: number };
    expect(nothing.n).toBe(0);
  });

  test("/mcp keeps servers between requests, each for its own caller: calls taking turns keep their roles and agents", async () => {
    async function mcp(token: string, headers: Record<string, string> = {}): Promise<Client> {
      const client = new Client({ name: "auth-test", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${td.url}/mcp`), { requestInit: { headers: { ...bearer(token), ...headers } } }));
      return client;
    }
    const readonly = await mcp(tokens.readonly, { "x-signet-agent-id": "turns-agent" });
    const operator = await mcp(tokens.operator, { "x-signet-agent-id": "turns-agent" });
    // Claims to be the operator's agent with the agent token: acts as the token's own agent all the same.
    const forged = await mcp(tokens.agent, { "x-signet-agent-id": "turns-agent" });
    const store = async (client: Client, content: string) =>
      (await client.callTool({ name: "memory_store", arguments: { content } })) as CallToolResult;
    for (let turn = 0; turn < 3; turn++) {
      const byOperator = await store(operator, `operator's turn ${turn}`);
      expect(byOperator.isError).toBeFalsy();
      expect((byOperator.structuredContent as any).agentId).toBe("turns-agent");
      const byReadonly = await store(readonly, `readonly's turn ${turn}`);
      expect(byReadonly.isError).toBe(true);
      expect(JSON.stringify(byReadonly.content)).toContain("which a readonly token does not have");
      const byForged = await store(forged, `forged turn ${turn}`);
      expect(byForged.isError).toBeFalsy();
      expect((byForged.structuredContent as any).agentId).toBe("bound-agent");
    }
    for (const client of [readonly, operator, forged]) await client.close();
    const db = td.daemon.context.stores.sqlite!;
    expect((db.query("SELECT COUNT(*) AS n FROM memories WHERE content LIKE 'readonly''s turn%'").get() as { n: number }).n).toBe(0);
    const agents = db.query("SELECT content, agent_id FROM memories WHERE content LIKE '%turn %' ORDER BY content").all() as { content: string; agent_id: string }[];
    expect(agents.map((r) => `${r.agent_id}: ${r.content}`)).toEqual([
      "bound-agent: forged turn 0",
      "bound-agent: forged turn 1",
      "bound-agent: forged turn 2",
      "turns-agent: operator's turn 0",
      "turns-agent: operator's turn 1",
      "turns-agent: operator's turn 2",
    ]);
  });

  test("every MCP tool needs the permission of the operation it calls, as documented", () => {
    // docs/security.md#roles-and-permissions, written out here so a tool that names another operation shows.
    const documented: Record<string, string> = {
      memory_search: "recall",
      signet_recall: "recall",
      signet_source_search: "recall",
      memory_get: "recall",
      memory_list: "recall",
      memory_store: "remember",
      signet_save_note: "remember",
      memory_modify: "modify",
      memory_forget: "forget",
      memory_feedback: "sessions",
      session_search: "sessions-read",
      signet_session_search: "sessions-read",
      session_bypass: "sessions",
      agent_peers: "messages",
      agent_message_send: "messages",
      agent_message_inbox: "messages",
      secret_list: "secrets-exec",
      secret_exec: "secrets-exec",
      secret_exec_status: "secrets-exec",
      signet_code_search: "recall",
      signet_code_context: "recall",
      signet_code_blast: "recall",
      signet_code_status: "recall",
      signet_code_doctor: "recall",
      signet_code_constants: "recall",
      signet_code_briefing: "recall",
      signet_code_clear: "sources-manage",
      mcp_server_list: "mcp-call",
      mcp_server_call: "mcp-call",
    };
    const needs: Record<string, string> = Object.fromEntries(TOOLS.map((t) => t((tool) => [tool.name, tool.calls.need])));
    expect(needs).toEqual(documented);
    expect(TOOLS.every((t) => t((tool) => OPERATIONS.includes(tool.calls)))).toBe(true);
  });
});

describe("hybrid mode, in process", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "auth:\n  mode: hybrid\n" });
  });
  afterAll(() => td.stop());

  test("a loopback peer needs no token; a token given narrows it to its role", async () => {
    const res = await call(td, "POST", "/api/memory/remember", { body: memoryBody("loopback is trusted") });
    expect(res.status).toBe(201);
    const { token } = await createToken(td, { role: "readonly" });
    expectError(await call(td, "POST", "/api/memory/remember", { body: memoryBody("x"), headers: bearer(token) }), 403, "forbidden", "remember");
  });

  test("a request the daemon hands itself gains no loopback trust: it acts only for the caller it carries", async () => {
    const handle = createHandler(td.daemon.context);
    const url = `${td.url}/api/memory/remember`;
    const init = () => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(memoryBody("in process")) });
    // No TCP peer and no caller: not a loopback peer.
    const bare = await handle(new Request(url, init()));
    expect(bare.status).toBe(401);
    const asReadonly = new Request(url, init());
    setPrincipal(asReadonly, { kind: "token", tokenId: "tok_0000000000000000", role: "readonly", agentId: null });
    expect((await handle(asReadonly)).status).toBe(403);
    const asAgent = new Request(url, init());
    setPrincipal(asAgent, { kind: "token", tokenId: "tok_0000000000000001", role: "agent", agentId: "carried" });
    const stored = await handle(asAgent);
    expect(stored.status).toBe(201);
    expect(((await stored.json()) as any).agentId).toBe("carried");
  });
});

describe("local mode", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(() => td.stop());

  test("needs no token; a token given still binds its agent and role", async () => {
    expect((await call(td, "POST", "/api/memory/remember", { body: memoryBody("local, no token") })).status).toBe(201);
    const { token } = await createToken(td, { role: "agent", agentId: "local-bound" });
    const res = await call(td, "POST", "/api/memory/remember", { body: memoryBody("local, agent token"), agent: "other", headers: bearer(token) });
    expect(res.body.agentId).toBe("local-bound");
    expectError(await call(td, "GET", "/api/mcp/analytics", { headers: bearer(token) }), 403, "forbidden", "analytics-read");
  });

  test("an Authorization header that is not `Bearer <token>` is 401 and changes nothing: it is never taken for no token", async () => {
    const { token } = await createToken(td, { role: "readonly" });
    const before = (await call(td, "GET", "/api/memories?limit=500")).body.memories.length;
    for (const value of [`Bearer ${token} x`, `Bearer ${token}, Bearer ${token}`, `Token ${token}`, `Basic ${btoa("a:b")}`, "Bearer"]) {
      const res = await call(td, "POST", "/api/memory/remember", { body: memoryBody(`forged with ${value}`), headers: { authorization: value } });
      expectError(res, 401, "unauthorized", "the Authorization header is not `Bearer <token>`");
      const mcp = await td.fetch("/mcp", {
        method: "POST",
        headers: { authorization: value, "content-type": "application/json", accept: MCP_ACCEPT },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(mcp.status).toBe(401);
      expect(((await mcp.json()) as any).error.message).toContain("Unauthorized");
    }
    expect((await call(td, "GET", "/api/memories?limit=500")).body.memories.length).toBe(before);
    // /health stays public.
    const health = await td.fetch("/health", { headers: { authorization: "Token x" } });
    expect(health.status).toBe(200);
  });

  test("a non-loopback bind is refused at start with what to do", async () => {
    const dataDir = tempDir();
    const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: dataDir, SIGNET_BIND: "0.0.0.0" } });
    try {
      await expect(startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } })).rejects.toThrow(/auth.mode "local" serves loopback only.*team.*hybrid/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("rate limits", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "auth:\n  mode: team\n  rateLimit:\n    mutationsPerMinute: 6\n    burst: 3\n" });
  });
  afterAll(() => td.stop());

  test("mutations beyond a token's burst are 429 rate_limited with Retry-After; reads, GETs and other tokens go on", async () => {
    const a = (await createToken(td, { role: "operator" })).token;
    const b = (await createToken(td, { role: "operator" })).token;
    const statuses: number[] = [];
    let last: Res | undefined;
    for (let i = 0; i < 4; i++) {
      last = await call(td, "POST", "/api/memory/remember", { body: memoryBody(`burst ${i}`), headers: bearer(a) });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
    expectError(last!, 429, "rate_limited", "auth.rateLimit");
    const retry = await td.fetch("/api/memory/remember", {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(a) },
      body: JSON.stringify(memoryBody("still limited")),
    });
    expect(retry.status).toBe(429);
    expect(Number(retry.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(retry.headers.get("retry-after"))).toBeLessThanOrEqual(10);
    expect((await call(td, "POST", "/api/memory/recall", { body: { query: "burst" }, headers: bearer(a) })).status).toBe(200);
    // A GET changes nothing, whatever its permission: polling a job's status is not limited.
    expect((await call(td, "GET", `/api/secrets/exec/${crypto.randomUUID()}`, { headers: bearer(a) })).status).toBe(404);
    expect((await call(td, "POST", "/api/memory/remember", { body: memoryBody("other token"), headers: bearer(b) })).status).toBe(201);
    const count = td.daemon.context.stores.sqlite!.query("SELECT COUNT(*) AS n FROM memories WHERE content = 'still limited'").get() as { n: number };
    expect(count.n).toBe(0);
  });

  test("an aggregate recall that saves is a write: it spends the token's budget, and past it the answer comes unsaved", async () => {
    const agent = bearer((await createToken(td, { role: "agent", agentId: "limited" })).token);
    // Evidence, written by the owner (not limited) for the agent.
    for (const content of ["Deploys go out on Tuesdays.", "The deploy checklist lives in the wiki."]) {
      expect((await call(td, "POST", "/api/memory/remember", { body: memoryBody(content), agent: "limited", headers: td.ownerHeaders })).status).toBe(201);
    }
    const aggregates = () =>
      (td.daemon.context.stores.sqlite!.query("SELECT COUNT(*) AS n FROM memories WHERE agent_id = 'limited' AND type = 'aggregate'").get() as { n: number }).n;
    const recall = { query: "deploy", aggregate: true };

    // Saved: one of the burst of 3 spent, so two remembers pass and the third is refused.
    const saved = await call(td, "POST", "/api/memory/recall", { body: recall, headers: agent });
    expect(saved.status).toBe(200);
    expect(typeof saved.body.aggregate.saved.id).toBe("string");
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(td, "POST", "/api/memory/remember", { body: memoryBody(`limited ${i}`), headers: agent })).status);
    expect(statuses).toEqual([201, 201, 429]);

    // Past the limit: the answer comes, nothing is saved, and the answer says why.
    for (let i = 0; i < 3; i++) {
      const over = await call(td, "POST", "/api/memory/recall", { body: recall, headers: agent });
      expect(over.status).toBe(200);
      expect(over.body.aggregate.answer).toContain("Tuesdays");
      expect(over.body.aggregate.saved).toEqual({ skipped: expect.stringMatching(/rate limit.*auth\.rateLimit.*not saved: retry in \d+ s/) });
    }
    expect(aggregates()).toBe(1);
    // An aggregate that is not to be saved, and a plain recall, are reads: they pass as ever.
    const unsaved = await call(td, "POST", "/api/memory/recall", { body: { ...recall, saveAggregate: false }, headers: agent });
    expect(unsaved.body.aggregate.saved).toEqual({ skipped: "saveAggregate is false" });
    expect((await call(td, "POST", "/api/memory/recall", { body: { query: "deploy" }, headers: agent })).status).toBe(200);
    // The owner is not limited (the same answer again: the save finds the one stored already).
    const owners = await call(td, "POST", "/api/memory/recall", { body: recall, agent: "limited", headers: td.ownerHeaders });
    expect(owners.body.aggregate.saved).toEqual({ id: saved.body.aggregate.saved.id });
  });
});
