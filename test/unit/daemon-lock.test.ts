// The daemon's lock (src/control/lock.ts): only SQLite's "busy" means a daemon holds it. Anything
// else that stops the probe or the taking of the lock is an error naming the file and what to do,
// never "a daemon is running" (that made `signet daemon status` report a daemon that was not there,
// and `signet daemon start` start none). As root only what root also meets is made here: a lock
// that is a directory, a lock file that is no database, a data directory that is a file. A lock
// another account owns, and a .daemon the account may not write: test/e2e/daemon-lifecycle.test.ts
// (as nobody).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { daemonFiles } from "../../src/config/paths";
import { answeringDaemon } from "../../src/control/daemon-process";
import { assertDataDir, DaemonLock, DaemonRunningError, dataDirProblem, isLockHeld } from "../../src/control/lock";
import { startTestDaemon } from "../helpers/daemon";
import { tempDir } from "../helpers/temp-cleanup";

let held: DaemonLock | undefined;
afterEach(() => {
  held?.release();
  held = undefined;
});

/** What `fn` throws; fails the test when it returns. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected it to throw");
}

describe("the lock", () => {
  test("free, then held while a daemon holds it (a second taker is told it runs), then free again", () => {
    const dataDir = tempDir();
    expect(isLockHeld(dataDir)).toBe(false);
    held = DaemonLock.acquire(dataDir);
    expect(isLockHeld(dataDir)).toBe(true);
    expect(thrown(() => DaemonLock.acquire(dataDir))).toBeInstanceOf(DaemonRunningError);
    held.release();
    held = undefined;
    expect(isLockHeld(dataDir)).toBe(false);
    held = DaemonLock.acquire(dataDir);
  });

  test("a lock that is a directory: named, not taken for a running daemon", () => {
    const dataDir = tempDir();
    const lock = daemonFiles(dataDir).lock;
    mkdirSync(lock, { recursive: true });
    for (const fn of [() => isLockHeld(dataDir), () => DaemonLock.acquire(dataDir)]) {
      const err = thrown(fn);
      expect(err).not.toBeInstanceOf(DaemonRunningError);
      expect(err.message).toStartWith(`cannot use the daemon's lock ${lock} (`);
      expect(err.message).toContain("it is not a regular file; remove it (the daemon makes it again)");
    }
  });

  test("a lock file that is no SQLite database: named, with SQLite's reason, not taken for a running daemon", () => {
    const dataDir = tempDir();
    const lock = daemonFiles(dataDir).lock;
    mkdirSync(join(dataDir, ".daemon"), { recursive: true, mode: 0o700 });
    writeFileSync(lock, "this is not a database, whatever else it is ".repeat(20), { mode: 0o600 });
    for (const fn of [() => isLockHeld(dataDir), () => DaemonLock.acquire(dataDir)]) {
      const err = thrown(fn);
      expect(err).not.toBeInstanceOf(DaemonRunningError);
      expect(err.message).toBe(`cannot use the daemon's lock ${lock} (file is not a database): if no daemon of this data directory runs, remove the file (the daemon makes it again)`);
    }
  });

  test("a data directory that is a file, or under one: said so, before any errno text", () => {
    const file = join(tempDir(), "afile");
    writeFileSync(file, "x");
    const expected = `the data directory ${file} (SIGNET_PATH) is not a directory: set SIGNET_PATH to a directory (or move the file away)`;
    expect(thrown(() => isLockHeld(file)).message).toBe(expected);
    expect(thrown(() => DaemonLock.acquire(file)).message).toBe(expected);
    expect(thrown(() => assertDataDir(file)).message).toBe(expected);
    expect(dataDirProblem(join(file, "sub"))?.detail).toBe(`the data directory ${join(file, "sub")} (SIGNET_PATH) cannot be made: a file stands where a directory above it should be`);
    expect(thrown(() => isLockHeld(join(file, "sub"))).message).toContain("cannot be made");
  });

  test("a .daemon that is a file is named; a missing data directory is no problem (it is made)", () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, ".daemon"), "x");
    expect(thrown(() => DaemonLock.acquire(dataDir)).message).toBe(
      `${join(dataDir, ".daemon")} is not a directory: the daemon keeps its lock and credentials there: move it away (the daemon makes the directory)`,
    );
    expect(dataDirProblem(join(tempDir(), "not-yet"))).toBeUndefined();
    expect(isLockHeld(join(tempDir(), "not-yet"))).toBe(false);
  });
});

describe("waiting for the daemon that holds the lock (answeringDaemon, for a start that lost the race)", () => {
  test("its record once it answers /health", async () => {
    const d = await startTestDaemon();
    try {
      expect(await answeringDaemon(d.dataDir, 5000)).toMatchObject({ pid: process.pid, url: d.url });
    } finally {
      await d.daemon.stop();
    }
  });

  test("null when the lock is released first (that daemon failed to start, or stopped)", async () => {
    const dataDir = tempDir();
    held = DaemonLock.acquire(dataDir);
    const lock = held;
    setTimeout(() => lock.release(), 200);
    const started = performance.now();
    expect(await answeringDaemon(dataDir, 10_000)).toBeNull();
    expect(performance.now() - started).toBeLessThan(5000);
    held = undefined;
  });

  test("an error naming the log when it holds the lock without answering past the bound", async () => {
    const dataDir = tempDir();
    held = DaemonLock.acquire(dataDir);
    await expect(answeringDaemon(dataDir, 300)).rejects.toThrow(
      `a daemon holds the lock of ${dataDir} but did not answer /health within 300 ms: look at its log (${daemonFiles(dataDir).log}), then \`signet daemon restart\``,
    );
  });
});
