// signet-mcp's report of a call that made no API request (refused, or failed on its arguments),
// against a real daemon: on record before the call is answered, with its session and its error
// cut to size; a daemon that is gone costs the row and a warning, never the call.
import { expect, test } from "bun:test";
import { SignetClient } from "../../src/client/client";
import { localCallReporter } from "../../src/mcp/invocation-reporter";
import { startTestDaemon } from "../helpers/daemon";
import { recordingLogger } from "../helpers/log";
import { freePort } from "../helpers/binary";

test("the row is in the daemon when the report returns; a daemon that is gone costs a warning", async () => {
  const d = await startTestDaemon();
  try {
    const { log, lines } = recordingLogger();
    const report = localCallReporter(d.client("reporter-agent"), log);
    await report({ tool: "signet_code_clear", latencyMs: 3, success: false, errorText: `refused: ${"x".repeat(10_000)}`, sessionKey: "s-r" });
    await d.daemon.context.analytics.flush();
    const row = d.daemon.context.stores.sqlite!
      .query<{ tool: string; session_key: string; length: number }, []>(
        "SELECT tool, session_key, length(error_text) AS length FROM mcp_invocations WHERE agent_id = 'reporter-agent' AND server = 'signet' AND source = 'mcp'",
      )
      .all();
    expect(row).toEqual([{ tool: "signet_code_clear", session_key: "s-r", length: 2000 }]);
    expect(lines).toEqual([]);
  } finally {
    await d.stop();
  }
  const { log, lines } = recordingLogger();
  const gone = new SignetClient({ baseUrl: `http://127.0.0.1:${await freePort()}` });
  await localCallReporter(gone, log)({ tool: "memory_get", latencyMs: 1, success: false });
  expect(lines).toEqual([expect.stringMatching(/^warn the call of memory_get was not recorded: daemon not running/)]);
});
