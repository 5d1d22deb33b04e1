// Secret exec jobs in the sandbox, with the compiled binary in team mode (docs/security.md#jobs): a
// job queued with an agent token cannot read the daemon's files, its /proc entry or its environment
// (where a passphrase given in the environment would be), cannot write the account's files, and
// leaves no process behind, detached or not, through its end and the daemon's stop. Another
// agent's job is not found. What a sandboxed job still can do, as documented: its shell (the PID
// namespace's init) ignores a signal it sends itself, and abstract Unix sockets stay reachable.
// Without a sandbox, team mode refuses jobs from API tokens unless the owner allows them. The sandboxed part needs bubblewrap (system-tool.ts; `.ci/run` installs it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { run, sandbox, type Sandbox } from "../helpers/binary";
import { jsonCall } from "../helpers/json-call";
import { hasSystemTool } from "../helpers/system-tool";
import { eventually } from "../helpers/wait";

const PASSPHRASE = "passphrase-in-the-daemons-environment";
const TEAM = "auth:\n  mode: team\nembedding:\n  provider: none\n";

const sandboxed = hasSystemTool("bubblewrap");

interface Daemon {
  s: Sandbox;
  url: string;
  pid: number;
  admin: string;
  api(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }>;
  agentToken(agent: string): Promise<string>;
  job(token: string, command: string): Promise<any>;
}

async function startDaemon(yaml: string, env: Record<string, string> = {}): Promise<Daemon> {
  const s = await sandbox(yaml);
  Object.assign(s.env, env);
  const started = await run(["daemon", "start"], { env: s.env });
  expect(started.code).toBe(0);
  const pidFile = JSON.parse(readFileSync(join(s.dataDir, ".daemon", "daemon.pid"), "utf8"));
  const admin = readFileSync(join(s.dataDir, ".daemon", "admin.token"), "utf8").trim();
  const url = `http://127.0.0.1:${s.port}`;
  const api = (method: string, path: string, token: string, body?: unknown) => jsonCall(url, method, path, body, { authorization: `Bearer ${token}` });
  const agentToken = async (agent: string) => {
    const r = await api("POST", "/api/tokens", admin, { role: "agent", agentId: agent });
    expect(r.status).toBe(201);
    return r.body.token as string;
  };
  const job = async (token: string, command: string) => {
    const queued = await api("POST", "/api/secrets/exec", token, { command, secrets: {} });
    expect(queued.status).toBe(202);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { body } = await api("GET", `/api/secrets/exec/${queued.body.id}`, token);
      if (body.status !== "queued" && body.status !== "running") return body;
      if (Date.now() > deadline) throw new Error(`job still ${body.status}`);
      await Bun.sleep(25);
    }
  };
  return { s, url, pid: pidFile.pid, admin, api, agentToken, job };
}

/** Processes whose command line starts with `pattern` (a regular expression). */
function processesWith(pattern: string): number[] {
  const r = Bun.spawnSync(["pgrep", "-f", `^${pattern}`]);
  return r.stdout.toString().trim().split("\n").filter(Boolean).map(Number);
}

describe.skipIf(!sandboxed)("in team mode with a sandbox", () => {
  let d: Daemon;
  let bob: string;
  // Outside /tmp, which the sandbox replaces with its own: one directory jobs may write, one they may not.
  let allowed: string;
  let outside: string;
  beforeAll(async () => {
    allowed = mkdtempSync("/var/tmp/signet-allowed-");
    outside = mkdtempSync("/var/tmp/signet-outside-");
    d = await startDaemon(`${TEAM}secrets:\n  execWritable: [${JSON.stringify(allowed)}]\n`, { SIGNET_SECRETS_PASSPHRASE: PASSPHRASE });
    bob = await d.agentToken("bob");
  });
  afterAll(async () => {
    await run(["daemon", "stop"], { env: d.s.env });
    for (const dir of [allowed, outside]) rmSync(dir, { recursive: true, force: true });
  });

  test("the daemon keeps no passphrase in its environment", () => {
    const environ = readFileSync(`/proc/${d.pid}/environ`, "latin1");
    expect(environ).toContain("SIGNET_PATH=");
    expect(environ).not.toContain(PASSPHRASE);
  });

  test("an agent's job reads none of the daemon's files, /proc entry or environment", async () => {
    // The secret store exists, so its key file does too.
    expect((await d.api("PUT", "/api/secrets/API_KEY", d.admin, { value: "v" })).status).toBe(200);
    const instanceKey = readFileSync(join(d.s.dataDir, ".daemon", "instance.key"), "utf8").trim();
    const dir = d.s.dataDir;
    const done = await d.job(
      bob,
      [
        "cat /proc/$PPID/cwd/.daemon/admin.token /proc/$PPID/environ",
        `cat ${dir}/.daemon/admin.token ${dir}/.daemon/instance.key ${dir}/.secrets/store.enc ${dir}/memories.db`,
        `for p in /proc/[0-9]*; do cat $p/environ $p/cwd/.daemon/admin.token; done`,
        `cat /proc/${d.pid}/environ /proc/${d.pid}/cwd/.daemon/admin.token`,
        `echo "files: $(ls -A ${dir} | wc -l)"; echo "processes: $(ls -d /proc/[0-9]* | wc -l)"; echo "env: $(env | wc -l)"`,
      ].join("; "),
    );
    expect(done.status).toBe("completed");
    const out = done.stdout + done.stderr;
    expect(out).toContain("files: 0");
    // The job's shell, its children and the sandbox's init: nothing of the host.
    expect(Number(/processes: (\d+)/.exec(out)![1])).toBeLessThan(8);
    for (const held of [d.admin, instanceKey, PASSPHRASE, "SIGNET_PATH", "SQLite format"]) expect(out).not.toContain(held);
  });

  test("a job cannot change the account's files; it writes its private /tmp and the directories allowed", async () => {
    const planted = join(outside, "planted");
    const scratch = `/tmp/scratch-${process.pid}`;
    const done = await d.job(bob, `echo x > ${planted}; echo y > ${scratch} && cat ${scratch}; echo z > ${allowed}/result`);
    expect(done.stdout).toBe("y\n");
    expect(done.stderr).toContain("Read-only file system");
    expect(existsSync(planted)).toBe(false);
    expect(existsSync(scratch)).toBe(false);
    expect(readFileSync(join(allowed, "result"), "utf8")).toBe("z\n");
  });

  test("every process a job starts ends with it, detached or not, and with the daemon's stop", async () => {
        // One leaves the group, one ignores hang-ups, one is orphaned, and one also clears its
    // environment (the marker the daemon finds its jobs' processes by outside a sandbox).
    const done = await d.job(
      bob,
      "setsid sleep 4441.5 & nohup sleep 4442.5 >/dev/null 2>&1 & (sleep 4443.5 &) ; env -i setsid -f sleep 4444.5; echo started",
    );
    expect(done.stdout).toBe("started\n");
    expect(await eventually(() => processesWith("sleep 444[1234]\\.5").length === 0, 5000)).toBe(true);

    const queued = await d.api("POST", "/api/secrets/exec", bob, { command: "setsid sleep 4445.5 & sleep 4446.5", secrets: {} });
    expect(await eventually(() => processesWith("sleep 444[56]\\.5").length === 2, 5000)).toBe(true);
    expect((await run(["daemon", "stop"], { env: d.s.env })).code).toBe(0);
    expect(await eventually(() => processesWith("sleep 444[56]\\.5").length === 0, 5000)).toBe(true);
    // Started again for what follows; the job was interrupted.
    expect((await run(["daemon", "start"], { env: { ...d.s.env, SIGNET_SECRETS_PASSPHRASE: PASSPHRASE } })).code).toBe(0);
    expect((await d.api("GET", `/api/secrets/exec/${queued.body.id}`, bob)).body.status).toBe("interrupted");
  });

  test("the daemon collects every process a sandbox hands it: no zombie is left after a job ends or times out", async () => {
    const zombies = () => Bun.spawnSync(["ps", "-o", "stat=", "--ppid", String(d.pid)]).stdout.toString().split("\n").filter((st) => st.startsWith("Z"));
    expect((await d.job(bob, "echo done")).stdout).toBe("done\n");
    const queued = await d.api("POST", "/api/secrets/exec", bob, { command: "sleep 4449.5", secrets: {}, timeoutSeconds: 0.5 });
    expect(await eventually(async () => (await d.api("GET", `/api/secrets/exec/${queued.body.id}`, bob)).body.timedOut === true, 10_000)).toBe(true);
    expect(await eventually(() => zombies().length === 0, 3000)).toBe(true);
  });

  test("what the docs say a sandboxed job still can and cannot do: its shell ignores a signal it sends itself; abstract sockets are reachable", async () => {
    // The shell is the PID namespace's init: a signal it has no handler for is not delivered.
    expect(await d.job(bob, "kill -TERM $$; kill -KILL $$; echo still")).toMatchObject({ exitCode: 0, stdout: "still\n" });
    expect(await d.job(bob, "trap 'exit 143' TERM; kill -TERM $$; echo not-reached")).toMatchObject({ exitCode: 143, stdout: "" });
    // An abstract socket belongs to the network namespace, which jobs share with the host.
    const name = `signet-sandbox-test-${process.pid}`;
    const server = createServer((socket) => socket.end("through the abstract socket\n"));
    await new Promise<void>((resolve) => server.listen(`\0${name}`, resolve));
    try {
      const done = await d.job(bob, `python3 -c 'import socket; c = socket.socket(socket.AF_UNIX); c.connect("\\0${name}"); print(c.recv(100).decode(), end="")'`);
      expect(done.stdout).toBe("through the abstract socket\n");
    } finally {
      server.close();
    }
  });

  test("another agent's job is not found", async () => {
    const alice = await d.agentToken("alice");
    const queued = await d.api("POST", "/api/secrets/exec", bob, { command: "echo bobs-output", secrets: {} });
    const theirs = await d.api("GET", `/api/secrets/exec/${queued.body.id}`, alice);
    expect(theirs.status).toBe(404);
    expect(JSON.stringify(theirs.body)).not.toContain("bobs-output");
    expect(await eventually(async () => (await d.api("GET", `/api/secrets/exec/${queued.body.id}`, bob)).body.stdout === "bobs-output\n")).toBe(true);
  });
});

describe("without a sandbox", () => {
  test("team mode refuses jobs from API tokens, unless the owner allows them unsandboxed", async () => {
    const d = await startDaemon(`${TEAM}secrets:\n  sandbox: "off"\n`);
    try {
      const bob = await d.agentToken("bob");
      const refused = await d.api("POST", "/api/secrets/exec", bob, { command: "echo ran", secrets: {} });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toContain("secrets.execUnsandboxed");
    } finally {
      await run(["daemon", "stop"], { env: d.s.env });
    }
    const allowed = await startDaemon(`${TEAM}secrets:\n  sandbox: "off"\n  execUnsandboxed: true\n`);
    try {
      const done = await allowed.job(await allowed.agentToken("bob"), "echo ran");
      expect(done.stdout).toBe("ran\n");
    } finally {
      await run(["daemon", "stop"], { env: allowed.s.env });
    }
  });
});

test("the passphrase can come from a file; a file that cannot be read, or is empty, stops the start with its name", async () => {
  const s = await sandbox(TEAM);
  const file = join(s.home, "..", "passphrase");
  writeFileSync(file, `${PASSPHRASE}\n`, { mode: 0o600 });
  const missing = await run(["daemon", "start"], { env: { ...s.env, SIGNET_SECRETS_PASSPHRASE_FILE: `${file}.missing` } });
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toContain(`${file}.missing`);
  writeFileSync(`${file}.empty`, "", { mode: 0o600 });
  const empty = await run(["daemon", "start"], { env: { ...s.env, SIGNET_SECRETS_PASSPHRASE_FILE: `${file}.empty` } });
  expect(empty.code).not.toBe(0);
  expect(empty.stderr).toContain(`the secret store's passphrase is empty: the first line of ${file}.empty (SIGNET_SECRETS_PASSPHRASE_FILE) is empty`);
  expect(existsSync(join(s.dataDir, ".secrets", "store.key"))).toBe(false);
  expect((await run(["daemon", "start"], { env: { ...s.env, SIGNET_SECRETS_PASSPHRASE_FILE: file } })).code).toBe(0);
  try {
    const admin = readFileSync(join(s.dataDir, ".daemon", "admin.token"), "utf8").trim();
    const set = await fetch(`http://127.0.0.1:${s.port}/api/secrets/K`, {
      method: "PUT",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ value: "v" }),
    });
    expect(set.status).toBe(200);
    expect(JSON.parse(readFileSync(join(s.dataDir, ".secrets", "store.enc"), "utf8")).kdf.type).toBe("scrypt");
  } finally {
    await run(["daemon", "stop"], { env: s.env });
  }
});

test.skipIf(!sandboxed)("a daemon killed with -9 takes its sandboxed jobs' processes with it; the next start reports the job interrupted", async () => {
  const d = await startDaemon(TEAM);
  try {
    const bob = await d.agentToken("bob");
    const queued = await d.api("POST", "/api/secrets/exec", bob, { command: "env -i setsid -f sleep 4447.5; sleep 4448.5", secrets: {} });
    expect(queued.status).toBe(202);
    expect(await eventually(() => processesWith("sleep 444[78]\\.5").length === 2, 5000)).toBe(true);
    process.kill(d.pid, "SIGKILL");
    expect(await eventually(() => processesWith("sleep 444[78]\\.5").length === 0, 5000)).toBe(true);
    expect((await run(["daemon", "start"], { env: d.s.env })).code).toBe(0);
    expect((await d.api("GET", `/api/secrets/exec/${queued.body.id}`, bob)).body.status).toBe("interrupted");
  } finally {
    await run(["daemon", "stop"], { env: d.s.env });
  }
});
