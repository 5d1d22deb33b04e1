// A bridged call whose caller goes away or cancels (docs/mcp.md): the tool's request to the daemon is
// dropped, and the daemon cancels the call at the installed server (its own notifications/cancelled)
// instead of leaving it to run out its timeout; the server's slot is free again, and analytics records
// the call as cancelled. Here over /mcp, a POST its client gives up on; through signet-mcp, a
// notifications/cancelled, in test/e2e/mcp-stdio.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { call } from "../helpers/memory-api";
import { NODE } from "../helpers/everything";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { eventually } from "../helpers/wait";

let td: TestDaemon;
let marks: string;

const HANGING_SERVER = resolve(import.meta.dir, "../helpers/hanging-stdio-server.mjs");

beforeAll(async () => {
  td = await startTestDaemon({ yaml: "analytics:\n  flushMs: 100\n" });
  marks = join(tempDir("signet-bridge-cancel-"), "marks");
  const installed = await call(td, "POST", "/api/marketplace/servers", {
    body: { name: "hanging", transport: { type: "stdio", command: NODE, args: [HANGING_SERVER, marks] } },
    headers: td.ownerHeaders,
  });
  expect(installed.status).toBe(201);
});

afterAll(async () => {
  await td.stop();
});

const marked = (word: string) => existsSync(marks) && readFileSync(marks, "utf8").split("\n").some((l) => l.startsWith(`${word} `));

describe("a bridged call whose caller goes away", () => {
  test("is cancelled at the server, frees its slot and is recorded as cancelled, long before its timeout", async () => {
    // An MCP client that gives up on its POST to /mcp (as a harness does when the user cancels).
    const abort = new AbortController();
    const body = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "mcp_server_call", arguments: { server: "hanging", tool: "hang", timeout_ms: 600_000 } } };
    const pending = td.fetch("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-signet-agent-id": "canceller" },
      body: JSON.stringify(body),
      signal: abort.signal,
    });
    pending.catch(() => {});
    expect(await eventually(async () => marked("called"), 15_000)).toBe(true);
    expect(td.daemon.context.bridge.live().find((s) => s.name === "hanging")?.inFlight).toBe(1);

    abort.abort();
    // The server hears the cancellation, and the call no longer holds the server.
    expect(await eventually(async () => marked("cancelled"), 15_000)).toBe(true);
    expect(await eventually(async () => td.daemon.context.bridge.live().find((s) => s.name === "hanging")?.inFlight === 0, 15_000)).toBe(true);
    const rows = () =>
      td.daemon.context.stores.sqlite!.query<{ success: number; error_text: string | null }, []>("SELECT success, error_text FROM mcp_invocations WHERE server = 'hanging'").all();
    expect(await eventually(async () => rows().length === 1, 15_000)).toBe(true);
    expect(rows()[0]).toMatchObject({ success: 0, error_text: expect.stringContaining("cancelled by its caller") });
  });
});
