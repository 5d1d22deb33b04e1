// The recorder: record() only queues (never throws, never writes); a flush writes rows and daily
// rollups in one transaction; failures are logged, retried a bounded number of times, then dropped.
import { SqliteInvocationStore } from "../../src/core/analytics/sqlite-store";
import { afterAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { Analytics } from "../../src/core/analytics";
import { InvocationRecorder, type RecorderOptions } from "../../src/core/analytics/recorder";
import type { InvocationRecord } from "../../src/core/analytics/types";
import { migratedDb, removeDatabases } from "../helpers/analytics";
import { recordingLogger } from "../helpers/log";
import { eventually } from "../helpers/wait";

afterAll(removeDatabases);

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function call(overrides: Partial<InvocationRecord> = {}): InvocationRecord {
  return { server: "github", tool: "create_issue", agentId: "codex", source: "agent", latencyMs: 42, success: true, ...overrides };
}

function setup(options: Partial<RecorderOptions> = {}) {
  const db = migratedDb();
  const { log, lines: logs } = recordingLogger();
  const committed: number[] = [];
  const recorder = new InvocationRecorder(new SqliteInvocationStore(db), {
    // Long enough that only an explicit flush() writes, unless a test says otherwise.
    flushMs: 3_600_000,
    log,
    onCommit: (rows) => committed.push(rows.length),
    ...options,
  });
  return { db, recorder, logs, committed };
}

const rawRows = (db: Database) => db.query("SELECT * FROM mcp_invocations ORDER BY id").all() as Record<string, unknown>[];
const dailyRows = (db: Database) =>
  db.query("SELECT * FROM mcp_invocation_daily ORDER BY day, server, tool, agent_id, source").all() as Record<string, unknown>[];

describe("InvocationRecorder", () => {
  test("record() only queues; flush() writes the batch with every column", async () => {
    const { db, recorder, committed } = setup();
    recorder.record(call({ createdAt: "2026-03-01T10:00:00Z", sessionKey: "sess-1", client: "cli", source: "cli" }));
    recorder.record(call({ success: false, errorText: "boom", latencyMs: 12.6 }));
    expect(rawRows(db)).toEqual([]);
    expect(recorder.pending).toBe(2);
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    expect(committed).toEqual([2]);
    const [first, second] = rawRows(db);
    expect(first).toMatchObject({
      server: "github",
      tool: "create_issue",
      agent_id: "codex",
      source: "cli",
      latency_ms: 42,
      success: 1,
      error_text: null,
      created_at: "2026-03-01T10:00:00.000Z",
      session_key: "sess-1",
      client: "cli",
    });
    expect(second).toMatchObject({ source: "agent", latency_ms: 13, success: 0, error_text: "boom", session_key: null, client: null });
    // Stamped when absent, always ISO-8601 UTC with milliseconds.
    expect(second!.created_at).toMatch(ISO_MS);
    expect(Math.abs(Date.parse(second!.created_at as string) - Date.now())).toBeLessThan(60_000);
  });

  test("values are clamped: latency a whole non-negative number, error text at most 2000 characters", async () => {
    const { db, recorder } = setup();
    recorder.record(call({ latencyMs: -5 }));
    recorder.record(call({ latencyMs: Number.NaN }));
    recorder.record(call({ latencyMs: 1e20 }));
    recorder.record(call({ errorText: "x".repeat(10_000), success: false }));
    recorder.record(call({ createdAt: "not a time" }));
    await recorder.flush();
    const rows = rawRows(db);
    expect(rows.map((r) => r.latency_ms)).toEqual([0, 0, 0xffff_ffff, 42, 42]);
    expect((rows[3]!.error_text as string).length).toBe(2000);
    expect(rows[4]!.created_at).toMatch(ISO_MS);
  });

  test("daily rollups: summed per day, server, tool, agent and source, and added to by later flushes", async () => {
    const { db, recorder } = setup();
    recorder.record(call({ createdAt: "2026-03-01T10:00:00.000Z", latencyMs: 10 }));
    recorder.record(call({ createdAt: "2026-03-01T23:59:59.999Z", latencyMs: 30, success: false }));
    recorder.record(call({ createdAt: "2026-03-02T00:00:00.000Z", latencyMs: 5 }));
    recorder.record(call({ createdAt: "2026-03-01T12:00:00.000Z", agentId: "claude" }));
    await recorder.flush();
    recorder.record(call({ createdAt: "2026-03-01T08:00:00.000Z", latencyMs: 100 }));
    await recorder.flush();
    expect(dailyRows(db)).toEqual([
      {
        day: "2026-03-01", server: "github", tool: "create_issue", agent_id: "claude", source: "agent",
        calls: 1, failures: 0, latency_ms_total: 42, last_at: "2026-03-01T12:00:00.000Z",
      },
      {
        day: "2026-03-01", server: "github", tool: "create_issue", agent_id: "codex", source: "agent",
        // last_at stays the newest call's time even though an older call came later.
        calls: 3, failures: 1, latency_ms_total: 140, last_at: "2026-03-01T23:59:59.999Z",
      },
      {
        day: "2026-03-02", server: "github", tool: "create_issue", agent_id: "codex", source: "agent",
        calls: 1, failures: 0, latency_ms_total: 5, last_at: "2026-03-02T00:00:00.000Z",
      },
    ]);
  });

  test("the timer writes within flushMs without a flush() call", async () => {
    const { db, recorder } = setup({ flushMs: 20 });
    recorder.record(call());
    expect(await eventually(() => rawRows(db).length === 1)).toBe(true);
    await recorder.stop();
  });

  test("a large queue is written in bounded batches", async () => {
    const { db, recorder, committed } = setup({ batchRows: 4 });
    for (let i = 0; i < 10; i++) recorder.record(call({ latencyMs: i }));
    await recorder.flush();
    expect(committed).toEqual([4, 4, 2]);
    expect(rawRows(db).map((r) => r.latency_ms)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test("stop() writes what is queued, and later records are dropped with a log line", async () => {
    const { db, recorder, logs } = setup();
    recorder.record(call());
    await recorder.stop();
    expect(rawRows(db).length).toBe(1);
    recorder.record(call());
    expect(recorder.pending).toBe(0);
    expect(logs.some((l) => l.includes("recorded after stop"))).toBe(true);
  });

  test("a row without an agent id is dropped and logged; the others are written", async () => {
    const { db, recorder, logs } = setup();
    recorder.record(call({ agentId: "" }));
    recorder.record(call({ agentId: undefined as unknown as string }));
    recorder.record(call({ tool: "" }));
    recorder.record(call({ source: "elsewhere" as "cli" }));
    recorder.record(call());
    await recorder.flush();
    expect(rawRows(db).length).toBe(1);
    expect(logs).toEqual(["warn analytics: invocations not recorded: 2 (no agent id), 1 (no server or tool name), 1 (unknown source)"]);
  });

  test("a failed write never throws: it is logged, retried, and dropped after the last attempt", async () => {
    const { db, recorder, logs, committed } = setup({ maxAttempts: 3 });
    db.run("DROP TABLE mcp_invocations");
    expect(() => recorder.record(call())).not.toThrow();
    await expect(recorder.flush()).resolves.toBeUndefined();
    expect(recorder.pending).toBe(1);
    expect(logs[0]).toMatch(/^error analytics: writing 1 invocations failed \(.*no such table.*\); 1 will be retried$/);
    await recorder.flush();
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    expect(logs[2]).toContain("1 dropped after 3 attempts");
    expect(committed).toEqual([]);
    // Nothing half-written: the rollups were in the same transaction.
    expect(dailyRows(db)).toEqual([]);
  });

  test("a retried batch is written once the database is back", async () => {
    const { db, recorder } = setup();
    db.run("ALTER TABLE mcp_invocations RENAME TO parked");
    recorder.record(call());
    await recorder.flush();
    expect(recorder.pending).toBe(1);
    db.run("ALTER TABLE parked RENAME TO mcp_invocations");
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    expect(rawRows(db).length).toBe(1);
  });

  test("a closed database: record() and stop() do not throw, and the loss is logged", async () => {
    const { db, recorder, logs } = setup();
    recorder.record(call());
    db.close();
    await expect(recorder.stop()).resolves.toBeUndefined();
    expect(logs.some((l) => l.startsWith("error analytics: writing 1 invocations failed"))).toBe(true);
    expect(logs.some((l) => l.includes("could not be written before shutdown"))).toBe(true);
  });

  test("the queue is capped: beyond it calls are dropped and counted", async () => {
    const { db, recorder, logs } = setup({ maxQueue: 3 });
    for (let i = 0; i < 5; i++) recorder.record(call());
    expect(recorder.pending).toBe(3);
    await recorder.flush();
    expect(rawRows(db).length).toBe(3);
    expect(logs).toEqual(["warn analytics: invocations not recorded: 2 (queue full)"]);
  });

  test("with agent tracking off only operators' cli calls are recorded", async () => {
    const { db, recorder } = setup({ trackAgentCalls: false });
    expect([recorder.accepts("cli"), recorder.accepts("agent"), recorder.accepts("mcp")]).toEqual([true, false, false]);
    recorder.record(call({ source: "agent" }));
    recorder.record(call({ source: "mcp" }));
    recorder.record(call({ source: "cli" }));
    await recorder.flush();
    expect(rawRows(db).map((r) => r.source)).toEqual(["cli"]);
  });
});

describe("Analytics", () => {
  test("recorded calls are in the answers once flushed; stop() flushes", async () => {
    const db = migratedDb();
    const analytics = new Analytics(new SqliteInvocationStore(db), { retentionDays: 30, flushMs: 3_600_000, trackAgentCalls: true }, recordingLogger().log);
    analytics.start();
    await analytics.ready();
    analytics.record(call({ latencyMs: 10 }));
    analytics.record(call({ latencyMs: 20, success: false }));
    expect((await analytics.summary({})).totalCalls).toBe(0);
    await analytics.flush();
    const r = await analytics.summary({});
    expect(r).toMatchObject({ totalCalls: 2, failureCount: 1, latency: { p50: 10, p95: 20 } });
    analytics.record(call());
    await analytics.stop();
    expect(rawRows(db).length).toBe(3);
  });

  test("rows stored before start are loaded once, and rows written meanwhile are not counted twice", async () => {
    const db = migratedDb();
    const config = { retentionDays: 30, flushMs: 3_600_000, trackAgentCalls: true };
    const first = new Analytics(new SqliteInvocationStore(db), config, recordingLogger().log);
    for (let i = 0; i < 5; i++) first.record(call());
    await first.stop();
    const second = new Analytics(new SqliteInvocationStore(db), config, recordingLogger().log);
    // Written after the second instance was made but before its load: appended, not loaded again.
    second.record(call());
    await second.flush();
    second.start();
    await second.ready();
    expect((await second.summary({})).totalCalls).toBe(6);
    await second.stop();
  });
});
