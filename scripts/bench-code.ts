// Code index benchmark (docs/code.md#performance): how well signet_code_search answers a developer's
// questions about this repository, and how fast `signet index` and the query paths run.
//
//   bun scripts/bench-code.ts                      both parts
//   bun scripts/bench-code.ts --part questions     search quality only (a few seconds)
//   bun scripts/bench-code.ts --part speed         indexing and query latency only
//   bun scripts/bench-code.ts --split dev          only the dev questions (the held-out ones are never tuned on)
//   bun scripts/bench-code.ts --list               each question's rank and first hit
//   bun scripts/bench-code.ts --from DIR           questions on another checkout's code (same questions)
//   bun scripts/bench-code.ts --json               machine-readable results on stdout
//   bun scripts/bench-code.ts --queries 300        searches timed per project (speed)
//
// Questions (scripts/data/code-questions.json, scripts/lib/code-questions.ts): a copy of this
// repository's src, test and scripts is indexed; each question goes through searchSymbols, what the
// route and signet_code_search call, with top 10. Per split: MRR of the first hit that answers it (0
// when none is in the first 10), hit@1, hit@5, hit@10.
//
// Speed: each project is copied to a temporary folder first (indexing writes <project>/.graphiq, and
// node_modules is shared: nothing is written there or in this checkout). Per project:
//   - cold index: files/s = files parsed / wall time of indexProject (grammar loading included), and
//     files per CPU second (the same over the process's CPU time: on a shared, loaded machine the wall
//     time mostly measures the other processes);
//   - index size: graphiq.db after the run;
//   Latencies are wall time and, beside it, the CPU time the call used.
//   - signet_code_search: --queries searches (symbol names from the index, split into words half the
//     time, a prefix a quarter of the time), p50/p95 of searchSymbols, which is what the route calls;
//   - signet_code_blast, depth 3, backward and both, from the 30 most connected symbols: p50 and max;
//   - signet_code_context of the same symbols: p50.
// Targets (SPEC): >= 200 files/s cold on two cores, search p50 < 10 ms, blast depth 3
// < 50 ms on this repository.
import { cpSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CodeBlastRequestSchema, CodeSearchRequestSchema } from "../src/contracts/code";
import { indexProject } from "../src/core/code/indexer";
import { identifierParts } from "../src/core/code/names";
import { blastRadius, symbolContext } from "../src/core/code/queries";
import { searchSymbols } from "../src/core/code/search";
import { openIndex } from "../src/core/code/store";
import { parseFlags } from "./lib/args";
import {
  askNames,
  askQuestions,
  codeQuestionProblems,
  CUTOFF,
  loadCodeQuestions,
  questionsOf,
  repositoryCopy,
  rng,
  scoreQuestions,
  type QuestionOutcome,
  type QuestionScore,
} from "./lib/code-questions";
import { markdownTable } from "./lib/format";

const root = resolve(import.meta.dir, "..");
const USAGE = "usage: bun scripts/bench-code.ts [--part questions|speed|all] [--split dev|held-out|all] [--list] [--from DIR] [--queries N] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  {
    part: { kind: "string", choices: ["questions", "speed", "all"] },
    split: { kind: "string", choices: ["dev", "held-out", "all"] },
    list: { kind: "bool" },
    from: { kind: "string" },
    queries: { kind: "int", min: 1 },
    json: { kind: "bool" },
  },
  { part: "all", split: "all", list: false, from: root, queries: 300, json: false },
  { script: "bench-code", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[code] ${line}\n`);
const QUERIES = opts.queries;

interface Target {
  name: string;
  /** Folders (relative to `from`) copied into the temporary project. */
  from: string;
  folders: string[];
}

const TARGETS: Target[] = [
  { name: "signet (this repository)", from: root, folders: ["src", "test", "scripts"] },
  { name: "zod/src (node_modules)", from: join(root, "node_modules/zod"), folders: ["src"] },
  { name: "@modelcontextprotocol/sdk dist/esm (node_modules)", from: join(root, "node_modules/@modelcontextprotocol/sdk/dist"), folders: ["esm"] },
];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Wall time in ms; also adds the CPU time to `cpu` (on a loaded machine wall time mostly measures waiting). */
function timed(fn: () => void, cpu?: number[]): number {
  const c = process.cpuUsage();
  const t = performance.now();
  fn();
  const wall = performance.now() - t;
  if (cpu) {
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  return wall;
}

const round = (n: number) => Math.round(n * 100) / 100;

async function bench(target: Target) {
  const tmp = mkdtempSync(join(tmpdir(), "signet-bench-code-"));
  try {
    for (const folder of target.folders) {
      if (existsSync(join(target.from, folder))) cpSync(join(target.from, folder), join(tmp, folder), { recursive: true });
    }
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const run = await indexProject(tmp);
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const dbBytes = statSync(join(tmp, ".graphiq", "graphiq.db")).size;

    const db = openIndex(tmp);
    try {
      const names = db.query<{ name: string }, []>("SELECT DISTINCT name FROM symbols WHERE length(name) > 3 ORDER BY name").all().map((r) => r.name);
      const random = rng(7);
      const search: number[] = [];
      const searchCpu: number[] = [];
      const blastCpu: number[] = [];
      for (let i = 0; i < QUERIES && names.length > 0; i++) {
        const name = names[Math.floor(random() * names.length)]!;
        const roll = random();
        const query = roll < 0.5 ? identifierParts(name).join(" ") : roll < 0.75 ? name.slice(0, Math.max(3, Math.ceil(name.length / 2))) : name;
        const req = CodeSearchRequestSchema.parse({ query });
        search.push(timed(() => searchSymbols(db, tmp, req), searchCpu));
      }
      const hubs = db
        .query<{ id: number; name: string; path: string }, []>(
          `SELECT s.id, s.name, f.path FROM symbols s JOIN files f ON f.id = s.file_id
           JOIN (SELECT dst_id AS id, COUNT(*) AS n FROM edges GROUP BY dst_id) c ON c.id = s.id ORDER BY c.n DESC LIMIT 30`,
        )
        .all();
      const blastBack: number[] = [];
      const blastBoth: number[] = [];
      const context: number[] = [];
      let reached = 0;
      for (const h of hubs) {
        const symbol = `${h.path}:${h.name}`;
        blastBack.push(
          timed(() => {
            reached = Math.max(reached, blastRadius(db, tmp, CodeBlastRequestSchema.parse({ symbol, depth: 3 })).nodes.length);
          }, blastCpu),
        );
        blastBoth.push(timed(() => blastRadius(db, tmp, CodeBlastRequestSchema.parse({ symbol, depth: 3, direction: "both" }))));
        context.push(timed(() => symbolContext(db, tmp, symbol)));
      }
      for (const list of [search, searchCpu, blastBack, blastCpu, blastBoth, context]) list.sort((a, b) => a - b);
      return {
        project: target.name,
        files: run.files,
        parsed: run.parsed.length,
        failed: run.failed.length,
        symbols: run.symbols,
        edges: run.edges,
        coldMs: Math.round(wallMs),
        filesPerSecond: Math.round((run.parsed.length / wallMs) * 1000),
        cpuMs: Math.round(cpuMs),
        filesPerCpuSecond: Math.round((run.parsed.length / cpuMs) * 1000),
        indexBytes: dbBytes,
        searchP50Ms: round(percentile(search, 50)),
        searchP95Ms: round(percentile(search, 95)),
        searchCpuP50Ms: round(percentile(searchCpu, 50)),
        searchCpuP95Ms: round(percentile(searchCpu, 95)),
        blastDepth3CpuMaxMs: round(percentile(blastCpu, 100)),
        blastDepth3P50Ms: round(percentile(blastBack, 50)),
        blastDepth3MaxMs: round(percentile(blastBack, 100)),
        blastBothDepth3MaxMs: round(percentile(blastBoth, 100)),
        blastLargestReach: reached,
        contextP50Ms: round(percentile(context, 50)),
      };
    } finally {
      db.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// ---- questions ----

/** Symbol names asked as the guard rail (each as written and as its words). */
const NAMES = 200;

interface QuestionsResult {
  symbols: number;
  splits: { split: string; score: QuestionScore }[];
  /** Looking symbols up by name (askNames): must stay near 1. */
  names: QuestionScore;
  outcomes: QuestionOutcome[];
}

async function questions(): Promise<QuestionsResult> {
  const set = loadCodeQuestions();
  const project = repositoryCopy(resolve(opts.from));
  try {
    progress(`indexing a copy of this repository (${project})`);
    const run = await indexProject(project);
    const db = openIndex(project);
    try {
      const problems = codeQuestionProblems(set, db);
      if (problems.length > 0) throw new Error(`the question set breaks its rules:\n  ${problems.join("\n  ")}`);
      const asked = questionsOf(set, opts.split as "dev" | "held-out" | "all");
      progress(`asking ${asked.length} questions`);
      const outcomes = askQuestions(db, project, asked);
      const splits = (opts.split === "all" ? ["dev", "held-out", "all"] : [opts.split]).map((split) => ({
        split,
        score: scoreQuestions(split === "all" ? outcomes : outcomes.filter((o) => o.split === split)),
      }));
      progress(`looking ${NAMES} symbols up by name`);
      return { symbols: run.symbols, splits, names: scoreQuestions(askNames(db, project, NAMES)), outcomes };
    } finally {
      db.close();
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

const fixed = (n: number) => n.toFixed(3);
const percent = (n: number) => `${Math.round(n * 100)}%`;

function questionsReport(r: QuestionsResult): string {
  const lines = [
    `Code search on ${r.symbols} symbols of this repository, top ${CUTOFF}:`,
    "",
    markdownTable(
      ["split", "questions", "MRR", "hit@1", "hit@5", `hit@${CUTOFF}`],
      [...r.splits, { split: "names (guard rail)", score: r.names }].map(({ split, score: s }) => [
        split,
        String(s.questions),
        fixed(s.mrr),
        percent(s.hitAt1),
        percent(s.hitAt5),
        percent(s.hitAt10),
      ]),
      ["l", "r", "r", "r", "r", "r"],
    ),
  ];
  if (opts.list) {
    lines.push("", markdownTable(["split", "rank", "question", "first hit"], r.outcomes.map((o) => [o.split, o.rank === null ? "-" : String(o.rank), o.question, o.first ?? "(none)"])));
  }
  return lines.join("\n");
}

// ---- speed ----

type SpeedResult = Awaited<ReturnType<typeof bench>>;

function speedReport(results: SpeedResult[]): string {
  return results
    .map(
      (r) =>
        `${r.project}: ${r.parsed}/${r.files} files cold in ${r.coldMs} ms = ${r.filesPerSecond} files/s wall, ${r.filesPerCpuSecond} files per CPU second (${r.cpuMs} ms CPU; ${r.failed} failed); ` +
        `${r.symbols} symbols, ${r.edges} edges; index ${(r.indexBytes / 1024 / 1024).toFixed(2)} MiB\n` +
        `  search p50 ${r.searchP50Ms} ms, p95 ${r.searchP95Ms} ms (CPU p50 ${r.searchCpuP50Ms}, p95 ${r.searchCpuP95Ms}); ` +
        `blast depth 3 p50 ${r.blastDepth3P50Ms} ms, max ${r.blastDepth3MaxMs} ms (CPU max ${r.blastDepth3CpuMaxMs}) ` +
        `(both directions max ${r.blastBothDepth3MaxMs} ms, largest reach ${r.blastLargestReach}); context p50 ${r.contextP50Ms} ms`,
    )
    .join("\n");
}

const quality = opts.part === "speed" ? undefined : await questions();
const speed: SpeedResult[] = [];
if (opts.part !== "questions") {
  for (const target of TARGETS) {
    progress(`speed: ${target.name}`);
    speed.push(await bench(target));
  }
}
if (opts.json) {
  console.log(JSON.stringify({ ...(quality ? { questions: quality } : {}), ...(opts.part !== "questions" ? { speed } : {}) }, null, 2));
} else {
  console.log([quality && questionsReport(quality), speed.length > 0 && speedReport(speed)].filter(Boolean).join("\n\n"));
}
