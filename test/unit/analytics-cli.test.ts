// The readable rendering of `signet mcp analytics --pretty`: totals, tables, and a sparkline per
// server over the last 7 UTC days.
import { describe, expect, test } from "bun:test";
import { renderAnalytics, sparkline } from "../../src/cli/mcp-analytics";
import type { AnalyticsResponse } from "../../src/contracts/analytics";
import { NO_CALLS } from "../helpers/analytics";

const NOW = Date.parse("2026-03-10T12:00:00.000Z");
const DAYS = ["2026-03-04", "2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09", "2026-03-10"];

describe("sparkline", () => {
  test("· for a day without calls, bars scaled to the busiest day", () => {
    expect(sparkline([0, 1, 2, 4, 8, 0, 8])).toBe("·▁▂▄█·█");
    expect(sparkline([0, 0])).toBe("··");
    expect(sparkline([1000, 1])).toBe("█▁");
  });
});

describe("renderAnalytics", () => {
  test("totals, servers, tools, agents and the week", () => {
    const githubCalls = [0, 2, 4, 0, 8, 1, 0];
    const r: AnalyticsResponse = {
      totalCalls: 1234,
      successCount: 1200,
      failureCount: 34,
      failureRate: 34 / 1234,
      latency: { p50: 12, p95: 1500 },
      topServers: [{ server: "github", calls: 1234, failures: 34, p50: 12, p95: 1500 }],
      topTools: [{ server: "github", tool: "search", calls: 1234, successCount: 1200, failureCount: 34, p50: 12, p95: 1500 }],
      agents: [{ agentId: "codex", calls: 1234, failures: 34 }],
      timeline: [
        { day: "2026-02-01", server: "github", calls: 1219, failures: 30 },
        ...DAYS.map((day, i) => ({ day, server: "github", calls: githubCalls[i]!, failures: 0 })),
      ],
    };
    expect(renderAnalytics(r, NOW)).toBe(
      [
        "1,234 calls · 1,200 ok · 34 failed (2.8%) · p50 12 ms · p95 1,500 ms",
        "",
        "server  calls  failures    p50       p95",
        "github  1,234        34  12 ms  1,500 ms",
        "",
        "tool           calls     ok  failed    p50       p95",
        "github/search  1,234  1,200      34  12 ms  1,500 ms",
        "",
        "agent  calls  failures",
        "codex  1,234        34",
        "",
        "last 7 days (UTC 03-04 → 03-10)",
        "server  calls/day  total",
        "github  ·▂▄·█▁·       15",
      ].join("\n"),
    );
  });

  test("no calls", () => {
    expect(renderAnalytics(NO_CALLS, NOW)).toBe("no calls recorded for this selection");
  });
});
