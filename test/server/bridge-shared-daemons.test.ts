// Three in-process daemons on one PostgreSQL store, through the HTTP API: a server removed or
// disabled through one has its process closed under the others too (docs/api.md#bridge), not left
// to bridge.idleCloseMs (0 here: never), and the others list it as not running.
import { afterEach, describe, expect, test } from "bun:test";
import { alive } from "../../src/control/daemon-process";
import { call } from "../helpers/memory-api";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { fakeStdio } from "../helpers/fake-server";
import { postgresDatabases } from "../helpers/postgres-databases";
import { eventually } from "../helpers/wait";

const postgres = postgresDatabases();

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
});

/** An owner's request: the answer's status and parsed body. */
const api = (daemon: TestDaemon, method: string, path: string, body?: unknown) => call(daemon, method, path, { body, headers: daemon.ownerHeaders });

async function threeDaemons(): Promise<TestDaemon[]> {
  const url = await postgres.emptyDatabase();
  for (let i = 0; i < 3; i++) running.push(await startTestDaemon({ yaml: `storage:\n  url: ${url}\nbridge:\n  idleCloseMs: 0\n` }));
  return [...running];
}

/** Calls echo2 through each daemon (each starts its own process); answers their pids. */
async function startedEverywhere(daemons: TestDaemon[]): Promise<number[]> {
  const pids: number[] = [];
  for (const d of daemons) {
    expect((await api(d, "POST", "/api/marketplace/servers/echo2/call", { tool: "cwd" })).status).toBe(200);
    pids.push(d.daemon.context.bridge.live().find((s) => s.name === "echo2")!.pid!);
  }
  expect(pids.every(alive)).toBe(true);
  return pids;
}

const listedRunning = async (d: TestDaemon) => (await api(d, "GET", "/api/marketplace/servers")).body.servers.map((s: any) => [s.name, s.enabled, s.running]);

describe.skipIf(!postgres.available)("daemons sharing a PostgreSQL store", () => {
  test("DELETE through one daemon ends the server's process under every daemon", async () => {
    const [one, two, three] = await threeDaemons();
    expect((await api(one!, "POST", "/api/marketplace/servers", { name: "echo2", transport: fakeStdio() })).status).toBe(201);
    const pids = await startedEverywhere([one!, two!, three!]);
    expect((await api(two!, "DELETE", "/api/marketplace/servers/echo2")).status).toBe(200);
    expect(await eventually(() => !pids.some(alive), 15_000)).toBe(true);
    for (const d of [one!, three!]) expect(await listedRunning(d)).toEqual([]);
  }, 60_000);

  test("PATCH enabled:false through one daemon ends the server's process under every daemon, which list it as not running", async () => {
    const [one, two, three] = await threeDaemons();
    expect((await api(one!, "POST", "/api/marketplace/servers", { name: "echo2", transport: fakeStdio() })).status).toBe(201);
    const pids = await startedEverywhere([one!, two!, three!]);
    expect((await api(two!, "PATCH", "/api/marketplace/servers/echo2", { enabled: false })).status).toBe(200);
    expect(await eventually(() => !pids.some(alive), 15_000)).toBe(true);
    for (const d of [one!, three!]) expect(await listedRunning(d)).toEqual([["echo2", false, false]]);
  }, 60_000);
});
