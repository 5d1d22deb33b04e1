// The bridge in an in-process daemon against servers that test its limits: large results, the
// message limit, and processes a server detaches from its group (setsid). No child subreaper here
// (only the real daemon becomes one): what a server detaches is adopted by init, and found by its
// marker or because the daemon recorded it; test/e2e/bridge-processes.test.ts covers the real daemon.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive } from "../../src/control/daemon-process";
import { call as request } from "../helpers/memory-api";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { detachedPids, detachingStdio, fakeStdio, killDetached, ledgerProcesses } from "../helpers/fake-server";
import { eventually } from "../helpers/wait";

let d: TestDaemon;
let dir: string;

beforeAll(async () => {
  d = await startTestDaemon();
});

afterAll(async () => {
  await d.stop();
});

afterEach(async () => {
  for (const s of await d.daemon.context.bridge.list()) await d.daemon.context.bridge.remove(s.name);
  if (!dir) return;
  killDetached(dir);
  rmSync(dir, { recursive: true, force: true });
});

/** An owner's request: the answer's status and parsed body. */
const api = (daemon: TestDaemon, method: string, path: string, body?: unknown) => request(daemon, method, path, { body, headers: daemon.ownerHeaders });

const install = (daemon: TestDaemon, name: string, transport: unknown) =>
  api(daemon, "POST", "/api/marketplace/servers", { name, transport });
const call = (daemon: TestDaemon, name: string, tool: string, args: Record<string, unknown> = {}) =>
  api(daemon, "POST", `/api/marketplace/servers/${name}/call`, { tool, arguments: args });

describe("large results", () => {
  test("a 12 MB result in many small chunks arrives in proportion to its size", async () => {
    await install(d, "big", fakeStdio());
    expect((await call(d, "big", "cwd")).status).toBe(200);
    // Pieces of 16 KiB reach the daemon as hundreds of chunks: framing that rescanned what it held
    // on each chunk would make eight times the size cost sixty-four times the work, where linear
    // framing costs eight times (and a busy machine's collections a little more).
    // This process's CPU time (the daemon runs in it), not the wall clock: another process taking
    // the cores delays a call without adding to its CPU time.
    // Each call starts on a collected heap: the garbage of the call before (a 12 MB result's among
    // it) is not collected on the next call's time, which made the small size's runs differ twofold.
    const timed = async (bytes: number) => {
      Bun.gc(true);
      const started = process.cpuUsage();
      const r = await call(d, "big", "text", { bytes, pieceBytes: 16 * 1024 });
      expect(r.status).toBe(200);
      expect(r.body.content[0].text).toHaveLength(bytes);
      const used = process.cpuUsage(started);
      return used.user + used.system;
    };
    // The cheapest of four each, the two sizes in turn: a busy machine only ever adds work (cache
    // misses, collections), to some runs more than to others, and changes while the runs go on.
    let [small, large] = [Infinity, Infinity];
    for (let round = 0; round < 4; round++) {
      small = Math.min(small, await timed(1.5 * 1024 * 1024));
      large = Math.min(large, await timed(12 * 1024 * 1024));
    }
    expect(large / small).toBeLessThan(24);
  }, 60_000);

  test("a result over bridge.maxMessageBytes fails the call naming the limit; the next call starts the server again", async () => {
    const limited = await startTestDaemon({ yaml: "bridge:\n  maxMessageBytes: 1048576\n" });
    try {
      await install(limited, "big", fakeStdio());
      const over = await call(limited, "big", "text", { bytes: 2 * 1024 * 1024 });
      expect(over.status).toBe(503);
      expect(over.body.error).toContain("it sent a message larger than 1 MiB, the limit set by bridge.maxMessageBytes");
      const under = await call(limited, "big", "text", { bytes: 1000 });
      expect(under.body.content[0].text).toHaveLength(1000);
    } finally {
      await limited.stop();
    }
  });
});

describe("processes a server detaches from its group", () => {
  async function startDetaching(daemon: TestDaemon): Promise<number[]> {
    dir = mkdtempSync(join(tmpdir(), "signet-detach-"));
    await install(daemon, "detaching", detachingStdio(dir));
    expect((await call(daemon, "detaching", "cwd")).status).toBe(200);
    const [kept, cleared] = detachedPids(dir);
    expect([alive(kept), alive(cleared)]).toEqual([true, true]);
    // The one without a marker is known only from the daemon's look at its subtree, every 2 s.
    expect(await eventually(() => ledgerProcesses(daemon.dataDir).includes(cleared), 6000)).toBe(true);
    return [kept, cleared];
  }

  test("they end when the server is disabled, and the ledger forgets them", async () => {
    const detached = await startDetaching(d);
    expect((await api(d, "PATCH", "/api/marketplace/servers/detaching", { enabled: false })).status).toBe(200);
    expect(await eventually(() => detached.every((p) => !alive(p)), 5000)).toBe(true);
    expect(await eventually(() => ledgerProcesses(d.dataDir).length === 0, 5000)).toBe(true);
  }, 20_000);

  test("they end when the server is removed", async () => {
    const detached = await startDetaching(d);
    expect((await api(d, "DELETE", "/api/marketplace/servers/detaching")).status).toBe(200);
    expect(await eventually(() => detached.every((p) => !alive(p)), 5000)).toBe(true);
  }, 20_000);

  test("they end when the daemon stops", async () => {
    const own = await startTestDaemon();
    let detached: number[] = [];
    try {
      detached = await startDetaching(own);
    } finally {
      await own.stop();
    }
    expect(detached.filter((p) => alive(p))).toEqual([]);
  }, 20_000);
});
