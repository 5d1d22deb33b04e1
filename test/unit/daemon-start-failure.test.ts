// src/control/daemon-process.ts whyNothingLogged: what `signet daemon start` (and autostart) says
// when the daemon it started left nothing in its log. The file system's answer is given, as a full
// file system cannot be made here without mounting one; by hand on a full 1 MiB tmpfs the start says
// the first message below.
import { describe, expect, test } from "bun:test";
import { statfsSync } from "node:fs";
import { whyNothingLogged } from "../../src/control/daemon-process";

const full = () => ({ bavail: 0n, bsize: 4096n });
const room = () => ({ bavail: 1000, bsize: 4096 });

describe("a daemon that did not start and logged nothing", () => {
  test("on a full file system: says so, naming the data directory, whatever the process did", () => {
    for (const exit of [{ code: 1, signal: null }, null]) expect(whyNothingLogged("/data/agents", exit, full)).toBe("the file system holding /data/agents is full: the daemon cannot write its database or its log; free some space and start it again");
  });

  test("with room: how the process ended, or that it never answered", () => {
    expect(whyNothingLogged("/data/agents", { code: 3, signal: null }, room)).toBe("it ended (exit code 3) before writing anything to its log");
    expect(whyNothingLogged("/data/agents", { code: 1, signal: "SIGKILL" }, room)).toBe("it ended (signal SIGKILL) before writing anything to its log");
    expect(whyNothingLogged("/data/agents", null, room)).toContain("did not answer within 15 s");
  });

  test("a file system that cannot be asked about, and the real statfs of a directory with room", () => {
    const unanswered = () => {
      throw new Error("ENOENT");
    };
    expect(whyNothingLogged("/nowhere", { code: 1, signal: null }, unanswered)).toBe("it ended (exit code 1) before writing anything to its log");
    expect(Number(statfsSync("/tmp").bavail)).toBeGreaterThan(0);
    expect(whyNothingLogged("/tmp", { code: 1, signal: null })).toBe("it ended (exit code 1) before writing anything to its log");
  });
});
