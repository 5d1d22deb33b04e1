// The developer-memory paraphrase set (scripts/data/paraphrase-dev.json): memories a developer would
// keep and questions that ask for them in other words, among distractors and a background of the
// synthetic corpus (content.ts). Written for Signet, so it can be measured beside LoCoMo without
// tuning to LoCoMo alone.
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RECALL_STRONG_SCORE } from "../../src/contracts/scores";
import { RecallRequestSchema } from "../../src/contracts/recall";
import { RememberRequestSchema } from "../../src/contracts/memory";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import type { RecallService } from "../../src/core/recall/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { makeGenerator } from "./content";
import { NO_ANSWER_QUERIES } from "./no-answer";

interface DevSet {
  memories: { key: string; content: string; tags?: string[] }[];
  questions: { q: string; answers: string[]; kind: "paraphrase" | "lexical" }[];
}

export const DEV_SET_PATH = join(import.meta.dir, "..", "data", "paraphrase-dev.json");

function loadDevSet(): DevSet {
  return JSON.parse(readFileSync(DEV_SET_PATH, "utf8")) as DevSet;
}

const caller: Caller = { agentId: "default", actor: "bench", actorType: "script", runtimePath: null };

/** Writes the set's memories and `background` synthetic ones into a new database. */
export async function buildDevStore(dbFile: string, background: number): Promise<void> {
  const set = loadDevSet();
  const db = openDatabase(dbFile);
  migrate(db);
  const memory = new MemoryService(new SqliteMemoryStore(db));
  const gen = makeGenerator(7);
  const requests = Array.from({ length: background }, () => RememberRequestSchema.parse(JSON.parse(gen())));
  for (const m of set.memories) requests.push(RememberRequestSchema.parse({ content: m.content, tags: m.tags ?? [] }));
  // Issued together, they are written in this order in one group commit.
  await Promise.all(requests.map((req) => memory.remember(caller, req)));
  db.close();
}

/** Memory id -> the set's key, for a store buildDevStore wrote (found by content). */
export function devKeys(dbFile: string): Map<string, string> {
  const keyByContent = new Map(loadDevSet().memories.map((m) => [m.content, m.key]));
  const db = new Database(dbFile, { readonly: true });
  try {
    const rows = db.query<{ id: string; content: string }, []>("SELECT id, content FROM memories WHERE deleted_at IS NULL").all();
    return new Map(rows.flatMap((r) => (keyByContent.has(r.content) ? [[r.id, keyByContent.get(r.content)!] as [string, string]] : [])));
  } finally {
    db.close();
  }
}

interface DevKindScore {
  n: number;
  r1: number;
  r5: number;
  mrr: number;
  /** Questions whose answer is returned at the default minimum score. */
  foundAtMin: number;
}

export interface DevScore {
  paraphrase: DevKindScore;
  lexical: DevKindScore;
  /** No-answer questions (no-answer.ts) with no result at the default minimum score. */
  noAnswerEmpty: number;
  noAnswerAsked: number;
}

/** Asks every question of the set (and the no-answer questions) and scores the answers. */
export async function scoreDevSet(recall: RecallService, keyOf: Map<string, string>): Promise<DevScore> {
  const set = loadDevSet();
  const per = { paraphrase: [] as { r1: number; r5: number; mrr: number; atMin: number }[], lexical: [] as { r1: number; r5: number; mrr: number; atMin: number }[] };
  for (const q of set.questions) {
    const r = await recall.recall(caller, RecallRequestSchema.parse({ query: q.q, limit: 10, minScore: 0 }));
    const keys = r.results.map((x) => keyOf.get(x.id));
    const gold = new Set(q.answers);
    const within = (k: number) => keys.slice(0, k).filter((key) => key !== undefined && gold.has(key)).length / gold.size;
    const first = keys.findIndex((key) => key !== undefined && gold.has(key));
    const atMin = first >= 0 && r.results[first]!.score >= RECALL_STRONG_SCORE ? 1 : 0;
    per[q.kind].push({ r1: within(1), r5: within(5), mrr: first >= 0 ? 1 / (first + 1) : 0, atMin });
    await Bun.sleep(0);
  }
  let noAnswerEmpty = 0;
  for (const query of NO_ANSWER_QUERIES) {
    const r = await recall.recall(caller, RecallRequestSchema.parse({ query }));
    if (r.results.length === 0) noAnswerEmpty++;
  }
  const mean = (xs: { r1: number; r5: number; mrr: number; atMin: number }[]): DevKindScore => {
    const avg = (f: (x: (typeof xs)[number]) => number) => (xs.length ? xs.reduce((a, x) => a + f(x), 0) / xs.length : NaN);
    return { n: xs.length, r1: avg((x) => x.r1), r5: avg((x) => x.r5), mrr: avg((x) => x.mrr), foundAtMin: avg((x) => x.atMin) };
  };
  return { paraphrase: mean(per.paraphrase), lexical: mean(per.lexical), noAnswerEmpty, noAnswerAsked: NO_ANSWER_QUERIES.length };
}
