// Prompt-time injection benchmark: what the user-prompt-submit hook injects for a developer's everyday
// prompts (scripts/data/devstore.json, scripts/lib/devstore.ts), beside the recall sets it depends on,
// all with the default configuration.
//
//   bun scripts/bench-injection.ts                  every set (a few minutes on 2 cores)
//   bun scripts/bench-injection.ts --quick          the developer store only (well under a minute)
//   bun scripts/bench-injection.ts --split dev      only the dev prompts of the developer store
//   bun scripts/bench-injection.ts --json           machine-readable results on stdout
//   bun scripts/bench-injection.ts --quick --postgres   the developer store with the daemon on a shared
//                                                   PostgreSQL 15 (a throwaway cluster)
//
// How it runs:
//   1. Developer store: a daemon (separate process, throwaway SIGNET_PATH/HOME, no agent.yaml: the
//      default configuration, builtin embeddings) gets every memory over POST /api/memory/remember
//      (content, type, project, tags, createdAt) and is waited on until GET /health shows nothing
//      pending. Each prompt then gets a fresh session, as a harness opens one: POST
//      /api/hooks/session-start {sessionKey, harness: "claude-code", project}, then POST
//      /api/hooks/user-prompt-submit {sessionKey, harness, project, prompt}; the answer's memoryIds
//      are what was injected. Scored per split (dev, held-out, all):
//        recall     needed memories injected / needed, averaged over the prompts that need something
//                   (micro: over all needed memories at once);
//        precision  needed or acceptable memories injected / all injected;
//        clean      need-nothing prompts whose injection is within their acceptable memories;
//        latency    the user-prompt-submit call, client side, p50 / p95.
//      Session-start's own injection is scored per project: how much of what the prompts need (and of
//      the needed global memories) it already brought.
//   2. Unless --quick:
//      - LoCoMo: scripts/bench-locomo.ts as a subprocess (--json --coding 0 --no-ablations), once with
//        the turns stored as the hooks store them (project, speaker, session, time) and once --bare
//        (the content alone, as memory_store sends it): R@10 at the default minimum score and of the
//        ranking alone (minScore 0), MRR, and how many no-answer questions get nothing.
//      - The paraphrase set (scripts/data/paraphrase-dev.json among 2,000 synthetic memories,
//        scripts/lib/paraphrase-dev.ts), RecallService in this process with its default options:
//        R@5 and R@10 of a default recall and of the ranking alone, MRR of the ranking.
//      - The no-answer questions (scripts/lib/no-answer.ts) with default settings against the
//        paraphrase store and the developer store (recall, and user-prompt-submit): how many get no
//        result, and how many no strong one (a result's `confidence` "strong", or any result when
//        recall gives no confidence).
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type RecallResponse, type RecallResult, RecallRequestSchema } from "../src/contracts/recall";
import type { Caller } from "../src/core/memory/service";
import type { RecallService } from "../src/core/recall/service";
import { parseFlags } from "./lib/args";
import { installCleanup, makeTempDir, ROOT, spawnDaemon, runBench, type BenchDaemon } from "./lib/daemon";
import { storeChoice } from "./lib/store-choice";
import {
  badInjections,
  devStoreProblems,
  loadDevStore,
  rewordedShare,
  promptsOf,
  rememberDevStore,
  runPrompts,
  scoreInjection,
  scoreSessionStart,
  sendHook,
  type InjectionScore,
  type PromptOutcome,
  type Split,
  type StartScore,
} from "./lib/devstore";
import { int, markdownTable, ms, secs } from "./lib/format";
import { postJson, waitForEmbeddings } from "./lib/http";
import { withInProcessRecall } from "./lib/in-process-recall";
import { NO_ANSWER_QUERIES } from "./lib/no-answer";
import { buildDevStore, DEV_SET_PATH, devKeys } from "./lib/paraphrase-dev";

const USAGE = "usage: bun scripts/bench-injection.ts [--quick] [--split dev|held-out|all] [--postgres] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  { quick: { kind: "bool" }, json: { kind: "bool" }, postgres: { kind: "bool" }, split: { kind: "string", choices: ["dev", "held-out", "all"] } },
  { quick: false, json: false, postgres: false, split: "all" },
  { script: "bench-injection", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[injection] ${line}\n`);
installCleanup(progress);
/** The daemon's store: its SQLite file, or with --postgres a database of a throwaway cluster. */
const storage = storeChoice(opts.postgres);

/** The default embedding provider, for the in-process recall of the paraphrase set. */
const DEFAULT_PROVIDER = "builtin";
/** Synthetic memories around the paraphrase set, as bench-locomo.ts --variants puts them. */
const PARAPHRASE_BACKGROUND = 2000;
const DRAIN_TIMEOUT_MS = 180_000;
/** Prompts before the measured ones, in sessions of their own: the first recall pays for warming up. */
const WARM_UP = ["hello, are you there?", "what were we doing yesterday?", "summarise the last change"];
const caller: Caller = { agentId: "default", actor: "bench", actorType: "script", runtimePath: null };

// ---------------------------------------------------------------------------------------------
// Developer store

interface NoAnswerRow {
  where: string;
  asked: number;
  /** Questions that got no result (no injection, for the hook). */
  nothing: number;
  /** Questions that got no strong result; null where the answer says nothing about strength. */
  nothingStrong: number | null;
}

interface DevstoreResults {
  memories: number;
  projects: number;
  globals: number;
  prompts: number;
  /** Share of need-something prompts sharing no content word with what they need. */
  rewordedShare: number;
  scores: Partial<Record<Split | "all", InjectionScore>>;
  sessionStart: StartScore[];
  noAnswer: NoAnswerRow[];
  outcomes: PromptOutcome[];
  ms: number;
}

/** A recall result counts as strong when it says so, or, while recall gives no confidence, always. */
function isStrong(r: RecallResult): boolean {
  const confidence = (r as RecallResult & { confidence?: string }).confidence;
  return confidence === undefined || confidence === "strong";
}

function noAnswerRow(where: string, answers: RecallResult[][]): NoAnswerRow {
  return {
    where,
    asked: answers.length,
    nothing: answers.filter((a) => a.length === 0).length,
    nothingStrong: answers.filter((a) => !a.some(isStrong)).length,
  };
}

/** The no-answer questions against the developer store: recalled with defaults, and sent as prompts. */
async function devstoreNoAnswer(daemon: BenchDaemon): Promise<NoAnswerRow[]> {
  const recalled: RecallResult[][] = [];
  let injectedNothing = 0;
  for (const query of NO_ANSWER_QUERIES) {
    const res = await postJson<RecallResponse>(daemon.baseUrl, "/api/memory/recall", { query });
    if (res.status !== 200) throw new Error(`recall of "${query}" answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
    recalled.push(res.body.results);
    const sessionKey = `no-answer-${randomUUID()}`;
    await sendHook(daemon.baseUrl, "session-start", { sessionKey, project: null });
    const injected = await sendHook(daemon.baseUrl, "user-prompt-submit", { sessionKey, project: null, prompt: query });
    if (injected.memoryIds.length === 0) injectedNothing++;
  }
  return [
    noAnswerRow("developer store, recall", recalled),
    { where: "developer store, user-prompt-submit (no project)", asked: NO_ANSWER_QUERIES.length, nothing: injectedNothing, nothingStrong: null },
  ];
}

async function devstore(): Promise<DevstoreResults> {
  const started = performance.now();
  const store = loadDevStore();
  const problems = devStoreProblems(store);
  if (problems.length > 0) throw new Error(`scripts/data/devstore.json breaks its grading rules:\n${problems.join("\n")}`);
  const dataDir = makeTempDir("signet-injection-");
  // No agent.yaml: the default configuration (with --postgres, storage.url on a throwaway cluster).
  const daemon = await spawnDaemon({ dataDir, env: await storage.env() });
  progress(`developer store: daemon pid ${daemon.pid} on ${daemon.baseUrl}, data ${dataDir}`);
  try {
    const keyOf = await rememberDevStore(daemon.baseUrl, store);
    progress(`developer store: ${store.memories.length} memories stored`);
    await waitForEmbeddings(daemon.baseUrl, { progress, stallTimeoutMs: DRAIN_TIMEOUT_MS, context: () => `daemon log tail:\n${daemon.logTail()}` });
    for (const prompt of WARM_UP) {
      const sessionKey = `warm-up-${randomUUID()}`;
      await sendHook(daemon.baseUrl, "user-prompt-submit", { sessionKey, project: null, prompt });
    }
    const prompts = promptsOf(store, opts.split as Split | "all");
    progress(`developer store: ${prompts.length} prompts, each in a fresh session`);
    const outcomes = await runPrompts(daemon.baseUrl, prompts, keyOf, (line) => progress(`developer store: ${line}`));
    const noAnswer = opts.quick ? [] : await devstoreNoAnswer(daemon);
    const splits: (Split | "all")[] = opts.split === "all" ? ["dev", "held-out", "all"] : [opts.split as Split];
    const scores: DevstoreResults["scores"] = {};
    for (const split of splits) scores[split] = scoreInjection(split === "all" ? outcomes : outcomes.filter((o) => o.prompt.split === split));
    return {
      memories: store.memories.length,
      projects: new Set(store.memories.flatMap((m) => (m.project === null ? [] : [m.project]))).size,
      globals: store.memories.filter((m) => m.project === null).length,
      prompts: prompts.length,
      rewordedShare: rewordedShare(store),
      scores,
      sessionStart: scoreSessionStart(store, outcomes),
      noAnswer,
      outcomes,
      ms: performance.now() - started,
    };
  } finally {
    await daemon.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// LoCoMo, through bench-locomo.ts

interface LocomoFigures {
  storage: "hooks" | "bare";
  questions: number;
  memories: number;
  /** R@10 of a default recall (cut at the default minimum score) and of the ranking alone. */
  r10Default: number;
  r10Ranking: number;
  r5Ranking: number;
  mrr: number;
  /** Questions with a result at the default minimum score. */
  answered: number;
  noAnswer: { asked: number; empty: number };
  ms: number;
}

/** The parts of bench-locomo.ts --json read here. */
interface LocomoJson {
  config: { questions: number; memories: number };
  variants: { report: Record<string, { r5: number; r10: number; mrr: number }>; atMinScore: Record<string, { r10: number; answered: number }> }[];
  noAnswer: { locomo: { asked: number; empty: number } };
}

let child: ReturnType<typeof Bun.spawn> | undefined;
// bench-locomo cleans up after itself on SIGTERM (its daemon, its temp dir).
process.on("exit", () => {
  if (child && child.exitCode === null) child.kill("SIGTERM");
});

async function locomo(storage: "hooks" | "bare"): Promise<LocomoFigures> {
  const started = performance.now();
  const args = ["--json", "--coding", "0", "--no-ablations", ...(storage === "bare" ? ["--bare"] : [])];
  progress(`LoCoMo (${storage === "bare" ? "bare content" : "as the hooks store it"}): bench-locomo.ts ${args.join(" ")}`);
  child = Bun.spawn([process.execPath, join(ROOT, "scripts", "bench-locomo.ts"), ...args], { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  const [text, code] = await Promise.all([new Response(child.stdout as ReadableStream).text(), child.exited]);
  if (code !== 0) throw new Error(`bench-locomo.ts ${args.join(" ")} exited ${code}`);
  const r = JSON.parse(text) as LocomoJson;
  const fused = r.variants[0]!;
  return {
    storage,
    questions: r.config.questions,
    memories: r.config.memories,
    r10Default: fused.atMinScore.overall!.r10,
    r10Ranking: fused.report.overall!.r10,
    r5Ranking: fused.report.overall!.r5,
    mrr: fused.report.overall!.mrr,
    answered: fused.atMinScore.overall!.answered,
    noAnswer: { asked: r.noAnswer.locomo.asked, empty: r.noAnswer.locomo.empty },
    ms: performance.now() - started,
  };
}

// ---------------------------------------------------------------------------------------------
// The paraphrase set, in process

interface ParaphraseKind {
  n: number;
  r5Default: number;
  r10Default: number;
  r5Ranking: number;
  r10Ranking: number;
  mrr: number;
}

interface ParaphraseFigures {
  background: number;
  paraphrase: ParaphraseKind;
  lexical: ParaphraseKind;
  noAnswer: NoAnswerRow;
  ms: number;
}

interface ParaphraseSet {
  questions: { q: string; answers: string[]; kind: "paraphrase" | "lexical" }[];
}

async function paraphrase(): Promise<ParaphraseFigures> {
  const started = performance.now();
  const scratch = makeTempDir("signet-injection-paraphrase-");
  const dbFile = join(scratch, "paraphrase-dev.db");
  progress(`paraphrase set: building its store (${PARAPHRASE_BACKGROUND} background memories)`);
  await buildDevStore(dbFile, PARAPHRASE_BACKGROUND);
  const keyOf = devKeys(dbFile);
  const set = JSON.parse(readFileSync(DEV_SET_PATH, "utf8")) as ParaphraseSet;
  return withInProcessRecall(
    dbFile,
    scratch,
    DEFAULT_PROVIDER,
    async ({ recall }) => {
      const per: Record<"paraphrase" | "lexical", { r5d: number; r10d: number; r5: number; r10: number; rr: number }[]> = { paraphrase: [], lexical: [] };
      const ask = async (body: Record<string, unknown>) => {
        const r = await recall.recall(caller, RecallRequestSchema.parse(body));
        // Let timers run between questions (the access log flushes on one), as between HTTP requests.
        await Bun.sleep(0);
        return r.results;
      };
      for (const q of set.questions) {
        const gold = new Set(q.answers);
        const within = (results: RecallResult[], k: number) => results.slice(0, k).filter((x) => gold.has(keyOf.get(x.id) ?? "")).length / gold.size;
        const byDefault = await ask({ query: q.q });
        const ranking = await ask({ query: q.q, limit: 10, minScore: 0 });
        const first = ranking.findIndex((x) => gold.has(keyOf.get(x.id) ?? ""));
        per[q.kind].push({ r5d: within(byDefault, 5), r10d: within(byDefault, 10), r5: within(ranking, 5), r10: within(ranking, 10), rr: first >= 0 ? 1 / (first + 1) : 0 });
      }
      const none: RecallResult[][] = [];
      for (const query of NO_ANSWER_QUERIES) none.push(await ask({ query }));
      const mean = (xs: (typeof per)["paraphrase"]): ParaphraseKind => {
        const avg = (f: (x: (typeof xs)[number]) => number) => xs.reduce((a, x) => a + f(x), 0) / xs.length;
        return { n: xs.length, r5Default: avg((x) => x.r5d), r10Default: avg((x) => x.r10d), r5Ranking: avg((x) => x.r5), r10Ranking: avg((x) => x.r10), mrr: avg((x) => x.rr) };
      };
      return {
        background: PARAPHRASE_BACKGROUND,
        paraphrase: mean(per.paraphrase),
        lexical: mean(per.lexical),
        noAnswer: noAnswerRow(`paraphrase store (${int(PARAPHRASE_BACKGROUND)} synthetic memories around it), recall`, none),
        ms: performance.now() - started,
      };
    },
    { drainTimeoutMs: DRAIN_TIMEOUT_MS, progress: (line) => progress(`paraphrase set: ${line}`) },
  );
}

// ---------------------------------------------------------------------------------------------
// Output

interface Results {
  config: { quick: boolean; split: string; bunVersion: string; platform: string };
  devstore: DevstoreResults;
  locomo?: LocomoFigures[];
  paraphrase?: ParaphraseFigures;
  noAnswer?: NoAnswerRow[];
  totalMs: number;
}

const f3 = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : "n/a");
const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : "n/a");
const BAD_EXAMPLES = 12;

function devstoreOutput(d: DevstoreResults): string[] {
  const out = [
    `### Developer store: what user-prompt-submit injects (default configuration)`,
    "",
    `${d.memories} memories (${d.projects} projects, ${d.globals} global), ${d.prompts} prompts; ` +
      `${pct(d.rewordedShare)} of the prompts that need something share no content word with what they need. ` +
      `Took ${secs(d.ms)}.`,
    "",
    markdownTable(
      ["split", "prompts (need something / nothing)", "recall", "recall (micro)", "precision", "clean", "injected / prompt", "p50", "p95"],
      Object.entries(d.scores).map(([split, s]) => [
        split,
        `${s.prompts} (${s.needSomething} / ${s.needNothing})`,
        f3(s.recall),
        f3(s.recallMicro),
        `${f3(s.precision)} (of ${s.injected})`,
        pct(s.clean),
        s.injectedPerPrompt.toFixed(2),
        ms(s.p50Ms),
        ms(s.p95Ms),
      ]),
      ["l", "r", "r", "r", "r", "r", "r", "r", "r"],
    ),
    "",
    "recall: needed memories injected / needed, per prompt that needs something; precision: needed or acceptable injected / injected; " +
      "clean: need-nothing prompts that got nothing outside their acceptable memories.",
    "",
    "#### What session-start injects, per project",
    "",
    markdownTable(
      ["project", "prompts", "injected at start", "needed it brought", "needed globals it brought", "needed, by start or prompt"],
      d.sessionStart.map((s) => [s.project ?? "(none)", int(s.prompts), int(s.atStart), pct(s.neededByStart), pct(s.neededGlobalsByStart), pct(s.neededByEither)]),
      ["l", "r", "r", "r", "r", "r"],
    ),
  ];
  const bad = badInjections(d.outcomes).filter((b) => b.bad.length > 0);
  if (bad.length > 0) {
    out.push("", `#### Bad injections (${bad.length} prompts; the first ${Math.min(BAD_EXAMPLES, bad.length)})`, "");
    for (const b of bad.slice(0, BAD_EXAMPLES)) {
      const missed = b.missed.length > 0 ? `; missed ${b.missed.join(", ")}` : "";
      out.push(`- "${b.prompt.prompt}" (${b.prompt.project ?? "no project"}): injected ${b.bad.join(", ")}${missed}`);
    }
  }
  return out;
}

function output(r: Results): string {
  const out = [
    `Signet injection benchmark (bun ${r.config.bunVersion}, ${r.config.platform}${r.config.quick ? ", --quick" : ""}), total ${secs(r.totalMs)}`,
    "",
    ...devstoreOutput(r.devstore),
  ];
  if (r.locomo) {
    out.push(
      "",
      "### LoCoMo (scripts/bench-locomo.ts, fused over HTTP)",
      "",
      markdownTable(
        ["stored as", "questions", "R@10 (strong only)", "R@10 (ranking = defaults)", "R@5 (ranking)", "MRR", "with a strong result", "no-answer: nothing strong", "took"],
        r.locomo.map((l) => [
          l.storage === "hooks" ? "the hooks store it (project, speaker, session, time)" : "bare content (as memory_store)",
          int(l.questions),
          f3(l.r10Default),
          f3(l.r10Ranking),
          f3(l.r5Ranking),
          f3(l.mrr),
          pct(l.answered),
          `${l.noAnswer.empty} of ${l.noAnswer.asked}`,
          secs(l.ms),
        ]),
        ["l", "r", "r", "r", "r", "r", "r", "r", "r"],
      ),
    );
  }
  if (r.paraphrase) {
    const p = r.paraphrase;
    out.push(
      "",
      `### Paraphrase set (scripts/data/paraphrase-dev.json among ${int(p.background)} synthetic memories, RecallService defaults in process; took ${secs(p.ms)})`,
      "",
      markdownTable(
        ["questions", "n", "R@5 (defaults)", "R@10 (defaults)", "R@5 (ranking)", "R@10 (ranking)", "MRR (ranking)"],
        (["paraphrase", "lexical"] as const).map((k) => [k, int(p[k].n), f3(p[k].r5Default), f3(p[k].r10Default), f3(p[k].r5Ranking), f3(p[k].r10Ranking), f3(p[k].mrr)]),
        ["l", "r", "r", "r", "r", "r", "r"],
      ),
    );
  }
  if (r.noAnswer) {
    out.push(
      "",
      "### No-answer questions (scripts/lib/no-answer.ts, default settings)",
      "",
      markdownTable(
        ["asked of", "asked", "nothing", "nothing strong"],
        r.noAnswer.map((n) => [n.where, int(n.asked), int(n.nothing), n.nothingStrong === null ? "n/a" : int(n.nothingStrong)]),
        ["l", "r", "r", "r"],
      ),
      "",
      "A result is strong when its `confidence` says so, or, while recall gives none, whatever it is. " +
        "LoCoMo's no-answer figures are in its table (nothing strong).",
    );
  }
  return out.join("\n");
}

async function bench(): Promise<Results> {
  const started = performance.now();
  const d = await devstore();
  const results: Results = {
    config: { quick: opts.quick, split: opts.split, bunVersion: Bun.version, platform: `${process.platform}-${process.arch}` },
    devstore: d,
    totalMs: 0,
  };
  if (!opts.quick) {
    results.paraphrase = await paraphrase();
    results.noAnswer = [...d.noAnswer, results.paraphrase.noAnswer];
    results.locomo = [await locomo("hooks"), await locomo("bare")];
  }
  results.totalMs = performance.now() - started;
  return results;
}

await runBench(async () => {
  try {
    const results = await bench();
    return opts.json ? JSON.stringify(results, null, 2) : output(results);
  } finally {
    await storage.stop();
  }
}, progress);
