// The bridge when servers, callers and the daemon itself get in each other's way (docs/api.md#bridge):
// what a server started with `secret:` values tells is redacted before anything of it is cut, its
// tool list included; a start runs on its own budget whoever waits for it; a server still starting
// is never closed to make room; the daemon's own closing of a server is told as such, never as the
// server's exit; a -32601 from a tool the server lists is recorded; an answer that is not JSON-RPC
// fails its call at once.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { InstalledServer } from "../../src/contracts/bridge";
import { alive } from "../../src/control/daemon-process";
import { ServerPool } from "../../src/core/bridge/pool";
import { tempDir } from "../helpers/daemon";
import { NODE } from "../helpers/everything";
import { startLoggedDaemon, type LoggedDaemon } from "../helpers/secrets";
import { eventually } from "../helpers/wait";

const FAULTY = resolve(import.meta.dir, "../helpers/faulty-mcp-server.mjs");
/** 46 characters, each 8 of them distinctive: any piece of it in a message is a leak. */
const KEY = "sk-live-7Q2wE9rT4yU6iO8pA1sD3fG5hJ0kL2zX4cV6bN";

const faulty = (...args: string[]) => ({ type: "stdio" as const, command: NODE, args: [FAULTY, ...args], env: { API_KEY: "secret:API_KEY" } });

/** Whether `text` holds any 8 characters of KEY in a row. */
function leaks(text: string): boolean {
  for (let i = 0; i + 8 <= KEY.length; i++) if (text.includes(KEY.slice(i, i + 8))) return true;
  return false;
}

async function daemonWith(yaml = ""): Promise<LoggedDaemon> {
  const dataDir = join(tempDir("signet-bridge-faults-"), "data");
  mkdirSync(dataDir);
  const daemon = await startLoggedDaemon(dataDir, yaml);
  expect((await daemon.api("PUT", "/api/secrets/API_KEY", { value: KEY })).status).toBeLessThan(300);
  return daemon;
}

let d: LoggedDaemon;

beforeAll(async () => {
  d = await daemonWith();
});

afterAll(async () => {
  await d.daemon.stop();
});

afterEach(async () => {
  for (const s of await d.daemon.context.bridge.list()) await d.daemon.context.bridge.remove(s.name);
});

const install = (on: LoggedDaemon, name: string, transport: unknown) => on.api("POST", "/api/marketplace/servers", { name, transport });
const call = (on: LoggedDaemon, name: string, body: Record<string, unknown>) => on.api("POST", `/api/marketplace/servers/${name}/call`, body);
const live = (on: LoggedDaemon, name: string) => on.daemon.context.bridge.live().find((s) => s.name === name);

async function rows(server: string): Promise<{ tool: string; success: number; error_text: string | null }[]> {
  await d.daemon.context.analytics.recorder.flush();
  return d.daemon.context.stores.sqlite!.query<any, [string]>("SELECT tool, success, error_text FROM mcp_invocations WHERE server = ? ORDER BY id").all(server);
}

describe("secret values are redacted before what a server tells is cut", () => {
  test("a start failure whose stderr ends past the key shows no piece of it, in the answer or in analytics", async () => {
    const script = "process.stderr.write('key=' + process.env.API_KEY + 'f'.repeat(580)); process.exit(1)";
    expect((await install(d, "leaky", { type: "stdio", command: NODE, args: ["-e", script], env: { API_KEY: "secret:API_KEY" } })).status).toBe(201);
    const r = await call(d, "leaky", { tool: "anything" });
    expect(r.status).toBe(503);
    expect(r.body.error).toContain('MCP server "leaky" failed to start');
    expect(r.body.error).toContain(`its stderr ends: key=[REDACTED]${"f".repeat(580)}`);
    expect(leaks(r.body.error)).toBe(false);
    const [row] = await rows("leaky");
    expect(row!.error_text).toContain("key=[REDACTED]");
    expect(leaks(row!.error_text!)).toBe(false);
    expect(d.lines.filter(leaks)).toEqual([]);
  });

  test("a tool list that quotes the key shows it redacted, as listed and as the daemon keeps it", async () => {
    expect((await install(d, "quoting", faulty())).status).toBe(201);
    const listed = await d.api("GET", "/api/marketplace/servers/quoting/tools");
    expect(listed.status).toBe(200);
    expect(listed.body.tools.find((t: any) => t.name === "whoami").description).toBe("Calls the API as key [REDACTED]");
    expect(leaks(JSON.stringify(listed.body))).toBe(false);
    const known = await d.daemon.context.bridge.knownTools("quoting");
    expect(known?.find((t) => t.name === "whoami")?.description).toBe("Calls the API as key [REDACTED]");
    // The tools stay callable under their names.
    expect((await call(d, "quoting", { tool: "whoami" })).body).toEqual({ content: [{ type: "text", text: "key [REDACTED]" }] });
  });
});

describe("a start runs on its own budget", () => {
  test("a caller with a short wait gives up alone: a call that joined the same start gets its answer, recorded as a success", async () => {
    expect((await install(d, "slow", faulty("--init-ms", "3000"))).status).toBe(201);
    const impatient = d.api("GET", "/api/marketplace/servers/slow/tools?timeout_ms=1000");
    expect(await eventually(() => live(d, "slow")?.pid !== undefined, 5000)).toBe(true);
    const pid = live(d, "slow")!.pid;
    const joined = call(d, "slow", { tool: "echo", arguments: { s: "joined" } });
    const gaveUp = await impatient;
    expect(gaveUp.status).toBe(503);
    expect(gaveUp.body.error).toBe(
      'MCP server "slow" did not answer the MCP handshake in time: not within the 1000 ms this caller waits (its start goes on for the calls that follow, within bridge.callTimeoutMs)',
    );
    expect(await joined).toEqual({ status: 200, body: { content: [{ type: "text", text: "joined" }] } });
    // The one start served the call.
    expect(live(d, "slow")?.pid).toBe(pid);
    expect((await rows("slow")).map((r) => [r.tool, r.success])).toEqual([["echo", 1]]);
  }, 20_000);

  test("a start nobody waits for any more ends when its own budget passes", async () => {
    const quick = await daemonWith("bridge:\n  callTimeoutMs: 1500\n");
    try {
      await install(quick, "silent", { type: "stdio", command: NODE, args: ["-e", "setInterval(() => {}, 1000)"] });
      const r = await quick.api("GET", "/api/marketplace/servers/silent/tools?timeout_ms=300");
      expect(r.status).toBe(503);
      expect(r.body.error).toContain("not within the 300 ms this caller waits");
      const pid = live(quick, "silent")?.pid;
      expect(pid).toBeGreaterThan(0);
      expect(await eventually(() => quick.daemon.context.bridge.live().length === 0 && !alive(pid!))).toBe(true);
      expect(quick.lines.filter((l) => l.includes('"silent" exited'))).toEqual([]);
    } finally {
      await quick.daemon.stop();
    }
  });
});

describe("waiting for a start", () => {
  const slowServer = (initMs: number): InstalledServer => {
    const now = new Date().toISOString();
    return { name: "slow", enabled: true, description: null, createdAt: now, updatedAt: now, transport: { ...faulty("--init-ms", String(initMs)), env: {} } } as InstalledServer;
  };

  test("a call cancelled while its server starts ends then; the start goes on and serves the next call", async () => {
    const pool = new ServerPool({ idleCloseMs: 0, maxServers: 4, secrets: () => "", log: { info() {}, warn() {} } });
    try {
      const server = slowServer(5000);
      const cancel = new AbortController();
      const pending = pool.call(server, "echo", { s: "x" }, { callMs: 10_000, startMs: 10_000, cancel: cancel.signal }).catch((err: Error) => err);
      expect(await eventually(() => pool.status()[0]?.pid !== undefined, 5000)).toBe(true);
      const pid = pool.status()[0]!.pid;
      cancel.abort();
      expect(((await pending) as Error).message).toBe('the call to MCP server "slow" was cancelled by its caller');
      // It ended before the start did: the server has not listed its tools yet.
      expect(pool.knownTools(server)).toBeUndefined();
      const next = await pool.call(server, "echo", { s: "next" }, { callMs: 10_000, startMs: 10_000 });
      expect(next.content).toEqual([{ type: "text", text: "next" }]);
      expect(pool.status()[0]!.pid).toBe(pid);
    } finally {
      await pool.stop();
    }
  }, 20_000);

  test("a server started only to list its tools is closed once idle, as a called one is", async () => {
    const pool = new ServerPool({ idleCloseMs: 300, maxServers: 4, secrets: () => "", log: { info() {}, warn() {} } });
    try {
      const tools = await pool.tools(slowServer(0), { waitMs: 10_000, startMs: 10_000 });
      expect(tools.map((t) => t.name)).toContain("echo");
      const pid = pool.status()[0]!.pid!;
      expect(await eventually(() => pool.status().length === 0 && !alive(pid), 5000)).toBe(true);
    } finally {
      await pool.stop();
    }
  });
});

describe("the daemon's own closing of a server is told as such", () => {
  test("at bridge.maxServers a server still starting is busy, not closed to make room", async () => {
    const one = await daemonWith("bridge:\n  maxServers: 1\n");
    try {
      await install(one, "slow", faulty("--init-ms", "2000"));
      await install(one, "other", faulty());
      const starting = call(one, "slow", { tool: "echo", arguments: { s: "started" } });
      expect(await eventually(() => live(one, "slow") !== undefined, 5000)).toBe(true);
      const refused = await call(one, "other", { tool: "echo", arguments: { s: "x" } });
      expect(refused.status).toBe(503);
      expect(refused.body.error).toContain("all 1 live MCP servers are busy (bridge.maxServers)");
      expect(await starting).toEqual({ status: 200, body: { content: [{ type: "text", text: "started" }] } });
      // Idle now: it makes room.
      expect((await call(one, "other", { tool: "echo", arguments: { s: "y" } })).status).toBe(200);
    } finally {
      await one.daemon.stop();
    }
  }, 20_000);

  test("a server disabled during its start, or during a call, or removed during a call: the caller hears why", async () => {
    await install(d, "closed", faulty("--init-ms", "5000"));
    const starting = call(d, "closed", { tool: "echo", arguments: { s: "x" } });
    expect(await eventually(() => live(d, "closed") !== undefined, 5000)).toBe(true);
    expect((await d.api("PATCH", "/api/marketplace/servers/closed", { enabled: false })).status).toBe(200);
    expect(await starting).toEqual({
      status: 503,
      body: { code: "server_unavailable", error: 'MCP server "closed" was closed by the daemon during its start: it was disabled' },
    });

    // A call in flight: the server answers it never.
    const closedDuringCall = async (close: () => Promise<{ status: number }>) => {
      const hanging = call(d, "closed", { tool: "hang" });
      expect(await eventually(() => live(d, "closed")?.inFlight === 1, 5000)).toBe(true);
      expect((await close()).status).toBe(200);
      return hanging;
    };
    await d.api("PATCH", "/api/marketplace/servers/closed", { enabled: true, transport: faulty() });
    const disabled = await closedDuringCall(() => d.api("PATCH", "/api/marketplace/servers/closed", { enabled: false }));
    expect(disabled).toEqual({ status: 503, body: { code: "server_unavailable", error: 'MCP server "closed" was closed by the daemon during the call: it was disabled' } });
    await d.api("PATCH", "/api/marketplace/servers/closed", { enabled: true });
    const removed = await closedDuringCall(() => d.api("DELETE", "/api/marketplace/servers/closed"));
    expect(removed).toEqual({ status: 503, body: { code: "server_unavailable", error: 'MCP server "closed" was closed by the daemon during the call: it was removed' } });
    expect(d.lines.filter((l) => l.includes('"closed" exited'))).toEqual([]);
  }, 20_000);

  test("a start cut short by the daemon's stop says so, not that the server exited", async () => {
    const pool = new ServerPool({ idleCloseMs: 0, maxServers: 4, secrets: () => "", log: { info() {}, warn() {} } });
    const now = new Date().toISOString();
    const server = { name: "slow", enabled: true, description: null, createdAt: now, updatedAt: now, transport: { ...faulty("--init-ms", "5000"), env: {} } } as InstalledServer;
    const pending = pool.call(server, "echo", { s: "x" }, { callMs: 10_000, startMs: 10_000 }).catch((err: Error) => err);
    expect(await eventually(() => pool.status()[0]?.pid !== undefined, 5000)).toBe(true);
    const pid = pool.status()[0]!.pid!;
    await pool.stop();
    expect((await pending as Error).message).toBe('MCP server "slow" was closed by the daemon during its start: the daemon is stopping');
    expect(alive(pid)).toBe(false);
  });
});

describe("a server's failures are its own", () => {
  test("-32601 for a tool it lists is a 404 with its message, and recorded; a tool it does not list is not", async () => {
    await install(d, "faulty", faulty());
    const r = await call(d, "faulty", { tool: "gone" });
    expect(r).toEqual({ status: 404, body: { code: "not_found", error: "faulty: MCP error -32601: no tool gone after all" } });
    expect((await call(d, "faulty", { tool: "nope" })).status).toBe(404);
    expect((await rows("faulty")).map((row) => [row.tool, row.success, row.error_text])).toEqual([
      ["gone", 0, "faulty: MCP error -32601: no tool gone after all"],
    ]);
  });

  test("an answer that is not valid JSON-RPC fails its call at once, saying so; the server stays usable", async () => {
    await install(d, "faulty", faulty());
    // Far longer than the test may run: only the failure itself can end the call in time.
    const r = await call(d, "faulty", { tool: "invalid", timeoutMs: 600_000 });
    expect(r).toEqual({
      status: 503,
      body: { code: "server_unavailable", error: 'MCP server "faulty" answered with an invalid message: its result is not an object' },
    });
    expect((await call(d, "faulty", { tool: "echo", arguments: { s: "still here" } })).body.content[0].text).toBe("still here");
  });
});
