// Deployment benchmark: real daemons (the compiled binary, `signet daemon run`) over HTTP, on their
// SQLite files and on one shared PostgreSQL 15 (a throwaway cluster with fsync off, as the tests run
// it; scripts/lib/postgres-cluster.ts), side by side in one run (docs/deploy.md).
//
//   bun run build && bun scripts/bench-cluster.ts                 4,000 writes per setup, recall at 100k
//   bun scripts/bench-cluster.ts --recall-size 20000 --json
//
// Figures:
//   1. remember/s through HTTP with --clients concurrent clients: one SQLite daemon, one PostgreSQL
//      daemon, and three PostgreSQL daemons on one database with the clients spread over them. All
//      share this machine's cores with PostgreSQL and the clients.
//   2. how long a write acknowledged by one daemon takes to be recalled through another (the
//      change feed: notification, read, index; then a recall finding it), p50/p99 over --feed-writes.
//   3. keyword-only recall p50/p99 over HTTP at --recall-size memories on each store: the SQLite
//      daemon loaded through HTTP, its store moved to PostgreSQL with `signet store copy` (timed), a
//      PostgreSQL daemon started on it (start to /health, its keyword index loading after).
//
// Flags: --writes N (4000), --clients N (8), --recall-size N (100000), --queries N (300),
//        --feed-writes N (100), --json. Progress goes to stderr.
import { join } from "node:path";
import { RecallRequestSchema } from "../src/contracts/recall";
import { parseFlags } from "./lib/args";
import { makeGenerator, makeQueryGenerator } from "./lib/content";
import { agentYaml, installCleanup, makeTempDir, ROOT, runBench, spawnDaemon, type BenchDaemon } from "./lib/daemon";
import { postJson, rememberSynthetic } from "./lib/http";
import { int, markdownTable, ms, secs } from "./lib/format";
import { runPool } from "./lib/pool";
import { startPostgresCluster, type PostgresCluster } from "./lib/postgres-cluster";
import { stats, type LatencyStats } from "./lib/stats";
import { STORE_BENCH_FLAGS } from "./lib/store-bench-flags";

const opts = parseFlags(
  process.argv.slice(2),
  STORE_BENCH_FLAGS,
  { writes: 4000, clients: 8, "recall-size": 100_000, queries: 300, "feed-writes": 100, json: false },
  {
    script: "bench-cluster.ts",
    line: "usage: bun scripts/bench-cluster.ts [--writes N] [--clients N] [--recall-size N] [--queries N] [--feed-writes N] [--json]",
  },
);

const progress = (line: string) => process.stderr.write(`${line}\n`);
installCleanup(progress);

/** `n` daemons, each on its own data directory, on `databaseUrl` when given (else each on its SQLite file). */
async function daemons(n: number, databaseUrl?: string): Promise<BenchDaemon[]> {
  return Promise.all(
    Array.from({ length: n }, () =>
      spawnDaemon({ dataDir: makeTempDir(), agentYaml: agentYaml("none"), binary: true, env: databaseUrl ? { SIGNET_DATABASE_URL: databaseUrl } : {} }),
    ),
  );
}

/** `--writes` remembers of the synthetic corpus by `--clients` clients, client i's k-th write through daemon (i + k) mod n. */
async function writes(on: BenchDaemon[]): Promise<LatencyStats> {
  const gen = makeGenerator(7);
  const bodies = Array.from({ length: opts.writes }, () => gen());
  const run = await runPool(bodies.length, opts.clients, async (i) => (await postJson(on[i % on.length]!.baseUrl, "/api/memory/remember", bodies[i])).status === 201);
  return stats(run.latencies, run.wallMs, run.errors);
}

/** Time from a write's acknowledgement by one daemon to a recall through another finding it. */
async function propagation(from: BenchDaemon, to: BenchDaemon): Promise<LatencyStats> {
  const latencies: number[] = [];
  let missed = 0;
  for (let i = 0; i < opts["feed-writes"]; i++) {
    const word = `zircon${i}quartz${Math.floor(Math.random() * 1e9)}`;
    const stored = await postJson(from.baseUrl, "/api/memory/remember", { content: `The ${word} ticket moved to the platform board` });
    if (stored.status !== 201) throw new Error(`remember answered ${stored.status}: ${stored.text}`);
    const acknowledged = performance.now();
    let found = false;
    while (performance.now() - acknowledged < 5_000) {
      const r = await postJson<{ results: unknown[] }>(to.baseUrl, "/api/memory/recall", { query: word, limit: 1 });
      if (r.status === 200 && r.body.results.length > 0) {
        found = true;
        break;
      }
    }
    if (found) latencies.push(performance.now() - acknowledged);
    else missed++;
  }
  return stats(latencies, 0, missed);
}

async function recall(on: BenchDaemon): Promise<LatencyStats> {
  const gen = makeQueryGenerator(3);
  const bodies = Array.from({ length: opts.queries }, () => RecallRequestSchema.parse(gen()));
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  for (const body of bodies) {
    const t = performance.now();
    if ((await postJson(on.baseUrl, "/api/memory/recall", body)).status !== 200) errors++;
    latencies.push(performance.now() - t);
  }
  return stats(latencies, performance.now() - started, errors);
}

/** Waits until the daemon's log says its keyword index loaded; its time in ms. */
async function indexLoaded(d: BenchDaemon): Promise<number> {
  await d.waitForLog(/keyword index: \d+ memories loaded/, 600_000);
  const line = (await Bun.file(d.logPath).text()).split("\n").find((l) => /keyword index: \d+ memories loaded/.test(l))!;
  return Number(/in (\d+) ms/.exec(line)![1]);
}

async function main(): Promise<string> {
  const cluster: PostgresCluster = await startPostgresCluster(makeTempDir("signet-bench-pg-"));
  try {
    const rows: { setup: string; s: LatencyStats }[] = [];
    let feed: LatencyStats | undefined;
    for (const [setup, n, shared] of [
      ["SQLite, one daemon", 1, false],
      ["PostgreSQL, one daemon", 1, true],
      ["PostgreSQL, three daemons on one database", 3, true],
    ] as const) {
      const on = await daemons(n, shared ? await cluster.createDatabase() : undefined);
      progress(`${setup}: ${opts.writes} remembers by ${opts.clients} clients...`);
      rows.push({ setup, s: await writes(on) });
      if (n === 3) {
        progress(`write on one daemon → recalled on another, ${opts["feed-writes"]} times...`);
        feed = await propagation(on[0]!, on[1]!);
      }
      await Promise.all(on.map((d) => d.stop()));
    }

    const size = opts["recall-size"];
    progress(`recall at ${size}: loading a SQLite daemon through HTTP...`);
    const sqliteDir = makeTempDir();
    let sqlite = await spawnDaemon({ dataDir: sqliteDir, agentYaml: agentYaml("none"), binary: true });
    const loadStarted = performance.now();
    await rememberSynthetic(sqlite.baseUrl, size);
    const loadMs = performance.now() - loadStarted;
    const sqliteRecall = await recall(sqlite);
    await sqlite.stop();
    progress("moving it to PostgreSQL with signet store copy...");
    const target = await cluster.createDatabase();
    const copyStarted = performance.now();
    const copy = Bun.spawn([join(ROOT, "dist", "signet"), "store", "copy", "--to", target, "--json"], {
      env: { ...process.env, SIGNET_PATH: sqliteDir, HOME: sqliteDir },
      stdout: "pipe",
      stderr: "pipe",
    });
    if ((await copy.exited) !== 0) throw new Error(`signet store copy failed: ${await new Response(copy.stderr).text()}`);
    const copyMs = performance.now() - copyStarted;
    const copied = JSON.parse(await new Response(copy.stdout).text()) as { memories: number };
    const pg = await spawnDaemon({ dataDir: makeTempDir(), agentYaml: agentYaml("none"), binary: true, env: { SIGNET_DATABASE_URL: target } });
    const pgIndexMs = await indexLoaded(pg);
    const pgRecall = await recall(pg);
    await pg.stop();
    // The SQLite daemon again, for its start and index load on the same data.
    sqlite = await spawnDaemon({ dataDir: sqliteDir, binary: true });
    const sqliteIndexMs = await indexLoaded(sqlite);
    const sqliteStartMs = sqlite.startMs;
    await sqlite.stop();

    if (!feed) throw new Error("the three-daemon setup did not run");
    const report = {
      writes: rows.map((r) => ({ setup: r.setup, perSec: r.s.perSec, p50Ms: r.s.p50Ms, p99Ms: r.s.p99Ms, errors: r.s.errors })),
      feed: { p50Ms: feed.p50Ms, p99Ms: feed.p99Ms, maxMs: feed.maxMs, missed: feed.errors, n: feed.n },
      recall: {
        size,
        loadMs,
        copyMs,
        copiedMemories: copied.memories,
        sqlite: { startMs: sqliteStartMs, indexMs: sqliteIndexMs, p50Ms: sqliteRecall.p50Ms, p99Ms: sqliteRecall.p99Ms, errors: sqliteRecall.errors },
        postgres: { startMs: pg.startMs, indexMs: pgIndexMs, p50Ms: pgRecall.p50Ms, p99Ms: pgRecall.p99Ms, errors: pgRecall.errors },
      },
    };
    if (opts.json) return JSON.stringify(report, null, 2);
    return [
      markdownTable(
        [`setup (${int(opts.writes)} remembers over HTTP, ${opts.clients} clients)`, "remember/s", "p50", "p99", "errors"],
        report.writes.map((w) => [w.setup, int(w.perSec), ms(w.p50Ms), ms(w.p99Ms), String(w.errors)]),
        ["l", "r", "r", "r", "r"],
      ),
      "",
      `A write acknowledged by one daemon is recalled through another in p50 ${ms(feed.p50Ms)}, p99 ${ms(feed.p99Ms)}, max ${ms(feed.maxMs)} (${feed.n} writes, ${feed.errors} not found within 5 s).`,
      "",
      markdownTable(
        [`${int(size)} memories, keyword only, over HTTP`, "start to /health", "keyword index load", "recall p50", "recall p99"],
        [
          ["SQLite", ms(report.recall.sqlite.startMs), ms(sqliteIndexMs), ms(sqliteRecall.p50Ms), ms(sqliteRecall.p99Ms)],
          ["PostgreSQL", ms(pg.startMs), ms(pgIndexMs), ms(pgRecall.p50Ms), ms(pgRecall.p99Ms)],
        ],
        ["l", "r", "r", "r", "r"],
      ),
      "",
      `Loading ${int(size)} memories through HTTP (8 clients) took ${secs(loadMs)}; \`signet store copy\` moved them (${int(copied.memories)} memories, every table, the exports compared) to PostgreSQL in ${secs(copyMs)}.`,
    ].join("\n");
  } finally {
    await cluster.stop();
  }
}

await runBench(main, progress);
