// The analytics answer (docs/api.md#analytics) on a small hand-computed data set: counts, failure rate,
// nearest-rank percentiles at every level, each filter, limit, the zero-filled timeline, and the
// per-server view.
import { describe, expect, test } from "bun:test";
import { InvocationColumns } from "../../src/core/analytics/columns";
import type { ColumnRow } from "../../src/core/analytics/types";
import { nearestRank, summarize, type AnalyticsFilter, type SummaryOptions } from "../../src/core/analytics/query";
import type { InvocationSource } from "../../src/contracts/analytics";
import { NO_CALLS } from "../helpers/analytics";

const NOW = Date.parse("2026-03-10T12:00:00.000Z");

function rows(
  server: string,
  tool: string,
  agentId: string,
  source: InvocationSource,
  at: string,
  latencies: number[],
  failures = 0,
): ColumnRow[] {
  return latencies.map((latencyMs, i) => ({
    server,
    tool,
    agentId,
    source,
    latencyMs,
    // The first `failures` calls fail.
    success: i >= failures,
    createdMs: Date.parse(at) + i * 1000,
  }));
}

/**
 * alpha/read   5 calls, 0 failed, a1, cli,   2026-03-10  latencies 10 20 30 40 50
 * alpha/write  2 calls, 1 failed, a2, agent, 2026-03-09  latencies 100 200
 * beta/search  8 calls, 2 failed, a1, mcp,   2026-03-05  latencies 5 7 9 11 13 15 17 19
 *              2 calls, 1 failed, a1, mcp,   2026-02-20  latencies 21 23
 */
function dataset(): InvocationColumns {
  const cols = new InvocationColumns();
  cols.append([
    ...rows("alpha", "read", "a1", "cli", "2026-03-10T08:00:00.000Z", [10, 20, 30, 40, 50]),
    ...rows("alpha", "write", "a2", "agent", "2026-03-09T08:00:00.000Z", [100, 200], 1),
    ...rows("beta", "search", "a1", "mcp", "2026-03-05T08:00:00.000Z", [5, 7, 9, 11, 13, 15, 17, 19], 2),
    ...rows("beta", "search", "a1", "mcp", "2026-02-20T08:00:00.000Z", [21, 23], 1),
  ]);
  return cols;
}

const run = (filter: AnalyticsFilter = {}, options: SummaryOptions = {}, cols = dataset()) =>
  summarize(cols, filter, { now: NOW, ...options });

const LAST_7 = ["2026-03-04", "2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09", "2026-03-10"];

describe("nearestRank", () => {
  test("rank ⌈p/100·n⌉ over the sorted values; null when empty", () => {
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    // 0.95 × 20 is 19 exactly: the 19th value, not the 20th.
    expect(nearestRank(twenty, 95)).toBe(19);
    expect(nearestRank(twenty, 50)).toBe(10);
    expect(nearestRank([1, 2, 3], 50)).toBe(2);
    expect(nearestRank([1, 2, 3], 95)).toBe(3);
    expect(nearestRank([7], 50)).toBe(7);
    expect(nearestRank([7], 95)).toBe(7);
    expect(nearestRank([1, 2], 50)).toBe(1);
    expect(nearestRank([], 50)).toBeNull();
  });
});

describe("summarize", () => {
  test("totals, failure rate and percentiles at every level", () => {
    const r = run();
    expect(r.totalCalls).toBe(17);
    expect(r.successCount).toBe(13);
    expect(r.failureCount).toBe(4);
    expect(r.failureRate).toBeCloseTo(4 / 17, 12);
    // Sorted: 5 7 9 10 11 13 15 17 19 20 21 23 30 40 50 100 200; ranks 9 and 17.
    expect(r.latency).toEqual({ p50: 19, p95: 200 });
    expect(r.topServers).toEqual([
      // 5 … 23: ranks 5 and 10.
      { server: "beta", calls: 10, failures: 3, p50: 13, p95: 23 },
      // 10 20 30 40 50 100 200: ranks 4 and 7.
      { server: "alpha", calls: 7, failures: 1, p50: 40, p95: 200 },
    ]);
    expect(r.topTools).toEqual([
      { server: "beta", tool: "search", calls: 10, successCount: 7, failureCount: 3, p50: 13, p95: 23 },
      { server: "alpha", tool: "read", calls: 5, successCount: 5, failureCount: 0, p50: 30, p95: 50 },
      { server: "alpha", tool: "write", calls: 2, successCount: 1, failureCount: 1, p50: 100, p95: 200 },
    ]);
    expect(r.agents).toEqual([
      { agentId: "a1", calls: 15, failures: 3 },
      { agentId: "a2", calls: 2, failures: 1 },
    ]);
  });

  test("timeline: the last 7 UTC days zero-filled per listed server, plus older days with calls", () => {
    const { timeline } = run();
    const expected = [
      { day: "2026-02-20", server: "beta", calls: 2, failures: 1 },
      ...LAST_7.flatMap((day) => [
        { day, server: "alpha", calls: day === "2026-03-10" ? 5 : day === "2026-03-09" ? 2 : 0, failures: day === "2026-03-09" ? 1 : 0 },
        { day, server: "beta", calls: day === "2026-03-05" ? 8 : 0, failures: day === "2026-03-05" ? 2 : 0 },
      ]),
    ];
    expect(timeline).toEqual(expected);
  });

  test("a day runs 00:00:00.000 to 23:59:59.999 UTC", () => {
    const cols = new InvocationColumns();
    cols.append([
      ...rows("s", "t", "a", "cli", "2026-03-09T23:59:59.999Z", [1]),
      ...rows("s", "t", "a", "cli", "2026-03-10T00:00:00.000Z", [1]),
    ]);
    const days = run({}, {}, cols).timeline.filter((p) => p.calls > 0).map((p) => [p.day, p.calls]);
    expect(days).toEqual([
      ["2026-03-09", 1],
      ["2026-03-10", 1],
    ]);
  });

  test("filter by agent", () => {
    const r = run({ agentId: "a2" });
    expect(r.totalCalls).toBe(2);
    expect(r.topServers.map((s) => s.server)).toEqual(["alpha"]);
    expect(r.topTools.map((t) => t.tool)).toEqual(["write"]);
    expect(r.agents).toEqual([{ agentId: "a2", calls: 2, failures: 1 }]);
    expect(r.latency).toEqual({ p50: 100, p95: 200 });
  });

  test("filter by server", () => {
    const r = run({ server: "alpha" });
    expect(r.totalCalls).toBe(7);
    expect(r.failureCount).toBe(1);
    expect(r.topTools.map((t) => t.tool)).toEqual(["read", "write"]);
    expect(r.agents.map((a) => [a.agentId, a.calls])).toEqual([
      ["a1", 5],
      ["a2", 2],
    ]);
    expect(new Set(r.timeline.map((p) => p.server))).toEqual(new Set(["alpha"]));
  });

  test("filter by source", () => {
    expect(run({ source: "cli" }).totalCalls).toBe(5);
    expect(run({ source: "agent" }).totalCalls).toBe(2);
    const mcp = run({ source: "mcp" });
    expect(mcp.totalCalls).toBe(10);
    expect(mcp.topServers.map((s) => s.server)).toEqual(["beta"]);
  });

  test("since and until are inclusive bounds on the call's time", () => {
    // alpha/read's calls are at 08:00:00 … 08:00:04 on 2026-03-10.
    const r = run({ since: "2026-03-10T08:00:01.000Z", until: "2026-03-10T08:00:03.000Z" });
    expect(r.totalCalls).toBe(3);
    expect(r.latency).toEqual({ p50: 30, p95: 40 });
    expect(run({ since: "2026-03-01T00:00:00.000Z" }).totalCalls).toBe(15);
    expect(run({ until: "2026-03-01T00:00:00.000Z" }).totalCalls).toBe(2);
  });

  test("the zero-filled days are only those the range touches", () => {
    const r = run({ since: "2026-03-08T00:00:00.000Z" });
    expect([...new Set(r.timeline.map((p) => p.day))]).toEqual(["2026-03-08", "2026-03-09", "2026-03-10"]);
    // beta has no call in the range, so it is not listed.
    expect(new Set(r.timeline.map((p) => p.server))).toEqual(new Set(["alpha"]));
    expect(run({ until: "2026-02-28T00:00:00.000Z" }).timeline).toEqual([{ day: "2026-02-20", server: "beta", calls: 2, failures: 1 }]);
  });

  test("limit cuts servers, tools and agents, and the timeline follows the listed servers", () => {
    const r = run({ limit: 1 });
    expect(r.totalCalls).toBe(17);
    expect(r.topServers.map((s) => s.server)).toEqual(["beta"]);
    expect(r.topTools.map((t) => t.tool)).toEqual(["search"]);
    expect(r.agents.map((a) => a.agentId)).toEqual(["a1"]);
    expect(new Set(r.timeline.map((p) => p.server))).toEqual(new Set(["beta"]));
    // The overall figures still cover everything.
    expect(r.latency).toEqual({ p50: 19, p95: 200 });
  });

  test("ties in calls are broken by name", () => {
    const cols = new InvocationColumns();
    cols.append([
      ...rows("zeta", "b", "z", "cli", "2026-03-10T00:00:00.000Z", [1, 1]),
      ...rows("eta", "b", "y", "cli", "2026-03-10T00:00:00.000Z", [1, 1]),
      ...rows("eta", "a", "x", "cli", "2026-03-10T00:00:00.000Z", [1, 1]),
    ]);
    const r = run({}, {}, cols);
    expect(r.topServers.map((s) => s.server)).toEqual(["eta", "zeta"]);
    expect(r.topTools.map((t) => `${t.server}/${t.tool}`)).toEqual(["eta/a", "eta/b", "zeta/b"]);
    expect(r.agents.map((a) => a.agentId)).toEqual(["x", "y", "z"]);
  });

  test("a filter naming nothing known: zero counts, null percentiles, empty lists", () => {
    for (const filter of [{ server: "nope" }, { agentId: "nobody" }] as AnalyticsFilter[]) {
      expect(run(filter)).toEqual(NO_CALLS);
    }
    expect(run({}, {}, new InvocationColumns()).totalCalls).toBe(0);
  });

  test("per server: every tool, whatever the limit, and a zero-filled timeline even without calls", () => {
    const cols = dataset();
    cols.append(rows("alpha", "delete", "a1", "cli", "2026-03-10T09:00:00.000Z", [7]));
    const r = run({ server: "alpha", limit: 1 }, { everyTool: true, timelineServer: "alpha" }, cols);
    expect(r.totalCalls).toBe(8);
    expect(r.topServers.map((s) => s.server)).toEqual(["alpha"]);
    expect(r.topTools.map((t) => t.tool)).toEqual(["read", "write", "delete"]);

    const none = run({ server: "ghost" }, { everyTool: true, timelineServer: "ghost" }, cols);
    expect(none.totalCalls).toBe(0);
    expect(none.timeline).toEqual(LAST_7.map((day) => ({ day, server: "ghost", calls: 0, failures: 0 })));
  });
});
