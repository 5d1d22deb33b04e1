// What the user-prompt-submit hook injects (docs/hooks.md#what-reaches-the-model): decided for each
// prompt from the evidence recall found, not by one score cut. A prompt about nothing stored
// ("rename foo to bar") still finds memories weakly similar to it, every one about as close as the
// next; what earns a place in the model's context is a memory that stands out from the rest of the
// store for this prompt, or that holds the prompt's rare words. A follow-up that names no subject
// ("do it", "run it") gets nothing. Another project's memory never goes in, nor one a newer memory
// restates with what changed.
import { tokenize } from "../search/fts5-tokenizer";
import { queryTerms } from "../search/text";
import { conceptsOf } from "../search/lexicon";
import { backgroundCosine } from "../search/scoring";
import type { RankedCandidate, Ranking } from "../recall/service";

/** At most this many memories reach one prompt. */
export const MAX_INJECTED = 5;

/** How deep in the ranking (in scope) a newer memory that supersedes a matched one is looked for. */
const SUPERSEDING_DEPTH = 30;

/** A prompt of at most this many content words is short: it must name its subject (below). */
const SHORT_PROMPT_WORDS = 2;

export interface InjectionPolicy {
  /** Keyword evidence (share of the prompt's term weight a memory holds, search/scoring.ts) that counts on its own. */
  keyword: number;
  /** How far above the store's background cosine a memory must stand to count on the vector's word alone. */
  standout: number;
  /** The calibrated vector evidence (search/scoring.ts) such a memory needs besides: close to the prompt, not only closer than the rest. */
  vectorFloor: number;
  /** Which cosine of the store, best first, stands for its background for this prompt (the median past this many). */
  backgroundAt: number;
  /** A memory's evidence must be at least this share of the best one's to go in beside it. */
  nearBest: number;
  /** The cosine a newer memory needs with an older one to supersede it (supersedes, below). */
  sameSubject: number;
  /** The share of the older memory's words a newer one must restate to supersede it. */
  restated: number;
}

// Chosen for precision: session start already lists the project's memories and the person's global
// rules, so a memory the prompt hook adds on weak evidence is mostly noise next to the prompt
// (docs/benchmarks.md#the-prompt-hooks-thresholds).
export const DEFAULT_INJECTION: InjectionPolicy = { keyword: 0.35, standout: 0.17, vectorFloor: 0.1, backgroundAt: 50, nearBest: 0.6, sameSubject: 0.6, restated: 0.6 };

export interface InjectionScope {
  /** The prompt as the user typed it. */
  prompt: string;
  /** The session's project; memories of another project are never injected. Null (a session that names none): any project. */
  project: string | null;
  /** Ids the session was given already in this window. */
  given: ReadonlySet<string>;
  /** The cosine between two memories' vectors (null when unknown). */
  similarity(a: RankedCandidate, b: RankedCandidate): number | null;
}

/** A candidate's evidence for this prompt, 0 when it has none worth injecting. */
function evidence(c: RankedCandidate, base: number, policy: InjectionPolicy): number {
  const keyword = c.keyword >= policy.keyword ? c.keyword : 0;
  const above = c.cosine === null ? 0 : c.cosine - base;
  // A standout counts for a memory that shares a term with the prompt (a word, a part of one, a
  // concept): with none in common it is the model's sense of paraphrase alone, too weak to go on.
  const vector = above >= policy.standout && c.vector >= policy.vectorFloor && c.keyword > 0 ? Math.min(1, above / (2 * policy.standout)) : 0;
  return Math.max(keyword, vector);
}

/** What `make` gives for candidate `c`, made once per choice (`memo` is one of its maps). */
function once(memo: Map<number, Set<string>>, c: RankedCandidate, make: () => Iterable<string>): Set<string> {
  let found = memo.get(c.row.seq);
  if (!found) memo.set(c.row.seq, (found = new Set(make())));
  return found;
}

/** The concepts a memory's words are about (lexicon.ts). */
function conceptsOfRow(c: RankedCandidate, memo: Memo): Set<string> {
  return once(memo.concepts, c, () => conceptsOf(tokensOfRow(c, memo)));
}

/** A memory's tokens as the keyword index has them. */
function tokensOfRow(c: RankedCandidate, memo: Memo): Set<string> {
  return once(memo.tokens, c, () => tokenize(c.row.content));
}

/** What one choice has computed of its candidates, by seq. */
interface Memo {
  tokens: Map<number, Set<string>>;
  concepts: Map<number, Set<string>>;
  words: Map<number, Set<string>>;
}

/**
 * Whether `newer` supersedes `older`: the same statement made again with what changed ("unit tests
 * run with Jest" → "moved unit tests from Jest to Vitest"). The newer is about every concept the
 * older is about, restates most of its words, and is close to it in meaning. No one of these alone
 * will do: memories of one concept differ ("tests run with vitest", "integration tests need
 * Docker"), close vectors are common between unrelated memories of one project, and a newer memory
 * on a broader subject ("product pages show price changes after 5 minutes") does not replace a
 * narrower rule it touches ("money is stored as integer cents").
 */
function supersedes(newer: RankedCandidate, older: RankedCandidate, scope: InjectionScope, policy: InjectionPolicy, memo: Memo): boolean {
  // Cheapest first: the dates, then the vectors' cosine, and only then the memories' words.
  if (newer.row.created_at <= older.row.created_at || (scope.similarity(newer, older) ?? 0) < policy.sameSubject) return false;
  const newerConcepts = conceptsOfRow(newer, memo);
  const olderConcepts = conceptsOfRow(older, memo);
  if (olderConcepts.size === 0 || ![...olderConcepts].every((id) => newerConcepts.has(id))) return false;
  const olderWords = wordsOfRow(older, memo);
  const newerWords = wordsOfRow(newer, memo);
  let restated = 0;
  // A word the newer one holds, or one naming a concept it is about: "spaces" is restated by "tabs
  // for indentation", as "Airflow" by "the pipeline runs on Dagster".
  for (const w of olderWords) if (newerWords.has(w) || conceptsOf([w]).some((id) => newerConcepts.has(id))) restated++;
  return olderWords.size > 0 && restated >= policy.restated * olderWords.size;
}

/** A memory's words that say what it is about: its content tokens but bare numbers and Latin stubs ("ts", "2"). */
function wordsOfRow(c: RankedCandidate, memo: Memo): Set<string> {
  return once(memo.words, c, () => contentTokens(c.row.content).filter((t) => !/^\d+$/.test(t) && !/^[a-z0-9]{1,2}$/.test(t)));
}

/**
 * The prompt's content terms as the keyword index has them: its words but stopwords, an identifier's
 * parts, a CJK run's bigrams (a sentence without spaces is not one word).
 */
function contentTokens(prompt: string): string[] {
  return [...new Set(queryTerms(prompt, { stopwordsOnly: "none" }).flatMap((t) => tokenize(t)))];
}

/** The memories to inject for one prompt, best first. Of two on one subject only the newer. */
export function chooseInjections(ranking: Ranking, scope: InjectionScope, policy: InjectionPolicy = DEFAULT_INJECTION): RankedCandidate[] {
  const base = backgroundCosine(ranking.cosines, policy.backgroundAt);
  const words = contentTokens(scope.prompt);
  // A prompt of function words alone ("do it", "what now?") names nothing a memory could be about.
  if (words.length === 0) return [];
  const memo: Memo = { tokens: new Map(), concepts: new Map(), words: new Map() };
  // A prompt of a word or two ("run it", "keep going", "commit this") is about a subject only through
  // a word that names one (a concept of the lexicon), or through its two words together ("yellow
  // kite"): a lone word of it is the conversation's, and a memory that happens to hold it is no match.
  const promptConcepts = words.length <= SHORT_PROMPT_WORDS ? new Set(conceptsOf(words)) : null;
  const onSubject = (c: RankedCandidate) => {
    if (promptConcepts === null || [...conceptsOfRow(c, memo)].some((id) => promptConcepts.has(id))) return true;
    const held = tokensOfRow(c, memo);
    return words.length === 2 && words.every((w) => held.has(w));
  };
  const inScope = ranking.ranked.filter((c) => scope.project === null || c.row.project === null || c.row.project === scope.project);
  const found = inScope
    .map((c) => ({ c, e: evidence(c, base, policy) }))
    // The subject's check tokenizes a memory: only those with evidence are worth it.
    .filter((x) => x.e > 0 && onSubject(x.c))
    .sort((a, b) => b.e - a.e);
  const given = found.filter((x) => scope.given.has(x.c.row.id)).map((x) => x.c);
  // What the window was given stays given: and a memory older than one given on its subject is not
  // brought back at a later prompt, the newer one being out of the list only because it was given.
  const scored = found.filter(({ c }) => !scope.given.has(c.row.id) && !given.some((g) => supersedes(g, c, scope, policy, memo)));
  if (scored.length === 0) return [];
  const best = scored[0]!.e;
  const chosen: RankedCandidate[] = [];
  // A memory that a newer one among the ranking's first places restates gives its place to that one:
  // its words matched the prompt, but what was decided later holds ("the airflow DAG isn't showing
  // up" gets the move to Dagster). None goes in when the window was given the newest already.
  const firstPlaces = inScope.slice(0, SUPERSEDING_DEPTH);
  const newest = (c: RankedCandidate): RankedCandidate => {
    const newer = firstPlaces.find((n) => supersedes(n, c, scope, policy, memo));
    return newer === undefined ? c : newest(newer);
  };
  for (const { c: matched, e } of scored) {
    const c = newest(matched);
    if (scope.given.has(c.row.id) || chosen.includes(c)) continue;
    if (chosen.some((o) => supersedes(o, c, scope, policy, memo))) continue;
    // The newer statement replaces the older, however weaker its match: what was decided later holds.
    const older = chosen.findIndex((o) => supersedes(c, o, scope, policy, memo));
    if (older !== -1) chosen[older] = c;
    else if (chosen.length < MAX_INJECTED && e >= policy.nearBest * best) chosen.push(c);
  }
  return chosen;
}
