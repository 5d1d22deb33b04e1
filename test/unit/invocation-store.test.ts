// Invocation analytics on both stores: the same cases through Analytics against the daemon's SQLite
// file and against a real PostgreSQL (a throwaway cluster), so the two InvocationStores cannot drift:
// recorded calls in the summary, the scorer features and the unused tools from the daily rollups, a
// session's tool usage from the raw rows, retention. On PostgreSQL also what only a shared store
// has: two daemons recording at once add up in the rollups, a daemon starting loads what the
// others recorded, and with the invocation feed each daemon's summary counts every daemon's calls.
import { describe, expect, test } from "bun:test";
import { Analytics, type AnalyticsConfig } from "../../src/core/analytics";
import { InvocationFeed, PostgresInvocationStore } from "../../src/core/analytics/postgres-store";
import { SqliteInvocationStore } from "../../src/core/analytics/sqlite-store";
import type { InvocationStore } from "../../src/core/analytics/store";
import type { InvocationRecord } from "../../src/core/analytics/types";
import { migratedDb } from "../helpers/analytics";
import { recordingLogger } from "../helpers/log";
import { postgresDatabases } from "../helpers/postgres-databases";
import { eventually } from "../helpers/wait";

const postgres = postgresDatabases();

const DAY = 86_400_000;
const NOW = Date.now();
const CONFIG: AnalyticsConfig = { retentionDays: 30, flushMs: 3_600_000, trackAgentCalls: true };

const STORES: { name: string; available: boolean; open(): Promise<() => InvocationStore> }[] = [
  {
    name: "SQLite",
    available: true,
    async open() {
      const db = migratedDb();
      return () => new SqliteInvocationStore(db);
    },
  },
  {
    name: "PostgreSQL",
    available: postgres.available,
    async open() {
      const connect = await postgres.database({ max: 2 });
      return () => new PostgresInvocationStore(connect());
    },
  },
];

function call(over: Partial<InvocationRecord> = {}): InvocationRecord {
  return { server: "github", tool: "search", agentId: "codex", source: "agent", latencyMs: 40, success: true, createdAt: new Date(NOW - 60_000).toISOString(), ...over };
}

function analytics(store: InvocationStore, config: AnalyticsConfig = CONFIG): { analytics: Analytics; logged: string[] } {
  const { log, lines } = recordingLogger();
  return { analytics: new Analytics(store, config, log), logged: lines };
}

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`invocations on ${kind.name}`, () => {
    test("recorded calls are summed, featured from the rollups, and listed per session; a restart loads them", async () => {
      const store = await kind.open();
      const { analytics: a, logged } = analytics(store());
      a.start();
      await a.ready();
      for (let i = 0; i < 8; i++) a.record(call({ latencyMs: 10 * (i + 1), sessionKey: "s1" }));
      a.record(call({ tool: "issues", success: false, errorText: "rate limited", sessionKey: "s1" }));
      a.record(call({ server: "fs", tool: "read", agentId: "claude", source: "cli", createdAt: new Date(NOW - 10 * DAY).toISOString() }));
      await a.flush();
      const summary = await a.summary({});
      expect(summary).toMatchObject({ totalCalls: 10, successCount: 9, failureCount: 1 });
      expect(summary.topServers.map((s) => [s.server, s.calls])).toEqual([
        ["github", 9],
        ["fs", 1],
      ]);
      const features = await a.features({}, NOW);
      const github = features.servers.find((s) => s.server === "github")!;
      expect(github.callsPerDay7).toBeCloseTo(9 / 7, 10);
      expect(github.successRate).toBeCloseTo(8 / 9, 10);
      expect(features.servers.find((s) => s.server === "fs")).toMatchObject({ callsPerDay7: 0, callsPerDay30: 1 / 30 });
      expect((await a.features({ agentId: "claude" }, NOW)).servers.map((s) => s.server)).toEqual(["fs"]);
      const unused = await a.unused([{ name: "github", enabled: true, tools: async () => ({ names: ["search", "issues", "pulls"] }) }], 30, NOW);
      expect(unused.servers[0]).toMatchObject({ server: "github", status: "listed", tools: 3, unused: [{ tool: "pulls", lastCalledAt: null }] });
      const session = await a.sessionTools("s1", { agentId: "codex", sessionKeys: ["s1"] });
      expect(session).toMatchObject({ totalCalls: 9, failures: 1 });
      expect(session.tools.map((t) => [t.tool, t.calls, t.p50])).toEqual([
        ["search", 8, 40],
        ["issues", 1, 40],
      ]);
      expect((await a.sessionTools("s1", { agentId: "claude", sessionKeys: ["s1"] })).totalCalls).toBe(0);
      await a.stop();
      // Another start on the same store loads every row once.
      const { analytics: again } = analytics(store());
      again.start();
      await again.ready();
      expect((await again.summary({})).totalCalls).toBe(10);
      await again.stop();
      expect(logged.filter((l) => l.startsWith("error"))).toEqual([]);
    });

    test("a call reported at any time of the years 0000-9999 is stored as given, and a restart loads it", async () => {
      const store = await kind.open();
      const { analytics: a, logged } = analytics(store(), { ...CONFIG, retentionDays: 0 });
      a.start();
      await a.ready();
      for (const createdAt of ["0000-01-01T00:00:00.000Z", "1969-07-20T20:17:00.000Z", new Date(NOW - 60_000).toISOString()]) a.record(call({ createdAt }));
      await a.flush();
      await a.stop();
      // PostgreSQL has no year 0000: reading the rows back must not depend on its timestamps.
      const { analytics: again } = analytics(store(), { ...CONFIG, retentionDays: 0 });
      again.start();
      await again.ready();
      expect((await again.summary({})).totalCalls).toBe(3);
      await again.stop();
      expect(logged.filter((l) => l.startsWith("error"))).toEqual([]);
    });

    test("retention deletes raw rows past the window, from the store and the columns; the rollups stay", async () => {
      const store = await kind.open();
      const { analytics: a } = analytics(store());
      for (const age of [45, 31, 29, 2]) a.record(call({ createdAt: new Date(NOW - age * DAY).toISOString() }));
      await a.flush();
      expect(await a.prune(NOW)).toBe(2);
      expect((await a.summary({})).totalCalls).toBe(2);
      // The rollups still know the old calls: the last call per tool is the newest, and nothing is unused.
      const unused = await a.unused([{ name: "github", enabled: true, tools: async () => ({ names: ["search"] }) }], 60, NOW);
      expect(unused.servers[0]!.unused).toEqual([]);
      expect(await a.prune(NOW)).toBe(0);
      await a.stop();
    });
  });
}

describe.skipIf(!postgres.available)("invocations shared by two daemons on one PostgreSQL", () => {
  test("two daemons recording at once add up in the rollups; a third starting loads every row", async () => {
    const connect = await postgres.database({ max: 4 });
    const daemons = [analytics(new PostgresInvocationStore(connect())).analytics, analytics(new PostgresInvocationStore(connect())).analytics];
    for (const d of daemons) {
      d.start();
      await d.ready();
    }
    for (let round = 0; round < 5; round++) {
      for (const d of daemons) for (let i = 0; i < 20; i++) d.record(call({ tool: `t${i % 3}` }));
      await Promise.all(daemons.map((d) => d.flush()));
    }
    const features = await daemons[0]!.features({}, NOW);
    const calls = features.servers[0]!.tools.map((t) => Math.round(t.callsPerDay7 * 7));
    expect(calls.reduce((a, b) => a + b, 0)).toBe(200);
    const third = analytics(new PostgresInvocationStore(connect())).analytics;
    third.start();
    await third.ready();
    expect((await third.summary({})).totalCalls).toBe(200);
    for (const d of [...daemons, third]) await d.stop();
  });
});

describe.skipIf(!postgres.available)("analytics columns following the invocation feed on PostgreSQL", () => {
  test("calls recorded through one daemon reach another's summary; each daemon counts its own once", async () => {
    const connect = await postgres.database({ max: 6 });
    const following = () =>
      new Analytics(new PostgresInvocationStore(connect()), CONFIG, recordingLogger().log, (appendStored) => new InvocationFeed(connect(), { onRow: appendStored, pollMs: 100 }));
    const a = following();
    a.record(call({ tool: "before-start" }));
    await a.flush();
    a.start();
    const b = following();
    b.start();
    await Promise.all([a.ready(), b.ready()]);
    for (let i = 0; i < 30; i++) a.record(call({ tool: `t${i % 3}` }));
    for (let i = 0; i < 10; i++) b.record(call({ server: "fs", tool: "read" }));
    await Promise.all([a.flush(), b.flush()]);
    for (const d of [a, b]) {
      expect(await eventually(async () => (await d.summary({})).totalCalls === 41, 5_000)).toBe(true);
    }
    // Settled: nothing more arrives, nothing was counted twice.
    await Bun.sleep(300);
    for (const d of [a, b]) expect((await d.summary({})).topServers.map((s) => [s.server, s.calls])).toEqual([["github", 31], ["fs", 10]]);
    await Promise.all([a.stop(), b.stop()]);
  });
});
