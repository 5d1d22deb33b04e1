// Invocation reports and the analytics API against a real daemon (temp SQLite, free port): reports
// are visible within flushMs, every bad input is a 400 naming the field, unknown servers are zeros,
// and the client and the `analytics` CLI command read the same answers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ApiError } from "../../src/client/client";
import { analyticsCommand, renderAnalytics } from "../../src/cli/mcp-analytics";
import type { AnalyticsResponse } from "../../src/contracts/analytics";
import { cliOutput } from "../helpers/cli-in-process";
import { eventually } from "../helpers/wait";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";

let d: TestDaemon;

beforeAll(async () => {
  d = await startTestDaemon({ yaml: "analytics:\n  flushMs: 50\n" });
});

afterAll(async () => {
  await d.stop();
});

async function call(method: string, path: string, body?: unknown, agent?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { accept: "application/json", ...d.ownerHeaders };
  if (agent) headers["x-signet-agent-id"] = agent;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await d.fetch(path, { method, headers, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

function expectInvalid(res: { status: number; body: any }, ...mentions: string[]): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status: 400, code: "invalid_input" });
  expect(Object.keys(res.body).sort()).toEqual(["code", "error"]);
  for (const m of mentions) expect(res.body.error).toContain(m);
}

const RESPONSE_KEYS = ["agents", "failureCount", "failureRate", "latency", "successCount", "timeline", "topServers", "topTools", "totalCalls"];

let agentCounter = 0;
/** A fresh agent per test keeps the tests independent on one daemon. */
const freshAgent = () => `analytics-agent-${++agentCounter}`;

async function analyticsOf(agent: string, extra = ""): Promise<AnalyticsResponse> {
  const res = await call("GET", `/api/mcp/analytics?agent_id=${agent}${extra}`);
  expect(res.status).toBe(200);
  return res.body;
}

describe("POST /api/mcp/invocations", () => {
  test("reports are accepted (202) and visible within flushMs, as source mcp of the calling agent", async () => {
    const agent = freshAgent();
    const res = await call(
      "POST",
      "/api/mcp/invocations",
      {
        invocations: [
          { tool: "memory_search", latencyMs: 12.4, success: true, sessionKey: "s-1" },
          { tool: "memory_search", latencyMs: 30, success: false, errorText: "no daemon" },
          { server: "signet", tool: "memory_store", latencyMs: 8, success: true, createdAt: "2026-01-02T03:04:05Z" },
        ],
      },
      agent,
    );
    expect(res).toEqual({ status: 202, body: { accepted: 3 } });
    expect(await eventually(async () => (await analyticsOf(agent)).totalCalls === 3)).toBe(true);
    const r = await analyticsOf(agent);
    expect(Object.keys(r).sort()).toEqual(RESPONSE_KEYS);
    expect(r).toMatchObject({ totalCalls: 3, successCount: 2, failureCount: 1, latency: { p50: 12, p95: 30 } });
    expect(r.failureRate).toBeCloseTo(1 / 3, 12);
    expect(r.topServers).toEqual([{ server: "signet", calls: 3, failures: 1, p50: 12, p95: 30 }]);
    expect(r.topTools).toEqual([
      { server: "signet", tool: "memory_search", calls: 2, successCount: 1, failureCount: 1, p50: 12, p95: 30 },
      { server: "signet", tool: "memory_store", calls: 1, successCount: 1, failureCount: 0, p50: 8, p95: 8 },
    ]);
    expect(r.agents).toEqual([{ agentId: agent, calls: 3, failures: 1 }]);
    expect(r.timeline).toContainEqual({ day: "2026-01-02", server: "signet", calls: 1, failures: 0 });
    // Stored as reported, with the agent from the header and source mcp.
    const rows = d.daemon.context.stores.sqlite!
      .query("SELECT source, session_key, created_at FROM mcp_invocations WHERE agent_id = ? ORDER BY id")
      .all(agent);
    expect(rows).toEqual([
      { source: "mcp", session_key: "s-1", created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) },
      { source: "mcp", session_key: null, created_at: expect.any(String) },
      { source: "mcp", session_key: null, created_at: "2026-01-02T03:04:05.000Z" },
    ]);
    expect((await analyticsOf(agent, "&source=mcp")).totalCalls).toBe(3);
    expect((await analyticsOf(agent, "&source=cli")).totalCalls).toBe(0);
  });

  test("an empty batch is fine", async () => {
    expect(await call("POST", "/api/mcp/invocations", { invocations: [] })).toEqual({ status: 202, body: { accepted: 0 } });
  });

  test("bad bodies are 400s naming the problem", async () => {
    const ok = { tool: "t", latencyMs: 1, success: true };
    expectInvalid(await call("POST", "/api/mcp/invocations", {}), "invocations", "required");
    expectInvalid(await call("POST", "/api/mcp/invocations", { invocations: [{ latencyMs: 1, success: true }] }), "invocations.0.tool");
    expectInvalid(await call("POST", "/api/mcp/invocations", { invocations: [{ ...ok, latencyMs: -1 }] }), "invocations.0.latencyMs");
    expectInvalid(await call("POST", "/api/mcp/invocations", { invocations: [{ ...ok, success: "yes" }] }), "invocations.0.success");
    expectInvalid(await call("POST", "/api/mcp/invocations", { invocations: [{ ...ok, agentId: "x" }] }), "unknown field", "agentId");
    expectInvalid(await call("POST", "/api/mcp/invocations", { invocations: [ok], extra: 1 }), "unknown field", "extra");
    expectInvalid(await call("POST", "/api/mcp/invocations", { invocations: [{ ...ok, createdAt: "yesterday" }] }), "createdAt");
    expectInvalid(await call("POST", "/api/mcp/invocations", { invocations: [{ ...ok, createdAt: "2999-01-01T00:00:00Z" }] }), "createdAt", "future");
    expectInvalid(await call("POST", "/api/mcp/invocations", { invocations: Array(1001).fill(ok) }), "at most 1000");
    expectInvalid(await call("POST", "/api/mcp/invocations", "{not json"), "not valid JSON");
    expectInvalid(await call("POST", "/api/mcp/invocations", { invocations: [ok] }, "bad agent!"), "agent id");
  });
});

describe("GET /api/mcp/analytics", () => {
  test("calls recorded inside the daemon are counted per server, tool and agent", async () => {
    const agent = freshAgent();
    const { analytics } = d.daemon.context;
    for (const [tool, latencyMs, success] of [["search", 10, true], ["search", 20, true], ["fetch", 300, false]] as const) {
      analytics.record({ server: "web", tool, agentId: agent, source: "agent", latencyMs, success });
    }
    analytics.record({ server: "git", tool: "log", agentId: agent, source: "cli", latencyMs: 5, success: true, client: "cli" });
    expect(await eventually(async () => (await analyticsOf(agent)).totalCalls === 4)).toBe(true);
    const r = await analyticsOf(agent);
    expect(r.topServers.map((s) => [s.server, s.calls, s.failures])).toEqual([
      ["web", 3, 1],
      ["git", 1, 0],
    ]);
    expect((await analyticsOf(agent, "&server=web&limit=1")).topTools).toEqual([
      { server: "web", tool: "search", calls: 2, successCount: 2, failureCount: 0, p50: 10, p95: 20 },
    ]);
    expect((await analyticsOf(agent, "&source=cli")).totalCalls).toBe(1);

    const perServer = await call("GET", `/api/mcp/analytics/web?agent_id=${agent}&limit=1`);
    expect(perServer.status).toBe(200);
    expect(perServer.body.topTools.map((t: { tool: string }) => t.tool)).toEqual(["search", "fetch"]);
    expect(perServer.body.topServers).toEqual([{ server: "web", calls: 3, failures: 1, p50: 20, p95: 300 }]);
  });

  test("an unknown server is zero counts and a 200", async () => {
    for (const path of ["/api/mcp/analytics?server=no-such-server", "/api/mcp/analytics/no-such-server"]) {
      const res = await call("GET", path);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ totalCalls: 0, successCount: 0, failureCount: 0, failureRate: 0, latency: { p50: null, p95: null } });
      expect(res.body.topTools).toEqual([]);
    }
    const perServer = await call("GET", "/api/mcp/analytics/no-such-server");
    expect(perServer.body.timeline).toHaveLength(7);
    expect(perServer.body.timeline.every((p: { server: string; calls: number }) => p.server === "no-such-server" && p.calls === 0)).toBe(true);
  });

  test("bad query parameters are 400s naming the field", async () => {
    const cases: [string, ...string[]][] = [
      ["limit=0", "limit", "at least 1"],
      ["limit=101", "limit", "at most 100"],
      ["limit=ten", "limit", "whole number"],
      ["source=robot", "source", "cli, agent, mcp"],
      ["since=last-week", "since"],
      ["until=2026-02-30", "until", "real date"],
      ["since=2026-03-02&until=2026-03-01", "since", "after until"],
      ["agent_id=bad%20agent", "agent_id"],
      ["server=", "server", "empty"],
      ["color=blue", "unknown field", "color"],
    ];
    for (const [query, ...mentions] of cases) expectInvalid(await call("GET", `/api/mcp/analytics?${query}`), ...mentions);
    expectInvalid(await call("GET", "/api/mcp/analytics/web?server=web"), "unknown field", "server");
    expectInvalid(await call("GET", "/api/mcp/analytics/web?limit=-1"), "limit");
    expectInvalid(await call("GET", "/api/mcp/analytics/%ZZ"), "server name");
  });
});

describe("client and CLI", () => {
  test("the client reports and reads; its errors carry the code", async () => {
    const agent = freshAgent();
    const client = d.client(agent);
    expect(await client.analytics.report({ invocations: [{ tool: "recall", latencyMs: 4, success: true }] })).toEqual({ accepted: 1 });
    expect(await eventually(async () => (await client.analytics.summary({ agent_id: agent })).totalCalls === 1)).toBe(true);
    const one = await client.analytics.server("signet", { agent_id: agent });
    expect(one.topTools.map((t) => t.tool)).toEqual(["recall"]);
    const err = await client.analytics.summary({ limit: 0 }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, code: "invalid_input" });
  });

  const cli = (args: string[]) => cliOutput(d, analyticsCommand, args);

  test("`analytics` prints the API's answer as JSON, or readable with --pretty", async () => {
    const agent = freshAgent();
    d.daemon.context.analytics.record({ server: "web", tool: "search", agentId: agent, source: "agent", latencyMs: 9, success: true });
    await d.daemon.context.analytics.flush();
    const { alerts, ...json } = JSON.parse(await cli(["--agent-id", agent, "--json"]));
    expect(json).toEqual(await d.client().analytics.summary({ agent_id: agent }));
    // Latency alerts lead the answer (none configured here).
    expect(alerts).toMatchObject({ window: { hours: 24 }, alerts: [] });
    expect(json.totalCalls).toBe(1);
    const perServer = JSON.parse(await cli(["web", "--agent-id", agent, "--json"]));
    expect(perServer.topTools.map((t: { tool: string }) => t.tool)).toEqual(["search"]);
    const pretty = await cli(["--server", "web", "--agent-id", agent, "--pretty"]);
    expect(pretty).toBe(`${renderAnalytics(json)}\n`);
  });

  test("bad flags are refused naming the flag: the daemon's invalid_input (exit 2), or a usage error before any request", async () => {
    for (const [args, field] of [
      [["--limit", "0"], "limit"],
      [["--source", "carrier"], "source"],
      [["--since", "yesterday"], "since"],
      [["--alert-hours", "0"], "hours"],
    ] as [string[], string][]) {
      const err = await cli(args).catch((e) => e);
      expect({ args, status: err.status, code: err.code, named: String(err.message).includes(`${field}:`) }).toEqual({ args, status: 400, code: "invalid_input", named: true });
    }
    const both = await cli(["web", "--server", "git"]).catch((e) => e);
    expect(both.message).toContain("two servers");
    expect((await cli(["--server", " "]).catch((e) => e)).message).toContain("cannot be empty");
  });
});

describe("analytics.trackAgentCalls off", () => {
  test("reports of agents' calls are accepted but not recorded", async () => {
    const off = await startTestDaemon({ yaml: "analytics:\n  trackAgentCalls: false\n" });
    try {
      const res = await off.fetch("/api/mcp/invocations", {
        method: "POST",
        headers: { "content-type": "application/json", ...off.ownerHeaders },
        body: JSON.stringify({ invocations: [{ tool: "t", latencyMs: 1, success: true }] }),
      });
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ accepted: 0 });
      await off.daemon.context.analytics.flush();
      expect((await off.client().analytics.summary()).totalCalls).toBe(0);
    } finally {
      await off.stop();
    }
  });
});
