// The daemon's record (.daemon/daemon.pid) vouching for the address a client calls, in place of the
// identity challenge (src/config/daemon-record.ts, docs/security.md#clients-check-who-answers): only
// an owner-only record naming a live process of this account by pid and start time, on exactly that
// address, not stopping. The records here name this test process, which is alive and ours.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, renameSync, symlinkSync } from "node:fs";
import { recordVouchesFor, readPidFile, recordedProcessLives, runningDaemonUrl, type PidInfo } from "../../src/config/daemon-record";
import { daemonFiles } from "../../src/config/paths";
import { DaemonLock } from "../../src/control/lock";
import { procInfo } from "../../src/os/proc-stat";
import { tempDir } from "../helpers/daemon";

const ORIGIN = "http://127.0.0.1:45123";
const self = (): PidInfo => ({
  pid: process.pid,
  port: 45123,
  url: ORIGIN,
  startedAt: new Date().toISOString(),
  version: "test",
  processStart: procInfo(process.pid)!.started,
});

let lock: DaemonLock | undefined;
afterEach(() => {
  lock?.release();
  lock = undefined;
});

function recorded(info: PidInfo): string {
  const dataDir = tempDir();
  lock = DaemonLock.acquire(dataDir);
  lock.writePid(info);
  return dataDir;
}

describe("the daemon's record vouches for its address", () => {
  test("a live process of this account, by pid and start time, on exactly the address called", () => {
    expect(recordVouchesFor(recorded(self()), ORIGIN)).toBe(true);
  });

  test("not for another address: another port, another loopback name", () => {
    const dataDir = recorded(self());
    expect(recordVouchesFor(dataDir, "http://127.0.0.1:45124")).toBe(false);
    expect(recordVouchesFor(dataDir, "http://[::1]:45123")).toBe(false);
  });

  test("not for a reused pid, a process that is gone, or a record without a start time", () => {
    expect(recordVouchesFor(recorded({ ...self(), processStart: "1" }), ORIGIN)).toBe(false);
    lock!.release();
    const gone = Bun.spawnSync(["true"]).pid;
    expect(recordVouchesFor(recorded({ ...self(), pid: gone }), ORIGIN)).toBe(false);
    lock!.release();
    const { processStart: _, ...older } = self();
    expect(recordVouchesFor(recorded(older), ORIGIN)).toBe(false);
  });

  test("not once the daemon marks its record as stopping, which comes before its port closes", () => {
    const dataDir = recorded(self());
    lock!.markStopping();
    expect(readPidFile(dataDir)?.stopping).toBe(true);
    expect(recordVouchesFor(dataDir, ORIGIN)).toBe(false);
  });

  test("not from a record others could have written, a link, or none", () => {
    const dataDir = recorded(self());
    const pidFile = daemonFiles(dataDir).pid;
    chmodSync(pidFile, 0o620);
    expect(recordVouchesFor(dataDir, ORIGIN)).toBe(false);
    chmodSync(pidFile, 0o600);
    renameSync(pidFile, `${pidFile}.real`);
    symlinkSync(`${pidFile}.real`, pidFile);
    expect(recordVouchesFor(dataDir, ORIGIN)).toBe(false);
    expect(recordVouchesFor(tempDir(), ORIGIN)).toBe(false);
  });
});

describe("where clients look for the daemon (runningDaemonUrl)", () => {
  test("the recorded URL while the process that wrote the record lives", () => {
    expect(runningDaemonUrl(recorded(self()))).toBe(ORIGIN);
    expect(recordedProcessLives(self())).toBe(true);
  });

  test("not a reused pid: a live process started at another time than the record says", () => {
    // A record left by a daemon killed with -9, its pid since given to another process (this one).
    const reused = { ...self(), processStart: "1" };
    expect(recordedProcessLives(reused)).toBe(false);
    expect(runningDaemonUrl(recorded(reused))).toBeUndefined();
  });

  test("not a process that is gone; a record without a start time (an older daemon's) counts while its pid lives", () => {
    const gone = Bun.spawnSync(["true"]).pid;
    expect(runningDaemonUrl(recorded({ ...self(), pid: gone }))).toBeUndefined();
    lock!.release();
    const { processStart: _, ...older } = self();
    expect(runningDaemonUrl(recorded(older))).toBe(ORIGIN);
    expect(recordedProcessLives({ ...older, pid: 0 })).toBe(false);
  });
});
