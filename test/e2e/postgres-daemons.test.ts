// Three daemons (the compiled binary, `signet daemon run`) on one PostgreSQL database, in team mode
// with the cluster's owner credentials given to each (docs/deploy.md): what one daemon takes, the
// others serve; a killed daemon loses no acknowledged write and catches up on restart; PostgreSQL
// restarted under load costs 503s while it is down and nothing after.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { daemonFiles } from "../../src/config/paths";
import { json, requireBinary, run, runForeground, sandbox, type Sandbox } from "../helpers/binary";
import { postgresDatabases } from "../helpers/postgres-databases";
import { jsonCall, type JsonAnswer } from "../helpers/json-call";
import { McpClients } from "../helpers/mcp-client";
import { openSse } from "../helpers/sse";
import { eventually } from "../helpers/wait";

const postgres = postgresDatabases();

const OWNER = { adminToken: "cluster-admin-token-0123456789abcdef", instanceKey: "cluster-instance-key-0123456789abcdef" };
const owner = { authorization: `Bearer ${OWNER.adminToken}`, "x-signet-instance-key": OWNER.instanceKey };

class Daemon {
  proc: Subprocess | null = null;
  constructor(
    readonly s: Sandbox,
    private readonly databaseUrl: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.s.port}`;
  }

  async start(): Promise<void> {
    this.proc = await runForeground(this.s, { SIGNET_DATABASE_URL: this.databaseUrl, SIGNET_AUTH_MODE: "team" }, 20_000);
  }

  async kill(signal: "SIGKILL" | "SIGTERM"): Promise<void> {
    this.proc?.kill(signal);
    await this.proc?.exited;
    this.proc = null;
  }

  api(method: string, path: string, body?: unknown, headers: Record<string, string> = { ...owner, "x-signet-agent-id": "ada" }): Promise<JsonAnswer> {
    return jsonCall(this.url, method, path, body, headers);
  }

  async recalled(query: string): Promise<string[]> {
    const r = await this.api("POST", "/api/memory/recall", { query });
    return r.status === 200 ? r.body.results.map((m: { content: string }) => m.content) : [];
  }
}

/** The owner's credentials are the cluster's: the operator gives each daemon the same files. */
function giveOwnerCredentials(dataDir: string): void {
  const files = daemonFiles(dataDir);
  mkdirSync(join(dataDir, ".daemon"), { recursive: true, mode: 0o700 });
  writeFileSync(files.adminToken, `${OWNER.adminToken}\n`, { mode: 0o600 });
  writeFileSync(files.instanceKey, `${OWNER.instanceKey}\n`, { mode: 0o600 });
}

let daemons: Daemon[] = [];
let databaseUrl = "";

beforeAll(async () => {
  if (!postgres.available) return;
  const url = await postgres.emptyDatabase();
  databaseUrl = url;
  for (let i = 0; i < 3; i++) {
    const s = await sandbox('embedding:\n  provider: none\nsecrets:\n  sandbox: "off"\n');
    giveOwnerCredentials(s.dataDir);
    daemons.push(new Daemon(s, url));
  }
  // Started together: they migrate the empty database once between them.
  await Promise.all(daemons.map((d) => d.start()));
}, 60_000);

afterAll(async () => {
  for (const d of daemons) await d.kill("SIGTERM");
  daemons = [];
});

describe.skipIf(!postgres.available)("three daemons on one PostgreSQL", () => {
  test("a memory stored through one is recalled through the others within a second", async () => {
    const [a, b, c] = daemons as [Daemon, Daemon, Daemon];
    const stored = await a.api("POST", "/api/memory/remember", { content: "The payments service deploys from the blue-heron branch" });
    expect(stored.status).toBe(201);
    const t0 = performance.now();
    const seenOn = async (d: Daemon) => {
      while (performance.now() - t0 < 5_000) {
        if ((await d.recalled("which branch does payments deploy from")).some((m) => m.includes("blue-heron"))) return performance.now() - t0;
        await Bun.sleep(10);
      }
      return Infinity;
    };
    const [onB, onC] = await Promise.all([seenOn(b), seenOn(c)]);
    expect(onB).toBeLessThan(1_000);
    expect(onC).toBeLessThan(1_000);
  });

  test("each lists the three in /health, and signet doctor reports the store and who shares it", async () => {
    const health = await daemons[1]!.api("GET", "/health");
    expect(health.body.store.kind).toBe("postgres");
    expect(health.body.store.location).toStartWith("postgres://postgres@127.0.0.1:");
    expect(health.body.store.daemons.map((d: { url: string }) => d.url).sort()).toEqual(daemons.map((d) => d.url).sort());
    const doctor = await run(["doctor", "--json"], { env: { ...daemons[0]!.s.env, SIGNET_DATABASE_URL: databaseUrl } });
    const store = json(doctor).checks.find((c: { area: string }) => c.area === "store");
    expect(store.status).toBe("ok");
    expect(store.detail).toContain("shared by 3 daemons");
    for (const d of daemons) expect(store.detail).toContain(d.url);
  });

  test("a message sent through one reaches a stream held on another, and replays on a third", async () => {
    const [a, b, c] = daemons as [Daemon, Daemon, Daemon];
    const token = async (agentId: string) => (await a.api("POST", "/api/tokens", { role: "agent", agentId })).body.token as string;
    const [ada, bob] = [await token("ada-msg"), await token("bob-msg")];
    const stream = await openSse(`${b.url}/api/cross-agent/stream`, { authorization: `Bearer ${bob}` });
    try {
      expect(stream.status).toBe(200);
      const sent = await a.api("POST", "/api/cross-agent/messages", { content: "the migration is done", toAgentId: "bob-msg" }, { authorization: `Bearer ${ada}` });
      expect(sent.status).toBe(201);
      const event = await stream.next((e) => e.data?.includes("the migration is done") === true, 5_000);
      expect(JSON.parse(event.data!).id).toBe(sent.body.id);
      // A second message; a client reconnecting to another daemon after the first gets it from the store.
      const later = await a.api("POST", "/api/cross-agent/messages", { content: "and the backfill too", toAgentId: "bob-msg" }, { authorization: `Bearer ${ada}` });
      const replay = await openSse(`${c.url}/api/cross-agent/stream`, { authorization: `Bearer ${bob}`, "last-event-id": event.id! });
      try {
        const replayed = await replay.next((e) => e.data?.includes("and the backfill too") === true, 5_000);
        expect(JSON.parse(replayed.data!).id).toBe(later.body.id);
      } finally {
        replay.close();
      }
    } finally {
      stream.close();
    }
  });

  test("an agent's MCP client on one daemon stores what its client on another finds", async () => {
    const [a, b] = daemons as [Daemon, Daemon, Daemon];
    const token = (await a.api("POST", "/api/tokens", { role: "agent", agentId: "mcp-agent" })).body.token as string;
    const [onA, onB] = [new McpClients(() => a.url, "pg-a"), new McpClients(() => b.url, "pg-b")];
    try {
      const writer = await onA.withToken(token);
      const stored = await writer.callTool({ name: "memory_store", arguments: { content: "The billing cron moved to 02:00 UTC" } });
      expect(stored.isError).toBeFalsy();
      const reader = await onB.withToken(token);
      const found = await reader.callTool({ name: "memory_search", arguments: { query: "when does the billing cron run?" } });
      expect(JSON.stringify(found.structuredContent)).toContain("The billing cron moved to 02:00 UTC");
    } finally {
      await onA.closeAll();
      await onB.closeAll();
    }
  });

  test("one session's hooks may land on different daemons: what one injected, another does not inject again", async () => {
    const [a, b, c] = daemons as [Daemon, Daemon, Daemon];
    const hook = (d: Daemon, event: string, extra: Record<string, unknown> = {}) =>
      d.api("POST", `/api/hooks/${event}`, { sessionKey: "s-spread", harness: "claude-code", project: "/src/shop", ...extra });
    await a.api("POST", "/api/memory/remember", { content: "The shop's checkout uses the stripe-v3 client", project: "/src/shop" });
    expect((await hook(a, "session-start")).status).toBe(200);
    const first = await hook(b, "user-prompt-submit", { prompt: "which stripe client does checkout use?" });
    expect(first.status).toBe(200);
    expect(first.body.memoryIds).toHaveLength(1);
    const again = await hook(c, "user-prompt-submit", { prompt: "remind me which stripe client checkout uses" });
    expect(again.body.memoryIds).toEqual([]);
    expect((await hook(c, "session-end", { transcript: "user: which stripe client?\nassistant: stripe-v3" })).status).toBe(200);
    const found = await a.api("POST", "/api/sessions/search", { query: "stripe" });
    expect(found.body.hits.map((h: { sessionKey: string }) => h.sessionKey)).toEqual(["s-spread"]);
  });

  test("a secret exec job accepted by one runs exactly once, and every daemon reports it", async () => {
    const [a, b, c] = daemons as [Daemon, Daemon, Daemon];
    const mark = join(a.s.home, "job-ran");
    const job = await a.api("POST", "/api/secrets/exec", { command: `echo ran >> ${mark}; echo done`, secrets: {} });
    expect(job.status).toBe(202);
    for (const d of [b, c, a]) {
      expect(await eventually(async () => (await d.api("GET", `/api/secrets/exec/${job.body.id}`)).body?.status === "completed", 10_000)).toBe(true);
    }
    await Bun.sleep(300);
    expect(readFileSync(mark, "utf8")).toBe("ran\n");
  });

  test("a token revoked through one daemon is refused by all", async () => {
    const [a, b, c] = daemons as [Daemon, Daemon, Daemon];
    const created = await b.api("POST", "/api/tokens", { role: "agent", agentId: "revoked-soon" });
    const bearer = { authorization: `Bearer ${created.body.token}` };
    for (const d of daemons) expect((await d.api("POST", "/api/memory/recall", { query: "anything" }, bearer)).status).toBe(200);
    expect((await a.api("DELETE", `/api/tokens/${created.body.id}`)).status).toBe(200);
    for (const d of [a, b, c]) {
      expect(await eventually(async () => (await d.api("POST", "/api/memory/recall", { query: "anything" }, bearer)).status === 401, 2_000)).toBe(true);
    }
  });

  test("kill -9 of one daemon while 8 clients write through all three: every acknowledged write is there, the others answer, the killed one catches up", async () => {
    const [a, b, c] = daemons as [Daemon, Daemon, Daemon];
    const acknowledged: string[] = [];
    const failedOnSurvivors: string[] = [];
    let stop = false;
    let n = 0;
    const client = async (i: number) => {
      for (let k = 0; !stop; k++) {
        const d = daemons[(i + k) % 3]!;
        const content = `write ${i}-${k} lands in the quartz-${n++} ledger`;
        const r = await d.api("POST", "/api/memory/remember", { content }).catch(() => null);
        if (r?.status === 201) acknowledged.push(r.body.id);
        else if (d !== c) failedOnSurvivors.push(`${d.url}: ${r?.status ?? "no answer"}`);
      }
    };
    const clients = Array.from({ length: 8 }, (_, i) => client(i));
    await Bun.sleep(700);
    await c.kill("SIGKILL");
    await Bun.sleep(700);
    // Written while the killed daemon is down: it must catch up on it.
    const whileDown = await a.api("POST", "/api/memory/remember", { content: "The on-call rotation moved to the ember schedule" });
    expect(whileDown.status).toBe(201);
    stop = true;
    await Promise.all(clients);
    expect(failedOnSurvivors).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(50);
    await c.start();
    expect(await eventually(async () => (await c.recalled("what is the on-call schedule now")).some((m) => m.includes("ember schedule")), 5_000)).toBe(true);
    // Every acknowledged write, through each daemon.
    for (const d of [a, b, c]) {
      const listed = new Set<string>();
      for (let offset = 0; ; offset += 200) {
        const page = await d.api("GET", `/api/memories?limit=200&offset=${offset}`);
        expect(page.status).toBe(200);
        for (const m of page.body.memories) listed.add(m.id);
        if (page.body.memories.length < 200) break;
      }
      expect(acknowledged.filter((id) => !listed.has(id))).toEqual([]);
    }
  }, 60_000);

  test("PostgreSQL restarted under load: 503 while it is down, recovery by themselves, no acknowledged write lost", async () => {
    const acknowledged: string[] = [];
    const statuses = new Map<number | string, number>();
    let stop = false;
    const client = async (i: number) => {
      for (let k = 0; !stop; k++) {
        const d = daemons[(i + k) % 3]!;
        const r = await d.api("POST", "/api/memory/remember", { content: `restart ${i}-${k}: the cobalt-${i}-${k} ticket` }).catch(() => null);
        const status = r?.status ?? "no answer";
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (r?.status === 201) acknowledged.push(r.body.id);
        if (r?.status !== 201) await Bun.sleep(20);
      }
    };
    // A caller with a token the guard has to look up: while the store is down it cannot be judged,
    // which is a 503 like every other outage (never a 500), and a 401 once the store says "unknown".
    const probes = new Map<number | string, number>();
    const prober = async () => {
      for (let k = 0; !stop; k++) {
        const d = daemons[k % 3]!;
        const r = await d.api("GET", "/api/memories?limit=1", undefined, { authorization: `Bearer sgt_unknown${k}` }).catch(() => null);
        const status = r === null ? "no answer" : `${r.status} ${r.body?.code}`;
        probes.set(status, (probes.get(status) ?? 0) + 1);
        await Bun.sleep(20);
      }
    };
    const clients = [...Array.from({ length: 8 }, (_, i) => client(i)), prober()];
    await Bun.sleep(500);
    await postgres.restart(1_500);
    // Recovered by themselves: writes through every daemon succeed again.
    for (const d of daemons) {
      expect(await eventually(async () => (await d.api("POST", "/api/memory/remember", { content: `after the restart through ${d.url}` })).status === 201, 15_000)).toBe(true);
    }
    stop = true;
    await Promise.all(clients);
    const answered = [...statuses.keys()].sort();
    expect(answered.every((s) => s === 201 || s === 503)).toBe(true);
    expect(statuses.get(503)).toBeGreaterThan(0);
    expect([...probes.keys()].filter((s) => s !== "401 unauthorized" && s !== "503 unavailable")).toEqual([]);
    expect(probes.get("503 unavailable")).toBeGreaterThan(0);
    for (const id of acknowledged) {
      const r = await daemons[0]!.api("GET", `/api/memory/${id}`);
      if (r.status !== 200) throw new Error(`acknowledged write ${id} is gone (${r.status})`);
    }
  }, 60_000);

  test("a text holding U+0000, which SQLite stores and PostgreSQL cannot, is a 400 naming the problem, and nothing is stored", async () => {
    for (const body of [{ content: "deploy key\u0000 is in vault" }, { content: "tagged", tags: ["a\u0000b"] }, { content: "in a project", project: "/p\u0000q" }]) {
      const r = await daemons[0]!.api("POST", "/api/memory/remember", body);
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 400, code: "invalid_input" });
      expect(r.body.error).toContain("NUL character (U+0000)");
    }
    const listed = await daemons[1]!.api("GET", "/api/memories?limit=200");
    expect(listed.body.memories.filter((m: { content: string }) => m.content === "tagged" || m.content === "in a project")).toEqual([]);
  });

  test("a backup is refused with what to use instead; a store that cannot be reached stops the start, naming it without its password", async () => {
    const backup = await daemons[0]!.api("POST", "/api/backup", { path: join(daemons[0]!.s.home, "backup.db") });
    expect(backup.status).toBe(400);
    expect(backup.body.error).toContain("back the database up with pg_dump");
    const s = await sandbox("embedding:\n  provider: none\n");
    const proc = Bun.spawn([requireBinary(), "daemon", "run"], {
      env: { ...s.env, SIGNET_DATABASE_URL: "postgres://signet:hunter2@127.0.0.1:1/signet" },
      stdout: "ignore",
      stderr: "pipe",
    });
    expect(await proc.exited).not.toBe(0);
    const stderr = await new Response(proc.stderr).text();
    expect(stderr).toContain("cannot open the PostgreSQL store postgres://signet@127.0.0.1:1/signet");
    expect(stderr).not.toContain("hunter2");
  });
});
