// The developer-store injection set (scripts/data/devstore.json): a developer's memories in several
// projects and the prompts they type, each graded with the memories it needs and those acceptable to
// inject. Loading and checking the set, storing it in a daemon, sending every prompt through the
// hooks as a harness would, and scoring what user-prompt-submit injected. Shared by
// scripts/bench-injection.ts and test/server/injection-bench.test.ts.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AGGREGATE_TYPE } from "../../src/contracts/recall";
import { stem } from "../../src/core/search/fts5-tokenizer";
import { postJson } from "./http";

interface DevMemory {
  key: string;
  type: string;
  project: string | null;
  content: string;
  tags: string[];
  createdAt: string;
}

export type Split = "dev" | "held-out";

export interface DevPrompt {
  prompt: string;
  project: string | null;
  needs: string[];
  acceptable: string[];
  split: Split;
}

export interface DevStore {
  about: string;
  memories: DevMemory[];
  prompts: DevPrompt[];
}

const DEVSTORE_PATH = join(import.meta.dir, "..", "data", "devstore.json");

export function loadDevStore(path = DEVSTORE_PATH): DevStore {
  return JSON.parse(readFileSync(path, "utf8")) as DevStore;
}

/** Prompts of one split, or all of them. */
export function promptsOf(store: DevStore, split: Split | "all"): DevPrompt[] {
  return split === "all" ? store.prompts : store.prompts.filter((p) => p.split === split);
}

// ---------------------------------------------------------------------------------------------
// The grading rules, checked

/**
 * Every way the set breaks its own rules (the `about` field): unknown or duplicate keys, a memory both
 * needed and acceptable, another project's memory or a saved aggregate graded needed or acceptable.
 */
export function devStoreProblems(store: DevStore): string[] {
  const problems: string[] = [];
  const byKey = new Map<string, DevMemory>();
  for (const m of store.memories) {
    if (byKey.has(m.key)) problems.push(`memory key ${m.key} is used twice`);
    byKey.set(m.key, m);
  }
  store.prompts.forEach((p, i) => {
    const where = `prompt ${i} "${p.prompt.slice(0, 40)}"`;
    if (p.split !== "dev" && p.split !== "held-out") problems.push(`${where}: split ${JSON.stringify(p.split)} is neither dev nor held-out`);
    for (const key of p.needs.filter((k) => p.acceptable.includes(k))) problems.push(`${where}: ${key} is both needed and acceptable`);
    for (const key of [...p.needs, ...p.acceptable]) {
      const m = byKey.get(key);
      if (!m) problems.push(`${where}: no memory has key ${key}`);
      else if (m.type === AGGREGATE_TYPE) problems.push(`${where}: ${key} is a saved aggregate, never to be injected`);
      else if (m.project !== null && m.project !== p.project) problems.push(`${where}: ${key} belongs to ${m.project}, not to ${p.project ?? "no project"}`);
    }
  });
  return problems;
}

/** Words too common to say what a text is about. */
const STOPWORDS = new Set(
  (
    "a about after again all an and any are as at be been before but by can could did do does doing don done for from " +
    "get had has have he her here him his how i if in into is it its just me my no not now of off on once only or other " +
    "our out over own same she should so some such than that the their them then there these they this those through to " +
    "too under until up very was we were what when where which while who whom why will with would you your yours"
  ).split(" "),
);

/** A text's content words, Porter-stemmed (as the keyword leg stems them): "tests" and "testing" are one word. */
function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().split(/[^\p{L}\p{N}]+/u);
  return new Set(words.filter((w) => w.length > 1 && !STOPWORDS.has(w)).map(stem));
}

/** Whether a prompt shares no content word with any memory it needs (content and tags). */
function sharesNoWord(store: DevStore, p: DevPrompt): boolean {
  const words = contentWords(p.prompt);
  return p.needs.every((key) => {
    const m = store.memories.find((x) => x.key === key)!;
    const theirs = contentWords(`${m.content} ${m.tags.join(" ")}`);
    return ![...words].some((w) => theirs.has(w));
  });
}

/** Of the prompts that need something, the share that shares no content word with what they need. */
export function rewordedShare(store: DevStore): number {
  const needing = store.prompts.filter((p) => p.needs.length > 0);
  return needing.filter((p) => sharesNoWord(store, p)).length / needing.length;
}

// ---------------------------------------------------------------------------------------------
// Running it against a daemon

/** Stores every memory over POST /api/memory/remember; answers memory id -> key. */
export async function rememberDevStore(baseUrl: string, store: DevStore): Promise<Map<string, string>> {
  const keyOf = new Map<string, string>();
  for (const m of store.memories) {
    const body = { content: m.content, type: m.type, tags: m.tags, createdAt: m.createdAt, ...(m.project === null ? {} : { project: m.project }) };
    const res = await postJson<{ id: string; deduped: boolean }>(baseUrl, "/api/memory/remember", body);
    if (res.status !== 201) throw new Error(`remember of ${m.key} answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
    keyOf.set(res.body.id, m.key);
  }
  return keyOf;
}

interface HookAnswer {
  memoryIds: string[];
}

/** One hook call as the harness sends it; throws on anything but a context answer. */
export async function sendHook(baseUrl: string, event: "session-start" | "user-prompt-submit", body: { sessionKey: string; project: string | null; prompt?: string }): Promise<HookAnswer> {
  const { project, ...rest } = body;
  const res = await postJson<HookAnswer>(baseUrl, `/api/hooks/${event}`, { ...rest, harness: "claude-code", ...(project === null ? {} : { project }) });
  if (res.status !== 200 || !Array.isArray(res.body.memoryIds)) throw new Error(`${event} answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  return res.body;
}

export interface PromptOutcome {
  prompt: DevPrompt;
  /** Keys of what user-prompt-submit injected, in its order; an id the set does not know is kept as `?<id>`. */
  injected: string[];
  /** Keys of what session-start injected. */
  atStart: string[];
  /** The user-prompt-submit call's time, client side. */
  ms: number;
}

/** Each prompt in a fresh session: session-start, then user-prompt-submit with the prompt, one at a time. */
export async function runPrompts(
  baseUrl: string,
  prompts: DevPrompt[],
  keyOf: Map<string, string>,
  progress: (line: string) => void = () => {},
): Promise<PromptOutcome[]> {
  const keys = (ids: string[]) => ids.map((id) => keyOf.get(id) ?? `?${id}`);
  const out: PromptOutcome[] = [];
  for (const p of prompts) {
    const sessionKey = `devstore-${randomUUID()}`;
    const start = await sendHook(baseUrl, "session-start", { sessionKey, project: p.project });
    const t0 = performance.now();
    const answer = await sendHook(baseUrl, "user-prompt-submit", { sessionKey, project: p.project, prompt: p.prompt });
    out.push({ prompt: p, injected: keys(answer.memoryIds), atStart: keys(start.memoryIds), ms: performance.now() - t0 });
    if (out.length % 50 === 0) progress(`${out.length}/${prompts.length} prompts`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scoring

export interface InjectionScore {
  prompts: number;
  needSomething: number;
  needNothing: number;
  /** Needed memories injected / needed, averaged over the prompts that need something. */
  recall: number;
  /** The same over all needed memories at once. */
  recallMicro: number;
  /** Needed or acceptable memories injected / all memories injected. */
  precision: number;
  injected: number;
  /** Need-nothing prompts that got nothing unacceptable (injected ⊆ acceptable), as a share. */
  clean: number;
  injectedPerPrompt: number;
  p50Ms: number;
  p95Ms: number;
}

const overlap = (a: string[], b: Set<string>) => a.filter((k) => b.has(k)).length;

export function scoreInjection(outcomes: PromptOutcome[]): InjectionScore {
  const needing = outcomes.filter((o) => o.prompt.needs.length > 0);
  const nothing = outcomes.filter((o) => o.prompt.needs.length === 0);
  const found = needing.map((o) => overlap(o.prompt.needs, new Set(o.injected)));
  const injected = outcomes.reduce((a, o) => a + o.injected.length, 0);
  const good = outcomes.reduce((a, o) => a + overlap(o.injected, new Set([...o.prompt.needs, ...o.prompt.acceptable])), 0);
  const sorted = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  // Nearest rank, as scripts/lib/stats.ts computes its percentiles.
  const percentile = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
  return {
    prompts: outcomes.length,
    needSomething: needing.length,
    needNothing: nothing.length,
    recall: needing.reduce((a, o, i) => a + found[i]! / o.prompt.needs.length, 0) / needing.length,
    recallMicro: found.reduce((a, n) => a + n, 0) / needing.reduce((a, o) => a + o.prompt.needs.length, 0),
    precision: injected > 0 ? good / injected : NaN,
    injected,
    clean: nothing.filter((o) => o.injected.every((k) => o.prompt.acceptable.includes(k))).length / nothing.length,
    injectedPerPrompt: injected / outcomes.length,
    p50Ms: percentile(50),
    p95Ms: percentile(95),
  };
}

export interface StartScore {
  project: string | null;
  prompts: number;
  /** Memories session-start injected for this project (the same for each of its prompts). */
  atStart: number;
  /** Needed memories session-start brought / needed, over the project's prompts. */
  neededByStart: number;
  /** Needed global memories session-start brought / needed global memories. */
  neededGlobalsByStart: number;
  /** Needed memories brought by session-start or user-prompt-submit / needed. */
  neededByEither: number;
}

/** What session-start injected per project, and how much of what the prompts need it already brought. */
export function scoreSessionStart(store: DevStore, outcomes: PromptOutcome[]): StartScore[] {
  const globals = new Set(store.memories.filter((m) => m.project === null).map((m) => m.key));
  const projects = [...new Set(outcomes.map((o) => o.prompt.project))];
  return projects.map((project) => {
    const mine = outcomes.filter((o) => o.prompt.project === project);
    let needed = 0;
    let byStart = 0;
    let neededGlobals = 0;
    let globalsByStart = 0;
    let byEither = 0;
    for (const o of mine) {
      const start = new Set(o.atStart);
      const either = new Set([...o.atStart, ...o.injected]);
      needed += o.prompt.needs.length;
      byStart += overlap(o.prompt.needs, start);
      byEither += overlap(o.prompt.needs, either);
      const g = o.prompt.needs.filter((k) => globals.has(k));
      neededGlobals += g.length;
      globalsByStart += overlap(g, start);
    }
    return {
      project,
      prompts: mine.length,
      atStart: mine[0]?.atStart.length ?? 0,
      neededByStart: byStart / needed,
      neededGlobalsByStart: neededGlobals > 0 ? globalsByStart / neededGlobals : NaN,
      neededByEither: byEither / needed,
    };
  });
}

/** What was injected that the prompt's grading does not allow, for reading the failures. */
export function badInjections(outcomes: PromptOutcome[]): { prompt: DevPrompt; bad: string[]; missed: string[] }[] {
  return outcomes.flatMap((o) => {
    const allowed = new Set([...o.prompt.needs, ...o.prompt.acceptable]);
    const bad = o.injected.filter((k) => !allowed.has(k));
    const missed = o.prompt.needs.filter((k) => !o.injected.includes(k));
    return bad.length > 0 || missed.length > 0 ? [{ prompt: o.prompt, bad, missed }] : [];
  });
}
