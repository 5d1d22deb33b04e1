// The code-search question set (scripts/data/code-questions.json): questions a developer asks about
// this repository in their own words, each graded with the symbols that answer it. Loading and
// checking the set, indexing a copy of this repository, asking every question through searchSymbols
// (what /api/code/search and signet_code_search call) and scoring the ranks. Shared by
// scripts/bench-code.ts and test/unit/code-questions.test.ts.
import type { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CodeSearchRequestSchema, type CodeSearchHit } from "../../src/contracts/code";
import { identifierParts } from "../../src/core/code/names";
import { searchSymbols } from "../../src/core/code/search";

export type Split = "dev" | "held-out";

interface CodeQuestion {
  question: string;
  /** `path:name` or `path:Container.name`: a hit on any of them answers the question. */
  answers: string[];
  split: Split;
}

export interface CodeQuestionSet {
  about: string;
  questions: CodeQuestion[];
}

const ROOT = resolve(import.meta.dir, "../..");
/** What is copied of this repository to be indexed: its code, tests and scripts. */
const FOLDERS = ["src", "test", "scripts"];
/** Ranks past this count as not found (MRR 0). */
export const CUTOFF = 10;

export function loadCodeQuestions(path = join(ROOT, "scripts", "data", "code-questions.json")): CodeQuestionSet {
  return JSON.parse(readFileSync(path, "utf8")) as CodeQuestionSet;
}

export function questionsOf(set: CodeQuestionSet, split: Split | "all"): CodeQuestion[] {
  return split === "all" ? set.questions : set.questions.filter((q) => q.split === split);
}

/**
 * A temporary copy of this repository's code (indexing writes <project>/.graphiq, never into the
 * checkout); `from`: another checkout of it, to compare two versions of the ranking on the same code.
 */
export function repositoryCopy(from = ROOT): string {
  const project = realpathSync(mkdtempSync(join(tmpdir(), "signet-code-questions-")));
  for (const folder of FOLDERS) cpSync(join(from, folder), join(project, folder), { recursive: true });
  return project;
}

interface Answer {
  path: string;
  container: string | null;
  name: string;
}

function parseAnswer(spec: string): Answer {
  const colon = spec.lastIndexOf(":");
  const symbol = spec.slice(colon + 1);
  const dot = symbol.lastIndexOf(".");
  return { path: spec.slice(0, colon), container: dot < 0 ? null : symbol.slice(0, dot), name: symbol.slice(dot + 1) };
}

function answers(hit: Pick<CodeSearchHit, "path" | "container" | "name">, spec: string): boolean {
  const a = parseAnswer(spec);
  return hit.path === a.path && hit.name === a.name && (hit.container ?? null) === a.container;
}

/** Every way the set breaks its rules: a bad split, a question twice, an answer that names no symbol of the index. */
export function codeQuestionProblems(set: CodeQuestionSet, db: Database): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const find = db.query<{ n: number }, [string, string, string | null, string | null]>(
    "SELECT COUNT(*) AS n FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.name = ? AND (s.container IS ? OR s.container = ?)",
  );
  for (const q of set.questions) {
    const where = `"${q.question}"`;
    if (q.split !== "dev" && q.split !== "held-out") problems.push(`${where}: split ${JSON.stringify(q.split)} is neither dev nor held-out`);
    if (seen.has(q.question)) problems.push(`${where} is asked twice`);
    seen.add(q.question);
    if (q.answers.length === 0) problems.push(`${where} has no answer`);
    for (const spec of q.answers) {
      const a = parseAnswer(spec);
      if (find.get(a.path, a.name, a.container, a.container)!.n === 0) problems.push(`${where}: ${spec} names no symbol in the index`);
    }
  }
  return problems;
}

export interface QuestionOutcome {
  question: string;
  split: Split;
  /** 1-based rank of the first hit that answers it; null when none is in the first CUTOFF. */
  rank: number | null;
  /** The first hit, `path:Container.name`, for the report. */
  first: string | null;
}

const label = (h: CodeSearchHit) => `${h.path}:${h.container ? `${h.container}.` : ""}${h.name}`;

export function askQuestions(db: Database, project: string, questions: CodeQuestion[]): QuestionOutcome[] {
  return questions.map((q) => {
    const { hits } = searchSymbols(db, project, CodeSearchRequestSchema.parse({ query: q.question, top: CUTOFF }));
    const at = hits.findIndex((h) => q.answers.some((spec) => answers(h, spec)));
    return { question: q.question, split: q.split, rank: at < 0 ? null : at + 1, first: hits[0] ? label(hits[0]) : null };
  });
}

/** A deterministic pseudo-random sequence, so runs ask the same names. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/**
 * The guard rail beside the questions: looking a symbol up by its name still finds it first. `count`
 * names of the index (at least four characters), each asked as written (`openStore`) and as its words
 * (`open store`); a hit with that name answers.
 */
export function askNames(db: Database, project: string, count: number): QuestionOutcome[] {
  const names = db.query<{ name: string }, []>("SELECT DISTINCT name FROM symbols WHERE length(name) > 3 ORDER BY name").all().map((r) => r.name);
  const random = rng(11);
  const outcomes: QuestionOutcome[] = [];
  for (let i = 0; i < count && names.length > 0; i++) {
    const name = names[Math.floor(random() * names.length)]!;
    for (const query of new Set([name, identifierParts(name).join(" ")])) {
      const { hits } = searchSymbols(db, project, CodeSearchRequestSchema.parse({ query, top: CUTOFF }));
      const at = hits.findIndex((h) => h.name === name);
      outcomes.push({ question: query, split: "dev", rank: at < 0 ? null : at + 1, first: hits[0] ? label(hits[0]) : null });
    }
  }
  return outcomes;
}

export interface QuestionScore {
  questions: number;
  /** Mean reciprocal rank of the first answering hit (0 past the cutoff). */
  mrr: number;
  hitAt1: number;
  hitAt5: number;
  hitAt10: number;
}

export function scoreQuestions(outcomes: QuestionOutcome[]): QuestionScore {
  const n = outcomes.length;
  const share = (ok: (o: QuestionOutcome) => boolean) => (n === 0 ? 0 : outcomes.filter(ok).length / n);
  return {
    questions: n,
    mrr: n === 0 ? 0 : outcomes.reduce((sum, o) => sum + (o.rank === null ? 0 : 1 / o.rank), 0) / n,
    hitAt1: share((o) => o.rank === 1),
    hitAt5: share((o) => o.rank !== null && o.rank <= 5),
    hitAt10: share((o) => o.rank !== null),
  };
}
