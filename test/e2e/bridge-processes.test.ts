// Processes a bridged server detaches from its group (setsid), against the compiled daemon. It is
// the child subreaper: once the server is gone they are its children, and it must end them and
// collect their exit (a zombie would stay). They end when the server is disabled and when the
// daemon stops; after a kill -9 of the daemon, the next start ends them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { alive } from "../../src/control/daemon-process";
import { procInfo } from "../../src/os/proc-stat";
import { json, run, sandbox, type Sandbox } from "../helpers/binary";
import { detachedPids, detachingStdio, killDetached, ledgerProcesses } from "../helpers/fake-server";
import { eventually } from "../helpers/wait";

let s: Sandbox;
let dir: string;
const cli = (args: string[]) => run(args, { env: s.env, timeoutMs: 30_000 });
const daemonPid = async () => json(await cli(["daemon", "status", "--json"])).pid as number;

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  dir = mkdtempSync(join(s.dataDir, "..", "detached-"));
  expect((await cli(["daemon", "start"])).code).toBe(0);
  const { command, args } = detachingStdio(dir);
  expect((await cli(["mcp", "add", "detaching", "--", command, ...args])).code).toBe(0);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
  killDetached(dir);
});

/** Starts the server and waits until the daemon has recorded the detached sleep without a marker. */
async function detach(): Promise<[number, number]> {
  expect((await cli(["mcp", "detaching", "cwd"])).code).toBe(0);
  const pids = detachedPids(dir);
  expect(pids.map(alive)).toEqual([true, true]);
  expect(await eventually(() => ledgerProcesses(s.dataDir).includes(pids[1]), 6000)).toBe(true);
  return pids;
}

describe("processes a server detaches from its group", () => {
  test("end with the server when it is disabled, and are collected: no zombie is left", async () => {
    const pids = await detach();
    const daemon = await daemonPid();
    expect((await cli(["mcp", "disable", "detaching"])).code).toBe(0);
    // Gone from the process table: the daemon (alive) collected what it adopted and ended.
    expect(await eventually(() => pids.every((p) => procInfo(p) === null), 5000)).toBe(true);
    expect(alive(daemon)).toBe(true);
    expect((await cli(["mcp", "enable", "detaching"])).code).toBe(0);
  }, 20_000);

  test("end when the daemon stops", async () => {
    const pids = await detach();
    expect((await cli(["daemon", "stop"])).code).toBe(0);
    expect(await eventually(() => pids.every((p) => !alive(p)), 5000)).toBe(true);
  }, 20_000);

  test("after kill -9 of the daemon, end when it starts again", async () => {
    expect((await cli(["daemon", "start"])).code).toBe(0);
    const pids = await detach();
    const daemon = await daemonPid();
    process.kill(daemon, "SIGKILL");
    expect(await eventually(() => !alive(daemon))).toBe(true);
    await Bun.sleep(300);
    expect(pids.map(alive)).toEqual([true, true]);
    expect((await cli(["daemon", "start"])).code).toBe(0);
    expect(await eventually(() => pids.every((p) => !alive(p)), 5000)).toBe(true);
  }, 30_000);
});
