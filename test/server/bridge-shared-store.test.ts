// The bridge of daemons sharing one PostgreSQL store: each runs its own process of a server, and a
// server removed, disabled or changed through one daemon has its process closed on every other
// (not left to bridge.idleCloseMs, here 0: never), a changed one started again under its new
// definition by the next call. A daemon's own changes are not heard again as another's; a change
// the listening connection missed is caught up when it comes back; nothing listens after a stop.
import { afterEach, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { alive } from "../../src/control/daemon-process";
import { PostgresServerRows } from "../../src/core/bridge/postgres-registry";
import { BridgeService } from "../../src/core/bridge/service";
import { tempDir } from "../helpers/daemon";
import { fakeStdio } from "../helpers/fake-server";
import { listeningConnections, postgresDatabases } from "../helpers/postgres-databases";
import { eventually } from "../helpers/wait";

const postgres = postgresDatabases();

interface Daemon {
  bridge: BridgeService;
  /** How often it told its streams that the installed servers changed. */
  changes: number;
  warnings: string[];
}

const started: Daemon[] = [];
afterEach(async () => {
  for (const d of started.splice(0)) await d.bridge.stop();
});

/** A daemon's bridge over its own client of the shared database, following the others' changes. */
async function daemonOn(sql: SQL): Promise<Daemon> {
  const daemon = { changes: 0, warnings: [] } as unknown as Daemon;
  daemon.bridge = new BridgeService(new PostgresServerRows(sql), {
    idleCloseMs: 0,
    maxServers: 4,
    callTimeoutMs: 10_000,
    secrets: () => "",
    invocations: { record() {} },
    log: { info() {}, warn: (m: string) => daemon.warnings.push(m) },
    onServersChanged: () => daemon.changes++,
  });
  started.push(daemon);
  await daemon.bridge.start();
  return daemon;
}

/** Two daemons on a fresh database, and a client of it of the test's own. */
async function twoDaemons(): Promise<{ a: Daemon; b: Daemon; sql: SQL }> {
  const connect = await postgres.database({ max: 3 });
  return { a: await daemonOn(connect()), b: await daemonOn(connect()), sql: connect() };
}

/** Calls `tool` of `server` through `daemon` (starting its process), answering the text. */
async function call(daemon: Daemon, server: string, tool = "text"): Promise<string> {
  const result: CallToolResult = await daemon.bridge.call(server, { tool, arguments: { bytes: 1 }, source: "cli" }, { agentId: "test" });
  return (result.content[0] as { text: string }).text;
}

/** The pid of the daemon's process of `server`, started by a call. */
async function startedProcess(daemon: Daemon, server: string): Promise<number> {
  await call(daemon, server);
  const pid = daemon.bridge.live().find((s) => s.name === server)?.pid;
  expect(pid).toBeNumber();
  expect(alive(pid!)).toBe(true);
  return pid!;
}

const ended = (pid: number) => eventually(() => !alive(pid), 15_000);

describe.skipIf(!postgres.available)("the bridge of daemons sharing a PostgreSQL store", () => {
  test("a server removed through one daemon has its process closed on the other", async () => {
    const { a, b } = await twoDaemons();
    await a.bridge.install({ name: "echo2", enabled: true, transport: { ...fakeStdio(), env: {} } });
    const [pidA, pidB] = [await startedProcess(a, "echo2"), await startedProcess(b, "echo2")];
    expect(pidA).not.toBe(pidB);

    await b.bridge.remove("echo2");
    expect(await ended(pidA)).toBe(true);
    expect(await ended(pidB)).toBe(true);
    expect(a.bridge.live()).toEqual([]);
    expect(b.bridge.live()).toEqual([]);
    expect(a.warnings).toEqual([]);
  }, 40_000);

  test("a server disabled through one daemon has its process closed on the other, which refuses calls to it", async () => {
    const { a, b } = await twoDaemons();
    await a.bridge.install({ name: "echo2", enabled: true, transport: { ...fakeStdio(), env: {} } });
    const pidB = await startedProcess(b, "echo2");

    await a.bridge.update("echo2", { enabled: false });
    expect(await ended(pidB)).toBe(true);
    expect(b.bridge.live()).toEqual([]);
    await expect(call(b, "echo2")).rejects.toMatchObject({ code: "disabled" });
    expect(b.bridge.live()).toEqual([]);
  }, 40_000);

  test("a server whose definition changed through one daemon is closed on the other, and its next call runs the new definition", async () => {
    const { a, b } = await twoDaemons();
    const [first, second] = [tempDir("signet-bridge-cwd-"), tempDir("signet-bridge-cwd-")];
    await a.bridge.install({ name: "echo2", enabled: true, transport: { ...fakeStdio(), env: {}, cwd: first } });
    const pidB = await startedProcess(b, "echo2");
    expect(await call(b, "echo2", "cwd")).toBe(first);

    await a.bridge.update("echo2", { transport: { ...fakeStdio(), env: {}, cwd: second } });
    // Closed without waiting for a call through it.
    expect(await ended(pidB)).toBe(true);
    expect(b.bridge.live()).toEqual([]);
    expect(await call(b, "echo2", "cwd")).toBe(second);
    const replaced = b.bridge.live()[0]?.pid;
    expect(replaced).toBeNumber();
    expect(replaced).not.toBe(pidB);
  }, 40_000);

  test("a daemon does not hear its own changes as another's", async () => {
    const { a, b } = await twoDaemons();
    const fromA = a.changes;
    await a.bridge.install({ name: "echo2", enabled: true, transport: { ...fakeStdio(), env: {} } });
    const pidA = await startedProcess(a, "echo2");
    await b.bridge.update("echo2", { description: "through b" });
    // One channel, heard in commit order: once a has closed its process for b's change, it has
    // heard its own install before it, and told its streams of each once.
    expect(await ended(pidA)).toBe(true);
    expect(a.changes).toBe(fromA + 2);
  }, 40_000);

  test("a change the listening connection did not hear is caught up when it comes back", async () => {
    const { a, b, sql } = await twoDaemons();
    await a.bridge.install({ name: "echo2", enabled: true, transport: { ...fakeStdio(), env: {} } });
    const pidB = await startedProcess(b, "echo2");
    // Removed behind the daemons' backs: no announcement.
    await sql`DELETE FROM mcp_servers WHERE name = 'echo2'`;
    expect(b.bridge.live().map((s) => s.name)).toEqual(["echo2"]);
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`;
    expect(await ended(pidB)).toBe(true);
    expect(b.bridge.live()).toEqual([]);
  }, 40_000);

  test("stopped daemons leave no listening connection and no process", async () => {
    const { a, b, sql } = await twoDaemons();
    await a.bridge.install({ name: "echo2", enabled: true, transport: { ...fakeStdio(), env: {} } });
    const pids = [await startedProcess(a, "echo2"), await startedProcess(b, "echo2")];
    expect(await listeningConnections(sql)).toBe(2);
    for (const d of started.splice(0)) await d.bridge.stop();
    expect(pids.filter(alive)).toEqual([]);
    expect(await eventually(async () => (await listeningConnections(sql)) === 0, 15_000)).toBe(true);
  }, 40_000);
});
