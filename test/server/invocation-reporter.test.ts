// signet-mcp's batched reports of its own tool calls, against a real daemon.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { InvocationReporter } from "../../src/mcp/invocation-reporter";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { recordingLogger } from "../helpers/log";
import { eventually } from "../helpers/wait";

let d: TestDaemon;

beforeAll(async () => {
  // A body limit a single batch of 200 long failures would break if it were sent at once.
  d = await startTestDaemon({ yaml: "daemon:\n  maxBodyBytes: 307200\nanalytics:\n  flushMs: 50\n" });
});

afterAll(async () => {
  await d.stop();
});

test("reports are cut to fit the daemon's body limit, and every one arrives", async () => {
  const reporter = new InvocationReporter(d.client("reporter-agent"), { flushMs: 60_000, sessionKey: "s-r", log: recordingLogger().log });
  for (let i = 0; i < 200; i++) {
    reporter.record({ tool: "memory_get", latencyMs: i, success: false, errorText: `not found: ${"x".repeat(10_000)}` });
  }
  await reporter.flush();
  const summary = () => d.client().analytics.summary({ agent_id: "reporter-agent" });
  expect(await eventually(async () => (await summary()).totalCalls === 200)).toBe(true);
  const rows = d.daemon.context.db
    .query<{ n: number; longest: number }, []>(
      "SELECT count(*) AS n, max(length(error_text)) AS longest FROM mcp_invocations WHERE agent_id = 'reporter-agent' AND session_key = 's-r' AND source = 'mcp'",
    )
    .get()!;
  expect(rows).toEqual({ n: 200, longest: 2000 });
});
