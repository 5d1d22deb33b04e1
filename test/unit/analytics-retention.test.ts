// Retention: raw rows older than analytics.retentionDays go from SQLite and from memory, in chunks;
// daily rollups stay; 0 keeps everything.
import { SqliteInvocationStore } from "../../src/core/analytics/sqlite-store";
import { afterAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { Analytics } from "../../src/core/analytics";
import { InvocationColumns } from "../../src/core/analytics/columns";
import { Retention } from "../../src/core/analytics/retention";
import { migratedDb, removeDatabases } from "../helpers/analytics";
import { recordingLogger } from "../helpers/log";

afterAll(removeDatabases);

const DAY = 86_400_000;
const NOW = Date.now();
// Whole days apart, so each lands on its own UTC day (and rollup row).
const AGES_DAYS = [45, 35, 31, 29, 2, 0];

/** One call per age, written through the recorder so the rollups are there too. */
async function seeded(retentionDays: number): Promise<{ db: Database; analytics: Analytics; logs: string[] }> {
  const db = migratedDb();
  const { log, lines: logs } = recordingLogger();
  const analytics = new Analytics(new SqliteInvocationStore(db), { retentionDays, flushMs: 3_600_000, trackAgentCalls: true }, log);
  for (const age of AGES_DAYS) {
    analytics.record({
      server: "github",
      tool: "search",
      agentId: "codex",
      source: "agent",
      latencyMs: 10,
      success: true,
      createdAt: new Date(NOW - age * DAY).toISOString(),
    });
  }
  await analytics.flush();
  return { db, analytics, logs };
}

const count = (db: Database, table: string) => (db.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

describe("retention", () => {
  test("rows older than the window are deleted from SQLite and memory; rollups are kept", async () => {
    const { db, analytics, logs } = await seeded(30);
    const rollupsBefore = db.query("SELECT * FROM mcp_invocation_daily ORDER BY day").all();
    expect(rollupsBefore.length).toBe(AGES_DAYS.length);
    expect((await analytics.summary({})).totalCalls).toBe(6);

    expect(await analytics.prune(NOW)).toBe(3);
    expect(count(db, "mcp_invocations")).toBe(3);
    expect((await analytics.summary({})).totalCalls).toBe(3);
    expect(db.query("SELECT * FROM mcp_invocation_daily ORDER BY day").all()).toEqual(rollupsBefore);
    expect(logs.some((l) => /^info analytics: pruned 3 invocations older than /.test(l))).toBe(true);
    // Nothing left to prune.
    expect(await analytics.prune(NOW)).toBe(0);
    await analytics.stop();
  });

  test("retentionDays 0 keeps everything", async () => {
    const { db, analytics } = await seeded(0);
    analytics.start();
    await analytics.ready();
    expect(await analytics.prune(NOW + 1000 * DAY)).toBe(0);
    expect(count(db, "mcp_invocations")).toBe(6);
    expect((await analytics.summary({})).totalCalls).toBe(6);
    await analytics.stop();
  });

  test("start() prunes, and rows outside the window are not loaded", async () => {
    const { db, analytics } = await seeded(30);
    await analytics.stop();
    const restarted = new Analytics(new SqliteInvocationStore(db), { retentionDays: 30, flushMs: 3_600_000, trackAgentCalls: true }, recordingLogger().log);
    restarted.start();
    await restarted.ready();
    expect((await restarted.summary({})).totalCalls).toBe(3);
    // Joins the prune start() began.
    await restarted.prune();
    expect(count(db, "mcp_invocations")).toBe(3);
    await restarted.stop();
  });

  test("deletes in chunks until nothing old is left", async () => {
    const db = migratedDb();
    const old = new Date(NOW - 40 * DAY).toISOString();
    const insert = db.query(
      "INSERT INTO mcp_invocations (server, tool, agent_id, source, latency_ms, success, created_at) VALUES ('s', 't', 'a', 'cli', 1, 1, ?)",
    );
    for (let i = 0; i < 23; i++) insert.run(old);
    insert.run(new Date(NOW).toISOString());
    const retention = new Retention(new SqliteInvocationStore(db), new InvocationColumns(), { retentionDays: 30, log: recordingLogger().log, chunkRows: 5 });
    expect(await retention.prune(NOW)).toBe(23);
    expect(count(db, "mcp_invocations")).toBe(1);
  });

  test("a failing prune is logged, not thrown", async () => {
    const db = migratedDb();
    const { log, lines: logs } = recordingLogger();
    const retention = new Retention(new SqliteInvocationStore(db), new InvocationColumns(), { retentionDays: 30, log });
    db.run("DROP TABLE mcp_invocations");
    expect(await retention.prune(NOW)).toBe(0);
    expect(logs.some((l) => l.includes("pruning invocations older than") && l.includes("no such table"))).toBe(true);
  });
});
