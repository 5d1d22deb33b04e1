// Store benchmark: the memory write path and recall on the daemon's SQLite file and on a shared
// PostgreSQL, side by side in one run, in process (the services a daemon runs, without HTTP), on a
// throwaway PostgreSQL 15 cluster (fsync off, as the tests run it; scripts/lib/postgres-cluster.ts).
//
//   bun scripts/bench-store.ts                      4,000 remembers per setup, recall at 100k
//   bun scripts/bench-store.ts --recall-size 10000 --json
//
// Figures:
//   1. remember/s with --clients concurrent writers: one SQLite store (group commit), one PostgreSQL
//      "daemon" (a MemoryService with its own pool), and three of them on the same database with the
//      writers spread over them. The three share this process's one thread, so they show what the
//      database allows, not three machines' CPU.
//   2. keyword-only recall p50/p99 at --recall-size memories on each store (RecallService, one query
//      at a time, the benchmarks' natural-language questions).
//   3. how long a write through one PostgreSQL daemon takes to reach another daemon's keyword index
//      through the change feed (notification, read, index), p50/p99 over --feed-writes writes.
//
// Flags: --writes N (4000), --clients N (8), --recall-size N (100000), --queries N (300),
//        --feed-writes N (200), --seed N (1), --json. Progress goes to stderr.
import { join } from "node:path";
import { RecallRequestSchema, type RecallRequest } from "../src/contracts/recall";
import { RememberRequestSchema, type RememberRequest } from "../src/contracts/memory";
import { MemoryFeed } from "../src/core/memory/postgres-feed";
import { PostgresMemoryStore } from "../src/core/memory/postgres-store";
import { MemoryService, type Caller } from "../src/core/memory/service";
import { SqliteMemoryStore } from "../src/core/memory/sqlite-store";
import type { MemoryStore } from "../src/core/memory/store";
import { AccessLog, type AccessWrites, SqliteAccessWrites } from "../src/core/recall/access-log";
import { PostgresAccessWrites } from "../src/core/recall/postgres-access";
import { PostgresRecallStore } from "../src/core/recall/postgres-store";
import { RecallService } from "../src/core/recall/service";
import { SqliteRecallStore } from "../src/core/recall/sqlite-store";
import type { RecallStore } from "../src/core/recall/store";
import { migrate } from "../src/db/migrate";
import { MEMORY_STORE_CACHE_MIB, openDatabase } from "../src/db/open";
import { migratePostgres, openPostgres } from "../src/db/postgres";
import { parseFlags } from "./lib/args";
import { makeGenerator, makeQueryGenerator } from "./lib/content";
import { makeTempDir } from "./lib/daemon";
import { int, markdownTable, ms, secs } from "./lib/format";
import { startPostgresCluster } from "./lib/postgres-cluster";
import { stats, type LatencyStats } from "./lib/stats";
import { STORE_BENCH_FLAGS } from "./lib/store-bench-flags";

const opts = parseFlags(
  process.argv.slice(2),
  { ...STORE_BENCH_FLAGS, seed: { kind: "int", min: 0 } },
  { writes: 4000, clients: 8, "recall-size": 100_000, queries: 300, "feed-writes": 200, seed: 1, json: false },
  {
    script: "bench-store.ts",
    line: "usage: bun scripts/bench-store.ts [--writes N] [--clients N] [--recall-size N] [--queries N] [--feed-writes N] [--seed N] [--json]",
  },
);

const progress = (line: string) => process.stderr.write(`${line}\n`);
const caller: Caller = { agentId: "default", actor: "bench", actorType: "script", runtimePath: null };
const quiet = { info: () => {}, warn: () => {}, error: (m: string) => progress(`error: ${m}`) };

const cluster = await startPostgresCluster(makeTempDir("signet-bench-store-pg-"));
const clients: Bun.SQL[] = [];
const accessLogs: AccessLog[] = [];
let databases = 0;

/** Access bookkeeping for a benchmark's recall service, flushed before the clients close. */
function accessLog(writes: AccessWrites): AccessLog {
  const log = new AccessLog(writes, quiet);
  accessLogs.push(log);
  return log;
}

/** A fresh, migrated database; returns how to open a client (one per daemon). */
async function postgresDatabase(): Promise<() => Bun.SQL> {
  databases++;
  const url = await cluster.createDatabase();
  const connect = () => {
    const sql = openPostgres(url, { max: 10 });
    clients.push(sql);
    return sql;
  };
  await migratePostgres(connect());
  return connect;
}

function sqliteDb() {
  const db = openDatabase(join(makeTempDir("signet-bench-store-"), "memories.db"), { cacheMiB: MEMORY_STORE_CACHE_MIB });
  migrate(db);
  return db;
}

function bodies(n: number, seed: number): RememberRequest[] {
  const gen = makeGenerator(seed);
  return Array.from({ length: n }, () => RememberRequestSchema.parse(JSON.parse(gen())));
}

/** `writes` remembers by `clients` writers, each waiting for its answer before the next: per-write latency and the rate. */
async function writeLoad(services: MemoryService[], writes: RememberRequest[]): Promise<LatencyStats> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: opts.clients }, async (_, c) => {
      const memory = services[c % services.length]!;
      for (let i = next++; i < writes.length; i = next++) {
        const t = performance.now();
        try {
          await memory.remember(caller, writes[i]!);
        } catch (err) {
          if (errors++ === 0) progress(`write failed: ${(err as Error).message}`);
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  return stats(latencies, performance.now() - started, errors);
}

interface WriteFigure {
  setup: string;
  stats: LatencyStats;
}

async function writeFigures(): Promise<WriteFigure[]> {
  const writes = bodies(opts.writes, opts.seed);
  const out: WriteFigure[] = [];
  progress(`writes: SQLite, ${opts.writes} remembers from ${opts.clients} writers`);
  out.push({ setup: "SQLite, one daemon", stats: await writeLoad([new MemoryService(new SqliteMemoryStore(sqliteDb()))], writes) });
  for (const daemons of [1, 3]) {
    progress(`writes: PostgreSQL, ${daemons} daemon(s)`);
    const connect = await postgresDatabase();
    const services = Array.from({ length: daemons }, () => new MemoryService(new PostgresMemoryStore(connect())));
    out.push({ setup: `PostgreSQL, ${daemons} daemon${daemons > 1 ? "s" : ""}`, stats: await writeLoad(services, writes) });
  }
  return out;
}

interface RecallFigure {
  store: string;
  loadMs: number;
  indexMs: number;
  stats: LatencyStats;
}

async function recallOn(name: string, memoryStore: MemoryStore, recallStore: RecallStore, access: AccessWrites): Promise<RecallFigure> {
  const memory = new MemoryService(memoryStore);
  const load = bodies(opts["recall-size"], opts.seed + 1);
  progress(`recall: loading ${int(load.length)} memories into ${name}`);
  const loadStarted = performance.now();
  // In batches the size of a busy daemon's groups, so the load neither waits on one write at a time nor piles up.
  for (let i = 0; i < load.length; i += 500) {
    await Promise.all(load.slice(i, i + 500).map((req) => memory.remember(caller, req)));
    if ((i / 500) % 40 === 0) progress(`  ${int(i)} / ${int(load.length)}`);
  }
  const loadMs = performance.now() - loadStarted;
  const recall = new RecallService(recallStore, memory, null, accessLog(access));
  const indexStarted = performance.now();
  await recall.start();
  const indexMs = performance.now() - indexStarted;
  const gen = makeQueryGenerator(opts.seed + 2);
  const requests: RecallRequest[] = Array.from({ length: opts.queries }, () => RecallRequestSchema.parse(gen()));
  for (const r of requests.slice(0, 20)) await recall.recall(caller, r);
  const latencies: number[] = [];
  const started = performance.now();
  for (const r of requests) {
    const t = performance.now();
    await recall.recall(caller, r);
    latencies.push(performance.now() - t);
  }
  return { store: name, loadMs, indexMs, stats: stats(latencies, performance.now() - started, 0) };
}

async function recallFigures(): Promise<RecallFigure[]> {
  const db = sqliteDb();
  const sqlite = await recallOn("SQLite", new SqliteMemoryStore(db), new SqliteRecallStore(db), new SqliteAccessWrites(db));
  const sql = (await postgresDatabase())();
  const pg = await recallOn("PostgreSQL", new PostgresMemoryStore(sql), new PostgresRecallStore(sql), new PostgresAccessWrites(sql));
  return [sqlite, pg];
}

/** Write through daemon one, time until daemon two's keyword index finds it. */
async function feedFigure(): Promise<LatencyStats> {
  const connect = await postgresDatabase();
  const writer = new MemoryService(new PostgresMemoryStore(connect()));
  const reader = connect();
  const seen = new Map<string, number>();
  let recall: RecallService | undefined;
  const feed = new MemoryFeed(reader, {
    onChange: (c) => {
      recall?.onChange(c);
      if (c.text) seen.set(c.text.content, performance.now());
    },
  });
  recall = new RecallService(new PostgresRecallStore(reader), new MemoryService(new PostgresMemoryStore(reader)), null, accessLog(new PostgresAccessWrites(reader)));
  await recall.start();
  await feed.start(await MemoryFeed.head(reader));
  progress(`feed: ${opts["feed-writes"]} writes through one daemon, heard by another`);
  const latencies: number[] = [];
  for (let i = 0; i < opts["feed-writes"]; i++) {
    const content = `feed probe ${i}: the canary build ${opts.seed}-${i} passed`;
    const t = performance.now();
    await writer.remember(caller, { content });
    const deadline = t + 10_000;
    while (!seen.has(content) && performance.now() < deadline) await Bun.sleep(0);
    latencies.push((seen.get(content) ?? Number.POSITIVE_INFINITY) - t);
  }
  await feed.stop();
  return stats(latencies, 0, latencies.filter((l) => !Number.isFinite(l)).length);
}

try {
  const writes = await writeFigures();
  const feed = await feedFigure();
  const recalls = await recallFigures();
  if (opts.json) {
    console.log(JSON.stringify({ options: opts, writes, recalls, feed }, null, 2));
  } else {
    console.log(`Signet stores, in process: ${opts.writes} remembers from ${opts.clients} writers; recall at ${int(opts["recall-size"])} memories (keyword only)\n`);
    console.log(
      markdownTable(
        ["setup", "remember/s", "p50", "p99", "failed"],
        writes.map((w) => [w.setup, int(w.stats.perSec), ms(w.stats.p50Ms), ms(w.stats.p99Ms), String(w.stats.errors)]),
        ["l", "r", "r", "r", "r"],
      ),
    );
    console.log("");
    console.log(
      markdownTable(
        ["store", "load", "index load", "recall p50", "recall p99"],
        recalls.map((r) => [r.store, secs(r.loadMs), secs(r.indexMs), ms(r.stats.p50Ms), ms(r.stats.p99Ms)]),
        ["l", "r", "r", "r", "r"],
      ),
    );
    console.log(`\nA write through one PostgreSQL daemon reaches another's keyword index: p50 ${ms(feed.p50Ms)}, p99 ${ms(feed.p99Ms)}, max ${ms(feed.maxMs)} (${feed.errors} never)`);
  }
} finally {
  for (const log of accessLogs) await log.flush();
  for (const c of clients) await c.close();
  await cluster.stop();
  progress(`(${databases} PostgreSQL databases used)`);
}
