// The daemon's lifecycle at its edges, with the compiled binary: starts that race each other, a stale
// record naming a reused pid, SIGHUP, a data directory that is a file or given with a `~`, an invalid
// agent.yaml, and a lock the account cannot use (as another account, where the tests run as root).
// Every daemon a test starts is stopped by it, or by afterAll.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { alive } from "../../src/control/daemon-process";
import { isLockHeld } from "../../src/control/lock";
import { BIN, freePort, json, requireBinary, run, sandbox, type Sandbox } from "../helpers/binary";
import { tempDir } from "../helpers/temp-cleanup";
import { eventually } from "../helpers/wait";

requireBinary();
const KEYWORD_ONLY = "embedding:\n  provider: none\n";
const sandboxes: Sandbox[] = [];
const sleepers: number[] = [];

async function newSandbox(yaml: string | null = KEYWORD_ONLY): Promise<Sandbox> {
  const s = await sandbox(yaml ?? undefined);
  sandboxes.push(s);
  return s;
}

afterAll(async () => {
  for (const s of sandboxes) await run(["daemon", "stop"], { env: s.env });
  for (const pid of sleepers) if (alive(pid)) process.kill(pid, "SIGKILL");
});

const pidFile = (s: Sandbox) => join(s.dataDir, ".daemon", "daemon.pid");
const record = (s: Sandbox) => JSON.parse(readFileSync(pidFile(s), "utf8")) as { pid: number; port: number; url: string };

describe("starts that race", () => {
  test("four at once: one starts the daemon, the others report it running, all exit 0 with its pid and url", async () => {
    const s = await newSandbox();
    const results = await Promise.all([1, 2, 3, 4].map(() => run(["daemon", "start", "--json"], { env: s.env, timeoutMs: 40_000 })));
    expect(results.map((r) => ({ code: r.code, stderr: r.stderr.replace(/^signet: tightened mode .*\n/gm, "") }))).toEqual(Array(4).fill({ code: 0, stderr: "" }));
    const answers = results.map((r) => json(r));
    expect(answers.filter((a) => a.alreadyRunning === false)).toHaveLength(1);
    const { pid, url } = record(s);
    for (const a of answers) expect(a).toMatchObject({ pid, url, dataDir: s.dataDir });
    expect((await fetch(`${url}/health`)).ok).toBe(true);
    expect(json(await run(["daemon", "stop"], { env: s.env }))).toEqual({ stopped: true, pid });
  }, 60_000);

  test("one started while another's daemon is still starting waits until it answers, then reports it", async () => {
    const s = await newSandbox();
    // A daemon caught between taking the lock and writing its record (opening its store), and held
    // there (SIGSTOP) while the second start runs: what a start racing another's meets.
    let first: ReturnType<typeof Bun.spawn> | undefined;
    for (let attempt = 0; attempt < 10 && !first; attempt++) {
      const proc = Bun.spawn([BIN, "daemon", "run"], { env: s.env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
      await eventually(() => existsSync(join(s.dataDir, ".daemon", "daemon.lock")) && (isLockHeld(s.dataDir) || proc.exitCode !== null), 15_000);
      if (proc.exitCode === null && !existsSync(pidFile(s))) {
        proc.kill("SIGSTOP");
        if (!existsSync(pidFile(s))) first = proc;
      }
      if (!first) {
        proc.kill("SIGKILL");
        await proc.exited;
        rmSync(pidFile(s), { force: true });
      }
    }
    expect(first).toBeDefined();
    try {
      const second = run(["daemon", "start", "--json"], { env: s.env, timeoutMs: 30_000 });
      let returned = false;
      void second.then(() => (returned = true));
      await Bun.sleep(1500);
      // Not "already running" with no pid nor url: it waits for the daemon to answer.
      expect(returned).toBe(false);
      first!.kill("SIGCONT");
      const r = await second;
      // It returned once the daemon answers: /health answers now.
      const health = await fetch(`http://127.0.0.1:${s.port}/health`).catch(() => null);
      expect(health?.ok).toBe(true);
      expect(r.code).toBe(0);
      expect(json(r)).toMatchObject({ alreadyRunning: true, pid: first!.pid, url: `http://127.0.0.1:${s.port}` });
    } finally {
      first!.kill("SIGCONT");
      first!.kill("SIGTERM");
      await first!.exited;
      // Whatever else a failed run may have started there.
      await run(["daemon", "stop"], { env: s.env });
    }
  }, 60_000);
});

describe("a stale record", () => {
  test("naming a live process that is not the daemon (a reused pid) does not lead clients to its old port", async () => {
    const s = await newSandbox();
    const noPort = { ...s.env };
    delete noPort.SIGNET_PORT;
    const oldPort = await freePort();
    expect((await run(["daemon", "start", "--port", String(oldPort)], { env: noPort })).code).toBe(0);
    const old = record(s);
    process.kill(old.pid, "SIGKILL");
    expect(await eventually(() => !alive(old.pid))).toBe(true);
    // Another process now has "its" pid: the record's process start time shows it is not the daemon.
    const sleeper = Bun.spawn(["sleep", "300"], { stdout: "ignore", stderr: "ignore" });
    sleepers.push(sleeper.pid);
    writeFileSync(pidFile(s), JSON.stringify({ ...JSON.parse(readFileSync(pidFile(s), "utf8")), pid: sleeper.pid }));
    try {
      const status = await run(["daemon", "status"], { env: s.env });
      expect({ code: status.code, running: json(status).running }).toEqual({ code: 1, running: false });
      const r = await run(["remember", "after the crash"], { env: s.env, timeoutMs: 30_000 });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`at http://127.0.0.1:${s.port} (pid`);
      expect(record(s)).toMatchObject({ port: s.port });
      expect(alive(sleeper.pid)).toBe(true);
    } finally {
      sleeper.kill("SIGKILL");
      await run(["daemon", "stop"], { env: s.env });
    }
  }, 60_000);
});

describe("SIGHUP", () => {
  test("a foreground daemon stops gracefully: exit 0, its record removed, the lock released", async () => {
    const s = await newSandbox();
    const daemon = Bun.spawn([BIN, "daemon", "run"], { env: s.env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    try {
      expect(await eventually(async () => (await fetch(`http://127.0.0.1:${s.port}/health`).catch(() => null))?.ok === true)).toBe(true);
      daemon.kill("SIGHUP");
      expect(await daemon.exited).toBe(0);
      expect(await new Response(daemon.stderr).text()).toContain("SIGHUP received: shutting down");
      expect(existsSync(pidFile(s))).toBe(false);
      expect(isLockHeld(s.dataDir)).toBe(false);
    } finally {
      if (daemon.exitCode === null) daemon.kill("SIGKILL");
    }
  });

  test.skipIf(!Bun.which("script"))("its terminal closing (a real hang-up, its stderr gone) stops it gracefully too", async () => {
    const s = await newSandbox();
    // script gives the daemon a terminal of its own; killing script closes the terminal's master side.
    const term = Bun.spawn(["script", "-qefc", `${BIN} daemon run`, "/dev/null"], { env: s.env, stdin: "pipe", stdout: "ignore", stderr: "ignore" });
    let pid = 0;
    try {
      expect(await eventually(() => existsSync(pidFile(s)), 15_000)).toBe(true);
      pid = record(s).pid;
      term.kill("SIGKILL");
      // The record goes only with a graceful stop; the lock with any end of the process.
      expect(await eventually(() => !existsSync(pidFile(s)) && !isLockHeld(s.dataDir) && !alive(pid), 15_000)).toBe(true);
    } finally {
      if (term.exitCode === null) term.kill("SIGKILL");
      if (pid && alive(pid)) process.kill(pid, "SIGKILL");
    }
  }, 30_000);
});

describe("the data directory", () => {
  test("a regular file as SIGNET_PATH is named as such, by every command and by doctor", async () => {
    const s = await newSandbox(null);
    mkdirSync(dirname(s.dataDir), { recursive: true });
    writeFileSync(s.dataDir, "not a directory\n");
    const expected = `the data directory ${s.dataDir} (SIGNET_PATH) is not a directory`;
    for (const args of [["daemon", "status"], ["daemon", "start"], ["daemon", "run"], ["daemon", "stop"]]) {
      const r = await run(args, { env: s.env });
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.stderr).toContain(expected);
      expect(r.stderr).not.toContain("ENOTDIR");
    }
    const doctor = await run(["doctor", "--json"], { env: s.env });
    expect(doctor.code).toBe(1);
    const checks = json(doctor).checks as { area: string; status: string; detail: string; fix?: string }[];
    expect(checks.filter((c) => c.detail.includes(s.dataDir))).toEqual([
      { area: "data dir", status: "problem", detail: expected, fix: "set SIGNET_PATH to a directory (or move the file away)" },
    ]);
    expect(JSON.stringify(checks)).not.toContain("creates it");
    expect(readFileSync(s.dataDir, "utf8")).toBe("not a directory\n");
  });

  test("SIGNET_PATH='~/…' (no shell expanded it) is in HOME, not under the working directory; ~user is refused", async () => {
    const s = await newSandbox(null);
    const cwd = tempDir("signet-cwd-");
    const env = { ...s.env, SIGNET_PATH: "~/.agents" };
    const started = await run(["daemon", "start"], { env, cwd });
    expect(started.code).toBe(0);
    try {
      expect(json(started).dataDir).toBe(join(s.home, ".agents"));
      expect(existsSync(join(s.home, ".agents", ".daemon", "daemon.pid"))).toBe(true);
      expect(readdirSync(cwd)).toEqual([]);
      const status = await run(["daemon", "status"], { env: { ...env, SIGNET_PATH: "~" + "/.agents/" }, cwd: s.home });
      expect(json(status)).toMatchObject({ running: true, dataDir: join(s.home, ".agents") });
    } finally {
      expect((await run(["daemon", "stop"], { env, cwd })).code).toBe(0);
    }
    const other = await run(["daemon", "status"], { env: { ...s.env, SIGNET_PATH: "~root/.agents" }, cwd });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('SIGNET_PATH="~root/.agents": only a leading ~ or ~/');
    expect(readdirSync(cwd)).toEqual([]);
  }, 30_000);
});

describe("an invalid agent.yaml", () => {
  test("stops no `daemon stop` or `status`; doctor reports it and goes on", async () => {
    const s = await newSandbox();
    expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
    const { pid } = record(s);
    writeFileSync(join(s.dataDir, "agent.yaml"), `${KEYWORD_ONLY}bogus: 1\n`);
    // What needs the configuration refuses it, naming the key.
    const list = await run(["list"], { env: s.env });
    expect(list.code).toBe(2);
    expect(list.stderr).toContain("unknown key bogus");

    const status = await run(["daemon", "status"], { env: s.env });
    expect(status.code).toBe(0);
    expect(json(status)).toMatchObject({ running: true, pid, healthy: true });
    expect((await run(["daemon", "--json"], { env: s.env })).code).toBe(0);
    expect((await run(["daemon", "logs", "--lines", "1"], { env: s.env })).stdout).toContain("listening on");

    const doctor = await run(["doctor", "--json"], { env: s.env });
    expect(doctor.code).toBe(1);
    const checks = json(doctor).checks as { area: string; status: string; detail: string }[];
    expect(checks[0]).toMatchObject({ area: "config", status: "problem", detail: expect.stringContaining("unknown key bogus") });
    expect(checks.find((c) => c.area === "daemon")).toMatchObject({ status: "ok", detail: expect.stringContaining(`(pid ${pid}`) });

    const stop = await run(["daemon", "stop"], { env: s.env });
    expect({ code: stop.code, out: json(stop) }).toEqual({ code: 0, out: { stopped: true, pid } });
    expect(alive(pid)).toBe(false);
  }, 30_000);
});

describe("flags of `signet daemon`", () => {
  test("the group takes the flags its help lists, no others", async () => {
    const s = await newSandbox();
    const help = await run(["daemon", "--help"], { env: s.env });
    expect(help.stdout).not.toContain("--url");
    expect(help.stdout).not.toContain("--agent");
    for (const args of [["daemon", "--url=http://127.0.0.1:1", "--agent=zzz", "status"], ["daemon", "--url=http://127.0.0.1:1"]]) {
      const r = await run(args, { env: s.env });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain("unknown option --url");
    }
  });

  test("`logs --lines` must be a whole number of at least 1", async () => {
    const s = await newSandbox();
    for (const lines of ["abc", "0", "-5", "1.5", ""]) {
      const r = await run(["daemon", "logs", `--lines=${lines}`], { env: s.env });
      expect({ lines, code: r.code, stdout: r.stdout }).toEqual({ lines, code: 2, stdout: "" });
      expect(r.stderr).toContain("--lines");
    }
  });
});

// Run as another account (nobody) where the tests run as root: root may open any file, so only
// another account meets a lock it may not use. Elsewhere these situations are covered by
// test/unit/daemon-lock.test.ts as far as the account allows (a lock that is a directory, or no
// database).
const NOBODY = 65534;
const setpriv = Bun.which("setpriv");
describe.skipIf(process.getuid?.() !== 0 || !setpriv)("a lock the account cannot use (as nobody)", () => {
  /**
   * The binary where nobody may run it: the checkout may sit under a directory only its owner can
   * enter (a clone in a `mktemp -d` directory, mode 0700).
   */
  let nobodyBin: string | undefined;
  function binaryForNobody(): string {
    if (nobodyBin) return nobodyBin;
    const dir = tempDir("signet-nobody-bin-");
    chmodSync(dir, 0o755);
    const copy = join(dir, "signet");
    copyFileSync(BIN, copy);
    chmodSync(copy, 0o755);
    return (nobodyBin = copy);
  }

  /** A sandbox nobody owns, and a way to run the binary as nobody in it. */
  async function nobodySandbox() {
    const s = await newSandbox();
    const root = dirname(s.dataDir);
    for (const path of [root, s.home, s.dataDir, join(s.dataDir, "agent.yaml")]) chownSync(path, NOBODY, NOBODY);
    const bin = binaryForNobody();
    const asNobody = (args: string[], env: Record<string, string> = {}) =>
      run([`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", bin, ...args], { env: { ...s.env, SIGNET_AUTOSTART: "0", ...env }, bin: setpriv! });
    // Its daemon, started and stopped once, leaves its .daemon (lock included) behind.
    expect((await asNobody(["daemon", "start"])).code).toBe(0);
    expect((await asNobody(["daemon", "stop"])).code).toBe(0);
    return { s, asNobody, daemonDir: join(s.dataDir, ".daemon"), lock: join(s.dataDir, ".daemon", "daemon.lock") };
  }

  test(".daemon not writable (0500): not \"running\"; a start fails saying what to chmod", async () => {
    const { asNobody, daemonDir } = await nobodySandbox();
    chmodSync(daemonDir, 0o500);
    const status = await asNobody(["daemon", "status"]);
    expect({ code: status.code, running: json(status).running }).toEqual({ code: 1, running: false });
    const start = await asNobody(["daemon", "start"]);
    expect(start.code).toBe(1);
    expect(start.stderr).not.toContain("already running");
    expect(start.stderr).toContain(`you may not write ${daemonDir} (mode 0500)`);
    expect(start.stderr).toContain(`chmod 700 '${daemonDir}'`);
  }, 30_000);

  test("a lock file of another account (a daemon once run with sudo): named, with its owner and the chown to run", async () => {
    const { s, asNobody, lock } = await nobodySandbox();
    chownSync(lock, 0, 0);
    for (const args of [["daemon", "status"], ["daemon", "start"]]) {
      const r = await asNobody(args);
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.stderr).toContain(`cannot use the daemon's lock ${lock} (unable to open database file): ${lock} belongs to uid 0, not to you (uid ${NOBODY})`);
      expect(r.stderr).toContain(`sudo chown -R ${NOBODY} '${s.dataDir}'`);
    }
    // A command whose client finds no daemon and would start one (autostart) says the same.
    {
      const r = await asNobody(["list"], { SIGNET_AUTOSTART: "1" });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`cannot use the daemon's lock ${lock} (unable to open database file): ${lock} belongs to uid 0, not to you (uid ${NOBODY})`);
      expect(r.stderr).toContain(`sudo chown -R ${NOBODY} '${s.dataDir}'`);
    }
  }, 30_000);
});
