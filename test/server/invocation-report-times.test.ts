// A reported call's createdAt is kept as given for any time the contract accepts, years 0000-9999 in
// UTC (docs/api.md#invocation-reports, Timestamps), before 1970 too; only an absent one is stamped now.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";

let d: TestDaemon;

beforeAll(async () => {
  // Retention keeps every row: the old times stay on record for the test to read.
  d = await startTestDaemon({ yaml: "analytics:\n  flushMs: 50\n  retentionDays: 0\n" });
});

afterAll(async () => {
  await d.stop();
});

test("times before 1970 are stored as reported, back to the first of the years accepted", async () => {
  const given = ["1969-07-20T20:17:40Z", "0000-01-01T00:00:00Z", "1000-06-15", "2026-01-02T03:04:05Z"];
  const res = await d.fetch("/api/mcp/invocations", {
    method: "POST",
    headers: { "content-type": "application/json", "x-signet-agent-id": "report-times", ...d.ownerHeaders },
    body: JSON.stringify({ invocations: given.map((createdAt) => ({ tool: "memory_search", latencyMs: 1, success: true, createdAt })) }),
  });
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 202, body: { accepted: 4 } });
  await d.daemon.context.analytics.flush();
  const rows = d.daemon.context.stores.sqlite!
    .query<{ created_at: string }, []>("SELECT created_at FROM mcp_invocations WHERE agent_id = 'report-times' ORDER BY id")
    .all();
  expect(rows.map((r) => r.created_at)).toEqual([
    "1969-07-20T20:17:40.000Z",
    "0000-01-01T00:00:00.000Z",
    "1000-06-15T00:00:00.000Z",
    "2026-01-02T03:04:05.000Z",
  ]);
});
