// The compiled binary as users run it: modes by invoked name, daemon lifecycle, the lock,
// migrations, self-install and durability across kill -9.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive } from "../../src/control/daemon-process";
import { acrossKill9, json, requireBinary, run, sandbox, type Sandbox } from "../helpers/binary";
import { eventually } from "../helpers/wait";

const BIN = requireBinary();
const started: Sandbox[] = [];

/** Keyword-only daemons: these tests are about the process, not the embedding model. */
const KEYWORD_ONLY = "embedding:\n  provider: none\n";

/** `null`: no agent.yaml and no data directory until the binary makes one. */
async function newSandbox(yaml: string | null = KEYWORD_ONLY): Promise<Sandbox> {
  const s = await sandbox(yaml ?? undefined);
  started.push(s);
  return s;
}

const prefixes: string[] = [];
function tempPrefix(): string {
  const dir = mkdtempSync(join(tmpdir(), "signet-prefix-"));
  prefixes.push(dir);
  return dir;
}

afterAll(async () => {
  // Whatever a test left running is stopped here, so no daemon outlives the suite.
  for (const s of started) await run(["daemon", "stop"], { env: s.env });
  for (const dir of prefixes) rmSync(dir, { recursive: true, force: true });
});

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-03-26", clientInfo: { name: "e2e", version: "1" }, capabilities: {} },
});

describe("modes by invoked name", () => {
  let dir: string;
  let s: Sandbox;
  beforeAll(async () => {
    s = await newSandbox(null);
    // A directory far from the repo, with no node_modules anywhere near it.
    dir = mkdtempSync(join(tmpdir(), "signet-modes-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("--version answers without creating the data directory", async () => {
    const r = await run(["--version"], { env: s.env, cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^signet \d+\.\d+\.\d+$/);
    expect(existsSync(s.dataDir)).toBe(false);
  });

  const variants: [string, (target: string) => void][] = [
    ["symlink", (t) => symlinkSync(BIN, t)],
    ["hard link", (t) => linkSync(BIN, t)],
    ["copy", (t) => copyFileSync(BIN, t)],
  ];
  for (const [kind, make] of variants) {
    test(`a ${kind} named signet-mcp is the MCP stdio server`, async () => {
      const sub = join(dir, kind.replace(" ", "-"));
      mkdirSync(sub);
      const target = join(sub, "signet-mcp");
      make(target);
      if (kind === "copy") Bun.spawnSync(["chmod", "+x", target]);
      const version = await run(["--version"], { env: s.env, cwd: dir, bin: target });
      expect(version.stdout.trim()).toMatch(/^signet-mcp /);
      const r = await run([], { env: s.env, cwd: dir, bin: target, stdin: `${INIT}\n` });
      expect(r.code).toBe(0);
      const reply = JSON.parse(r.stdout.trim().split("\n")[0]!);
      expect(reply.id).toBe(1);
      expect(reply.result.serverInfo.name).toBe("signet");
      // Nothing but protocol messages on stdout.
      for (const line of r.stdout.trim().split("\n")) expect(JSON.parse(line).jsonrpc).toBe("2.0");
    });
  }

  test.skipIf(!Bun.which("script"))("signet-mcp --help, or typed at a terminal, prints its usage and exits 0; from a pipe it serves", async () => {
    mkdirSync(join(dir, "help"));
    const mcp = join(dir, "help", "signet-mcp");
    symlinkSync(BIN, mcp);
    const help = await run(["--help"], { env: s.env, cwd: dir, bin: mcp });
    expect(help.code).toBe(0);
    expect(help.stdout).toStartWith("signet-mcp: Signet's MCP server over stdio.\n");
    expect(help.stdout.split("\n").filter((l) => l.length > 80)).toEqual([]);
    // script gives it a pseudo-terminal for stdin and stdout, as when a person types `signet-mcp`.
    const typed = Bun.spawnSync(["script", "-qefc", mcp, "/dev/null"], { env: s.env, cwd: dir, stdin: "ignore", timeout: 15_000 });
    expect(typed.exitCode).toBe(0);
    expect(typed.stdout.toString().replace(/\r/g, "")).toContain("Typed at a terminal, it prints this and exits.\n");
    // From a pipe it is the server: the protocol alone on stdout.
    const piped = await run([], { env: s.env, cwd: dir, bin: mcp, stdin: `${INIT}\n` });
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout).result.serverInfo.name).toBe("signet");
    expect(piped.stderr).not.toContain("Typed at a terminal");
  });

  test("the same file under its own name is the CLI", async () => {
    const copy = join(dir, "signet");
    copyFileSync(BIN, copy);
    Bun.spawnSync(["chmod", "+x", copy]);
    const r = await run(["--help"], { env: s.env, cwd: dir, bin: copy });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("remember");
    expect(r.stdout).toContain("daemon");
  });
});

describe("daemon lifecycle", () => {
  test("start, status, second start refused, stop", async () => {
    const s = await newSandbox();
    let st = await run(["daemon", "status"], { env: s.env });
    expect(st.code).toBe(1);
    expect(json(st).running).toBe(false);

    const start = await run(["daemon", "start"], { env: s.env });
    expect(start.code).toBe(0);
    const info = json(start);
    expect(info.alreadyRunning).toBe(false);
    // The answer, not the pid file's bookkeeping (its process start time is for clients' identity check).
    expect(Object.keys(info).sort()).toEqual(["alreadyRunning", "dataDir", "log", "pid", "port", "startedAt", "url", "version"]);
    expect(info.url).toBe(`http://127.0.0.1:${s.port}`);
    expect(info.pid).toBeGreaterThan(0);
    const instanceKey = readFileSync(join(s.dataDir, ".daemon", "instance.key"), "utf8").trim();
    const health = await (await fetch(`${info.url}/health`, { headers: { "x-signet-instance-key": instanceKey } })).json();
    expect(health).toMatchObject({ status: "ok", pid: info.pid, port: s.port, dataDir: s.dataDir, db: { ok: true, memories: 0 } });

    st = await run(["daemon", "status"], { env: s.env });
    expect(st.code).toBe(0);
    expect(json(st)).toMatchObject({ running: true, pid: info.pid, healthy: true });

    // Asked to start what already runs: it says where, and succeeds.
    const again = await run(["daemon", "start"], { env: s.env });
    expect(again.code).toBe(0);
    expect(json(again)).toMatchObject({ alreadyRunning: true, pid: info.pid, url: info.url, dataDir: s.dataDir });
    const againText = await run(["daemon", "start", "--pretty"], { env: s.env });
    expect(againText.code).toBe(0);
    expect(againText.stdout).toBe(`signet daemon already running at ${info.url} (pid ${info.pid})\n`);

    // A second foreground daemon on the same data directory, even on another port, is refused by the lock.
    const other = await run(["daemon", "run", "--port", String(s.port + 1)], { env: s.env });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("already running");
    expect(other.stderr).toContain(String(info.pid));

    const stop = await run(["daemon", "stop"], { env: s.env });
    expect(stop.code).toBe(0);
    expect(json(stop)).toEqual({ stopped: true, pid: info.pid });
    st = await run(["daemon", "status"], { env: s.env });
    expect(st.code).toBe(1);
    expect(alive(info.pid)).toBe(false);

    const logs = await run(["daemon", "logs"], { env: s.env });
    expect(logs.stdout).toContain("listening on");
    expect(logs.stdout).toContain("shutting down");
  });

  test("a stale pid file from a crash never blocks a start", async () => {
    const s = await newSandbox();
    mkdirSync(join(s.dataDir, ".daemon"), { recursive: true });
    writeFileSync(
      join(s.dataDir, ".daemon", "daemon.pid"),
      JSON.stringify({ pid: 999999, port: s.port, url: `http://127.0.0.1:${s.port}`, startedAt: "x", version: "0" }),
    );
    const start = await run(["daemon", "start"], { env: s.env });
    expect(start.code).toBe(0);
    expect(json(start).pid).not.toBe(999999);
    expect((await run(["daemon", "stop"], { env: s.env })).code).toBe(0);
  });

  test("a port in use is a clear error", async () => {
    const s = await newSandbox();
    const squatter = Bun.serve({ port: s.port, hostname: "127.0.0.1", fetch: () => new Response("busy") });
    try {
      const r = await run(["daemon", "start"], { env: s.env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`port ${s.port}`);
      expect(r.stderr).toContain("already in use");
      expect((await run(["daemon", "status"], { env: s.env })).code).toBe(1);
    } finally {
      await squatter.stop(true);
    }
  });

  test("a port another daemon of this account holds is a clear error, and that daemon keeps every connection", async () => {
    const first = await newSandbox();
    const second = await newSandbox();
    const env = { ...second.env, SIGNET_PORT: String(first.port) };
    expect((await run(["daemon", "start"], { env: first.env })).code).toBe(0);
    const r = await run(["daemon", "start"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`port ${first.port}`);
    expect(r.stderr).toContain("already in use by another Signet daemon");
    expect((await run(["daemon", "status"], { env })).code).toBe(1);
    // A socket that allows sharing (SO_REUSEPORT) cannot join the daemon's port either.
    expect(() => Bun.serve({ port: first.port, hostname: "127.0.0.1", reusePort: true, fetch: () => new Response("other") })).toThrow();
    // Each new connection reaches the first daemon: what is remembered is in its store.
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`http://127.0.0.1:${first.port}/api/memory/remember`, {
        method: "POST",
        headers: { "content-type": "application/json", connection: "close" },
        body: JSON.stringify({ content: `only in the first store ${i}` }),
      });
      expect(res.status).toBe(201);
    }
    const list = json(await run(["list", "--limit", "20"], { env: first.env }));
    expect(list.memories.filter((m: { content: string }) => m.content.startsWith("only in the first store")).length).toBe(8);
    expect((await run(["daemon", "stop"], { env: first.env })).code).toBe(0);
  });

  test.skipIf(!existsSync("/proc/self/fd/2"))("`daemon logs` says where a foreground daemon's logs go", async () => {
    const s = await newSandbox();
    const empty = await run(["daemon", "logs"], { env: s.env });
    expect(empty.code).toBe(0);
    expect(empty.stderr).toContain("no log yet at");
    const daemon = Bun.spawn([BIN, "daemon", "run"], { env: s.env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    try {
      expect(await eventually(async () => json(await run(["daemon", "status"], { env: s.env })).healthy === true)).toBe(true);
      const expected = `the daemon (pid ${daemon.pid}) runs in the foreground (\`signet daemon run\`) and logs to its own stderr (a pipe or socket)`;
      for (const args of [["daemon", "logs"], ["daemon", "logs", "-f"]]) {
        // -f too: following a file nothing writes would print nothing, forever.
        const r = await run(args, { env: s.env, timeoutMs: 10_000 });
        expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 0, stdout: "" });
        expect(r.stderr).toContain(expected);
      }
    } finally {
      daemon.kill("SIGTERM");
      await daemon.exited;
    }
    // The same daemon started in the background writes the file: no explanation then.
    expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
    const background = await run(["daemon", "logs"], { env: s.env });
    expect(background.stdout).toContain("listening on");
    expect(background.stderr).toBe("");
  });

  test("`signet daemon` alone shows status and the subcommands", async () => {
    const s = await newSandbox();
    const r = await run(["daemon", "--pretty"], { env: s.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("not running");
    expect(r.stdout).toContain("logs");
  });
});

describe("the builtin embedding model in the compiled binary", () => {
  test("offline vectors: a query finds a memory it shares no word with", async () => {
    const s = await newSandbox(null);
    expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
    try {
      for (const content of ["The kitten is asleep on the sofa", "Quarterly tax filing is due in April", "The build uses Bun"]) {
        expect((await run(["remember", content], { env: s.env })).code).toBe(0);
      }
      let health: any;
      for (let i = 0; i < 200; i++) {
        health = await (await fetch(`http://127.0.0.1:${s.port}/health`)).json();
        if (health.embedding.ok && health.embedding.pending === 0) break;
        await Bun.sleep(50);
      }
      expect(health.embedding).toEqual({ provider: "builtin", model: "use-lite-512", ok: true, loaded: true, pending: 0 });
      const r = json(await run(["recall", "a young cat"], { env: s.env }));
      expect(r.meta).toMatchObject({ method: "vector", embedding: "ok" });
      expect(r.results[0]).toMatchObject({ content: "The kitten is asleep on the sofa", matchedBy: "vector" });
    } finally {
      await run(["daemon", "stop"], { env: s.env });
    }
  });
});

describe("CLI against a daemon that is down", () => {
  test("with autostart off: exit 3 with the way to start it", async () => {
    const s = await newSandbox();
    const r = await run(["list"], { env: { ...s.env, SIGNET_AUTOSTART: "false" } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("daemon not running");
    expect(r.stderr).toContain("signet daemon start");
  });
});

describe("migrate", () => {
  test("refused while the daemon runs; applies with it stopped; a newer schema is refused", async () => {
    const s = await newSandbox();
    const fresh = await run(["migrate"], { env: s.env });
    expect(fresh.code).toBe(0);
    expect(json(fresh).applied.length).toBeGreaterThan(0);
    const again = await run(["migrate"], { env: s.env });
    expect(json(again).applied).toEqual([]);

    expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
    const busy = await run(["migrate"], { env: s.env });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("already running");
    expect((await run(["daemon", "stop"], { env: s.env })).code).toBe(0);

    const db = new Database(join(s.dataDir, "memory", "memories.db"));
    db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '999_future', '2030-01-01T00:00:00.000Z')");
    db.close();
    const newer = await run(["migrate"], { env: s.env });
    expect(newer.code).toBe(1);
    expect(newer.stderr).toContain("newer than this signet");
    const start = await run(["daemon", "start"], { env: s.env });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain("newer than this signet");
  });
});

describe("self-install", () => {
  test("puts signet and signet-mcp in PREFIX/bin", async () => {
    const s = await newSandbox();
    const prefix = tempPrefix();
    const r = await run(["self-install", "--prefix", prefix], { env: s.env });
    expect(r.code).toBe(0);
    expect(json(r).installed).toBe(join(prefix, "bin", "signet"));
    const v = await run(["--version"], { env: s.env, bin: join(prefix, "bin", "signet") });
    expect(v.stdout).toMatch(/^signet /);
    const m = await run(["--version"], { env: s.env, bin: join(prefix, "bin", "signet-mcp") });
    expect(m.stdout).toMatch(/^signet-mcp /);
  });

  test("scripts/install.sh installs the built binary", async () => {
    const s = await newSandbox();
    const prefix = tempPrefix();
    const proc = Bun.spawnSync(["bash", join(import.meta.dir, "../../scripts/install.sh"), "--prefix", prefix], {
      env: { ...s.env, SIGNET_BINARY: BIN },
    });
    expect(proc.exitCode).toBe(0);
    expect(existsSync(join(prefix, "bin", "signet-mcp"))).toBe(true);
  });
});

describe("durability", () => {
  test("500 acknowledged remembers survive kill -9", async () => {
    const ids: string[] = [];
    await acrossKill9(
      await newSandbox(),
      async (url) => {
        // 8 writers in parallel; an id counts only once its 201 arrived.
        await Promise.all(
          Array.from({ length: 8 }, async (_, w) => {
            for (let i = w; i < 500; i += 8) {
              const res = await fetch(`${url}/api/memory/remember`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ content: `durable fact number ${i}`, tags: ["durability"] }),
              });
              expect(res.status).toBe(201);
              ids.push(((await res.json()) as { id: string }).id);
            }
          }),
        );
        expect(ids.length).toBe(500);
      },
      async (url) => {
        const listed = (await (await fetch(`${url}/api/memories?limit=1000&tags=durability`)).json()) as { memories: { id: string }[] };
        expect(new Set(listed.memories.map((m) => m.id))).toEqual(new Set(ids));
      },
    );
  });
});
