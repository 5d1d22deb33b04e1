// The secret store and secret exec over HTTP (docs/api.md#secrets): names only in answers, the guard
// (forged Host and Origin, missing and wrong credentials), bounds and errors as SPEC §9 sets them,
// a minimal environment, process groups ended on timeout and stop, jobs interrupted by a stop, and
// every way a command can try to leak a value, after which the logs, the analytics rows and every
// file of the data directory are searched for the plaintext.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { MARKER_ENV } from "../../src/core/bridge/server-processes";
import { tempDir } from "../helpers/daemon";
import { eventually } from "../helpers/wait";
import { allFiles, finished, startLoggedDaemon, type LoggedDaemon } from "../helpers/secrets";

// Characters that base64 and URL encoding both change.
const VALUE = "pa55/w0rd+x=y&z?long-enough";
const OTHER = "second secret value #2";

let dir: string;
/** Where jobs leave marks: the sandbox hides the data directory and keeps the rest read-only. */
let work: string;
let d: LoggedDaemon;

beforeAll(async () => {
  dir = tempDir("signet-secrets-");
  work = tempDir("signet-secrets-work-");
  // A variable of the daemon's own environment that no job may see.
  process.env.SIGNET_TEST_DAEMON_ONLY = "daemon-env-marker";
  d = await startLoggedDaemon(dir, `secrets:\n  execWritable: [${JSON.stringify(work)}]\n`);
  expect((await d.api("PUT", "/api/secrets/API_KEY", { value: VALUE })).status).toBe(200);
  expect((await d.api("PUT", "/api/secrets/OTHER", { value: OTHER })).status).toBe(200);
});

afterAll(async () => {
  delete process.env.SIGNET_TEST_DAEMON_ONLY;
  await d.daemon.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(command: string, secrets: Record<string, string> = { API_KEY: "API_KEY" }, extra: Record<string, unknown> = {}) {
  const accepted = await d.api("POST", "/api/secrets/exec", { command, secrets, ...extra });
  expect(accepted.status).toBe(202);
  return finished(d.api, accepted.body.id);
}

describe("the store over HTTP", () => {
  test("list answers names and timestamps, never values; set replaces; rm removes", async () => {
    const listed = await d.api("GET", "/api/secrets");
    expect(listed.status).toBe(200);
    expect(listed.body.secrets.map((s: any) => s.name)).toEqual(["API_KEY", "OTHER"]);
    expect(Object.keys(listed.body.secrets[0]).sort()).toEqual(["createdAt", "name", "updatedAt"]);
    expect(JSON.stringify(listed.body)).not.toContain(VALUE);
    const again = await d.api("PUT", "/api/secrets/TEMP", { value: "one" });
    expect(again.body).toMatchObject({ name: "TEMP", created: true });
    const replaced = await d.api("PUT", "/api/secrets/TEMP", { value: "two" });
    expect(replaced.body).toMatchObject({ name: "TEMP", created: false, createdAt: again.body.createdAt });
    expect(JSON.stringify(replaced.body)).not.toContain("two");
    expect((await d.api("DELETE", "/api/secrets/TEMP")).body).toEqual({ name: "TEMP", removed: true });
    expect((await d.api("DELETE", "/api/secrets/TEMP")).status).toBe(404);
  });

  test("bad names and values are a 400 naming the problem, and change nothing", async () => {
    const before = readFileSync(join(dir, ".secrets", "store.enc"));
    for (const name of ["1ABC", "has-dash", "x".repeat(129)]) {
      const r = await d.api("PUT", `/api/secrets/${name}`, { value: "v" });
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("secret name");
    }
    for (const body of [{ value: "" }, {}, { value: 5 }, { value: "v", extra: 1 }, { value: "x".repeat(64 * 1024 + 1) }]) {
      const r = await d.api("PUT", "/api/secrets/GOOD", body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("invalid_input");
    }
    expect(readFileSync(join(dir, ".secrets", "store.enc"))).toEqual(before);
  });

  test("a value with a NUL byte is a 400 saying so, never repeating the value, and changes nothing", async () => {
    const before = readFileSync(join(dir, ".secrets", "store.enc"));
    const r = await d.api("PUT", "/api/secrets/NUL_KEY", { value: "ab\0TOPSECRET-after-nul" });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_input");
    expect(r.body.error).toContain("value: must not contain a NUL byte");
    expect(JSON.stringify(r.body)).not.toContain("TOPSECRET");
    expect(readFileSync(join(dir, ".secrets", "store.enc"))).toEqual(before);
  });

  test("files are owner-only", () => {
    expect(statSync(join(dir, ".secrets")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, ".secrets", "store.enc")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, ".secrets", "store.key")).mode & 0o777).toBe(0o600);
  });
});

describe("the guard", () => {
  const port = () => new URL(d.daemon.url).port;
  test("set and rm need the admin token: none is 401, the instance key or a wrong one is 403", async () => {
    const { "x-signet-instance-key": key } = d.owner;
    expect((await d.api("PUT", "/api/secrets/X", { value: "v" }, {})).status).toBe(401);
    expect((await d.api("PUT", "/api/secrets/X", { value: "v" }, { "x-signet-instance-key": key! })).status).toBe(403);
    expect((await d.api("PUT", "/api/secrets/X", { value: "v" }, { authorization: "Bearer wrong" })).status).toBe(403);
    expect((await d.api("DELETE", "/api/secrets/API_KEY", undefined, {})).status).toBe(401);
    expect((await d.api("DELETE", "/api/Secrets/%41PI_KEY", undefined, { "x-signet-instance-key": key! })).status).toBe(403);
    expect((await d.api("GET", "/api/secrets")).body.secrets.map((s: any) => s.name)).toEqual(["API_KEY", "OTHER"]);
  });

  test("list, exec and status need the instance key or the admin token", async () => {
    const { authorization, "x-signet-instance-key": key } = d.owner;
    expect((await d.api("GET", "/api/secrets", undefined, {})).status).toBe(401);
    expect((await d.api("GET", "/api/secrets", undefined, { "x-signet-instance-key": "wrong" })).status).toBe(403);
    expect((await d.api("GET", "/api/secrets", undefined, { "x-signet-instance-key": key! })).status).toBe(200);
    expect((await d.api("GET", "/api/secrets", undefined, { authorization: authorization! })).status).toBe(200);
    const mark = join(work, "ran-without-credential");
    const refused = await d.api("POST", "/api/secrets/exec", { command: `touch ${mark}`, secrets: {} }, {});
    expect(refused.status).toBe(401);
    const job = await d.api("POST", "/api/secrets/exec", { command: "true", secrets: {} }, { "x-signet-instance-key": key! });
    expect(job.status).toBe(202);
    expect((await d.api("GET", `/api/secrets/exec/${job.body.id}`, undefined, {})).status).toBe(401);
    await Bun.sleep(200);
    expect(existsSync(mark)).toBe(false);
  });

  test("a forged Host or a foreign Origin is refused before anything runs", async () => {
    const mark = join(work, "ran-from-a-web-page");
    const body = JSON.stringify({ command: `touch ${mark}`, secrets: {} });
    const headers = { ...d.owner, "content-type": "application/json" };
    const post = (extra: Record<string, string>) =>
      fetch(`${d.daemon.url}/api/secrets/exec`, { method: "POST", headers: { ...headers, ...extra }, body });
    expect((await post({ host: `evil.example:${port()}` })).status).toBe(403);
    expect((await post({ origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ "sec-fetch-site": "cross-site" })).status).toBe(403);
    const plain = await fetch(`${d.daemon.url}/api/secrets/exec`, { method: "POST", headers: { ...d.owner, "content-type": "text/plain" }, body });
    expect(plain.status).toBe(415);
    await Bun.sleep(200);
    expect(existsSync(mark)).toBe(false);
  });
});

describe("exec", () => {
  test("202 with the job; the output comes redacted with the exit code", async () => {
    const accepted = await d.api("POST", "/api/secrets/exec", { command: 'echo "key=$API_KEY"; exit 3', secrets: { API_KEY: "API_KEY" } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ id: expect.any(String), status: "queued", timeoutMs: 300_000 });
    const job = await finished(d.api, accepted.body.id);
    expect(job).toMatchObject({ status: "completed", exitCode: 3, timedOut: false, stdout: "key=[REDACTED]\n", stderr: "" });
  });

  test("a minimal environment: PATH, HOME, LANG and the injected secrets, nothing of the daemon's", async () => {
    const job = await run("env", { API_KEY: "API_KEY", SECOND: "local://OTHER" });
    // What the shell sets itself (PWD, SHLVL, _) aside.
    const names = job.stdout!.trim().split("\n").map((l) => l.split("=")[0]).filter((n) => !["PWD", "SHLVL", "_"].includes(n!)).sort();
    // The marker lets the daemon find what the job detaches (docs/security.md#secret-exec).
    expect(names).toEqual(["API_KEY", "HOME", "LANG", "PATH", "SECOND", "SIGNET_BRIDGE_SERVER"]);
    expect(job.stdout).not.toContain("daemon-env-marker");
    expect(job.stdout).toContain("API_KEY=[REDACTED]");
    expect(job.stdout).toContain("SECOND=[REDACTED]");
  });

  test("bounds: timeoutSeconds over 1800 and malformed bodies are a 400 naming the field", async () => {
    const cases: [unknown, string][] = [
      [{ command: "true", secrets: {}, timeoutSeconds: 1801 }, "timeoutSeconds"],
      [{ command: "true", secrets: {}, timeoutSeconds: 0 }, "timeoutSeconds"],
      // Less than a millisecond would be no time at all: the job killed as it starts.
      [{ command: "true", secrets: {}, timeoutSeconds: 0.0004 }, "timeoutSeconds"],
      [{ command: "true", secrets: {}, timeoutSeconds: 1e-300 }, "timeoutSeconds"],
      [{ command: "true", secrets: {}, timeoutSeconds: "5" }, "timeoutSeconds"],
      [{ command: "", secrets: {} }, "command"],
      [{ secrets: {} }, "command"],
      [{ command: "true" }, "secrets"],
      [{ command: "true", secrets: { "BAD-NAME": "API_KEY" } }, "secrets"],
      [{ command: "true", secrets: { PATH: "API_KEY" } }, "secrets.PATH: must not be one of"],
      // The marker the daemon tracks the job's processes by: a secret there would be replaced by it.
      [{ command: "true", secrets: { [MARKER_ENV]: "API_KEY" } }, `secrets.${MARKER_ENV}: must not be one of PATH, HOME, LANG, ${MARKER_ENV}`],
      [{ command: "echo a\0b", secrets: {} }, "command: must not contain a NUL byte"],
      [{ command: "true", secrets: { X: "ftp://nope" } }, "secrets.X"],
      [{ command: "true", secrets: { X: "not a name" } }, "secrets.X"],
      [{ command: "true", secrets: {}, extra: 1 }, "extra"],
    ];
    for (const [body, field] of cases) {
      const r = await d.api("POST", "/api/secrets/exec", body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("invalid_input");
      expect(r.body.error).toContain(field);
    }
    expect((await d.api("GET", "/api/secrets/exec/no-such-job")).status).toBe(404);
    const shortest = await d.api("POST", "/api/secrets/exec", { command: "true", secrets: {}, timeoutSeconds: 0.001 });
    expect(shortest.status).toBe(202);
    expect(shortest.body.timeoutMs).toBe(1);
    await finished(d.api, shortest.body.id);
  });

  test("a stored value with a NUL byte (kept from before they were refused) fails the job naming the secret, not its value; nothing runs", async () => {
    // Set beneath the route, as an older store holds it.
    d.daemon.context.secrets.store.set("OLD_NUL", "ab\0TOPSECRET-stored-before");
    try {
      const mark = join(work, "ran-with-a-nul-value");
      const job = await run(`touch ${mark}`, { K: "OLD_NUL" });
      expect(job.status).toBe("failed");
      expect(job.error).toBe(
        "nothing was run: the secret OLD_NUL (for K) contains a NUL byte, which an environment variable cannot carry: set it again without one (binary data goes in as base64)",
      );
      expect(existsSync(mark)).toBe(false);
      expect(d.lines.filter((l) => l.includes("TOPSECRET"))).toEqual([]);
    } finally {
      d.daemon.context.secrets.store.remove("OLD_NUL");
    }
  });

  test("a variable named __proto__ is refused naming it, not dropped from the job's environment", async () => {
    // JSON.parse makes `__proto__` an own key, as a request body does; an object literal would set the prototype.
    const secrets = JSON.parse('{"__proto__":"API_KEY","OTHER":"OTHER"}');
    const mark = join(work, "ran-with-proto");
    const refused = await d.api("POST", "/api/secrets/exec", { command: `echo "[$__proto__]" > ${mark}`, secrets });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("invalid_input");
    expect(refused.body.error).toContain("secrets: the name __proto__ cannot be used");
    // A name that is no special key is injected as ever.
    const job = await run('echo "[$PROTO]"', { PROTO: "API_KEY" });
    expect(job.stdout).toBe("[[REDACTED]]\n");
    await Bun.sleep(200);
    expect(existsSync(mark)).toBe(false);
  });

  test("an unknown name or reference fails the job with a clear message, and nothing runs", async () => {
    const mark = join(work, "ran-with-unknown-secret");
    const job = await run(`touch ${mark}`, { X: "NO_SUCH_SECRET" });
    expect(job.status).toBe("failed");
    expect(job.error).toContain("nothing was run");
    expect(job.error).toContain("NO_SUCH_SECRET");
    const local = await run(`touch ${mark}`, { X: "local://MISSING_TOO" });
    expect(local.error).toContain("MISSING_TOO");
    expect(existsSync(mark)).toBe(false);
  });

  test("a timeout ends every process of the job, and what left its group", async () => {
    // Inside the sandbox pids are its own: the processes are found by their command lines.
    const sleeps = () => Bun.spawnSync(["pgrep", "-f", "^sleep 30[12]\\.25"]).stdout.toString().trim().split("\n").filter(Boolean);
    const started = Date.now();
    const queued = await d.api("POST", "/api/secrets/exec", { command: "sleep 301.25 & setsid sleep 302.25 & echo started; wait", secrets: {}, timeoutSeconds: 1 });
    expect(await eventually(() => sleeps().length === 2, 5000)).toBe(true);
    const job = await finished(d.api, queued.body.id);
    expect(job).toMatchObject({ status: "completed", timedOut: true, stdout: "started\n" });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await eventually(() => sleeps().length === 0, 5000)).toBe(true);
  });

  test("output beyond the cap is dropped and said so", async () => {
    const job = await run("head -c 3000000 /dev/zero | tr '\\0' a", {});
    expect(job.status).toBe("completed");
    expect(job.outputTruncated).toBe(true);
    expect(job.stdout!.length).toBe(1024 * 1024);
  });
});

describe("leaks", () => {
  // Each tries to get the value out another way; the search afterwards looks for the plaintext.
  const attempts: [string, string][] = [
    ["echo", 'echo "$API_KEY"'],
    ["stderr", 'echo "$API_KEY" >&2'],
    ["split writes with sleeps", 'printf %s "$API_KEY" | cut -c1-7 | tr -d "\\n"; sleep 0.3; printf %s "$API_KEY" | cut -c8-'],
    ["one character at a time", 'printf "%s\\n" "$API_KEY" | fold -w1 | while IFS= read -r c; do printf %s "$c"; sleep 0.01; done'],
    ["base64", 'printf %s "$API_KEY" | base64'],
    ["base64 wrapped into short lines", 'printf %s "$API_KEY" | base64 -w 10'],
    ["base64 with a prefix", 'printf "x%s" "$API_KEY" | base64; printf "xy%s" "$API_KEY" | base64'],
    ["url-encoded", `printf %s "$API_KEY" | jq -sRr @uri`],
    ["url-encoded by python", `python3 -c 'import os,urllib.parse;print(urllib.parse.quote(os.environ["API_KEY"], safe=""))'`],
    ["printing env", "env; set"],
    ["two secrets", 'echo "$API_KEY $SECOND"'],
  ];

  test("every attempt comes out redacted", async () => {
    for (const [how, command] of attempts) {
      const job = await run(command, { API_KEY: "API_KEY", SECOND: "OTHER" });
      expect({ how, status: job.status }).toEqual({ how, status: "completed" });
      const out = `${job.stdout}${job.stderr}`;
      expect({ how, leaked: out.includes(VALUE) || out.includes(OTHER) }).toEqual({ how, leaked: false });
      expect({ how, redacted: out.includes("[REDACTED]") }).toEqual({ how, redacted: true });
      for (const encoded of [Buffer.from(VALUE).toString("base64"), encodeURIComponent(VALUE)]) {
        expect({ how, encoded: out.includes(encoded) }).toEqual({ how, encoded: false });
      }
    }
  });

  test("the value is nowhere: not in the logs, not in analytics rows, not in any file of the data directory", async () => {
    await d.daemon.context.analytics.recorder.flush();
    const needles = [VALUE, OTHER, Buffer.from(VALUE).toString("base64"), encodeURIComponent(VALUE)];
    for (const needle of needles) {
      expect(d.lines.filter((l) => l.includes(needle))).toEqual([]);
      const rows = d.daemon.context.stores.sqlite!.query("SELECT * FROM mcp_invocations").all();
      expect(JSON.stringify(rows)).not.toContain(needle);
      const jobs = d.daemon.context.stores.sqlite!.query("SELECT * FROM secret_exec_jobs").all();
      expect(jobs.length).toBeGreaterThanOrEqual(attempts.length);
      expect(JSON.stringify(jobs)).not.toContain(needle);
      // The WAL and the database file are searched as bytes, together with everything else.
      const found = allFiles(dir).filter((f) => f.bytes.includes(Buffer.from(needle)));
      expect(found.map((f) => f.path)).toEqual([]);
    }
  });
});
