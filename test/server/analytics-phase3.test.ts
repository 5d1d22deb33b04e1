// Phase 3 of usage analytics against a real daemon (temp SQLite, free port, real MCP server
// processes): latency alerts, unused tools (right after retention prunes the raw rows), one
// session's tool usage scoped to the caller's agent, and the scorer features. Rows are seeded with
// known times and latencies, so every answer is checked to the number.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { analyticsCommand } from "../../src/cli/mcp-analytics";
import { list as mcpList } from "../../src/cli/mcp/manage";
import { DAY_MS } from "../../src/contracts/analytics";
import type { InvocationRecord } from "../../src/core/analytics/types";
import { createHandler } from "../../src/server/app";
import { permissionFor } from "../../src/server/permissions";
import { setPrincipal } from "../../src/server/principal";
import { cliOutput } from "../helpers/cli-in-process";
import { fakeStdio } from "../helpers/fake-server";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { forgedCallers } from "../helpers/memory-api";

let d: TestDaemon;

const ALERTS_YAML = `analytics:
  flushMs: 50
  alerts:
    slow: 100
    web2/fetch: 50
    web2/ok: 50
    calm: 500
    quiet: 1
`;

beforeAll(async () => {
  d = await startTestDaemon({ yaml: ALERTS_YAML });
});

afterAll(async () => {
  await d.stop();
});

async function call(method: string, path: string, options: { body?: unknown; agent?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { accept: "application/json", ...d.ownerHeaders, ...options.headers };
  if (options.agent) headers["x-signet-agent-id"] = options.agent;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await d.fetch(path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

function expectInvalid(res: { status: number; body: any }, ...mentions: string[]): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status: 400, code: "invalid_input" });
  for (const m of mentions) expect(res.body.error).toContain(m);
}

/** Records rows and writes them now (the recorder would within flushMs). */
async function seed(rows: InvocationRecord[]): Promise<void> {
  for (const r of rows) d.daemon.context.analytics.record(r);
  await d.daemon.context.analytics.flush();
}

const midnight = () => Math.floor(Date.now() / DAY_MS) * DAY_MS;
/** Midnight UTC `days` ago (today's midnight for 0): never in the future, on a known UTC day. */
const daysAgo = (days: number) => new Date(midnight() - days * DAY_MS).toISOString();
const row = (server: string, tool: string, latencyMs: number, extra: Partial<InvocationRecord> = {}): InvocationRecord => ({
  server,
  tool,
  agentId: "default",
  source: "cli",
  latencyMs,
  success: true,
  createdAt: new Date(Date.now() - 60_000).toISOString(),
  ...extra,
});

describe("GET /api/mcp/alerts", () => {
  beforeAll(async () => {
    // slow: 10, 20, ... 200 ms: p95 (rank 19 of 20) is 190 > 100.
    await seed(Array.from({ length: 20 }, (_, i) => row("slow", "q", (i + 1) * 10)));
    // web2/fetch: p95 of [40, 60] is 60 > 50; web2/ok: 5 ≤ 50.
    await seed([row("web2", "fetch", 40), row("web2", "fetch", 60, { success: false }), row("web2", "ok", 5)]);
    // calm: one 10 s call two days ago, outside the default 24 h, and a fast one now.
    await seed([row("calm", "x", 10_000, { createdAt: new Date(Date.now() - 2 * DAY_MS).toISOString() }), row("calm", "x", 3)]);
  });

  test("lists the thresholds breached over the last 24 h, worst first, with p95, threshold and calls", async () => {
    const res = await call("GET", "/api/mcp/alerts");
    expect(res.status).toBe(200);
    expect(res.body.alerts).toEqual([
      { server: "slow", p95: 190, threshold: 100, calls: 20 },
      { server: "web2", tool: "fetch", p95: 60, threshold: 50, calls: 2 },
    ]);
    expect(res.body.window.hours).toBe(24);
    expect(Date.parse(res.body.window.until) - Date.parse(res.body.window.since)).toBe(24 * 3_600_000);
  });

  test("hours widens the window; agent_id narrows it", async () => {
    const wide = await call("GET", "/api/mcp/alerts?hours=72");
    expect(wide.body.alerts).toContainEqual({ server: "calm", p95: 10_000, threshold: 500, calls: 2 });
    expect(wide.body.alerts.map((a: { server: string }) => a.server)).toEqual(["calm", "slow", "web2"]);
    expect((await call("GET", "/api/mcp/alerts?agent_id=nobody")).body.alerts).toEqual([]);
  });

  test("bad input is a 400 naming the parameter", async () => {
    expectInvalid(await call("GET", "/api/mcp/alerts?hours=0"), "hours", "at least 1");
    expectInvalid(await call("GET", "/api/mcp/alerts?hours=abc"), "hours", "whole number");
    expectInvalid(await call("GET", "/api/mcp/alerts?hours=721"), "hours");
    expectInvalid(await call("GET", "/api/mcp/alerts?since=2026-01-01"), "since");
  });

  test("`signet mcp analytics` shows them, as JSON and readable", async () => {
    const json = JSON.parse(await cli(analyticsCommand, ["--json"]));
    expect(json.alerts.alerts).toEqual((await call("GET", "/api/mcp/alerts")).body.alerts);
    expect(json.totalCalls).toBeGreaterThan(0);
    const pretty = await cli(analyticsCommand, ["--pretty"]);
    expect(pretty).toContain("latency alerts (p95 over the last 24 h above analytics.alerts)");
    expect(pretty).toMatch(/slow\s+190 ms\s+100 ms\s+20/);
    expect(pretty).toMatch(/web2\/fetch\s+60 ms\s+50 ms\s+2/);
    const one = JSON.parse(await cli(analyticsCommand, ["web2", "--json", "--alert-hours", "72"]));
    expect(one.alerts.alerts).toEqual([{ server: "web2", tool: "fetch", p95: 60, threshold: 50, calls: 2 }]);
    expect(await cli(analyticsCommand, ["--alert-hours", "0"]).catch((e: Error) => e.message)).toContain("hours");
  });
});

describe("GET /api/mcp/features", () => {
  test("calls per day over 7 and 30 days, days since the last call and success rate, per server and tool", async () => {
    await seed([
      // tool a: 2 today (1 failed), 5 three days ago, 7 ten days ago (1 failed), 3 forty days ago.
      row("feat", "a", 1, { createdAt: daysAgo(0) }),
      row("feat", "a", 1, { createdAt: daysAgo(0), success: false }),
      ...Array.from({ length: 5 }, () => row("feat", "a", 1, { createdAt: daysAgo(3) })),
      ...Array.from({ length: 6 }, () => row("feat", "a", 1, { createdAt: daysAgo(10) })),
      row("feat", "a", 1, { createdAt: daysAgo(10), success: false }),
      ...Array.from({ length: 3 }, () => row("feat", "a", 1, { createdAt: daysAgo(40) })),
      // tool b: one call forty days ago, by another agent.
      row("feat", "b", 1, { createdAt: daysAgo(40), agentId: "other-agent" }),
    ]);
    const res = await call("GET", "/api/mcp/features?server=feat");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      day: daysAgo(0).slice(0, 10),
      servers: [
        {
          server: "feat",
          callsPerDay7: 1,
          callsPerDay30: 14 / 30,
          daysSinceLastCall: 0,
          lastCallAt: daysAgo(0),
          successRate: 12 / 14,
          tools: [
            { tool: "a", callsPerDay7: 1, callsPerDay30: 14 / 30, daysSinceLastCall: 0, lastCallAt: daysAgo(0), successRate: 12 / 14 },
            { tool: "b", callsPerDay7: 0, callsPerDay30: 0, daysSinceLastCall: 40, lastCallAt: daysAgo(40), successRate: null },
          ],
        },
      ],
    });
    const other = await call("GET", "/api/mcp/features?server=feat&agent_id=other-agent");
    expect(other.body.servers).toEqual([
      {
        server: "feat",
        callsPerDay7: 0,
        callsPerDay30: 0,
        daysSinceLastCall: 40,
        lastCallAt: daysAgo(40),
        successRate: null,
        tools: [{ tool: "b", callsPerDay7: 0, callsPerDay30: 0, daysSinceLastCall: 40, lastCallAt: daysAgo(40), successRate: null }],
      },
    ]);
    expect((await call("GET", "/api/mcp/features?server=never-used")).body.servers).toEqual([]);
  });

  test("bad input is a 400 naming the parameter", async () => {
    expectInvalid(await call("GET", "/api/mcp/features?agent_id=bad%20agent!"), "agent_id");
    expectInvalid(await call("GET", "/api/mcp/features?days=3"), "unknown", "days");
  });
});

describe("GET /api/sessions/:key/tools", () => {
  test("calls, failures and p50/p95 per tool of one session, for the caller's agent only", async () => {
    await seed([
      row("git", "log", 10, { sessionKey: "sess-1", agentId: "alice" }),
      row("git", "log", 30, { sessionKey: "session:sess-1", agentId: "alice", success: false }),
      row("git", "log", 20, { sessionKey: "sess-1", agentId: "alice" }),
      row("web", "fetch", 7, { sessionKey: "sess-1", agentId: "alice", createdAt: "2026-01-05T00:00:00.000Z" }),
      row("git", "log", 99, { sessionKey: "sess-2", agentId: "alice" }),
      row("git", "status", 5, { sessionKey: "sess-1", agentId: "bob" }),
    ]);
    const alice = await call("GET", "/api/sessions/sess-1/tools", { agent: "alice" });
    expect(alice).toEqual({
      status: 200,
      body: {
        sessionKey: "sess-1",
        agentId: "alice",
        totalCalls: 4,
        failures: 1,
        tools: [
          { server: "git", tool: "log", calls: 3, failures: 1, p50: 20, p95: 30 },
          { server: "web", tool: "fetch", calls: 1, failures: 0, p50: 7, p95: 7 },
        ],
      },
    });
    // session:<id> is the same session.
    expect((await call("GET", "/api/sessions/session:sess-1/tools", { agent: "alice" })).body.totalCalls).toBe(4);
    expect((await call("GET", "/api/sessions/sess-1/tools", { agent: "bob" })).body).toEqual({
      sessionKey: "sess-1",
      agentId: "bob",
      totalCalls: 1,
      failures: 0,
      tools: [{ server: "git", tool: "status", calls: 1, failures: 0, p50: 5, p95: 5 }],
    });
    expect((await call("GET", "/api/sessions/sess-1/tools")).body.totalCalls).toBe(0);
    const since = await call("GET", "/api/sessions/sess-1/tools?since=2026-02-01T00:00:00Z", { agent: "alice" });
    expect(since.body.tools.map((t: { tool: string }) => t.tool)).toEqual(["log"]);
    const until = await call("GET", "/api/sessions/sess-1/tools?until=2026-01-31", { agent: "alice" });
    expect(until.body.tools).toEqual([{ server: "web", tool: "fetch", calls: 1, failures: 0, p50: 7, p95: 7 }]);
    expect(await d.client("alice").analytics.sessionTools("sess-1")).toEqual(alice.body);
  });

  test("bad input is a 400 naming the parameter", async () => {
    expectInvalid(await call("GET", "/api/sessions/s/tools?since=yesterday"), "since");
    expectInvalid(await call("GET", "/api/sessions/s/tools?until=2026-13-01"), "until");
    expectInvalid(await call("GET", "/api/sessions/s/tools?since=2026-02-01&until=2026-01-01"), "since", "after until");
    expectInvalid(await call("GET", "/api/sessions/s/tools?limit=3"), "unknown", "limit");
    expectInvalid(await call("GET", `/api/sessions/${"x".repeat(600)}/tools`), "session key");
    expectInvalid(await call("GET", "/api/sessions/s/tools", { agent: "bad agent!" }), "agent id");
  });
});

describe("GET /api/mcp/unused", () => {
  test("each installed server's live tools against the rollups; a server that cannot start is said so; bounded", async () => {
    const install = async (name: string, transport: unknown, enabled = true) =>
      expect((await call("POST", "/api/marketplace/servers", { body: { name, transport, enabled } })).status).toBe(201);
    await install("fake", fakeStdio());
    await install("broken", { type: "stdio", command: "/nonexistent/signet-test-binary" });
    // Never answers initialize: only the timeout ends the wait.
    await install("mute", { type: "stdio", command: "/bin/sh", args: ["-c", "exec sleep 30"] });
    await install("off", fakeStdio(), false);

    // Before anything listed them, start=false (what `signet mcp list` asks) starts nothing.
    const cheap = await call("GET", "/api/mcp/unused?start=false");
    expect(cheap.body.servers.map((s: { server: string; status: string }) => [s.server, s.status])).toEqual([
      ["broken", "not_listed"],
      ["fake", "not_listed"],
      ["mute", "not_listed"],
      ["off", "disabled"],
    ]);
    expect(d.daemon.context.bridge.live()).toEqual([]);

    // `cwd` called eleven days ago, `text` forty days ago: unused in 7 days both, in 30 only `text`.
    await seed([row("fake", "cwd", 1, { createdAt: daysAgo(11) }), row("fake", "text", 1, { createdAt: daysAgo(40) })]);
    const started = performance.now();
    const live = await call("GET", "/api/mcp/unused?days=30&timeout_ms=1500");
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(live.status).toBe(200);
    const { servers, ...window } = live.body;
    expect(window).toEqual({ days: 30, since: daysAgo(29).slice(0, 10) });
    expect(servers[0]).toMatchObject({ server: "broken", status: "unavailable", tools: 0, unused: [] });
    expect(servers[0].error).toContain("broken");
    expect(servers[1]).toEqual({ server: "fake", status: "listed", tools: 2, unused: [{ tool: "text", lastCalledAt: daysAgo(40) }] });
    expect(servers[2]).toMatchObject({ server: "mute", status: "unavailable", tools: 0, unused: [] });
    expect(servers[3]).toEqual({ server: "off", status: "disabled", tools: 0, unused: [] });
    // fake runs now: what is left to wait for is mute, to a shorter bound.
    const week = await call("GET", "/api/mcp/unused?days=7&timeout_ms=500");
    expect(week.body.servers[1].unused).toEqual([
      { tool: "cwd", lastCalledAt: daysAgo(11) },
      { tool: "text", lastCalledAt: daysAgo(40) },
    ]);

    // Now the daemon holds fake's tool list: start=false answers for it too, and `signet mcp list` hints.
    const known = await call("GET", "/api/mcp/unused?start=false");
    expect(known.body.servers[1]).toEqual(servers[1]);
    const pretty = await cli(mcpList, ["--pretty"]);
    expect(pretty).toContain("hint: fake has 1 of 2 tools with no call in 30 days (text)");
    const listed = JSON.parse(await cli(mcpList, ["--json"]));
    expect(listed.servers.find((s: { name: string }) => s.name === "fake").unusedTools).toEqual(["text"]);
    expect(listed.servers.find((s: { name: string }) => s.name === "broken").unusedTools).toBeUndefined();

    // Retention prunes the raw rows (here: everything older than 5 days); the rollups answer the same.
    const { analytics } = d.daemon.context;
    const db = d.daemon.context.stores.sqlite!;
    const rawBefore = db.query("SELECT COUNT(*) AS n FROM mcp_invocations WHERE server = 'fake'").get() as { n: number };
    expect(rawBefore.n).toBe(2);
    expect(await analytics.prune(Date.now() + 25 * DAY_MS)).toBeGreaterThanOrEqual(2);
    expect(db.query("SELECT COUNT(*) AS n FROM mcp_invocations WHERE server = 'fake'").get()).toEqual({ n: 0 });
    const after = await call("GET", "/api/mcp/unused?days=30&timeout_ms=500");
    expect(after.body.servers[1]).toEqual(servers[1]);
    expect((await call("GET", "/api/mcp/unused?days=7&timeout_ms=500")).body.servers[1]).toEqual(week.body.servers[1]);
  }, 60_000);

  test("bad input is a 400 naming the parameter", async () => {
    expectInvalid(await call("GET", "/api/mcp/unused?days=0"), "days", "at least 1");
    expectInvalid(await call("GET", "/api/mcp/unused?days=abc"), "days", "whole number");
    expectInvalid(await call("GET", "/api/mcp/unused?start=maybe"), "start");
    expectInvalid(await call("GET", "/api/mcp/unused?timeout_ms=5"), "timeout_ms");
  });
});

describe("the guard", () => {
  test("a wrong Host or a foreign Origin is refused on every new route", async () => {
    for (const path of ["/api/mcp/alerts", "/api/mcp/features", "/api/mcp/unused?start=false", "/api/sessions/sess-1/tools"]) {
      for (const headers of forgedCallers(d)) {
        const res = await d.fetch(path, { headers: { ...headers, "x-signet-agent-id": "alice" } });
        expect({ path, headers, status: res.status }).toEqual({ path, headers, status: 403 });
      }
    }
  });

  test("an agent token sees its own agent's session usage whatever the header says; start=true needs mcp-call", async () => {
    const handle = createHandler(d.daemon.context);
    const asToken = (path: string, role: "agent" | "readonly", agentId: string | null) => {
      const req = new Request(`${d.url}${path}`, { headers: { "x-signet-agent-id": "bob" } });
      setPrincipal(req, { kind: "token", tokenId: "tok_0000000000000000", role, agentId });
      return handle(req).then(async (res) => ({ status: res.status, body: await res.json() }));
    };
    const alice = await asToken("/api/sessions/sess-1/tools", "agent", "alice");
    expect(alice.status).toBe(200);
    // The header says bob; the token is alice's (the unused test's prune has taken her January row).
    expect(alice.body).toEqual((await call("GET", "/api/sessions/sess-1/tools", { agent: "alice" })).body);
    expect(alice.body).toMatchObject({ agentId: "alice", totalCalls: 3, failures: 1 });
    const readonly = await asToken("/api/mcp/unused", "readonly", null);
    expect(readonly.status).toBe(403);
    expect(readonly.body.error).toContain("mcp-call");
    expect((await asToken("/api/mcp/unused?start=false", "readonly", null)).status).toBe(200);
    expect((await asToken("/api/mcp/alerts", "readonly", null)).status).toBe(200);
  });

  test("tokens need analytics-read for /api/mcp/* and sessions-read for a session's tools", () => {
    for (const path of ["/api/mcp/alerts", "/api/mcp/features", "/api/mcp/unused"]) expect(permissionFor("GET", path)).toBe("analytics-read");
    expect(permissionFor("GET", "/api/sessions/sess-1/tools")).toBe("sessions-read");
  });
});

const cli = (command: unknown, args: string[]) => cliOutput(d, command, args);

