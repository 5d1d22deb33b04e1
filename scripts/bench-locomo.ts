// LoCoMo retrieval benchmark: loads the LoCoMo conversations into a real daemon through its HTTP API,
// asks every question of categories 1-4 and scores the returned memories against the gold evidence.
//
//   bun scripts/bench-locomo.ts                         builtin embeddings (the default provider)
//   bun scripts/bench-locomo.ts --provider none         keyword only (compare with the BM25 floor)
//   bun scripts/bench-locomo.ts --limit-queries 200     a quick run on an evenly spaced sample
//   bun scripts/bench-locomo.ts --json                  machine-readable results on stdout
//   bun scripts/bench-locomo.ts --bare                  each turn stored as its content alone, as memory_store stores it
//   bun scripts/bench-locomo.ts --variants --keep       also the ranking variants, beside the paraphrase set
//   bun scripts/bench-locomo.ts --snapshot DIR/snapshot.db [--dev-store DIR2/paraphrase-dev.db] [--variant a,b]
//                                                       the variants alone, on what a --keep run left
//
// Flags: --provider builtin|none|ollama|openai (builtin), --data DIR (../shared/bench/locomo from the
//        repo), --limit-queries N (all), --clients N (8 concurrent writers), --drain-timeout S (180:
//        fail when the embedding backlog has not shrunk for this long), --coding N (2000 memories in
//        the coding store; 0 skips it), --no-ablations, --variants, --variant NAME,NAME (those of VARIANTS
//        only), --snapshot FILE (no daemon: the variants on a LoCoMo database a --keep run left),
//        --dev-background N (2000 synthetic memories around the paraphrase set), --dev-store FILE (an
//        embedded paraphrase store a --keep run left), --bare (each turn's content alone: no project,
//        speaker, session or time, as a memory_store call sends it; the questions then search the
//        whole store, since no memory has a project), --postgres (the daemons on a shared PostgreSQL 15,
//        a throwaway cluster, instead of their SQLite files: the HTTP figures, with no snapshot,
//        in-process ablations or variants), --binary, --json, --keep.
//
// How it runs:
//   1. A daemon (separate process, temp SIGNET_PATH/HOME, agent.yaml `embedding: provider: X`).
//      Every dialog turn becomes one memory over POST /api/memory/remember: project = conversation,
//      createdAt = session time, sessionKey = "<conv>:session-<n>", who = speaker. Eight writers run
//      at once; each takes a whole session and writes its turns in order, so the daemon's
//      "previous/next in session" neighbours (same createdAt, then insertion order) follow the dialog.
//   2. Wait until GET /health shows the provider loaded and embedding.pending == 0.
//   3. A snapshot of the database (VACUUM INTO) is taken before any question is asked, because recall
//      bumps access counts, which feed the ranking.
//   4. "fused": every question over POST /api/memory/recall {query, project: conv, limit: 10,
//      minScore: 0}, one at a time: the ranking, every candidate counted. "fused+context" scores the
//      same answers with their `supporting` rows added. The no-answer questions of
//      scripts/lib/no-answer.ts are then asked of every conversation (as in step 6).
//   5. The daemon is stopped; "keyword" runs RecallService in this process with the provider none
//      (keyword-only recall, as a store without embeddings answers) on a fresh copy of the snapshot,
//      wired as src/server/daemon.ts wires it (openDatabase + migrate, MemoryService, EmbeddingWorker
//      over createEmbedder(config.embedding), started and drained with its vectors loaded, AccessLog).
//      A "fused (in-process)" run with --provider's checks that the in-process wiring reproduces the
//      HTTP numbers.
//   6. "coding store" (--coding N, 0 skips): a second daemon with N memories of the synthetic corpus
//      (scripts/lib/content.ts), asked the no-answer questions and 200 questions about that corpus:
//      how many of each get no strong result (score under RECALL_STRONG_SCORE), and their best scores.
//   7. --variants: each variant of VARIANTS (recall as shipped, and keyword-only) in this process on a
//      copy of the snapshot, and on the developer-memory paraphrase set of
//      scripts/data/paraphrase-dev.json (scripts/lib/paraphrase-dev.ts: R@1, R@5, MRR, answers at the
//      default minimum, no-answer questions), with a table of what each gained or lost against the
//      first.
//
// Scoring: a memory id returned by recall maps back to the dataset id(s) it was stored for (two
// identical turns in one conversation are deduplicated into one memory, which then stands for both).
// R@k = the fraction of a question's evidence ids found in the top k, averaged over questions;
// MRR = 1 / rank of the first result that is evidence (0 when none is in the top 10).
// "Strong only" scores the same answers cut where the strong matches end (RECALL_STRONG_SCORE), as
// `minScore: 0.2` would cut them: scores never rise down the list (docs/api.md#scores), so the cut
// keeps the rows scoring at least that and drops the rest, and evidence among them counts as missed.
import { copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { Database } from "bun:sqlite";
import { cpus } from "node:os";
import { join } from "node:path";
import { RECALL_STRONG_SCORE } from "../src/contracts/scores";
import { RecallRequestSchema, type RecallResponse } from "../src/contracts/recall";
import type { Caller } from "../src/core/memory/service";
import { contentKey } from "../src/core/memory/normalize";
import { databasePath } from "../src/config/paths";
import { parseFlags } from "./lib/args";
import { makeGenerator, makeQueryGenerator } from "./lib/content";
import { agentYaml, installCleanup, makeTempDir, spawnDaemon, runBench, type BenchDaemon } from "./lib/daemon";
import { duration, int, kbMib, markdownTable, ms, secs, verdict } from "./lib/format";
import { withInProcessRecall } from "./lib/in-process-recall";
import { NO_ANSWER_QUERIES } from "./lib/no-answer";
import { buildDevStore, DEV_SET_PATH, devKeys, scoreDevSet, type DevScore } from "./lib/paraphrase-dev";
import { postJson, waitForEmbeddings } from "./lib/http";
import { storeChoice } from "./lib/store-choice";
import { runPool } from "./lib/pool";
import { procStatusKb, rssPeakSampler } from "./lib/proc";
import { stats, type LatencyStats } from "./lib/stats";

// ---------------------------------------------------------------------------------------------
// Arguments

const USAGE =
  "usage: bun scripts/bench-locomo.ts [--provider builtin|none|ollama|openai] [--data DIR] [--limit-queries N] [--clients N] " +
  "[--drain-timeout S] [--coding N] [--no-ablations] [--variants] [--variant NAME,NAME] [--snapshot FILE] [--dev-background N] [--dev-store FILE] [--bare] [--postgres] [--binary] [--json] [--keep]";
const opts = parseFlags(
  process.argv.slice(2),
  {
    provider: { kind: "string", choices: ["builtin", "none", "ollama", "openai"] },
    data: { kind: "string" },
    "limit-queries": { kind: "int", min: 1 },
    clients: { kind: "int", min: 1 },
    "drain-timeout": { kind: "int", min: 1 },
    coding: { kind: "int", min: 0 },
    "no-ablations": { kind: "bool" },
    variants: { kind: "bool" },
    variant: { kind: "string" },
    snapshot: { kind: "string" },
    "dev-background": { kind: "int", min: 0 },
    "dev-store": { kind: "string" },
    bare: { kind: "bool" },
    postgres: { kind: "bool" },
    binary: { kind: "bool" },
    json: { kind: "bool" },
    keep: { kind: "bool" },
  },
  {
    provider: "builtin",
    data: join(import.meta.dir, "../../shared/bench/locomo"),
    "limit-queries": 0,
    clients: 8,
    "drain-timeout": 180,
    coding: 2000,
    "no-ablations": false,
    variants: false,
    variant: "",
    snapshot: "",
    "dev-background": 2000,
    "dev-store": "",
    bare: false,
    postgres: false,
    binary: false,
    json: false,
    keep: false,
  },
  { script: "bench-locomo", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[locomo] ${line}\n`);
installCleanup(progress);
if (opts.postgres && (opts.variants || opts.variant || opts.snapshot)) {
  process.stderr.write("bench-locomo: --postgres runs the HTTP figures only; --variants, --variant and --snapshot need a SQLite snapshot\n");
  process.exit(2);
}
/** Each daemon's store: its SQLite file, or with --postgres a database of a throwaway cluster. */
const store = storeChoice(opts.postgres);
/** A question's scope: its conversation, unless --bare stored no project to scope by. */
const scopeOf = (conv: string): { project?: string } => (opts.bare ? {} : { project: conv });

// ---------------------------------------------------------------------------------------------
// Data

interface Turn {
  id: string;
  conv: string;
  dia_id: string;
  session: number;
  turn: number;
  speaker: string;
  content: string;
  session_date: string;
  session_ts: string;
}

interface Question {
  id: string;
  conv: string;
  question: string;
  answer: unknown;
  evidence_ids: string[];
  category: number;
  category_name: string;
}

const CATEGORIES = [
  { id: 1, name: "multi-hop" },
  { id: 2, name: "temporal" },
  { id: 3, name: "open-domain" },
  { id: 4, name: "single-hop" },
] as const;

/** The keyword-only floor of bench/README.md (plain BM25, one index per conversation). */
const FLOOR: Record<string, { n: number; r5: number; r10: number; mrr: number }> = {
  "multi-hop": { n: 282, r5: 0.18, r10: 0.28, mrr: 0.27 },
  temporal: { n: 321, r5: 0.614, r10: 0.664, mrr: 0.505 },
  "open-domain": { n: 92, r5: 0.227, r10: 0.263, mrr: 0.214 },
  "single-hop": { n: 841, r5: 0.601, r10: 0.665, mrr: 0.482 },
  overall: { n: 1536, r5: 0.504, r10: 0.57, mrr: 0.432 },
};
/** Targets with the builtin provider. */
const TARGETS = { overallR10: 0.68, multiHopR10: 0.42 };

function readJsonl<T>(path: string): T[] {
  if (!existsSync(path)) throw new Error(`${path} does not exist (give the LoCoMo directory with --data DIR)`);
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return JSON.parse(l) as T;
      } catch {
        throw new Error(`${path}:${i + 1}: not valid JSON`);
      }
    });
}

function loadData(dir: string): { turns: Turn[]; questions: Question[]; totalQuestions: number } {
  const turns = readJsonl<Turn>(join(dir, "memories.jsonl"));
  const all = readJsonl<Question>(join(dir, "queries.jsonl")).filter((q) => q.category >= 1 && q.category <= 4);
  const known = new Set(turns.map((t) => t.id));
  for (const q of all) {
    const missing = q.evidence_ids.filter((e) => !known.has(e));
    if (missing.length) throw new Error(`question ${q.id}: evidence ${missing.join(", ")} is not in memories.jsonl`);
  }
  let questions = all.filter((q) => q.evidence_ids.length > 0);
  const limit = opts["limit-queries"];
  if (limit > 0 && limit < questions.length) {
    // An evenly spaced sample keeps every conversation and category in proportion.
    const step = questions.length / limit;
    questions = Array.from({ length: limit }, (_, i) => questions[Math.floor(i * step)]!);
  }
  return { turns, questions, totalQuestions: all.length };
}

// ---------------------------------------------------------------------------------------------
// Scoring

interface Answer {
  /** Memory ids of `results`, best first. */
  ids: string[];
  /** Their scores, never rising down the list. */
  scores: number[];
  /** Per result, the ids of the supporting rows attached to it. */
  support: string[][];
  ms: number;
}

interface Score {
  r5: number;
  r10: number;
  mrr: number;
}

interface CategoryScore extends Score {
  n: number;
  /** Share of the questions with at least one result. */
  answered: number;
}

type Report = Record<string, CategoryScore>;

/** `groups[i]` = the dataset ids that rank i stands for. */
function scoreGroups(groups: string[][], evidence: string[]): Score {
  const gold = new Set(evidence);
  const foundWithin = (k: number) => {
    const hit = new Set<string>();
    for (const g of groups.slice(0, k)) for (const d of g) if (gold.has(d)) hit.add(d);
    return hit.size / gold.size;
  };
  const first = groups.findIndex((g) => g.some((d) => gold.has(d)));
  return { r5: foundWithin(5), r10: foundWithin(10), mrr: first >= 0 ? 1 / (first + 1) : 0 };
}

function report(questions: Question[], scores: Score[], answered: boolean[]): Report {
  const out: Report = {};
  const add = (name: string, idx: number[]) => {
    const n = idx.length;
    const mean = (f: (i: number) => number) => (n ? idx.reduce((a, i) => a + f(i), 0) / n : NaN);
    out[name] = {
      n,
      r5: mean((i) => scores[i]!.r5),
      r10: mean((i) => scores[i]!.r10),
      mrr: mean((i) => scores[i]!.mrr),
      answered: mean((i) => (answered[i] ? 1 : 0)),
    };
  };
  for (const c of CATEGORIES) add(c.name, questions.flatMap((q, i) => (q.category === c.id ? [i] : [])));
  add("overall", questions.map((_, i) => i));
  return out;
}

/** Answers scored against the questions' evidence; `min` cuts each answer where the daemon would. */
function scoreAnswers(questions: Question[], answers: Answer[], idsOf: (memoryId: string) => string[], withContext: boolean, min = 0): Report {
  const cut = (a: Answer) => a.ids.filter((_, r) => a.scores[r]! >= min);
  return report(
    questions,
    answers.map((a, i) =>
      scoreGroups(
        cut(a).map((id, r) => [...idsOf(id), ...(withContext ? a.support[r]!.flatMap(idsOf) : [])]),
        questions[i]!.evidence_ids,
      ),
    ),
    answers.map((a) => cut(a).length > 0),
  );
}

// ---------------------------------------------------------------------------------------------
// The benchmark

const caller: Caller = { agentId: "default", actor: "bench", actorType: "script", runtimePath: null };
/** Warm-up questions, outside the measurement and unlike any measured one (no query-vector cache hit). */
const WARM_UP = ["what did they talk about last week?", "who likes painting?", "when was the trip planned?", "favourite food", "how are the kids?"];

interface VariantResult {
  name: string;
  how: string;
  report: Report;
  /** The same answers cut where the strong matches end. */
  atMinScore?: Report;
  latency: LatencyStats | null;
  /** The daemon's own meta.tookMs, where it answered. */
  serverTook?: LatencyStats;
  embedding?: Record<string, number>;
  methods?: Record<string, number>;
  note?: string;
}

interface Results {
  config: {
    provider: string;
    store: "sqlite" | "postgres";
    model: string | null;
    data: string;
    memories: number;
    questions: number;
    sampled: boolean;
    clients: number;
    mode: "source" | "binary";
    bunVersion: string;
    cpus: number;
    platform: string;
  };
  load: LatencyStats & { created: number; deduped: number; statuses: Record<string, number> };
  embed: { afterLoadMs: number; fromLoadStartMs: number };
  daemon: { startMs: number; rssAfterLoadKb: number | null; rssAfterQueriesKb: number | null; peakKb: number | null };
  variants: VariantResult[];
  /** --variants: each ranking variant, in-process, with the paraphrase set. */
  variantRuns?: VariantRun[];
  /** In-process fused vs HTTP fused: share of questions with the same top-10 ids, in order. */
  agreement: number | null;
  minScore: number;
  noAnswer: { locomo: NoAnswerStats; coding: (NoAnswerStats & { memories: number; answerable: NoAnswerStats }) | null };
  targets: { overallR10: number; multiHopR10: number; overallOk: boolean | null; multiHopOk: boolean | null; appliesTo: string };
}

/** Questions asked with minScore 0: how many get no strong result, and their best scores. */
interface NoAnswerStats {
  asked: number;
  /** Questions whose first result scores under the strong score, so get weak results at most. */
  empty: number;
  /** The first result's score per question (0 without one): median, and the highest or lowest. */
  topP50: number;
  topMax: number;
  topMin: number;
}

function noAnswerStats(answers: RecallResponse[]): NoAnswerStats {
  const tops = answers.map((a) => a.results[0]?.score ?? 0).sort((a, b) => a - b);
  return {
    asked: answers.length,
    empty: tops.filter((t) => t < RECALL_STRONG_SCORE).length,
    topP50: tops[Math.floor(tops.length / 2)] ?? NaN,
    topMax: tops[tops.length - 1] ?? NaN,
    topMin: tops[0] ?? NaN,
  };
}

/** Each query over HTTP with minScore 0 (every candidate, to see the best score), one at a time. */
async function askAll(daemon: BenchDaemon, queries: { query: string; project?: string }[]): Promise<RecallResponse[]> {
  const out: RecallResponse[] = [];
  for (const q of queries) {
    const res = await postJson<RecallResponse>(daemon.baseUrl, "/api/memory/recall", { ...q, limit: 10, minScore: 0 });
    if (res.status !== 200) throw new Error(`recall of "${q.query}" answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
    out.push(res.body);
  }
  return out;
}

/**
 * A second daemon holding `size` memories of the synthetic corpus: the no-answer questions, and
 * questions about the corpus itself (which should find something), at the default minimum score.
 */
async function codingStore(size: number): Promise<NoAnswerStats & { memories: number; answerable: NoAnswerStats }> {
  const dataDir = makeTempDir("signet-locomo-coding-", opts.keep);
  const daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml(opts.provider), binary: opts.binary, env: await store.env() });
  try {
    const gen = makeGenerator(7);
    const bodies = Array.from({ length: size }, () => JSON.parse(gen()) as unknown);
    await runPool(bodies.length, opts.clients, async (i) => {
      const res = await postJson(daemon.baseUrl, "/api/memory/remember", bodies[i]);
      if (res.status !== 201 && res.status !== 200) throw new Error(`coding store: remember answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
      return true;
    });
    await waitForEmbeddings(daemon.baseUrl, { progress, stallTimeoutMs: opts["drain-timeout"] * 1000, context: () => daemon.logTail() });
    const questions = makeQueryGenerator(11);
    const answerable = await askAll(daemon, Array.from({ length: 200 }, () => questions()));
    const none = await askAll(daemon, NO_ANSWER_QUERIES.map((query) => ({ query })));
    return { ...noAnswerStats(none), memories: size, answerable: noAnswerStats(answerable) };
  } finally {
    await daemon.stop();
  }
}

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

async function askOverHttp(daemon: BenchDaemon, questions: Question[]): Promise<{ answers: Answer[]; metas: RecallResponse["meta"][] }> {
  const answers: Answer[] = [];
  const metas: RecallResponse["meta"][] = [];
  for (const query of WARM_UP) await postJson(daemon.baseUrl, "/api/memory/recall", { query, project: "warm-up", limit: 10 });
  for (let i = 0; i < questions.length; i++) {
    const q = questions[i]!;
    const t0 = performance.now();
    const res = await postJson<RecallResponse>(daemon.baseUrl, "/api/memory/recall", { query: q.question, ...scopeOf(q.conv), limit: 10, minScore: 0 });
    const took = performance.now() - t0;
    if (res.status !== 200) throw new Error(`recall of ${q.id} answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
    answers.push(toAnswer(res.body, took));
    metas.push(res.body.meta);
    if ((i + 1) % 250 === 0) progress(`fused over HTTP: ${i + 1}/${questions.length}`);
  }
  return { answers, metas };
}

function toAnswer(r: RecallResponse, took: number): Answer {
  return {
    ids: r.results.map((x) => x.id),
    scores: r.results.map((x) => x.score),
    support: r.results.map((x) => r.supporting.filter((s) => s.supports === x.id).map((s) => s.id)),
    ms: took,
  };
}

/** RecallService in this process on a copy of the snapshot (scripts/lib/in-process-recall.ts), embedding with `provider`. */
async function askInProcess(
  snapshot: string,
  scratch: string,
  label: string,
  provider: string,
  questions: Question[],
): Promise<{ answers: Answer[]; metas: RecallResponse["meta"][]; readyMs: number }> {
  const dbFile = join(scratch, `inprocess-${label.replace(/[^a-z0-9]+/gi, "-")}.db`);
  copyFileSync(snapshot, dbFile);
  try {
    return await withInProcessRecall(dbFile, scratch, provider, async ({ recall, readyMs }) => {
      for (const query of WARM_UP) await recall.recall(caller, RecallRequestSchema.parse({ query, project: "warm-up" }));
      const answers: Answer[] = [];
      const metas: RecallResponse["meta"][] = [];
      for (let i = 0; i < questions.length; i++) {
        const q = questions[i]!;
        const req = RecallRequestSchema.parse({ query: q.question, ...scopeOf(q.conv), limit: 10, minScore: 0 });
        const start = performance.now();
        const r = await recall.recall(caller, req);
        answers.push(toAnswer(r, performance.now() - start));
        metas.push(r.meta);
        // Let timers run between questions (the access log flushes on one), as between HTTP requests.
        await Bun.sleep(0);
        if ((i + 1) % 500 === 0) progress(`${label} in-process: ${i + 1}/${questions.length}`);
      }
      return { answers, metas, readyMs };
    }, { drainTimeoutMs: opts["drain-timeout"] * 1000, progress: (line) => progress(`${label}: ${line}`) });
  } finally {
    rmSync(dbFile, { force: true });
    rmSync(`${dbFile}-wal`, { force: true });
    rmSync(`${dbFile}-shm`, { force: true });
  }
}

async function bench(): Promise<Results> {
  const { turns, questions, totalQuestions } = loadData(opts.data);
  progress(
    `${turns.length} turns in ${new Set(turns.map((t) => t.conv)).size} conversations, ` +
      `${questions.length}${questions.length < totalQuestions ? ` of ${totalQuestions}` : ""} questions (categories 1-4); provider ${opts.provider}`,
  );
  const dataDir = makeTempDir("signet-locomo-", opts.keep);
  const storeEnv = await store.env();
  const daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml(opts.provider), binary: opts.binary, env: storeEnv });
  progress(`daemon pid ${daemon.pid} on ${daemon.baseUrl} (started in ${daemon.startMs.toFixed(0)} ms), data ${dataDir}`);
  const rssPeak = rssPeakSampler(daemon.pid);

  // 1. Load: one job per session, its turns in order; `clients` sessions at once.
  const sessions = new Map<string, Turn[]>();
  for (const t of turns) {
    const key = `${t.conv}:session-${t.session}`;
    if (!sessions.has(key)) sessions.set(key, []);
    sessions.get(key)!.push(t);
  }
  for (const list of sessions.values()) list.sort((a, b) => a.turn - b.turn);
  const jobs = [...sessions.entries()];
  const datasetIdsOf = new Map<string, string[]>(); // memory id -> dataset ids
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let deduped = 0;
  let firstError: string | undefined;
  let written = 0;
  const loadStart = performance.now();
  const load = await runPool(jobs.length, opts.clients, async (j) => {
    const [sessionKey, list] = jobs[j]!;
    let ok = true;
    for (const t of list) {
      const body = opts.bare ? { content: t.content } : { content: t.content, project: t.conv, createdAt: t.session_ts, sessionKey, who: t.speaker };
      const t0 = performance.now();
      try {
        const res = await postJson<{ id: string; deduped: boolean }>(daemon.baseUrl, "/api/memory/remember", body);
        latencies.push(performance.now() - t0);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status !== 201 && res.status !== 200) {
          firstError ??= `${t.id}: HTTP ${res.status}: ${res.text.slice(0, 300)}`;
          ok = false;
          continue;
        }
        if (res.body.deduped) deduped++;
        const ids = datasetIdsOf.get(res.body.id) ?? [];
        ids.push(t.id);
        datasetIdsOf.set(res.body.id, ids);
      } catch (err) {
        statuses.network = (statuses.network ?? 0) + 1;
        firstError ??= `${t.id}: ${(err as Error).message}`;
        ok = false;
      }
      if (++written % 1000 === 0) progress(`remember ${written}/${turns.length}`);
    }
    return ok;
  });
  const loadMs = performance.now() - loadStart;
  const errors = turns.length - [...datasetIdsOf.values()].reduce((a, v) => a + v.length, 0);
  if (firstError) progress(`first remember error: ${firstError}`);
  if (errors > 0) throw new Error(`${errors} of ${turns.length} turns were not stored; first error: ${firstError}`);
  const loadStats = { ...stats(latencies, load.wallMs, errors), created: datasetIdsOf.size, deduped, statuses };
  progress(`loaded ${turns.length} turns in ${secs(loadMs)} (${int(loadStats.perSec)}/s, ${deduped} deduplicated)`);
  const rssAfterLoadKb = procStatusKb(daemon.pid, "VmRSS");

  // 2. Embeddings.
  const drained = await waitForEmbeddings(daemon.baseUrl, {
    progress,
    stallTimeoutMs: opts["drain-timeout"] * 1000,
    context: () => `daemon log tail:\n${daemon.logTail()}`,
  });
  const embed = { afterLoadMs: drained.ms, fromLoadStartMs: performance.now() - loadStart };

  // The planner's statistics of the loaded tables, as autovacuum makes them within a minute or so of
  // a load: the questions measure a store in its steady state, not its first minute.
  if (storeEnv.SIGNET_DATABASE_URL) await store.analyze(storeEnv.SIGNET_DATABASE_URL);

  // 3. Snapshot before any recall touches access counts.
  const snapshot = join(dataDir, "snapshot.db");
  if (!opts.postgres) {
    const live = new Database(databasePath(dataDir));
    live.run("PRAGMA busy_timeout = 5000");
    live.run("VACUUM INTO ?", [snapshot]);
    live.close();
  }

  // 4. Fused over HTTP.
  progress(`fused over HTTP: ${questions.length} questions, one at a time`);
  const http = await askOverHttp(daemon, questions);
  const scopes = opts.bare ? [{}] : [...new Set(turns.map((t) => t.conv))].map(scopeOf);
  progress(`no-answer questions: ${NO_ANSWER_QUERIES.length} in each of ${scopes.length} scopes`);
  const locomoNoAnswer = noAnswerStats(await askAll(daemon, scopes.flatMap((scope) => NO_ANSWER_QUERIES.map((query) => ({ query, ...scope })))));
  const rssAfterQueriesKb = procStatusKb(daemon.pid, "VmRSS");
  const peakKb = rssPeak.stop();
  await daemon.stop();
  progress("daemon stopped");

  const idsOf = (memoryId: string) => datasetIdsOf.get(memoryId) ?? [];
  const minScore = RECALL_STRONG_SCORE;
  const score = (answers: Answer[], withContext: boolean, min = 0) => scoreAnswers(questions, answers, idsOf, withContext, min);
  const latencyOf = (answers: Answer[]) => {
    const l = answers.map((a) => a.ms);
    return stats(l, l.reduce((a, b) => a + b, 0), 0);
  };
  const embeddingCounts = (metas: RecallResponse["meta"][]) => countBy(metas.map((m) => m.embedding));
  const methodCounts = (metas: RecallResponse["meta"][]) => countBy(metas.map((m) => m.method));

  const variants: VariantResult[] = [
    {
      name: "fused",
      how: "HTTP API of the daemon process (POST /api/memory/recall, minScore 0), client-side latency",
      report: score(http.answers, false),
      atMinScore: score(http.answers, false, minScore),
      latency: latencyOf(http.answers),
      serverTook: stats(http.metas.map((m) => m.tookMs), 0, 0),
      embedding: embeddingCounts(http.metas),
      methods: methodCounts(http.metas),
    },
    {
      name: "fused+context",
      how: "the same HTTP answers; the top results plus their `supporting` rows count as retrieved",
      report: score(http.answers, true),
      latency: null,
      note:
        "R@k counts the top k results and the supporting rows attached to them (previous/next turn of the same session): " +
        "up to 3k ids, so R@10 looks at up to 30 ids; MRR ranks by the result whose group hits first.",
    },
  ];

  // 5. Ablations in this process: keyword-only recall, and the daemon's recall again.
  let agreement: number | null = null;
  if (!opts["no-ablations"] && !opts.postgres) {
    for (const [name, provider] of [["keyword", "none"], ["fused (in-process)", opts.provider]] as const) {
      progress(`${name}: RecallService in-process, provider ${provider}`);
      const r = await askInProcess(snapshot, dataDir, name, provider, questions);
      variants.push({
        name,
        how: `RecallService in this process (provider ${provider}) on a copy of the loaded database, in-process latency${
          provider === "none" ? "" : `; its embedding worker was ready (model loaded, vectors in memory) in ${duration(r.readyMs)}`
        }`,
        report: score(r.answers, false),
        atMinScore: score(r.answers, false, minScore),
        latency: latencyOf(r.answers),
        embedding: embeddingCounts(r.metas),
        methods: methodCounts(r.metas),
      });
      if (name === "fused (in-process)") {
        const same = r.answers.filter((a, i) => a.ids.join() === http.answers[i]!.ids.join()).length;
        agreement = same / questions.length;
      }
    }
  }

  const variantRuns = opts.variants ? await runVariants(snapshot, dataDir, questions, idsOf) : undefined;

  let coding = null;
  if (opts.coding > 0) {
    progress(`coding store: ${opts.coding} memories of the synthetic corpus in a second daemon`);
    coding = await codingStore(opts.coding);
  }

  const fused = variants[0]!.report;
  const sampled = questions.length < totalQuestions;
  return {
    config: {
      provider: opts.provider,
      store: store.kind,
      model: drained.model,
      data: opts.data,
      memories: turns.length,
      questions: questions.length,
      sampled,
      clients: opts.clients,
      mode: opts.binary ? "binary" : "source",
      bunVersion: Bun.version,
      cpus: cpus().length,
      platform: `${process.platform}-${process.arch}`,
    },
    load: loadStats,
    embed,
    daemon: { startMs: daemon.startMs, rssAfterLoadKb, rssAfterQueriesKb, peakKb },
    variants,
    variantRuns,
    agreement,
    minScore,
    noAnswer: { locomo: locomoNoAnswer, coding },
    targets: {
      ...TARGETS,
      overallOk: fused.overall!.r10 >= TARGETS.overallR10,
      multiHopOk: fused["multi-hop"]!.r10 >= TARGETS.multiHopR10,
      appliesTo: "fused, provider builtin, all 1,536 questions",
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Ranking variants (--variants): recall as shipped and keyword-only recall, in this process on the
// same snapshot, beside the developer-memory paraphrase set (scripts/lib/paraphrase-dev.ts).

interface Variant {
  name: string;
  idea: string;
  /** The embedding provider: --provider's, or "none" for keyword-only recall. */
  provider?: "none";
}

/** The first is the reference the others are compared with. */
const VARIANTS: Variant[] = [
  {
    name: "default",
    idea: "RecallService as the daemon runs it: adaptive fusion, neighbours (20 best hits, ±2, combined, each lent with its own order lifts), the named author's lift and own best 100 vectors, RM3 on weak keyword evidence, BM25 statistics of the memories searched",
  },
  { name: "keyword only", idea: "keyword-only recall (no vector leg): the default ranking with the embedding provider none", provider: "none" },
];

interface VariantRun {
  variant: Variant;
  locomo: Report;
  locomoAtMin: Report;
  dev: DevScore;
  p50Ms: number;
}

/** Every variant on LoCoMo (in-process, the snapshot) and on the paraphrase set. */
async function runVariants(snapshot: string, scratch: string, questions: Question[], idsOf: (id: string) => string[]): Promise<VariantRun[]> {
  let devDb = opts["dev-store"];
  if (!devDb) {
    devDb = join(scratch, "paraphrase-dev.db");
    progress(`paraphrase set: building its store (${opts["dev-background"]} background memories)`);
    await buildDevStore(devDb, opts["dev-background"]);
    // Embedded once here; each variant then reads a copy with its vectors.
    await withInProcessRecall(devDb, scratch, opts.provider, async () => undefined, {
      drainTimeoutMs: opts["drain-timeout"] * 1000,
      progress: (line) => progress(`paraphrase set: ${line}`),
    });
  }
  const keyOf = devKeys(devDb);
  const runs: VariantRun[] = [];
  const only = opts.variant ? opts.variant.split(",") : null;
  for (const variant of VARIANTS.filter((v) => !only || only.includes(v.name))) {
    progress(`variant ${variant.name}: LoCoMo`);
    const provider = variant.provider ?? opts.provider;
    const r = await askInProcess(snapshot, scratch, variant.name, provider, questions);
    progress(`variant ${variant.name}: paraphrase set`);
    const copy = join(scratch, "paraphrase-dev-copy.db");
    copyFileSync(devDb, copy);
    const dev = await withInProcessRecall(copy, scratch, provider, ({ recall }) => scoreDevSet(recall, keyOf), {
      drainTimeoutMs: opts["drain-timeout"] * 1000,
      progress: (line) => progress(`paraphrase set: ${line}`),
    });
    for (const f of [copy, `${copy}-wal`, `${copy}-shm`]) rmSync(f, { force: true });
    const latency = r.answers.map((a) => a.ms);
    runs.push({
      variant,
      locomo: scoreAnswers(questions, r.answers, idsOf, false),
      locomoAtMin: scoreAnswers(questions, r.answers, idsOf, false, RECALL_STRONG_SCORE),
      dev,
      p50Ms: stats(latency, latency.reduce((a, b) => a + b, 0), 0).p50Ms,
    });
  }
  return runs;
}

/** Memory id -> dataset ids for a snapshot loaded by an earlier run: turns map by their dedupe key. */
function datasetIdsFromSnapshot(snapshot: string, turns: Turn[]): Map<string, string[]> {
  const turnsByKey = new Map<string, string[]>();
  for (const t of turns) {
    const key = contentKey(t.conv, t.content);
    turnsByKey.set(key, [...(turnsByKey.get(key) ?? []), t.id]);
  }
  const db = new Database(snapshot, { readonly: true });
  try {
    const rows = db.query<{ id: string; project: string | null; content: string }, []>("SELECT id, project, content FROM memories WHERE deleted_at IS NULL").all();
    return new Map(rows.map((r) => [r.id, turnsByKey.get(contentKey(r.project, r.content)) ?? []]));
  } finally {
    db.close();
  }
}

function variantsOutput(runs: VariantRun[], questions: number): string {
  const out: string[] = [
    `### Ranking variants (in-process, ${int(questions)} LoCoMo questions; paraphrase set: ${DEV_SET_PATH.replace(/.*scripts/, "scripts")}, ${opts["dev-background"]} background memories)`,
  ];
  for (const r of runs) {
    const d = r.dev;
    out.push(
      "",
      `#### ${r.variant.name}: ${r.variant.idea}`,
      "",
      variantTable({ name: r.variant.name, how: "", report: r.locomo, latency: null }),
      "",
      markdownTable(
        ["paraphrase set", "n", "R@1", "R@5", "MRR", "answer at minScore 0.2"],
        (["paraphrase", "lexical"] as const).map((k) => [k, int(d[k].n), f3(d[k].r1), f3(d[k].r5), f3(d[k].mrr), `${(d[k].foundAtMin * 100).toFixed(0)}%`]),
        ["l", "r", "r", "r", "r", "r"],
      ),
      "",
      `No-answer questions with no result: ${d.noAnswerEmpty} of ${d.noAnswerAsked} (paraphrase store). LoCoMo at minScore 0.2: R@10 ${f3(r.locomoAtMin.overall!.r10)}. In-process recall p50 ${ms(r.p50Ms)}.`,
    );
  }
  const ref = runs[0]!;
  const sign = (v: number, base: number) => `${f3(v)} (${delta(v, base)})`;
  out.push(
    "",
    "#### What each idea gained or lost (against the first row)",
    "",
    markdownTable(
      ["variant", "LoCoMo R@10", "multi-hop R@10", "LoCoMo MRR", "paraphrase R@5", "paraphrase MRR", "lexical MRR", "no-answer empty", "p50"],
      runs.map((r) => [
        r.variant.name,
        sign(r.locomo.overall!.r10, ref.locomo.overall!.r10),
        sign(r.locomo["multi-hop"]!.r10, ref.locomo["multi-hop"]!.r10),
        sign(r.locomo.overall!.mrr, ref.locomo.overall!.mrr),
        sign(r.dev.paraphrase.r5, ref.dev.paraphrase.r5),
        sign(r.dev.paraphrase.mrr, ref.dev.paraphrase.mrr),
        sign(r.dev.lexical.mrr, ref.dev.lexical.mrr),
        `${r.dev.noAnswerEmpty}/${r.dev.noAnswerAsked}`,
        ms(r.p50Ms),
      ]),
      ["l", "r", "r", "r", "r", "r", "r", "r", "r"],
    ),
  );
  return out.join("\n");
}

/** --snapshot FILE: the variants alone, on a database an earlier --keep run left. */
async function variantsOnly(snapshot: string): Promise<string> {
  if (!existsSync(snapshot)) throw new Error(`--snapshot ${snapshot} does not exist`);
  const { turns, questions } = loadData(opts.data);
  const datasetIdsOf = datasetIdsFromSnapshot(snapshot, turns);
  const scratch = makeTempDir("signet-locomo-variants-", opts.keep);
  const runs = await runVariants(snapshot, scratch, questions, (id) => datasetIdsOf.get(id) ?? []);
  return opts.json ? JSON.stringify(runs, null, 2) : variantsOutput(runs, questions.length);
}

// ---------------------------------------------------------------------------------------------
// Output

const f3 = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : "n/a");
const delta = (v: number, floor: number) => {
  const d = v - floor;
  return `${d >= 0 ? "+" : "−"}${Math.abs(d).toFixed(3)}`;
};

function variantTable(v: VariantResult): string {
  const rows = ["multi-hop", "temporal", "open-domain", "single-hop", "overall"].map((name) => {
    const s = v.report[name]!;
    const fl = FLOOR[name]!;
    return [name, int(s.n), f3(s.r5), f3(s.r10), f3(s.mrr), `${f3(fl.r5)} / ${f3(fl.r10)} / ${f3(fl.mrr)}`, delta(s.r10, fl.r10)];
  });
  return markdownTable(["category", "n", "R@5", "R@10", "MRR", "floor R@5 / R@10 / MRR", "R@10 vs floor"], rows, ["l", "r", "r", "r", "r", "r", "r"]);
}

/** The answers cut where the strong matches end, beside the ranking's R@10. */
function minScoreTable(v: VariantResult): string {
  const rows = ["multi-hop", "temporal", "open-domain", "single-hop", "overall"].map((name) => {
    const s = v.atMinScore![name]!;
    return [name, int(s.n), f3(s.r5), f3(s.r10), f3(s.mrr), delta(s.r10, v.report[name]!.r10), `${(s.answered * 100).toFixed(1)}%`];
  });
  return markdownTable(["category", "n", "R@5", "R@10", "MRR", "R@10 vs ranking", "with a result"], rows, ["l", "r", "r", "r", "r", "r", "r"]);
}

const share = (n: number, of: number) => `${int(n)} of ${int(of)} (${((n / of) * 100).toFixed(1)}%)`;

function output(r: Results): string {
  const c = r.config;
  const out: string[] = [
    `Signet LoCoMo retrieval benchmark: provider ${c.provider}${c.model ? ` (${c.model})` : ""}, ${int(c.memories)} memories, ` +
      `${int(c.questions)} questions${c.sampled ? " (an evenly spaced sample; the floor is over all 1,536)" : ""}, ` +
      `daemon from ${c.mode} on ${c.store === "postgres" ? "a shared PostgreSQL" : "its SQLite file"} (bun ${c.bunVersion}, ${c.cpus} CPUs, ${c.platform})`,
    "",
    "Floor: plain BM25 keyword-only (bench/README.md). fused and fused+context go through the daemon's HTTP API; " +
      "keyword and fused (in-process) run RecallService in the benchmark process on a copy of the same database " +
      "(taken before any question), keyword with the embedding provider none.",
  ];
  for (const v of r.variants) {
    out.push("", `### ${v.name}`, "", v.how, "", variantTable(v));
    if (v.atMinScore) {
      out.push("", `Strong matches only (score ${r.minScore} or more): the same answers cut there; evidence cut counts as missed. With defaults nothing is cut.`, "", minScoreTable(v));
    }
    if (v.note) out.push("", `Note: ${v.note}`);
    if (v.embedding) {
      const emb = Object.entries(v.embedding).map(([k, n]) => `${k} ${n}`).join(", ");
      const met = Object.entries(v.methods ?? {}).map(([k, n]) => `${k} ${n}`).join(", ");
      out.push("", `meta.embedding: ${emb}; meta.method: ${met}`);
    }
  }
  const f = r.variants[0]!.report;
  const rows: string[][] = [
    [
      "overall R@10 (fused)",
      f3(f.overall!.r10),
      `>= ${TARGETS.overallR10} (builtin)`,
      c.provider === "builtin" && !c.sampled ? verdict(r.targets.overallOk!) : `(${verdict(r.targets.overallOk!)}; target is for builtin, all questions)`,
    ],
    [
      "multi-hop R@10 (fused)",
      f3(f["multi-hop"]!.r10),
      `>= ${TARGETS.multiHopR10} (builtin)`,
      c.provider === "builtin" && !c.sampled ? verdict(r.targets.multiHopOk!) : `(${verdict(r.targets.multiHopOk!)}; target is for builtin, all questions)`,
    ],
    [
      "load (HTTP, remember)",
      `${secs(r.load.wallMs)} for ${int(r.load.n)} turns (${int(r.load.perSec)} /s, ${opts.clients} writers; p50 ${ms(r.load.p50Ms)}, p99 ${ms(r.load.p99Ms)}; ${r.load.deduped} deduplicated)`,
      "",
      "",
    ],
    [
      "embedding",
      c.provider === "none"
        ? "none (provider none)"
        : `drained ${secs(r.embed.afterLoadMs)} after the load ended (${secs(r.embed.fromLoadStartMs)} from its start)`,
      "",
      "",
    ],
  ];
  for (const v of r.variants) {
    if (!v.latency) continue;
    const server = v.serverTook ? `; daemon meta.tookMs p50 ${ms(v.serverTook.p50Ms)}, p99 ${ms(v.serverTook.p99Ms)}` : "";
    rows.push([`recall p50 / p99: ${v.name}`, `${ms(v.latency.p50Ms)} / ${ms(v.latency.p99Ms)} (n=${v.latency.n}${server})`, "", ""]);
  }
  const na = r.noAnswer;
  rows.push([
    `no-answer questions with no result, LoCoMo conversations (minScore ${r.minScore})`,
    `${share(na.locomo.empty, na.locomo.asked)}; first score p50 ${f3(na.locomo.topP50)}, max ${f3(na.locomo.topMax)}`,
    "",
    "chat may touch a question's topic",
  ]);
  if (na.coding) {
    rows.push(
      [
        `no-answer questions with no result, coding store of ${int(na.coding.memories)} (minScore ${r.minScore})`,
        `${share(na.coding.empty, na.coding.asked)}; first score p50 ${f3(na.coding.topP50)}, max ${f3(na.coding.topMax)}`,
        "all",
        c.provider === "builtin" ? verdict(na.coding.empty === na.coding.asked) : "(measured for builtin)",
      ],
      [
        "questions about the coding store with a result",
        `${share(na.coding.answerable.asked - na.coding.answerable.empty, na.coding.answerable.asked)}; first score p50 ${f3(na.coding.answerable.topP50)}, min ${f3(na.coding.answerable.topMin)}`,
        "",
        "",
      ],
    );
  }
  if (r.agreement !== null) rows.push(["in-process vs HTTP fused", `${(r.agreement * 100).toFixed(1)}% of questions with identical top-10 ids`, "", ""]);
  rows.push([
    "daemon RSS after load / after queries / peak",
    `${kbMib(r.daemon.rssAfterLoadKb)} / ${kbMib(r.daemon.rssAfterQueriesKb)} / ${kbMib(r.daemon.peakKb)}`,
    "",
    "",
  ]);
  out.push("", "### summary", "", markdownTable(["metric", "result", "target", ""], rows));
  if (r.variantRuns) out.push("", variantsOutput(r.variantRuns, c.questions));
  return out.join("\n");
}

await runBench(async () => {
  if (opts.snapshot) return variantsOnly(opts.snapshot);
  try {
    const results = await bench();
    return opts.json ? JSON.stringify(results, null, 2) : output(results);
  } finally {
    await store.stop();
  }
}, progress);
