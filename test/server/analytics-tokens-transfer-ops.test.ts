// The analytics, token and transfer operations as declared once (src/contracts/analytics.ts, auth.ts,
// transfer.ts): the typed client's methods against a real daemon, each answer exactly its operation's
// response schema (the export's lines too, which the daemon's answer check does not see), the
// permission every route takes from its operation, and paths under the areas no operation declares.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { lackedPermission } from "../../src/contracts/auth";
import { ANALYTICS_API } from "../../src/contracts/analytics";
import { fillPath, type Operation } from "../../src/contracts/operation";
import { TOKENS_API } from "../../src/contracts/tokens";
import { TRANSFER_API } from "../../src/contracts/transfer";
import { permissionFor } from "../../src/server/permissions";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { bearer, exactly, roleTokens } from "../helpers/operations";
import { exportRecord } from "../helpers/export-record";
import { call, expectError, expectForgedRefused } from "../helpers/memory-api";
import { eventually } from "../helpers/wait";

describe("the typed client", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    // A server-wide and a per-tool threshold, so the alerts answer holds both shapes of alert.
    td = await startTestDaemon({ yaml: "analytics:\n  flushMs: 50\n  alerts:\n    signet: 1\n    signet/memory_search: 1\n" });
  });
  afterAll(() => td.stop());

  test("report, summary, server, alerts, features, unused and sessionTools each answer what their operation declares", async () => {
    const client = td.client("ops-analyst").analytics;
    const reported = await client.report({
      invocations: [
        { tool: "memory_search", latencyMs: 40, success: true, sessionKey: "ops-session" },
        { tool: "memory_store", latencyMs: 30, success: false, errorText: "refused", sessionKey: "ops-session" },
      ],
    });
    expect(reported).toEqual({ accepted: 2 });
    exactly(ANALYTICS_API.report.response, reported);
    expect(await eventually(async () => (await client.summary({ agent_id: "ops-analyst" })).totalCalls === 2)).toBe(true);

    const summary = await client.summary({ agent_id: "ops-analyst", limit: 5 });
    expect(summary.topTools.map((t) => t.tool).sort()).toEqual(["memory_search", "memory_store"]);
    exactly(ANALYTICS_API.summary.response, summary);
    const server = await client.server("signet", { agent_id: "ops-analyst", source: "mcp" });
    expect(server.topServers.map((s) => s.server)).toEqual(["signet"]);
    exactly(ANALYTICS_API.server.response, server);
    // No calls at all: the latencies are null, which the schema must allow.
    const none = await client.server("no-such-server");
    expect(none.latency).toEqual({ p50: null, p95: null });
    exactly(ANALYTICS_API.server.response, none);

    const alerts = await client.alerts({ agent_id: "ops-analyst" });
    expect(alerts.alerts.map((a) => a.tool ?? null).sort()).toEqual(["memory_search", null]);
    exactly(ANALYTICS_API.alerts.response, alerts);

    const features = await client.features({ server: "signet" });
    expect(features.servers.map((s) => s.tools.map((t) => t.tool))).toEqual([["memory_search", "memory_store"]]);
    exactly(ANALYTICS_API.features.response, features);

    // An installed server whose tools the daemon has not listed: start=false leaves it not_listed.
    const install = { name: "ops-quiet", transport: { type: "stdio", command: "/bin/true" } };
    expect((await call(td, "POST", "/api/marketplace/servers", { body: install, headers: td.ownerHeaders })).status).toBe(201);
    const unused = await client.unused({ start: false, days: 7 });
    expect(unused.servers).toEqual([{ server: "ops-quiet", status: "not_listed", tools: 0, unused: [] }]);
    exactly(ANALYTICS_API.unused.response, unused);

    const session = await client.sessionTools("session:ops-session");
    expect(session).toMatchObject({ sessionKey: "ops-session", agentId: "ops-analyst", totalCalls: 2, failures: 1 });
    exactly(ANALYTICS_API.sessionTools.response, session);
  });

  test("create, list and revoke each answer what their operation declares", async () => {
    const tokens = td.client().tokens;
    const made = await tokens.create({ role: "agent", agentId: "ops-agent", name: "ops", expires: "1d" });
    expect(made).toMatchObject({ role: "agent", agentId: "ops-agent", name: "ops", revokedAt: null });
    exactly(TOKENS_API.create.response, made);
    const listed = await tokens.list();
    expect(listed.tokens.map((t) => t.id)).toContain(made.id);
    exactly(TOKENS_API.list.response, listed);
    const revoked = await tokens.revoke(made.id);
    expect(revoked.revokedAt).not.toBeNull();
    exactly(TOKENS_API.revoke.response, revoked);
  });

  test("import, export and backup each answer what their operation declares", async () => {
    const transfer = td.client().transfer;
    const records = [exportRecord(crypto.randomUUID(), "Ops export one"), exportRecord(crypto.randomUUID(), "Ops export two", "ops-other")];
    const imported = await transfer.import({ format: "signet", records });
    expect(imported).toMatchObject({ imported: 2, skipped: 0 });
    exactly(TRANSFER_API.import.response, imported);
    const lines: unknown[] = [];
    for await (const line of transfer.export({ forgotten: true })) lines.push(JSON.parse(line));
    expect(lines[0]).toMatchObject({ kind: "signet-export", count: 2, forgotten: true });
    for (const line of lines) exactly(TRANSFER_API.export.response, line);
    const backup = await transfer.backup({ path: join(tempDir(), "ops-backup.db") });
    expect(backup.memories).toBe(2);
    exactly(TRANSFER_API.backup.response, backup);
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

  // What each route needed before it was declared as an operation.
  const needs: [Operation, string][] = [
    [ANALYTICS_API.report, "analytics-report"],
    [ANALYTICS_API.summary, "analytics-read"],
    [ANALYTICS_API.server, "analytics-read"],
    [ANALYTICS_API.alerts, "analytics-read"],
    [ANALYTICS_API.features, "analytics-read"],
    [ANALYTICS_API.unused, "analytics-read"],
    [ANALYTICS_API.sessionTools, "sessions-read"],
    [TOKENS_API.list, "tokens-manage"],
    [TOKENS_API.create, "tokens-manage"],
    [TOKENS_API.revoke, "tokens-manage"],
    [TRANSFER_API.export, "data-transfer"],
    [TRANSFER_API.import, "data-transfer"],
    [TRANSFER_API.backup, "data-transfer"],
  ];
  const pathOf = (op: Operation) => fillPath(op.path, ["x1", "x2"]);

  test("each route needs its operation's permission: a token without it is refused, naming it", async () => {
    expect(needs.map(([op]) => [op.method, pathOf(op), permissionFor(op.method, pathOf(op))])).toEqual(
      needs.map(([op, need]) => [op.method, pathOf(op), need]),
    );
    // An agent token lacks analytics-read, data-transfer and tokens-manage; a readonly token the last two.
    for (const [op, need] of needs.filter(([, need]) => need !== "analytics-report" && need !== "sessions-read")) {
      const role = need === "analytics-read" ? "agent" : "readonly";
      expectError(await call(td, op.method, pathOf(op), { body: op.body ? {} : undefined, headers: bearer(tokens[role]) }), 403, "forbidden", `needs ${lackedPermission(role, need)}`);
    }
    // Reading one's own session's tool usage is open to any role that reads sessions.
    expect((await call(td, "GET", pathOf(ANALYTICS_API.sessionTools), { headers: bearer(tokens.readonly) })).status).toBe(200);
  });

  test("a web page or a rebound host is refused on every route, whatever it sends", async () => {
    for (const [op] of needs) await expectForgedRefused(td, op.method, pathOf(op), op.body ? {} : undefined);
  });

  test("a path under the areas that no operation declares is refused to every token", async () => {
    for (const [method, path] of [
      ["GET", "/api/mcp/nope"],
      ["GET", "/api/mcp/invocations"],
      ["GET", "/api/tokens/tok_0000000000000000"],
      ["PUT", "/api/tokens"],
      ["POST", "/api/export"],
      ["GET", "/api/backup"],
    ] as const) {
      expectError(await call(td, method, path, { body: method === "GET" ? undefined : {}, headers: bearer(tokens.admin) }), 403, "forbidden", "not open to tokens");
    }
  });
});
