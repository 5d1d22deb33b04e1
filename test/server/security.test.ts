// The request guard and the owner's credentials (docs/security.md), tried as an attacker would: a
// web page (simple text/plain POSTs, a foreign Origin, DNS rebinding, preflights), a caller without
// the admin token, and a second account on the same machine. Each attack gets its status code, no
// process starts and no row is written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { ApiError, DaemonIdentityError, SignetClient } from "../../src/client/client";
import { daemonFiles } from "../../src/config/paths";
import { credentialFor } from "../../src/server/guard";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";

let d: TestDaemon;
let port: string;
/** Where the attack's server would leave its mark if it ever ran. */
let pwned: string;

beforeAll(async () => {
  d = await startTestDaemon({ yaml: "daemon:\n  allowedOrigins: [\"https://dash.example\"]\n" });
  port = new URL(d.url).port;
  pwned = join(d.dataDir, "pwned");
});

afterAll(async () => {
  await d.stop();
});

const attackServer = () => ({
  name: "pwn",
  transport: { type: "stdio" as const, command: "/bin/sh", args: ["-c", `touch ${pwned}`] },
});

async function raw(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await d.fetch(path, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

/** Nothing the attacks asked for happened: no server installed or running, no memory, no mark. */
async function expectUntouched() {
  expect(await d.daemon.context.bridge.list()).toEqual([]);
  expect(d.daemon.context.bridge.live()).toEqual([]);
  expect(d.daemon.context.stores.sqlite!.query("SELECT COUNT(*) AS n FROM memories").get()).toEqual({ n: 0 });
  expect(existsSync(pwned)).toBe(false);
}

describe("web pages", () => {
  test("a text/plain POST (a simple request, no preflight) is 415 and installs, calls and writes nothing", async () => {
    const install = await raw("POST", "/api/marketplace/servers", { "content-type": "text/plain", origin: "http://evil.example" }, JSON.stringify(attackServer()));
    // The Origin is refused first; without one, the content type is.
    expect(install.status).toBe(403);
    const plain = { "content-type": "text/plain", ...d.ownerHeaders };
    for (const [path, body] of [
      ["/api/marketplace/servers", attackServer()],
      ["/api/marketplace/servers/pwn/call", { tool: "x", arguments: {} }],
      ["/api/memory/remember", { content: "planted by a web page" }],
    ] as const) {
      const res = await raw("POST", path, plain, JSON.stringify(body));
      expect({ path, status: res.status, code: res.json?.code }).toEqual({ path, status: 415, code: "unsupported_media_type" });
      expect(res.json.error).toContain("application/json");
    }
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/json"]) {
      const res = await raw("POST", "/api/memory/remember", { "content-type": type }, JSON.stringify({ content: "x" }));
      expect({ type, status: res.status }).toEqual({ type, status: 415 });
    }
    await expectUntouched();
  });

  test("a foreign Origin is 403 even with a JSON body and the admin token", async () => {
    const json = { "content-type": "application/json", ...d.ownerHeaders };
    for (const origin of ["http://evil.example", "null", `http://localhost:${Number(port) + 1}`, `https://127.0.0.1:${port}`, "file://"]) {
      for (const [method, path, body] of [
        ["POST", "/api/marketplace/servers", attackServer()],
        ["POST", "/api/marketplace/servers/pwn/call", { tool: "x" }],
        ["POST", "/api/memory/remember", { content: "planted" }],
        ["GET", "/api/memories", undefined],
      ] as const) {
        const res = await raw(method, path, { ...json, origin }, body === undefined ? undefined : JSON.stringify(body));
        expect({ origin, path, status: res.status, code: res.json?.code }).toEqual({ origin, path, status: 403, code: "forbidden" });
        expect(res.headers.get("access-control-allow-origin")).toBeNull();
      }
    }
    const crossSite = await raw("POST", "/api/memory/remember", { "content-type": "application/json", "sec-fetch-site": "cross-site" }, '{"content":"x"}');
    expect({ status: crossSite.status, error: crossSite.json.error }).toEqual({ status: 403, error: expect.stringContaining("cross-site") });
    await expectUntouched();
  });

  test("a page on another local port (the same site, no Origin on an <img>) is 403 even for a GET that would start servers", async () => {
    const image = { "sec-fetch-site": "same-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" };
    for (const path of ["/api/mcp/unused", "/api/marketplace/servers/pwn/tools", "/api/memories"]) {
      const res = await raw("GET", path, image);
      expect({ path, status: res.status, error: res.json?.error }).toEqual({ path, status: 403, error: expect.stringContaining("Sec-Fetch-Site: same-site") });
    }
    // The daemon's own pages, and requests no page made, pass.
    for (const site of ["same-origin", "none"]) expect((await raw("GET", "/api/memories", { "sec-fetch-site": site })).status).toBe(200);
    await expectUntouched();
  });

  test("DNS rebinding: a foreign Host is 403 on GET and POST; /health tells it only status and version", async () => {
    await d.client().memory.remember({ content: "a private memory" });
    try {
      for (const host of [`evil.example:${port}`, "evil.example", `localhost.evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
        const list = await raw("GET", "/api/memories", { host });
        expect({ host, status: list.status, code: list.json?.code }).toEqual({ host, status: 403, code: "forbidden" });
        expect(list.text).not.toContain("a private memory");
        const post = await raw("POST", "/api/marketplace/servers", { host, "content-type": "application/json", ...d.ownerHeaders }, JSON.stringify(attackServer()));
        expect({ host, status: post.status }).toEqual({ host, status: 403 });
        const health = await raw("GET", "/health", { host });
        expect({ host, status: health.status, body: health.json }).toEqual({ host, status: 200, body: { status: "ok", version: expect.any(String) } });
      }
      // Through the guard, /health tells pid, port and data directory to the owner's credential only.
      const own = await raw("GET", "/health", { "x-signet-instance-key": d.daemon.context.credentials.instanceKey });
      expect(own.json).toMatchObject({ dataDir: d.dataDir, pid: process.pid, port: Number(port) });
      const anyone = await raw("GET", "/health", {});
      expect(anyone.json).toMatchObject({ status: "ok", db: { ok: true } });
      expect(["pid", "port", "dataDir"].filter((k) => k in anyone.json)).toEqual([]);
    } finally {
      d.daemon.context.stores.sqlite!.run("DELETE FROM memories");
    }
    await expectUntouched();
  });

  test("a preflight grants nothing to a foreign origin; an allowed origin gets CORS headers and nothing more", async () => {
    const evil = await raw("OPTIONS", "/api/marketplace/servers", {
      origin: "http://evil.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type",
    });
    expect(evil.status).toBe(403);
    expect(Object.keys(evil.headers.toJSON()).filter((k) => k.startsWith("access-control"))).toEqual([]);
    const allowed = await raw("OPTIONS", "/api/memories", { origin: "https://dash.example", "access-control-request-method": "GET" });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://dash.example");
    const plain = await raw("OPTIONS", "/api/memories", {});
    expect(plain.status).toBe(204);
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    // An allowed origin's page may read answers, but installing still needs the admin token.
    const list = await raw("GET", "/api/memories", { origin: "https://dash.example" });
    expect({ status: list.status, cors: list.headers.get("access-control-allow-origin") }).toEqual({ status: 200, cors: "https://dash.example" });
    const own = await raw("GET", "/api/memories", { origin: `http://127.0.0.1:${port}` });
    expect({ status: own.status, cors: own.headers.get("access-control-allow-origin") }).toEqual({ status: 200, cors: null });
    const install = await raw("POST", "/api/marketplace/servers", { origin: "https://dash.example", "content-type": "application/json" }, JSON.stringify(attackServer()));
    expect(install.status).toBe(401);
    await expectUntouched();
  });

  test("a malformed Host is a 400 in JSON, never Bun's error page with our source", async () => {
    for (const host of ["x/mcp?", "a b", "[zz]:1", `127.0.0.1:99999`]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const sock = connect(Number(port), "127.0.0.1", () =>
          sock.write(`GET /api/memories HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
        );
        let out = "";
        sock.on("data", (chunk) => (out += chunk));
        sock.on("end", () => resolve(out));
        sock.on("error", reject);
      });
      const [head, body] = answer.split("\r\n\r\n");
      expect({ host, status: head!.split(" ")[1] }).toEqual({ host, status: "400" });
      expect(JSON.parse(body!)).toEqual({ code: "invalid_input", error: expect.stringContaining("Host") });
      expect(answer).not.toContain(process.cwd());
    }
  });
});

describe("a name in daemon.allowedHosts", () => {
  let named: TestDaemon;
  beforeAll(async () => {
    named = await startTestDaemon({ yaml: "daemon:\n  allowedHosts: [signet.test]\n" });
  });
  afterAll(() => named.stop());

  test("is the daemon's own origin too: the dashboard served under it (directly or behind an https proxy) loads its assets", async () => {
    const port = new URL(named.url).port;
    const html = await (await named.fetch("/", { headers: { host: `signet.test:${port}` } })).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const origin of [`http://signet.test:${port}`, "https://signet.test"]) {
      for (const path of assets) {
        const res = await named.fetch(path, { headers: { host: `signet.test:${port}`, origin, "sec-fetch-site": "same-origin" } });
        expect({ origin, path, status: res.status }).toEqual({ origin, path, status: 200 });
        expect(res.headers.get("access-control-allow-origin")).toBeNull();
        await res.body?.cancel();
      }
    }
    // Another name is still another origin.
    const other = await named.fetch("/api/memories", { headers: { host: `signet.test:${port}`, origin: "http://other.test" } });
    expect(other.status).toBe(403);
  });
});

describe("the owner's admin token", () => {
  test("installing, changing and removing servers need it: 401 without, 403 with a wrong one", async () => {
    const json = { "content-type": "application/json" };
    const body = JSON.stringify(attackServer());
    const none = await raw("POST", "/api/marketplace/servers", json, body);
    expect({ status: none.status, code: none.json.code }).toEqual({ status: 401, code: "unauthorized" });
    expect(none.json.error).toContain("admin.token");
    const wrong = await raw("POST", "/api/marketplace/servers", { ...json, authorization: "Bearer not-the-token" }, body);
    expect({ status: wrong.status, code: wrong.json.code }).toEqual({ status: 403, code: "forbidden" });
    // The instance key is not the admin token.
    const key = await raw("POST", "/api/marketplace/servers", { ...json, "x-signet-instance-key": d.daemon.context.credentials.instanceKey }, body);
    expect(key.status).toBe(403);
    await expectUntouched();

    // Installed by the owner, the server can be called without the admin token; changing it cannot.
    await d.daemon.context.bridge.install({ name: "pwn", enabled: true, transport: { type: "stdio", command: "/bin/sh", args: ["-c", "exit 0"], env: {} } } as never);
    try {
      for (const [method, path] of [
        ["PATCH", "/api/marketplace/servers/pwn"],
        ["DELETE", "/api/marketplace/servers/pwn"],
        ["PATCH", "/api/marketplace/servers/pwn/"],
        ["POST", "/api/marketplace/servers/"],
        ["POST", "//api/marketplace/servers"],
        ["POST", "/api/marketplace/%73ervers"],
        ["PATCH", "/api/marketplace/servers/pwn%2Fcall"],
      ] as const) {
        const res = await raw(method, path, json, JSON.stringify({ enabled: false }));
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
      }
      // A method no operation has there is no route under any spelling: nothing to guard, 404.
      expect((await raw("PUT", "/api/marketplace/servers/pwn", json, JSON.stringify({ enabled: false }))).status).toBe(404);
      expect((await d.daemon.context.bridge.list()).map((s) => s.enabled)).toEqual([true]);
      const call = await raw("POST", "/api/marketplace/servers/pwn/call", json, JSON.stringify({ tool: "x" }));
      expect([401, 403]).not.toContain(call.status);
    } finally {
      await d.daemon.context.bridge.remove("pwn");
    }
  });

  test("the route table: only reads and tool calls pass without a credential under /api/marketplace", () => {
    expect(credentialFor("GET", "/api/marketplace/servers")).toBeNull();
    expect(credentialFor("GET", "/api/marketplace/servers/x/tools")).toBeNull();
    expect(credentialFor("POST", "/api/marketplace/servers/x/call")).toBeNull();
    expect(credentialFor("POST", "/api/marketplace/servers/x/call/")).toBeNull();
    expect(credentialFor("POST", "/API/Marketplace/Servers")).toBe("admin");
    // The call route spelled with an escape is still the call route; a server's name spelled so is still that server.
    expect(credentialFor("POST", "/api/marketplace/servers/x/%63all")).toBeNull();
    expect(credentialFor("DELETE", "/api/marketplace/servers/a%2Fb")).toBe("admin");
    // An escape in a route's own segment and an encoded slash in its parameter, together: still that route.
    expect(credentialFor("DELETE", "/api/marketpl%61ce/servers/a%2Fb")).toBe("admin");
    expect(credentialFor("DELETE", "/api/s%65ssions/feature%2Flogin")).toBe("admin");
    expect(credentialFor("DELETE", "/api/Marketplace//servers/x/")).toBe("admin");
    expect(credentialFor("DELETE", "/api/marketplace/servers/x")).toBe("admin");
    expect(credentialFor("POST", "/api/mcp/invocations")).toBe("instance");
    expect(credentialFor("POST", "/api/mcp/invocations/")).toBe("instance");
    expect(credentialFor("POST", "/api/memory/remember")).toBeNull();
  });

  test("the credentials are owner-only files written at first start and kept across restarts", async () => {
    for (const name of ["admin.token", "instance.key"]) {
      const st = statSync(join(d.dataDir, ".daemon", name));
      expect({ name, mode: (st.mode & 0o777).toString(8) }).toEqual({ name, mode: "600" });
    }
    const again = await startTestDaemon();
    const first = again.daemon.context.credentials;
    const dir = again.dataDir;
    await again.daemon.stop();
    const { loadConfig } = await import("../../src/config/load");
    const { startDaemon } = await import("../../src/server/daemon");
    const config = loadConfig({ env: { SIGNET_PATH: dir, HOME: dir } });
    const restarted = await startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } });
    try {
      expect(restarted.context.credentials).toEqual(first);
    } finally {
      await restarted.stop();
      await again.stop().catch(() => {});
    }
  });
});

describe("invocation reports", () => {
  test("come only with the owner's instance key: back-dated rows from anyone else are refused", async () => {
    const report = JSON.stringify({ invocations: [{ tool: "forged", latencyMs: 1, success: true, createdAt: "2026-01-01T00:00:00.000Z" }] });
    const json = { "content-type": "application/json" };
    expect((await raw("POST", "/api/mcp/invocations", json, report)).status).toBe(401);
    expect((await raw("POST", "/api/mcp/invocations", { ...json, "x-signet-instance-key": "guess" }, report)).status).toBe(403);
    await d.daemon.context.analytics.flush();
    expect(d.daemon.context.stores.sqlite!.query("SELECT COUNT(*) AS n FROM mcp_invocations WHERE tool = 'forged'").get()).toEqual({ n: 0 });
    const ok = await raw("POST", "/api/mcp/invocations", { ...json, "x-signet-instance-key": d.daemon.context.credentials.instanceKey }, report);
    expect(ok.status).toBe(202);
  });
});

describe("clients check who answers on the port", () => {
  test("a client refuses a listener that cannot prove it holds its data directory's instance key, and sends it nothing", async () => {
    const seen: string[] = [];
    const impostor = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        seen.push(`${request.method} ${new URL(request.url).pathname} ${await request.text()}`);
        return Response.json({ status: "ok", version: "0.1.0", proof: "00" });
      },
    });
    try {
      const client = new SignetClient({ baseUrl: `http://127.0.0.1:${impostor.port}`, dataDir: d.dataDir });
      const err = await client.memory.remember({ content: "my AWS key is AKIA..." }).catch((e) => e);
      expect(err).toBeInstanceOf(DaemonIdentityError);
      expect(err.message).toContain(`port ${impostor.port}`);
      expect(err.message).toContain(d.dataDir);
      expect(seen.length).toBe(1);
      expect(seen[0]).toStartWith("GET /health ");
      expect(seen.join("")).not.toContain("AKIA");
    } finally {
      impostor.stop(true);
    }
  });

  test("the owner's client proves its own daemon once and works; a client of another data directory is refused", async () => {
    const own = d.client();
    expect((await own.memory.list({})).memories).toEqual([]);
    const other = tempDir();
    const stranger = new SignetClient({ baseUrl: d.url, dataDir: other });
    const err = await stranger.memory.list({}).catch((e) => e);
    expect(err).toBeInstanceOf(DaemonIdentityError);
    expect(err.message).toContain(`not your Signet daemon for ${other}`);
    // Without owner files a client still reaches the daemon for what needs no credential.
    const anonymous = new SignetClient({ baseUrl: d.url });
    const refused = await anonymous.bridge.install(attackServer()).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.status).toBe(401);
  });

  test("the daemon's own record vouches for it, so no challenge is sent; a record that does not hold brings the challenge back", async () => {
    const asked: string[] = [];
    const counting = ((input: string | URL | Request, init?: RequestInit) => {
      asked.push(String(input));
      return fetch(input, init);
    }) as typeof fetch;
    const client = () => new SignetClient({ baseUrl: d.url, dataDir: d.dataDir, fetch: counting });
    expect((await client().memory.list({})).memories).toEqual([]);
    expect(asked.filter((u) => u.includes("challenge="))).toEqual([]);
    const pidFile = daemonFiles(d.dataDir).pid;
    const record = readFileSync(pidFile, "utf8");
    try {
      // A pid reused by another process has another start time.
      writeFileSync(pidFile, JSON.stringify({ ...JSON.parse(record), processStart: "1" }));
      expect((await client().memory.list({})).memories).toEqual([]);
      expect(asked.filter((u) => u.includes("challenge="))).toHaveLength(1);
    } finally {
      writeFileSync(pidFile, record);
    }
  });
});

describe("a second account on the same machine", () => {
  const isRoot = process.getuid?.() === 0;
  const runner = ["/usr/bin/setpriv", "/usr/sbin/runuser"].find((p) => existsSync(p));
  const curl = existsSync("/usr/bin/curl") ? "/usr/bin/curl" : undefined;
  // Switching accounts needs root and setpriv (or runuser) and curl; say which is missing instead of passing quietly.
  const why = !isRoot ? "the suite is not running as root" : !runner ? "neither setpriv nor runuser is installed" : !curl ? "curl is not installed" : "";
  test.skipIf(why !== "")(`as nobody: cannot read the token or the data, and cannot install${why ? ` (skipped: ${why})` : ""}`, async () => {
    // Asynchronous: the daemon answering curl runs in this process.
    const asNobody = async (script: string) => {
      const argv =
        runner === "/usr/bin/setpriv"
          ? [runner, "--reuid=65534", "--regid=65534", "--clear-groups", "--", "/bin/sh", "-c", script]
          : [runner!, "-u", "nobody", "--", "/bin/sh", "-c", script];
      const child = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", cwd: "/" });
      const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
      return { code: await child.exited, out, err };
    };
    const daemonDir = join(d.dataDir, ".daemon");
    const read = await asNobody(`cat ${daemonDir}/admin.token; cat ${join(d.dataDir, "memory", "memories.db")} | head -c 1`);
    expect(read.out).toBe("");
    expect(read.err).toContain("Permission denied");
    const body = JSON.stringify(attackServer()).replace(/'/g, "'\\''");
    const install = await asNobody(
      `token=$(cat ${daemonDir}/admin.token 2>/dev/null); ${curl} -s -o /dev/null -w '%{http_code}' -X POST -H 'content-type: application/json' -H "authorization: Bearer $token" --data '${body}' ${d.url}/api/marketplace/servers`,
    );
    // The token could not be read, so what was sent is an empty bearer: no credential at all.
    expect(install.out).toBe("401");
    const bare = await asNobody(`${curl} -s -o /dev/null -w '%{http_code}' -X POST -H 'content-type: application/json' --data '${body}' ${d.url}/api/marketplace/servers`);
    expect(bare.out).toBe("401");
    await expectUntouched();
  });
});
