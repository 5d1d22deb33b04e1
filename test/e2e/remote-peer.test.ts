// A real remote peer (docs/security.md#auth-modes): a network namespace joined to this machine by a
// veth pair with private /30 addresses (10.200.N.1 here, 10.200.N.2 inside), and curl run inside the
// namespace against daemons in hybrid and team mode. The peer address the daemon sees is then really
// not loopback, which no header can fake. Needs root and `ip netns`; skipped, saying why, otherwise.
// Nothing leaves this machine: the link exists only between the namespace and this host.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { loadConfig } from "../../src/config/load";
import { startDaemon, type RunningDaemon } from "../../src/server/daemon";
import { tempDir } from "../helpers/daemon";
import { run, sandbox } from "../helpers/binary";

const NS = `sg-i13-${process.pid}`;
const HOST_IF = `sgh${process.pid % 1_000_000}`;
const PEER_IF = `sgp${process.pid % 1_000_000}`;

function ip(...args: string[]): { ok: boolean; out: string } {
  const r = spawnSync("ip", args, { encoding: "utf8", timeout: 10_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? r.error.message : ""}`.trim() };
}

/** A 10.200.N.0/30 no interface of this machine uses yet. */
function freeSubnet(): number | null {
  const used = ip("-4", "addr", "show").out;
  for (let i = 0; i < 250; i++) {
    const n = (process.pid + i) % 250;
    if (!used.includes(`10.200.${n}.`)) return n;
  }
  return null;
}

function teardown(): void {
  // Deleting the namespace deletes its end of the pair, and with it this end; the second is for a half-built setup.
  ip("netns", "delete", NS);
  ip("link", "delete", HOST_IF);
}

/** Why the test cannot run here, or null once the namespace and link are up. */
function setUp(subnet: number | null): string | null {
  if (process.platform !== "linux") return "network namespaces are Linux only";
  if (process.getuid?.() !== 0) return "creating a network namespace needs root";
  if (subnet === null) return "no free 10.200.N.0/30 subnet";
  if (spawnSync("curl", ["--version"]).status !== 0) return "curl is not installed";
  const steps: string[][] = [
    ["netns", "add", NS],
    ["link", "add", HOST_IF, "type", "veth", "peer", "name", PEER_IF],
    ["link", "set", PEER_IF, "netns", NS],
    ["addr", "add", `10.200.${subnet}.1/30`, "dev", HOST_IF],
    ["link", "set", HOST_IF, "up"],
    ["netns", "exec", NS, "ip", "addr", "add", `10.200.${subnet}.2/30`, "dev", PEER_IF],
    ["netns", "exec", NS, "ip", "link", "set", PEER_IF, "up"],
    ["netns", "exec", NS, "ip", "link", "set", "lo", "up"],
  ];
  for (const step of steps) {
    const r = ip(...step);
    if (!r.ok) {
      teardown();
      return `ip ${step.join(" ")} failed: ${r.out}`;
    }
  }
  return null;
}

const subnet = freeSubnet();
const skipReason = setUp(subnet);
process.once("exit", teardown);
if (skipReason) console.warn(`remote-peer tests skipped: ${skipReason}`);

const HOST_ADDR = `10.200.${subnet}.1`;

interface Answer {
  status: number;
  body: any;
}

/**
 * curl inside the namespace: a caller on another host as far as the daemon can tell. Asynchronous:
 * the daemon runs in this process and must go on answering meanwhile.
 */
async function remote(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const args = ["netns", "exec", NS, "curl", "-s", "-m", "10", "-X", options.method ?? "GET", "-w", "\n%{http_code}"];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push("-H", `${k}: ${v}`);
  if (options.body !== undefined) args.push("-H", "content-type: application/json", "--data-binary", JSON.stringify(options.body));
  args.push(url);
  const proc = Bun.spawn(["ip", ...args], { stdout: "pipe", stderr: "ignore", timeout: 20_000 });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const cut = out.lastIndexOf("\n");
  let body: unknown = out.slice(0, cut);
  try {
    body = JSON.parse(body as string);
  } catch {
    // not JSON: keep the text
  }
  return { status: Number(out.slice(cut + 1)), body };
}

async function local(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(url, { method: options.method ?? "GET", headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}

interface Served {
  daemon: RunningDaemon;
  dataDir: string;
  owner: Record<string, string>;
}

async function serve(mode: "team" | "hybrid", bind: string, allowedHosts: string[] = []): Promise<Served> {
  const dataDir = tempDir("signet-remote-");
  const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: dataDir, SIGNET_AUTH_MODE: mode, SIGNET_BIND: bind } });
  const daemon = await startDaemon({
    ...config,
    daemon: { ...config.daemon, port: 0, allowedHosts },
    embedding: { ...config.embedding, provider: "none" },
  });
  return { daemon, dataDir, owner: { authorization: `Bearer ${daemon.context.credentials.adminToken}` } };
}

async function stop(s: Served | undefined): Promise<void> {
  if (!s) return;
  await s.daemon.stop();
  rmSync(s.dataDir, { recursive: true, force: true });
}

async function token(s: Served, body: Record<string, unknown>): Promise<string> {
  return (await s.daemon.context.tokens.create({ role: "readonly", ...body } as never)).token;
}

const MEMORY = (content: string) => ({ content, type: "fact" });
const MCP_HEADERS = { accept: "application/json, text/event-stream" };
const STORE_CALL = (content: string) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory_store", arguments: { content } } });

describe.skipIf(skipReason !== null)(`a remote peer through a network namespace${skipReason ? ` (skipped: ${skipReason})` : ""}`, () => {
  afterAll(teardown);

  describe("hybrid mode", () => {
    let s: Served;
    let remoteUrl: string;
    let loopbackUrl: string;
    beforeAll(async () => {
      // Every address, so loopback callers and the namespace both reach it; the namespace's Host is allowed by name.
      s = await serve("hybrid", "0.0.0.0", [HOST_ADDR]);
      remoteUrl = `http://${HOST_ADDR}:${s.daemon.port}`;
      loopbackUrl = `http://127.0.0.1:${s.daemon.port}`;
    });
    afterAll(() => stop(s));

    test("the remote peer needs a token; a loopback peer does not", async () => {
      const refused = await remote(`${remoteUrl}/api/memories`);
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe("unauthorized");
      expect((await remote(`${remoteUrl}/api/memory/remember`, { method: "POST", body: MEMORY("remote without token") })).status).toBe(401);
      expect((await local(`${loopbackUrl}/api/memory/remember`, { method: "POST", body: MEMORY("loopback without token") })).status).toBe(201);

      const readonly = await token(s, { role: "readonly" });
      const listed = await remote(`${remoteUrl}/api/memories`, { headers: { authorization: `Bearer ${readonly}` } });
      expect(listed.status).toBe(200);
      expect(listed.body.memories.map((m: any) => m.content)).toContain("loopback without token");
      const denied = await remote(`${remoteUrl}/api/memory/remember`, { method: "POST", body: MEMORY("x"), headers: { authorization: `Bearer ${readonly}` } });
      expect(denied.status).toBe(403);
    });

    test("/health tells an unauthenticated remote peer only status and version", async () => {
      expect(Object.keys((await remote(`${remoteUrl}/health`)).body).sort()).toEqual(["status", "version"]);
      const full = await remote(`${remoteUrl}/health`, { headers: { authorization: `Bearer ${await token(s, { role: "readonly" })}` } });
      expect(full.body.dataDir).toBe(s.dataDir);
      // A trusted loopback peer without a credential still learns neither port nor data directory.
      expect((await local(`${loopbackUrl}/health`)).body.dataDir).toBeUndefined();
    });

    test("forged Host, Origin, forwarding and actor headers do not make the remote peer a loopback one", async () => {
      const forged = {
        host: `127.0.0.1:${s.daemon.port}`,
        origin: `http://127.0.0.1:${s.daemon.port}`,
        "x-forwarded-for": "127.0.0.1",
        "x-real-ip": "127.0.0.1",
        forwarded: "for=127.0.0.1",
        "x-signet-actor": "cli",
        "x-signet-actor-type": "operator",
      };
      expect((await remote(`${remoteUrl}/api/memories`, { headers: forged })).status).toBe(401);
      expect((await remote(`${remoteUrl}/api/memory/remember`, { method: "POST", body: MEMORY("forged"), headers: forged })).status).toBe(401);
      expect(Object.keys((await remote(`${remoteUrl}/health`, { headers: forged })).body).sort()).toEqual(["status", "version"]);
      const count = s.daemon.context.stores.sqlite!.query("SELECT COUNT(*) AS n FROM memories WHERE content = 'forged'").get() as { n: number };
      expect(count.n).toBe(0);
    });

    test("/mcp from the remote peer: 401 without a token; with an agent token its tools act as that agent, not as loopback", async () => {
      expect((await remote(`${remoteUrl}/mcp`, { method: "POST", headers: MCP_HEADERS, body: STORE_CALL("remote mcp without token") })).status).toBe(401);
      const agent = await token(s, { role: "agent", agentId: "remote-agent" });
      const stored = await remote(`${remoteUrl}/mcp?agent_id=forged`, {
        method: "POST",
        headers: { ...MCP_HEADERS, authorization: `Bearer ${agent}`, "x-signet-agent-id": "forged" },
        body: STORE_CALL("remote mcp with agent token"),
      });
      expect(stored.status).toBe(200);
      expect(stored.body.result.isError).toBeFalsy();
      expect(stored.body.result.structuredContent.agentId).toBe("remote-agent");
      // A readonly token's tool calls stay readonly although they run inside the daemon.
      const readonly = await token(s, { role: "readonly" });
      const refused = await remote(`${remoteUrl}/mcp`, {
        method: "POST",
        headers: { ...MCP_HEADERS, authorization: `Bearer ${readonly}` },
        body: STORE_CALL("remote readonly mcp"),
      });
      expect(refused.body.result.isError).toBe(true);
    });
  });

  describe("team mode", () => {
    let s: Served;
    let url: string;
    beforeAll(async () => {
      s = await serve("team", HOST_ADDR);
      url = `http://${HOST_ADDR}:${s.daemon.port}`;
    });
    afterAll(() => stop(s));

    test("every caller needs a token, remote or on this host; /health is short for the remote one", async () => {
      expect((await remote(`${url}/api/memories`)).status).toBe(401);
      expect((await local(`${url}/api/memories`)).status).toBe(401);
      expect(Object.keys((await remote(`${url}/health`)).body).sort()).toEqual(["status", "version"]);
      const operator = await token(s, { role: "operator" });
      const stored = await remote(`${url}/api/memory/remember`, { method: "POST", body: MEMORY("remote operator"), headers: { authorization: `Bearer ${operator}` } });
      expect(stored.status).toBe(201);
      expect((await remote(`${url}/mcp`, { method: "POST", headers: MCP_HEADERS, body: STORE_CALL("no token") })).status).toBe(401);
      const viaMcp = await remote(`${url}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, authorization: `Bearer ${operator}` }, body: STORE_CALL("remote operator over mcp") });
      expect(viaMcp.body.result.isError).toBeFalsy();
      // The owner's credential is accepted from anywhere: whoever holds the file is the owner.
      expect((await local(`${url}/api/tokens`, { headers: s.owner })).status).toBe(200);
      expect((await remote(`${url}/api/tokens`, { headers: { authorization: `Bearer ${operator}` } })).status).toBe(403);
    });

    test("the owner's CLI on this machine works with a daemon bound to one of its other addresses: the record says it is its own", async () => {
      const sb = await sandbox();
      const env = { ...sb.env, SIGNET_AUTH_MODE: "team", SIGNET_BIND: HOST_ADDR };
      try {
        expect((await run(["daemon", "start"], { env })).code).toBe(0);
        const made = await run(["token", "create", "--role", "readonly"], { env });
        expect({ code: made.code, stderr: made.stderr }).toEqual({ code: 0, stderr: "" });
        expect(JSON.parse(made.stdout).token).toStartWith("sgt_");
        expect((await run(["remember", "owner on another address"], { env })).code).toBe(0);
        // A daemon URL the record does not name gets nothing of the owner's: there it needs a token.
        const elsewhere = await run(["list"], { env: { ...env, SIGNET_DAEMON_URL: `http://${HOST_ADDR}:${sb.port + 1}` } });
        expect(elsewhere.code).not.toBe(0);
      } finally {
        await run(["daemon", "stop"], { env });
      }
    });
  });
});
