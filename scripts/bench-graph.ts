// Knowledge graph benchmark (docs/api.md#knowledge-graph): extraction's cost per memory and a Dreaming
// pass's time, in process on real SQLite files in a temp dir (openDatabase + migrate, as the daemon).
//
//   bun scripts/bench-graph.ts                    10,000 then 100,000 memories
//   bun scripts/bench-graph.ts --sizes 10000      one size only (2,000 for a quick run)
//   bun scripts/bench-graph.ts --json             machine-readable results on stdout
//
// Flags: --sizes N,N (10000,100000), --seed N (1), --keep (leave the temp dirs), --json.
//
// Per size, each on a database of its own, one agent (every figure is per agent: extraction and
// Dreaming work on one agent's graph at a time):
//   1. load: N memories through MemoryService.remember in group commits of 1,000 (the daemon's write
//      path, src/core/memory/group-commit.ts): the synthetic corpus of the recall benchmark
//      (scripts/lib/content.ts, five projects), plus 5% with a `structured` payload {entity,
//      entityType, aliases?, attributes} about a pool of people and services (size / 200 of them, so
//      each gets about ten updates and its slots change values), 3% with claim sentences ("the
//      staging DB is heron-7", "our ledger-api port is now 8443") whose values change over time, and
//      1% with a reviewAfter in the next 12 hours. createdAt runs over the past year in load order.
//      Extraction does not follow the load: its GraphService starts on the loaded store, as a daemon
//      started on a store extraction has not read (an upgrade) would;
//   2. extraction through GraphService: start() queues what graph_extracted has not read, the queue
//      drains in transactions of 100 memories with a turn of the event loop between them. Cost per
//      memory is the service's own `cost` (time inside its extraction transactions, SQL writes
//      included, / memories); the event-loop figure is the longest gap between the ticks of a 1 ms
//      setInterval, while start() reads the queue and while the queue drains;
//   3. extract() alone, every memory of the store once more with the agent's gazetteer (as left by
//      step 2) as `known`: µs per call, nearest-rank percentiles, after a warm-up of 1,000 calls;
//   4. Dreaming: dream(db, agent, {dryRun: false, now}) on the freshly extracted store, then a second
//      pass right after (nothing left to do, the cost of a pass that finds nothing). `now` is a day
//      after the load, so every reviewAfter has passed for the pass, and none had when the service
//      started (its start() runs a pass of its own for reviews already due). Peak RSS during a pass
//      is the process's VmHWM after resetting it (/proc/self/clear_refs) just before the pass.
// RSS is this process's (bun, the corpus and SQLite's page cache included), not a daemon's.
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { RememberRequestSchema } from "../src/contracts/memory";
import { dream, type DreamReport } from "../src/core/graph/dream";
import { extract } from "../src/core/graph/extract";
import { GraphService } from "../src/core/graph/service";
import { SqliteGraphStore } from "../src/core/graph/sqlite-store";
import { SqliteMemoryStore } from "../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../src/core/memory/service";
import { migrate } from "../src/db/migrate";
import { MEMORY_STORE_CACHE_MIB, openDatabase } from "../src/db/open";
import { parseFlags } from "./lib/args";
import { PROJECTS, makeGenerator, mulberry32 } from "./lib/content";
import { installCleanup, makeTempDir, removeTempDir, runBench } from "./lib/daemon";
import { duration, int, kbMib, markdownTable, mib, ms, secs, verdict } from "./lib/format";
import { fileSize, procStatusKb } from "./lib/proc";
import { stats } from "./lib/stats";

const USAGE = "usage: bun scripts/bench-graph.ts [--sizes N,N] [--seed N] [--keep] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  { sizes: { kind: "intList", min: 100 }, seed: { kind: "int" }, keep: { kind: "bool" }, json: { kind: "bool" } },
  { sizes: [10_000, 100_000], seed: 1, keep: false, json: false },
  { script: "bench-graph", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[graph] ${line}\n`);
installCleanup(progress);
/** The machine's 1-minute load average as the run began: other work on it skews every figure. */
const LOAD_AT_START = loadavg()[0]!;

const AGENT = "bench";
const CALLER: Caller = { agentId: AGENT, actor: "bench-graph", actorType: null, runtimePath: null };
/** Memories per group commit while loading. */
const GROUP = 1000;
const WARM_UP = 1000;
const SHARES = { structured: 0.05, claims: 0.03, review: 0.01 };
const TARGETS = { extractMsPerMemory: 5, atSize: 10_000 };
const DAY_MS = 24 * 60 * 60 * 1000;

// ---------------------------------------------------------------------------------------------
// The mix: the recall benchmark's corpus, plus structured payloads, claim sentences and reviews

const FIRST = ["Dana", "Kai", "Noor", "Mateo", "Lena", "Emeka", "Priya", "Kenji", "Sofia", "Tomas", "Aiko", "Ravi", "Ines", "Yusuf", "Marta", "Oskar"];
const LAST = ["Weber", "Tanaka", "Haddad", "Rossi", "Novak", "Obi", "Raman", "Sato", "Lind", "Berg", "Ito", "Shah", "Costa", "Demir", "Kowalski", "Nyberg"];
const SERVICE_A = ["orders", "ledger", "search", "billing", "auth", "media", "notify", "catalog", "export", "sync", "audit", "quota"];
const SERVICE_B = ["api", "worker", "gateway", "indexer", "cron", "proxy", "store", "bridge"];
const ROLES = ["on-call lead", "tech lead", "reviewer", "release manager", "owner", "backup on-call"];
const TEAMS = ["payments", "platform", "search", "mobile", "infra", "growth"];
const ZONES = ["UTC", "CET", "JST", "IST", "PST", "EST"];
const REGIONS = ["eu-west-1", "us-east-1", "ap-northeast-1", "eu-central-1"];
const ENVS = ["staging", "production", "preview", "qa"];
const BIRDS = ["heron", "kestrel", "osprey", "wren", "plover"];

interface PoolEntity {
  name: string;
  type: "person" | "service";
  alias: string | null;
}

/** The people and services structured payloads describe: `n` of them, deterministic for the seed. */
function entityPool(n: number, rnd: () => number): PoolEntity[] {
  const out: PoolEntity[] = [];
  const seen = new Set<string>();
  for (let tries = 0; out.length < n && tries < n * 50; tries++) {
    const person = rnd() < 0.4;
    const first = FIRST[Math.floor(rnd() * FIRST.length)]!;
    const last = LAST[Math.floor(rnd() * LAST.length)]!;
    const name = person ? `${first} ${last}` : `${SERVICE_A[Math.floor(rnd() * SERVICE_A.length)]}-${SERVICE_B[Math.floor(rnd() * SERVICE_B.length)]}`;
    if (seen.has(name)) continue;
    seen.add(name);
    const alias = person && rnd() < 0.3 ? `${first[0]!.toLowerCase()}${last.toLowerCase()}` : null;
    out.push({ name, type: person ? "person" : "service", alias });
  }
  return out;
}

interface Mix {
  bodies: unknown[];
  structured: number;
  claims: number;
  reviews: number;
}

/** `size` remember requests in load order, createdAt over the past year, validated as the API validates them. */
function buildMix(size: number, seed: number, now: number): Mix {
  const corpus = makeGenerator(seed);
  const rnd = mulberry32(seed * 7919 + 17);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const pool = entityPool(Math.max(50, Math.round(size / 200)), rnd);
  const services = pool.filter((e) => e.type === "service").map((e) => e.name);
  const start = now - 365 * DAY_MS;
  const bodies: unknown[] = [];
  const mix: Mix = { bodies, structured: 0, claims: 0, reviews: 0 };
  for (let i = 0; i < size; i++) {
    const createdAtMs = start + Math.floor(((now - 60_000 - start) * i) / size);
    const createdAt = new Date(createdAtMs).toISOString();
    const project = rnd() < 0.8 ? pick(PROJECTS) : undefined;
    const r = rnd();
    let body: Record<string, unknown>;
    if (r < SHARES.structured) {
      const e = pick(pool);
      const attributes: Record<string, string | number> =
        e.type === "person" ? { role: pick(ROLES), team: pick(TEAMS), timezone: pick(ZONES) } : { owner: pick(pool).name, port: 8000 + Math.floor(rnd() * 6) * 100, region: pick(REGIONS) };
      const said = Object.entries(attributes).map(([k, v]) => `${k} ${v}`).join(", ");
      body = {
        content: `${e.name} update #${i}: ${said}.`,
        type: "fact",
        structured: { entity: e.name, entityType: e.type, ...(e.alias ? { aliases: [e.alias] } : {}), attributes },
      };
      mix.structured++;
    } else if (r < SHARES.structured + SHARES.claims) {
      const templates = [
        () => `The ${pick(ENVS)} DB is ${pick(BIRDS)}-${1 + Math.floor(rnd() * 12)} since change #${i}.`,
        () => `Heads up: the ${pick(ENVS)} DB is now ${pick(BIRDS)}-${1 + Math.floor(rnd() * 12)} after migration #${i}.`,
        () => `Per change #${i} our ${pick(services)} port is now ${8000 + Math.floor(rnd() * 10) * 10}.`,
        () => `Since deploy #${i} the ${pick(services)} host is \`db-${1 + Math.floor(rnd() * 6)}\`.`,
      ];
      body = { content: pick(templates)(), type: "fact" };
      mix.claims++;
    } else {
      body = JSON.parse(corpus()) as Record<string, unknown>;
      delete body.project;
      if (r < SHARES.structured + SHARES.claims + SHARES.review) {
        body.reviewAfter = new Date(now + 60_000 + Math.floor(rnd() * DAY_MS * 0.5)).toISOString();
        mix.reviews++;
      }
    }
    bodies.push(RememberRequestSchema.parse({ ...body, createdAt, ...(project ? { project } : {}) }));
  }
  return mix;
}

async function load(db: Database, size: number, mix: Mix): Promise<{ ms: number; memories: number; deduped: number }> {
  const memory = new MemoryService(new SqliteMemoryStore(db));
  const t0 = performance.now();
  let deduped = 0;
  const step = Math.max(GROUP, Math.round(size / 10 / GROUP) * GROUP);
  for (let i = 0; i < size; i += GROUP) {
    const group = mix.bodies.slice(i, i + GROUP) as Parameters<MemoryService["remember"]>[1][];
    const answers = await Promise.all(group.map((req) => memory.remember(CALLER, req)));
    deduped += answers.filter((a) => a.deduped).length;
    const done = Math.min(size, i + GROUP);
    if (done % step === 0 || done === size) {
      const elapsed = performance.now() - t0;
      progress(`${int(size)}: remember ${int(done)}/${int(size)}, ${int(done / (elapsed / 1000))}/s, ETA ${duration(((size - done) / done) * elapsed)}`);
    }
  }
  return { ms: performance.now() - t0, memories: size - deduped, deduped };
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** The longest gap between the ticks of a 1 ms interval: how long the event loop was held at most. */
function loopProbe(): { stop(): { maxGapMs: number; p99GapMs: number; ticks: number } } {
  const gaps: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const t = performance.now();
    gaps.push(t - last);
    last = t;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      gaps.push(performance.now() - last);
      const s = stats(gaps, 1, 0);
      return { maxGapMs: s.maxMs, p99GapMs: s.p99Ms, ticks: gaps.length };
    },
  };
}

/** Resets this process's VmHWM (Linux ≥ 4.0); false where that is not possible. */
function resetPeakRss(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** CPU time (user + system) since `start`, in ms: less skewed than wall time by other work on the machine. */
function cpuSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

let processPeakKb = 0;
const notePeak = () => (processPeakKb = Math.max(processPeakKb, procStatusKb(process.pid, "VmHWM") ?? 0));

interface PassResult {
  ms: number;
  /** This process's CPU time (user + system) during the pass. */
  cpuMs: number;
  /** The longest the pass held the event loop at once (it yields between its steps). */
  maxGapMs: number;
  reportedMs: number;
  counts: DreamReport["counts"];
  rssBeforeKb: number | null;
  /** VmHWM since a reset just before the pass; null where it cannot be reset. */
  rssPeakKb: number | null;
}

async function timedPass(db: Database, now: Date, label: string): Promise<PassResult> {
  Bun.gc(true);
  notePeak();
  const reset = resetPeakRss();
  const rssBeforeKb = procStatusKb(process.pid, "VmRSS");
  const cpu0 = process.cpuUsage();
  const probe = loopProbe();
  const t0 = performance.now();
  const report = await dream(new SqliteGraphStore(db), AGENT, { dryRun: false, trigger: "bench", now });
  const took = performance.now() - t0;
  const { maxGapMs } = probe.stop();
  const cpuMs = cpuSince(cpu0);
  const rssPeakKb = reset ? procStatusKb(process.pid, "VmHWM") : null;
  notePeak();
  progress(`${label}: ${ms(took)} (CPU ${ms(cpuMs)}, longest event-loop gap ${ms(maxGapMs)}), ${Object.entries(report.counts).map(([k, n]) => `${k} ${int(n)}`).join(", ")}`);
  return { ms: took, cpuMs, maxGapMs, reportedMs: report.durationMs, counts: report.counts, rssBeforeKb, rssPeakKb };
}

interface StoreCounts {
  memories: number;
  entities: number;
  liveEntities: number;
  aliases: number;
  mentions: number;
  claims: number;
  activeClaims: number;
  supersededClaims: number;
  relations: number;
  reviews: number;
  auditRows: number;
}

function counts(db: Database): StoreCounts {
  const n = (sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
  return {
    memories: n("SELECT count(*) AS n FROM memories"),
    entities: n("SELECT count(*) AS n FROM graph_entities"),
    liveEntities: n("SELECT count(*) AS n FROM graph_entities WHERE merged_into IS NULL"),
    aliases: n("SELECT count(*) AS n FROM graph_aliases"),
    mentions: n("SELECT count(*) AS n FROM graph_mentions"),
    claims: n("SELECT count(*) AS n FROM graph_claims"),
    activeClaims: n("SELECT count(*) AS n FROM graph_claims WHERE status = 'active'"),
    supersededClaims: n("SELECT count(*) AS n FROM graph_claims WHERE status = 'superseded'"),
    relations: n("SELECT count(*) AS n FROM graph_relations"),
    reviews: n("SELECT count(*) AS n FROM graph_reviews"),
    auditRows: n("SELECT count(*) AS n FROM graph_audit"),
  };
}

interface SizeResult {
  size: number;
  load: { ms: number; memories: number; deduped: number; structured: number; claimSentences: number; reviewAfter: number };
  extraction: {
    /** GraphService.cost: time inside its extraction transactions (SQL writes included). */
    serviceMs: number;
    memories: number;
    msPerMemory: number;
    /** start() until settled(): the queue read, the drain and its turns of the event loop. */
    wallMs: number;
    /** This process's CPU time (user + system) over the same span, per memory. */
    cpuMsPerMemory: number;
    loop: { queueRead: { maxGapMs: number; p99GapMs: number }; drain: { maxGapMs: number; p99GapMs: number } };
  };
  extractOnly: { calls: number; gazetteer: number; p50Us: number; p99Us: number; meanUs: number; maxUs: number; entitiesPerMemory: number; claimsPerMemory: number };
  afterExtraction: StoreCounts;
  dream: { first: PassResult; second: PassResult };
  afterDream: StoreCounts;
  dbBytes: number;
}

async function runSize(size: number): Promise<SizeResult> {
  const dir = makeTempDir(`signet-graph-${size}-`, opts.keep);
  const path = join(dir, "memories.db");
  const db = openDatabase(path, { cacheMiB: MEMORY_STORE_CACHE_MIB });
  let graph: GraphService | null = null;
  try {
    migrate(db);
    // 1. Load.
    progress(`${int(size)}: building the mix (seed ${opts.seed}), database ${path}`);
    const loadedAt = Date.now();
    const mix = buildMix(size, opts.seed, loadedAt);
    const loaded = await load(db, size, mix);
    const loadFigures = { ...loaded, structured: mix.structured, claimSentences: mix.claims, reviewAfter: mix.reviews };
    mix.bodies.length = 0;
    progress(`${int(size)}: loaded ${int(loaded.memories)} memories in ${secs(loaded.ms)} (${int(mix.structured)} structured, ${int(mix.claims)} claim sentences, ${int(mix.reviews)} reviewAfter)`);

    // 2. Extraction through the service.
    const errors: string[] = [];
    graph = new GraphService(new SqliteGraphStore(db), { dreamAfterMemories: Number.MAX_SAFE_INTEGER, dreamIdleMs: 3_600_000, onError: (m) => errors.push(m) });
    Bun.gc(true);
    progress(`${int(size)}: extraction (GraphService start → settled)`);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let probe = loopProbe();
    await graph.start();
    const queueRead = probe.stop();
    probe = loopProbe();
    const service = graph;
    const reporter = setInterval(() => progress(`${int(size)}: extraction backlog ${int(service.backlog)}`), 5000);
    await graph.settled();
    clearInterval(reporter);
    const drain = probe.stop();
    const wallMs = performance.now() - t0;
    const cpuMs = cpuSince(cpu0);
    const serviceCost = { ...graph.cost };
    await graph.stop();
    graph = null;
    if (errors.length > 0) throw new Error(`extraction failed: ${errors[0]}`);
    notePeak();
    const afterExtraction = counts(db);
    progress(`${int(size)}: extraction done in ${secs(wallMs)}; longest event-loop gap ${ms(queueRead.maxGapMs)} (queue read) / ${ms(drain.maxGapMs)} (drain)`);

    // 3. extract() alone, with the gazetteer the extraction left.
    const names = await new SqliteGraphStore(db).gazetteer(AGENT);
    const known = (k: string) => names.has(k);
    const rows = db
      .query<{ content: string; structured: string | null; project: string | null }, []>("SELECT content, structured, project FROM memories WHERE deleted_at IS NULL ORDER BY seq")
      .all()
      .map((r) => ({ content: r.content, structured: r.structured ? (JSON.parse(r.structured) as Record<string, unknown>) : null, project: r.project, known }));
    for (let i = 0; i < Math.min(WARM_UP, rows.length); i++) extract(rows[i]!);
    const times = new Float64Array(rows.length);
    let entities = 0;
    let claims = 0;
    for (let i = 0; i < rows.length; i++) {
      const s = performance.now();
      const found = extract(rows[i]!);
      times[i] = (performance.now() - s) * 1000;
      entities += found.entities.length;
      claims += found.claims.length;
    }
    const us = stats(times, 1, 0);
    const extractOnly = {
      calls: rows.length,
      gazetteer: names.size,
      p50Us: us.p50Ms,
      p99Us: us.p99Ms,
      meanUs: us.meanMs,
      maxUs: us.maxMs,
      entitiesPerMemory: entities / rows.length,
      claimsPerMemory: claims / rows.length,
    };
    rows.length = 0;
    progress(`${int(size)}: extract() alone p50 ${extractOnly.p50Us.toFixed(1)} µs, p99 ${extractOnly.p99Us.toFixed(1)} µs (gazetteer ${int(names.size)} names)`);

    // 4. Dreaming.
    const dreamAt = new Date(loadedAt + DAY_MS);
    const first = await timedPass(db, dreamAt, `${int(size)}: Dreaming, first pass`);
    const second = await timedPass(db, dreamAt, `${int(size)}: Dreaming, second pass`);
    const afterDream = counts(db);
    const dbBytes = fileSize(path) + fileSize(`${path}-wal`);
    return {
      size,
      load: loadFigures,
      extraction: {
        serviceMs: serviceCost.ms,
        memories: serviceCost.memories,
        msPerMemory: serviceCost.ms / serviceCost.memories,
        wallMs,
        cpuMsPerMemory: cpuMs / serviceCost.memories,
        loop: { queueRead: { maxGapMs: queueRead.maxGapMs, p99GapMs: queueRead.p99GapMs }, drain: { maxGapMs: drain.maxGapMs, p99GapMs: drain.p99GapMs } },
      },
      extractOnly,
      afterExtraction,
      dream: { first, second },
      afterDream,
      dbBytes,
    };
  } finally {
    if (graph) await graph.stop();
    db.close();
    removeTempDir(dir);
  }
}

// ---------------------------------------------------------------------------------------------
// Output

function output(results: SizeResult[]): string {
  const cols = results.map((r) => int(r.size));
  const row = (name: string, f: (r: SizeResult) => string) => [name, ...results.map(f)];
  const us = (v: number) => `${v.toFixed(1)} µs`;
  /** Per-memory costs are fractions of a millisecond. */
  const ms3 = (v: number) => `${v.toFixed(3)} ms`;
  const actions = (c: DreamReport["counts"]) => `${int(c.merge)} / ${int(c.supersede)} / ${int(c.reinstate)} / ${int(c.relate)} / ${int(c.review)} / ${int(c.decay)} / ${int(c.prune)}`;
  const rss = (p: PassResult) => `${kbMib(p.rssBeforeKb)} / ${kbMib(p.rssPeakKb)}`;
  const rows = [
    row("memories (structured / claim sentences / reviewAfter)", (r) => `${int(r.load.memories)} (${int(r.load.structured)} / ${int(r.load.claimSentences)} / ${int(r.load.reviewAfter)})`),
    row(`load: remember in group commits of ${int(GROUP)}`, (r) => `${secs(r.load.ms)} (${int(r.load.memories / (r.load.ms / 1000))}/s)`),
    row("**extraction incl. SQL writes, per memory** (service.cost)", (r) => ms3(r.extraction.msPerMemory)),
    row("  in its transactions / wall, start → settled", (r) => `${secs(r.extraction.serviceMs)} / ${secs(r.extraction.wallMs)}`),
    row("  CPU time per memory, start → settled", (r) => ms3(r.extraction.cpuMsPerMemory)),
    row("  longest event-loop gap: queue read / drain", (r) => `${ms(r.extraction.loop.queueRead.maxGapMs)} / ${ms(r.extraction.loop.drain.maxGapMs)}`),
    row("  p99 event-loop gap during the drain", (r) => ms(r.extraction.loop.drain.p99GapMs)),
    row("extract() alone p50 / p99", (r) => `${us(r.extractOnly.p50Us)} / ${us(r.extractOnly.p99Us)}`),
    row("  mean / max", (r) => `${us(r.extractOnly.meanUs)} / ${us(r.extractOnly.maxUs)}`),
    row("  gazetteer names; entities / claims found per memory", (r) => `${int(r.extractOnly.gazetteer)}; ${r.extractOnly.entitiesPerMemory.toFixed(2)} / ${r.extractOnly.claimsPerMemory.toFixed(3)}`),
    row("graph extracted: entities / aliases / mentions / claims", (r) => {
      const c = r.afterExtraction;
      return `${int(c.entities)} / ${int(c.aliases)} / ${int(c.mentions)} / ${int(c.claims)}`;
    }),
    row("**Dreaming, first pass** (CPU time; longest hold of the event loop)", (r) => `${ms(r.dream.first.ms)} (${ms(r.dream.first.cpuMs)}; ${ms(r.dream.first.maxGapMs)})`),
    row("  merge / supersede / reinstate / relate / review / decay / prune", (r) => actions(r.dream.first.counts)),
    row("  RSS before / peak during the pass", (r) => rss(r.dream.first)),
    row("**Dreaming, second pass right after** (CPU time; longest hold)", (r) => `${ms(r.dream.second.ms)} (${ms(r.dream.second.cpuMs)}; ${ms(r.dream.second.maxGapMs)})`),
    row("  merge / supersede / reinstate / relate / review / decay / prune", (r) => actions(r.dream.second.counts)),
    row("  RSS before / peak during the pass", (r) => rss(r.dream.second)),
    row("graph after: live entities (of) / claims active, superseded", (r) => {
      const c = r.afterDream;
      return `${int(c.liveEntities)} (${int(c.entities)}) / ${int(c.activeClaims)}, ${int(c.supersededClaims)}`;
    }),
    row("  relations / reviews queued / audit rows", (r) => `${int(r.afterDream.relations)} / ${int(r.afterDream.reviews)} / ${int(r.afterDream.auditRows)}`),
    row("database file + WAL", (r) => mib(r.dbBytes)),
  ];
  const at = results.find((r) => r.size === TARGETS.atSize);
  const targetRows = [
    [
      `extraction incl. SQL writes per memory at ${int(TARGETS.atSize)}`,
      at ? `${at.extraction.msPerMemory.toFixed(3)} ms` : "-",
      `< ${TARGETS.extractMsPerMemory} ms`,
      at ? verdict(at.extraction.msPerMemory < TARGETS.extractMsPerMemory) : `not run (add ${TARGETS.atSize} to --sizes)`,
    ],
  ];
  return [
    `Signet knowledge graph benchmark: one agent, seed ${opts.seed}, in process on SQLite files ` +
      `(bun ${Bun.version}, ${cpus().length} CPUs, ${process.platform}-${process.arch}, load average ${LOAD_AT_START.toFixed(1)} at start)`,
    "",
    markdownTable(["metric", ...cols], rows, ["l", ...cols.map(() => "r" as const)]),
    "",
    markdownTable(["target", "result", "target", ""], targetRows),
    "",
    "Every figure is per agent (extraction and Dreaming read one agent's graph). Extraction per memory is GraphService.cost: " +
      "time inside its transactions of 100 memories (reading the memory, extract(), the SQL writes, the commit) / memories. " +
      "Event-loop gaps are between ticks of a 1 ms setInterval. extract() alone is every memory once more with the agent's " +
      "gazetteer as `known`, nearest-rank percentiles. RSS is this process's (the corpus and SQLite's cache included); the " +
      `peak during a pass is VmHWM reset just before it. Process peak RSS over the run: ${kbMib(processPeakKb)}.`,
  ].join("\n");
}

await runBench(async () => {
  const results: SizeResult[] = [];
  for (const size of opts.sizes) results.push(await runSize(size));
  notePeak();
  return opts.json
    ? JSON.stringify({ agents: 1, seed: opts.seed, loadAverageAtStart: LOAD_AT_START, shares: SHARES, targets: TARGETS, processPeakRssKb: processPeakKb, results }, null, 2)
    : output(results);
}, progress);
