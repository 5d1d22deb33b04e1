// Text handling for the keyword leg. The FTS index (porter + unicode61) sees words; this module adds
// what it cannot: parts of code identifiers and paths, and bigrams of CJK runs (which have no spaces),
// and turns a natural-language question into an OR of its meaningful terms, never an AND.
import { tokenize } from "./fts5-tokenizer";
import { conceptToken, conceptsOf } from "./lexicon";

const STOPWORDS = new Set(
  (
    "a an the and or but if of at by for with about against between into through during before after above below to " +
    "from up down in out on off over under again further then once here there when where why how all any both each few " +
    "more most other some such no nor not only own same so than too very s t can will just don should now i me my myself " +
    "we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they " +
    "them their theirs themselves what which who whom whose this that these those am is are was were be been being have has " +
    "had having do does did doing would could ought let lets also ever get gets getting got gotten go goes going gone went like every"
  ).split(" "),
);

/**
 * Words the stemmer turns into a stopword ("one" → "on"): a query holding one would match every
 * memory that holds the stopword. Only queryTerms drops them; code search, whose questions name
 * counts ("change one table in the toml config"), ranks better with them.
 */
const STEMMED_TO_STOPWORDS = new Set(["one", "ones"]);

/** Words too common to say what a text is about. */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
export const WORD = /[\p{L}\p{N}_]+/gu;
const MAX_QUERY_TERMS = 64;

/** Words with an underscore, a digit or an inner capital: the only ones that can split into parts. */
const IDENTIFIER_SHAPE = /[_\d]|[a-z][A-Z]|[A-Z]{2}[a-z]/;

/**
 * camelCase, PascalCase, snake_case and digit boundaries: "getHTTPResponse2" → get, http, response, 2;
 * [] for a word that does not split. Also the code index's name parts (core/code/names.ts).
 */
export function identifierParts(word: string): string[] {
  if (!IDENTIFIER_SHAPE.test(word)) return [];
  const parts = word
    .split(/_+/)
    .flatMap((w) => w.split(/(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])/))
    .map((p) => p.toLowerCase())
    .filter((p) => p.length > 0);
  return parts.length > 1 ? parts : [];
}

function cjkBigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  const out: string[] = [];
  for (let i = 0; i < chars.length - 1; i++) out.push(chars[i]! + chars[i + 1]!);
  return out;
}

/** Extra tokens to index beside the text itself (the `terms` column of the keyword index). */
export function indexTerms(text: string): string {
  const out: string[] = [];
  for (const word of text.match(WORD) ?? []) out.push(...identifierParts(word));
  // Single characters too, so a one-character query ("猫") still finds the text.
  for (const run of text.match(CJK) ?? []) out.push(...cjkBigrams(run), ...(run.length > 1 ? [...run] : []));
  return out.join(" ");
}

/**
 * The four keyword-index columns of a memory: content, tags, hints and the extra terms, which hold
 * the tokens of the concepts its words are about (lexicon.ts), so a prompt about the concept in
 * other words still meets it.
 */
export function keywordColumns(content: string, tagsJson: string, hintsJson: string): [string, string, string, string] {
  const tags = (JSON.parse(tagsJson) as string[]).join(" ");
  const hints = (JSON.parse(hintsJson) as string[]).join("\n");
  const concepts = conceptsOf(tokenize(`${content}\n${tags}\n${hints}`)).map(conceptToken);
  return [content, tags, hints, [indexTerms(`${content}\n${hints}`), ...concepts].join(" ")];
}

function quote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/**
 * An FTS5 MATCH expression for a free-text query: every meaningful term OR-ed, so BM25 ranks by how
 * many and how rare the matching terms are. Returns null when the query has no searchable term.
 */
export function matchExpression(query: string): string | null {
  const terms = queryTerms(query);
  return terms.length ? matchOfTerms(terms) : null;
}

/** The MATCH expression of terms already taken from a query (see queryTerms). */
export function matchOfTerms(terms: string[]): string {
  return terms.map(quote).join(" OR ");
}

/**
 * The query's words shaped like code identifiers (snake_case, camelCase, letters with digits), lower
 * case as queryTerms gives them: a memory holding one matches the query exactly (fusion.ts).
 */
export function identifierWords(query: string): Set<string> {
  const words = query.normalize("NFKC").match(WORD) ?? [];
  return new Set(words.filter((w) => IDENTIFIER_SHAPE.test(w) && /\p{L}/u.test(w)).map((w) => w.toLowerCase()));
}

/**
 * The meaningful terms of a free-text query, each searched on its own (see matchExpression). A query
 * made only of stopwords ("who is he") still searches for them rather than for nothing, unless
 * `stopwordsOnly` is "none" (a prompt's own words: injection.ts).
 */
export function queryTerms(query: string, { stopwordsOnly = "searched" }: { stopwordsOnly?: "searched" | "none" } = {}): string[] {
  const normalized = query.normalize("NFKC");
  const words = normalized.match(WORD) ?? [];
  const lower = words.map((w) => w.toLowerCase());
  let terms = lower.filter((w) => !STOPWORDS.has(w) && !STEMMED_TO_STOPWORDS.has(w));
  if (terms.length === 0 && stopwordsOnly === "searched") terms = lower;
  for (const word of words) terms.push(...identifierParts(word));
  for (const run of normalized.match(CJK) ?? []) terms.push(...cjkBigrams(run));
  return [...new Set(terms)].slice(0, MAX_QUERY_TERMS);
}
