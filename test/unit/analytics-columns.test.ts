// The in-memory columns: growth, pruning, and the chunked load from SQLite, which must give exactly
// what appending the same rows gives.
import { SqliteInvocationStore } from "../../src/core/analytics/sqlite-store";
import { afterAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { InvocationColumns } from "../../src/core/analytics/columns";
import type { ColumnRow } from "../../src/core/analytics/types";
import { summarize } from "../../src/core/analytics/query";
import { migratedDb, removeDatabases } from "../helpers/analytics";

const NOW = Date.parse("2026-03-10T12:00:00.000Z");
const SOURCES = ["cli", "agent", "mcp"] as const;

function makeRows(n: number): ColumnRow[] {
  return Array.from({ length: n }, (_, i) => ({
    server: `server-${i % 3}`,
    tool: `tool-${i % 5}`,
    agentId: `agent-${i % 4}`,
    source: SOURCES[i % 3]!,
    latencyMs: (i * 37) % 1000,
    success: i % 7 !== 0,
    createdMs: NOW - (i % 20) * 86_400_000 - i,
  }));
}

function insert(db: Database, rows: ColumnRow[]): void {
  const stmt = db.query(
    "INSERT INTO mcp_invocations (server, tool, agent_id, source, latency_ms, success, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  db.transaction(() => {
    for (const r of rows) stmt.run(r.server, r.tool, r.agentId, r.source, r.latencyMs, r.success ? 1 : 0, new Date(r.createdMs).toISOString());
  })();
}

const summary = (cols: InvocationColumns) => summarize(cols, { limit: 100 }, { now: NOW });

afterAll(removeDatabases);

describe("InvocationColumns", () => {
  test("grows as rows are appended and keeps every one", () => {
    const cols = new InvocationColumns();
    const rows = makeRows(5000);
    for (let i = 0; i < rows.length; i += 700) cols.append(rows.slice(i, i + 700));
    expect(cols.size).toBe(5000);
    const r = summary(cols);
    expect(r.totalCalls).toBe(5000);
    expect(r.failureCount).toBe(rows.filter((x) => !x.success).length);
  });

  test("a chunked load from SQLite gives what appending gives", async () => {
    const db = migratedDb();
    const rows = makeRows(2345);
    insert(db, rows);
    const loaded = new InvocationColumns();
    // Small chunks, so the load takes many steps.
    await loaded.load(new SqliteInvocationStore(db), { upToId: rows.length, sinceMs: -Infinity, chunkRows: 100 });
    const appended = new InvocationColumns();
    appended.append(rows);
    expect(loaded.size).toBe(rows.length);
    expect(summary(loaded)).toEqual(summary(appended));
  });

  test("the load reads only up to the given id and not before the retention cutoff", async () => {
    const db = migratedDb();
    const rows = makeRows(100);
    insert(db, rows);
    const cols = new InvocationColumns();
    const cutoff = NOW - 10 * 86_400_000;
    await cols.load(new SqliteInvocationStore(db), { upToId: 60, sinceMs: cutoff, chunkRows: 7 });
    expect(cols.size).toBe(rows.slice(0, 60).filter((r) => r.createdMs >= cutoff).length);
  });

  test("rows stored in SQLite's own datetime format load as UTC", async () => {
    const db = migratedDb();
    db.run("INSERT INTO mcp_invocations (server, tool, agent_id, source, latency_ms, success, created_at) VALUES ('s', 't', 'a', 'cli', 5, 1, '2026-03-09 23:30:00')");
    const cols = new InvocationColumns();
    await cols.load(new SqliteInvocationStore(db), { upToId: 1, sinceMs: -Infinity });
    const r = summarize(cols, {}, { now: NOW });
    expect(r.timeline.find((p) => p.calls > 0)).toEqual({ day: "2026-03-09", server: "s", calls: 1, failures: 0 });
    expect(summarize(cols, { since: "2026-03-09T23:30:00.000Z", until: "2026-03-09T23:30:00.000Z" }).totalCalls).toBe(1);
  });

  test("a stopped load ends between chunks", async () => {
    const db = migratedDb();
    insert(db, makeRows(50));
    const cols = new InvocationColumns();
    let checks = 0;
    await cols.load(new SqliteInvocationStore(db), { upToId: 50, sinceMs: -Infinity, chunkRows: 10, stopped: () => ++checks > 2 });
    expect(cols.size).toBe(20);
  });

  test("prune drops rows before the cutoff and keeps the rest intact", () => {
    const cols = new InvocationColumns();
    const rows = makeRows(3000);
    cols.append(rows);
    const cutoff = NOW - 5 * 86_400_000;
    const kept = rows.filter((r) => r.createdMs >= cutoff);
    expect(cols.prune(cutoff)).toBe(rows.length - kept.length);
    const expected = new InvocationColumns();
    expected.append(kept);
    expect(summary(cols)).toEqual(summary(expected));
    // Nothing older is left: a second prune has nothing to do.
    expect(cols.prune(cutoff)).toBe(0);
    // Appending after a prune still works.
    cols.append(rows.slice(0, 10));
    expect(cols.size).toBe(kept.length + 10);
  });

  test("memory is given back after a large prune", () => {
    const cols = new InvocationColumns();
    cols.append(makeRows(100_000));
    const before = cols.memoryBytes;
    expect(before).toBeGreaterThanOrEqual(100_000 * 21);
    cols.prune(NOW + 1);
    expect(cols.size).toBe(0);
    expect(cols.memoryBytes).toBeLessThan(before / 10);
  });
});
