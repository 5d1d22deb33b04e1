// The analytics benchmark: seeds a fresh database (real migrations, temp dir) with N realistic
// invocation rows over 30 days, then measures the Analytics object in process: the store's load at
// start, cold and warm queries, retention, and the cost of recording a call.
import { SqliteInvocationStore } from "../../src/core/analytics/sqlite-store";
import { join } from "node:path";
import { Analytics } from "../../src/core/analytics";
import { DAY_MS } from "../../src/contracts/analytics";
import type { InvocationSource } from "../../src/contracts/analytics";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { mulberry32 } from "./content";
import { makeTempDir, removeTempDir } from "./daemon";
import { stats } from "./stats";

/** 11 bridged servers and Signet's own tools: 40 tools in all. */
const SERVERS: [string, number][] = [
  ["github", 6], ["filesystem", 5], ["postgres", 4], ["slack", 4], ["linear", 3], ["sentry", 3],
  ["browser", 3], ["docker", 3], ["jira", 2], ["notion", 2], ["figma", 2], ["signet", 3],
];
const AGENTS: [string, number][] = [["claude-code", 45], ["codex", 25], ["opencode", 15], ["ci-bot", 10], ["default", 5]];
const WARM_RUNS = 10;
const RECORD_CALLS = 50_000;

interface ToolProfile {
  server: string;
  tool: string;
  weight: number;
  baseMs: number;
  failRate: number;
}

interface QueryFigures {
  name: string;
  coldMs: number;
  warmP50Ms: number;
  warmMaxMs: number;
}

export interface AnalyticsBenchFigures {
  rows: number;
  seedMs: number;
  /** SQLite alone, for comparison: counts per server and tool over every row. */
  sqliteGroupByMs: number;
  loadMs: number;
  /** The longest the event loop waited for the load (it yields between chunks). */
  loadMaxBlockMs: number;
  storeBytes: number;
  queries: QueryFigures[];
  prune: { deletedRows: number; ms: number };
  record: { calls: number; recordUsPerCall: number; flushUsPerRow: number };
}

function profiles(random: () => number): ToolProfile[] {
  const out: ToolProfile[] = [];
  SERVERS.forEach(([server, tools], s) => {
    for (let t = 0; t < tools; t++) {
      out.push({
        server,
        tool: `${server}_tool_${t}`,
        // Zipf-like: a few servers and tools take most calls.
        weight: 1 / ((s + 1) ** 0.9 * (t + 1)),
        baseMs: Math.exp(Math.log(5) + random() * Math.log(160)),
        failRate: 0.005 + random() * 0.075,
      });
    }
  });
  return out;
}

function picker<T>(items: T[], weight: (item: T) => number, random: () => number): () => T {
  const total = items.reduce((sum, i) => sum + weight(i), 0);
  let sum = 0;
  const cumulative = items.map((i) => (sum += weight(i) / total));
  return () => {
    const r = random();
    const i = cumulative.findIndex((c) => r < c);
    return items[i === -1 ? items.length - 1 : i]!;
  };
}

function seed(db: ReturnType<typeof openDatabase>, rows: number, now: number): void {
  const random = mulberry32(42);
  const tool = picker(profiles(random), (p) => p.weight, random);
  const agent = picker(AGENTS, ([, w]) => w, random);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const insert = db.query(
    `INSERT INTO mcp_invocations (server, tool, agent_id, source, latency_ms, success, error_text, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const start = now - 30 * DAY_MS + 60_000;
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const p = tool();
      const source: InvocationSource = p.server === "signet" ? "mcp" : random() < 0.2 ? "cli" : "agent";
      // Log-normal around the tool's own latency, with a rare slow tail.
      const latency = Math.round(p.baseMs * Math.exp(0.8 * gaussian()) * (random() < 0.01 ? 10 : 1));
      const failed = random() < p.failRate;
      const at = new Date(start + ((now - start) * i) / rows).toISOString();
      insert.run(p.server, p.tool, agent()[0], source, latency, failed ? 0 : 1, failed ? "tool failed" : null, at);
    }
    db.run(`INSERT INTO mcp_invocation_daily
            SELECT substr(created_at, 1, 10), server, tool, agent_id, source, COUNT(*), SUM(1 - success), SUM(latency_ms), MAX(created_at)
              FROM mcp_invocations GROUP BY 1, 2, 3, 4, 5`);
  })();
}

async function timeQuery(name: string, run: () => Promise<unknown>): Promise<QueryFigures> {
  let t = performance.now();
  await run();
  const coldMs = performance.now() - t;
  const warm: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    t = performance.now();
    await run();
    warm.push(performance.now() - t);
  }
  const s = stats(warm, 1, 0);
  return { name, coldMs, warmP50Ms: s.p50Ms, warmMaxMs: s.maxMs };
}

/** Measures how long the event loop is kept waiting while `work` runs. */
async function maxBlock(work: Promise<unknown>): Promise<number> {
  let worst = 0;
  let last = performance.now();
  let done = false;
  const probe = async () => {
    while (!done) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      const t = performance.now();
      worst = Math.max(worst, t - last);
      last = t;
    }
  };
  const probing = probe();
  await work;
  done = true;
  await probing;
  return worst;
}

export async function benchAnalytics(opts: { rows: number; progress?: (line: string) => void }): Promise<AnalyticsBenchFigures> {
  const progress = opts.progress ?? (() => {});
  const dir = makeTempDir("signet-analytics-bench-");
  try {
    const path = join(dir, "memories.db");
    const now = Date.now();
    let t = performance.now();
    const seeding = openDatabase(path);
    migrate(seeding);
    progress(`seeding ${opts.rows} rows`);
    seed(seeding, opts.rows, now);
    const seedMs = performance.now() - t;
    seeding.close();

    // A fresh connection, as a daemon starting on an existing database would have.
    const db = openDatabase(path);
    t = performance.now();
    db.query("SELECT server, tool, COUNT(*), SUM(1 - success) FROM mcp_invocations GROUP BY server, tool").all();
    const sqliteGroupByMs = performance.now() - t;

    const at = (level: string) => (message: string) => progress(`${level}: ${message}`);
    const log = { info: at("info"), warn: at("warn"), error: at("error") };
    const analytics = new Analytics(new SqliteInvocationStore(db), { retentionDays: 30, flushMs: 3_600_000, trackAgentCalls: true, alerts: { github: 10, "filesystem/filesystem_tool_0": 10 } }, log);
    progress("loading the store");
    t = performance.now();
    analytics.start();
    const loadMaxBlockMs = await maxBlock(analytics.ready());
    const loadMs = performance.now() - t;
    const storeBytes = analytics.stats().memoryBytes;

    progress("querying");
    const weekAgo = new Date(now - 7 * DAY_MS).toISOString();
    const queries = [
      await timeQuery("all rows", () => analytics.summary({}, now)),
      await timeQuery("server filter (github)", () => analytics.summary({ server: "github" }, now)),
      await timeQuery("agent + last 7 days", () => analytics.summary({ agentId: "codex", since: weekAgo }, now)),
      await timeQuery("per server (filesystem, every tool)", () => analytics.server("filesystem", {}, now)),
      await timeQuery("latency alerts (last 24 h)", () => analytics.alerts({ hours: 24 }, now)),
      // What the recall usage boost re-reads at most once a minute.
      await timeQuery("scorer features (daily rollups)", async () => analytics.features({}, now)),
    ];

    progress("pruning the oldest day");
    t = performance.now();
    const deletedRows = await analytics.prune(now + DAY_MS);
    const pruneMs = performance.now() - t;

    progress(`recording ${RECORD_CALLS} calls`);
    t = performance.now();
    for (let i = 0; i < RECORD_CALLS; i++) {
      analytics.record({ server: "github", tool: "github_tool_0", agentId: "codex", source: "agent", latencyMs: 40 + (i % 50), success: i % 30 !== 0 });
    }
    const recordMs = performance.now() - t;
    t = performance.now();
    await analytics.flush();
    const flushMs = performance.now() - t;

    await analytics.stop();
    db.close();
    return {
      rows: opts.rows,
      seedMs,
      sqliteGroupByMs,
      loadMs,
      loadMaxBlockMs,
      storeBytes,
      queries,
      prune: { deletedRows, ms: pruneMs },
      record: { calls: RECORD_CALLS, recordUsPerCall: (recordMs * 1000) / RECORD_CALLS, flushUsPerRow: (flushMs * 1000) / RECORD_CALLS },
    };
  } finally {
    removeTempDir(dir);
  }
}
