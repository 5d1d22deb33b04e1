// A daemon that runs but does not answer is told apart from one that is not running: the CLI names
// its pid and port and says to restart it, instead of "start it with `signet daemon start`"; and a
// daemon running on another port than the one called is named with its port. signet-mcp's tools
// say the same.
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { join } from "node:path";
import { BIN, freePort, json, run, sandbox } from "../helpers/binary";
import { callTool } from "../helpers/mcp-client";

describe("a daemon that does not answer where it is called", () => {
  test("signet list says the daemon runs (pid, port) but does not answer, and how to restart it", async () => {
    // The clients wait daemon.requestTimeoutMs (10 s unless set) for an answer that never comes.
    const s = await sandbox("embedding:\n  provider: none\ndaemon:\n  requestTimeoutMs: 500\n");
    const start = await run(["daemon", "start"], { env: s.env });
    expect(start.code).toBe(0);
    const { pid } = json<{ pid: number }>(start);
    process.kill(pid, "SIGSTOP");
    try {
      const r = await run(["list"], { env: s.env, timeoutMs: 30_000 });
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 3, stdout: "" });
      expect(r.stderr).toContain(`runs (pid ${pid}, port ${s.port}) but does not answer (no answer within 500 ms)`);
      expect(r.stderr).toContain("signet daemon restart");
      expect(r.stderr).toContain(`${s.dataDir}/.daemon/logs/daemon.log`);
      expect(r.stderr).not.toContain("signet daemon start");

      const client = new Client({ name: "signet-e2e", version: "1.0.0" });
      await client.connect(new StdioClientTransport({ command: join(BIN, "..", "signet-mcp"), args: [], env: s.env, stderr: "pipe" }));
      try {
        const tool = await callTool(client, "memory_search", { query: "anything" });
        expect(tool.isError).toBe(true);
        expect(tool.text).toContain(`runs (pid ${pid}, port ${s.port}) but does not answer (no answer within 500 ms)`);
      } finally {
        await client.close();
      }
    } finally {
      process.kill(pid, "SIGCONT");
      expect((await run(["daemon", "stop"], { env: s.env })).code).toBe(0);
    }
  }, 60_000);

  test("signet list at a URL where nothing listens names the port the data directory's daemon runs on", async () => {
    const s = await sandbox("embedding:\n  provider: none\n");
    const start = await run(["daemon", "start"], { env: s.env });
    expect(start.code).toBe(0);
    const { pid } = json<{ pid: number }>(start);
    try {
      const elsewhere = await freePort();
      // Only an explicit URL leads a client away from the daemon's record. Autostart tries, finds this
      // data directory's daemon running, and the client says where it is.
      const r = await run(["list"], { env: { ...s.env, SIGNET_DAEMON_URL: `http://127.0.0.1:${elsewhere}` } });
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 3, stdout: "" });
      expect(r.stderr).toContain(`http://127.0.0.1:${elsewhere} did not answer (connection refused)`);
      expect(r.stderr).toContain(`runs at http://127.0.0.1:${s.port} (pid ${pid})`);
      expect(r.stderr).toContain(`unset it or set it to http://127.0.0.1:${s.port}`);
    } finally {
      expect((await run(["daemon", "stop"], { env: s.env })).code).toBe(0);
    }
  });
});
