// The crash ledger's sweep: what a daemon killed outright left running is ended at the next start,
// and nothing else ever is: not a reused pid, not pid 0 or 1, not the daemon itself.
import { afterEach, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { alive } from "../../src/control/daemon-process";
import { ChildLedger } from "../../src/core/bridge/child-ledger";
import { MARKER_ENV } from "../../src/core/bridge/server-processes";
import { procInfo } from "../../src/os/proc-stat";
import { tempDir } from "../helpers/daemon";
import { eventually } from "../helpers/wait";

const dir = tempDir("signet-ledger-");
const path = join(dir, "bridge-children.json");
const spawned: Bun.Subprocess[] = [];
const TOKEN = "0123456789abcdef0123456789abcdef";

/** A `sleep` leading its own process group, as a bridged server does. */
function sleeper(env: Record<string, string> = {}) {
  const proc = Bun.spawn(["sleep", "1000"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, detached: true });
  spawned.push(proc);
  return { pid: proc.pid, started: procInfo(proc.pid)!.started };
}

afterEach(() => {
  for (const proc of spawned.splice(0)) proc.kill("SIGKILL");
  rmSync(path, { force: true });
});

test("no entry that is not a plain pid above 1, nor the daemon or its group, is ever signalled", () => {
  const self = procInfo(process.pid)!;
  const init = procInfo(1);
  const bad = [
    { pid: 0, started: "1" },
    // pid 1 with its real start time: the check on the pid alone must refuse it.
    { pid: 1, started: init?.started ?? "1" },
    { pid: -1, started: "1" },
    { pid: -4242, started: "1" },
    { pid: 2.5, started: "1" },
    { pid: "1234", started: "1" },
    { pid: null, started: "1" },
    { pid: 1e300, started: "1" },
    { pid: process.pid, started: self.started },
    { pid: self.pgrp, started: procInfo(self.pgrp)?.started ?? "1" },
    null,
    7,
  ];
  writeFileSync(path, JSON.stringify({ marker: "not a token", groups: bad, processes: bad }));
  const kill = process.kill;
  const signalled: unknown[] = [];
  process.kill = ((pid: number, signal?: string | number) => {
    signalled.push([pid, signal]);
    return true;
  }) as typeof process.kill;
  try {
    expect(new ChildLedger(path).sweep()).toBe(0);
  } finally {
    process.kill = kill;
  }
  expect(signalled).toEqual([]);
});

test("recorded groups and processes still running are ended; a pid now another process's is not", async () => {
  const group = sleeper();
  const escaped = sleeper();
  const reused = sleeper();
  writeFileSync(
    path,
    JSON.stringify({
      marker: TOKEN,
      groups: [group],
      processes: [escaped, { pid: reused.pid, started: String(Number(reused.started) - 1) }],
    }),
  );
  expect(new ChildLedger(path).sweep()).toBe(2);
  expect(await eventually(() => !alive(group.pid) && !alive(escaped.pid), 5000)).toBe(true);
  expect(alive(reused.pid)).toBe(true);
  // Swept once: the ledger is this daemon's now, and empty.
  expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ groups: [], processes: [] });
});

test("every process still carrying the crashed daemon's marker is ended, recorded or not", async () => {
  const marked = sleeper({ [MARKER_ENV]: `${TOKEN}:7` });
  const otherDaemon = sleeper({ [MARKER_ENV]: `${"f".repeat(32)}:7` });
  const unmarked = sleeper();
  writeFileSync(path, JSON.stringify({ marker: TOKEN, groups: [], processes: [] }));
  expect(new ChildLedger(path).sweep()).toBe(1);
  expect(await eventually(() => !alive(marked.pid), 5000)).toBe(true);
  expect([alive(otherDaemon.pid), alive(unmarked.pid)]).toEqual([true, true]);
});

test("a missing or unreadable ledger ends nothing", () => {
  expect(new ChildLedger(path).sweep()).toBe(0);
  writeFileSync(path, "{not json");
  expect(new ChildLedger(path).sweep()).toBe(0);
  writeFileSync(path, "null");
  expect(new ChildLedger(path).sweep()).toBe(0);
});
