// signet_code_search (docs/code.md#search): symbols ranked for a query that is either a name
// (`openStore`, `open store`) or a developer's question in their own words ("where is the admin token
// checked"). Candidates come from FTS5 (every word as a prefix, Porter-stemmed) and from an exact name;
// each is then scored by how much of the question's weight its name, doc, signature, body and path
// cover, with a lift for the name itself and for what is likely an answer (a function, not a test).
// The weights were chosen on scripts/data/code-questions.json (scripts/bench-code.ts).
import type { Database } from "bun:sqlite";
import type { CodeSearchHit, CodeSearchRequest, CodeSearchResponse } from "../../contracts/code";
import { tokenize } from "../search/fts5-tokenizer";
import { isStopword, WORD } from "../search/text";
import { identifierParts } from "./names";
import type { SymbolRow } from "./queries";
import { relatedStems } from "./thesaurus";

/** Candidates each FTS5 query contributes, best by bm25 first. */
const CANDIDATES = 100;
const MAX_WORDS = 16;
/** bm25 weights of symbols_fts's columns: name, parts, signature, doc, path, body. */
const COLUMN_WEIGHTS = "10.0, 6.0, 2.0, 1.0, 1.0, 0.5";
/** How much a word counts where it is found: in the name, in the doc or signature, in the body, in the path. */
const FIELD_WEIGHTS = [1, 0.7, 0.6, 0.3] as const;
/** A word of the same meaning (thesaurus.ts) counts this much of the word itself. */
const RELATED = 0.9;
const COVERAGE_WEIGHT = 10;
const BM25_WEIGHT = 2;
/** What kind of symbol answers a question: code that does something, rarely a constant. */
const KIND_WEIGHTS: Record<string, number> = { function: 0.3, method: 0.3, class: 0.3, struct: 0.3, trait: 0.3, enum: 0.3, interface: 0, type: 0, constant: -1 };
const EXPORTED = 0.5;
/** Tests use what they test by name: ranked below the code itself. */
const TEST_FILE = -1;
const TEST_PATH = /(^|\/)(test|tests|__tests__|spec)\/|\.(test|spec)\.[a-z]+$|_test\.go$|(^|\/)test_[^/]*\.py$/;

/** A name as search compares it, the expression of the symbols_key index: `MAX_BODY` and `maxBody` alike. */
const NAME_KEY_SQL = "lower(replace(s.name, '_', ''))";
const nameKey = (name: string) => name.toLowerCase().replace(/_/g, "");

/** A symbol as search weighs it: its row, and the words of its fields. */
interface Candidate extends SymbolRow {
  doc: string;
  exported: number;
  parts: string;
  pathWords: string;
  body: string;
}

/** The question's words: identifier parts, lower case, without stopwords unless it is made of nothing else. */
function queryWords(query: string): string[] {
  const words = query.match(WORD) ?? [];
  const meaningful = words.filter((w) => !isStopword(w.toLowerCase()));
  return [...new Set(identifierParts((meaningful.length > 0 ? meaningful : words).join(" ")))].slice(0, MAX_WORDS);
}

/** An FTS5 term: a prefix, but for a word of one or two characters (`id`), which would match most of the index. */
const ftsTerm = (word: string) => (word.length > 2 ? `"${word}"*` : `"${word}"`);
const stemOf = (word: string) => tokenize(word)[0] ?? word;
/** Whether a field's token holds the stem: whole for a short one, else as a prefix (`check` in `checker`). */
const holds = (token: string, stem: string) => (stem.length > 2 ? token.startsWith(stem) : token === stem);

/**
 * Which of the query's words a field holds, as bits: word i itself sets bit i, only a word of the same
 * meaning bit MAX_WORDS + i. Each distinct token is looked at once per query: names and common words
 * recur in most candidates. `words` takes a field of lower-case words (parts, body, path), `text` any
 * other (doc, signature).
 */
function queryMatcher(stems: string[], related: (readonly string[])[]): { words(field: string): number; text(field: string): number } {
  const ofToken = new Map<string, number>();
  const ofWord = new Map<string, number>();
  const tokenBits = (token: string): number => {
    let bits = ofToken.get(token);
    if (bits !== undefined) return bits;
    bits = 0;
    for (const [i, stem] of stems.entries()) {
      if (holds(token, stem)) bits |= 1 << i;
      else if (related[i]!.some((other) => holds(token, other))) bits |= 1 << (MAX_WORDS + i);
    }
    ofToken.set(token, bits);
    return bits;
  };
  return {
    words(field) {
      let bits = 0;
      for (const word of field.split(" ")) {
        let wordBits = ofWord.get(word);
        if (wordBits === undefined) ofWord.set(word, (wordBits = tokenBits(stemOf(word))));
        bits |= wordBits;
      }
      return bits;
    },
    text(field) {
      let bits = 0;
      for (const token of tokenize(field)) bits |= tokenBits(token);
      return bits;
    },
  };
}

export function searchSymbols(db: Database, project: string, req: CodeSearchRequest): CodeSearchResponse {
  const started = performance.now();
  const words = queryWords(req.query);
  if (words.length === 0) return { project, query: req.query, hits: [], tookMs: 0 };
  const compact = nameKey(req.query.replace(/[^A-Za-z0-9_]/g, ""));
  const stems = words.map(stemOf);
  const related = stems.map((stem) => relatedStems(stem));

  const fileArgs = req.file ? [`%${req.file.replace(/[\\%_]/g, (c) => `\\${c}`)}%`] : [];
  const fileFilter = req.file ? "AND rowid IN (SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path LIKE ? ESCAPE '\\')" : "";
  // The best candidates by bm25 first, joined to their symbols after: joining every match before the
  // sort is what costs on a large project. A file filter must apply before the cut.
  const ranked = db.query<{ id: number; bm25: number }, (string | number)[]>(
    `SELECT rowid AS id, bm25(symbols_fts, ${COLUMN_WEIGHTS}) AS bm25 FROM symbols_fts WHERE symbols_fts MATCH ? ${fileFilter} ORDER BY bm25 LIMIT ?`,
  );
  const bm25 = new Map<number, number>();
  const add = (match: string) => {
    for (const r of ranked.all(match, ...fileArgs, CANDIDATES)) if (!bm25.has(r.id)) bm25.set(r.id, -r.bm25);
  };
  const terms = words.map(ftsTerm);
  // Symbols with every word (a name asked for in its words), then any word or a word of the same meaning.
  if (terms.length > 1) add(terms.join(" AND "));
  add([...new Set([...terms, ...related.flat().map(ftsTerm)])].join(" OR "));
  const exact = db
    .query<{ id: number }, string[]>(
      `SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id WHERE ${NAME_KEY_SQL} = ? ${req.file ? "AND f.path LIKE ? ESCAPE '\\'" : ""} LIMIT ${CANDIDATES}`,
    )
    .all(compact, ...fileArgs);
  for (const r of exact) if (!bm25.has(r.id)) bm25.set(r.id, 0);
  if (bm25.size === 0) return { project, query: req.query, hits: [], tookMs: Math.round((performance.now() - started) * 100) / 100 };

  // A word's weight: how rare it is in the index (idf), so "token" counts for more than "get".
  const total = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM symbols").get()!.n;
  const count = db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM symbols_fts WHERE symbols_fts MATCH ?");
  const idf = terms.map((term) => Math.log(1 + total / (1 + count.get(term)!.n)));
  const idfSum = idf.reduce((a, b) => a + b, 0);
  const bestBm25 = Math.max(...bm25.values(), 1e-9);

  const rows = db
    .query<Candidate, [string]>(
      `SELECT s.id, s.name, s.kind, s.container, s.signature, f.path, s.start_line AS startLine, s.end_line AS endLine, s.doc, s.exported,
              x.parts, x.path AS pathWords, x.body
       FROM symbols s JOIN files f ON f.id = s.file_id JOIN symbols_fts x ON x.rowid = s.id WHERE s.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify([...bm25.keys()]));
  const matches = queryMatcher(stems, related);
  const hits: CodeSearchHit[] = rows.map((r) => {
    const fields = [matches.words(r.parts), matches.text(`${r.doc} ${r.signature}`), matches.words(r.body), matches.words(r.pathWords)];
    let covered = 0;
    for (const [i, weight] of idf.entries()) {
      let best = 0;
      for (const [f, found] of fields.entries()) {
        const field = FIELD_WEIGHTS[f]!;
        if (found & (1 << i)) best = Math.max(best, field);
        else if (found & (1 << (MAX_WORDS + i))) best = Math.max(best, field * RELATED);
      }
      covered += best * weight;
    }
    const key = nameKey(r.name);
    const debug = {
      coverage: (COVERAGE_WEIGHT * covered) / idfSum,
      bm25: (BM25_WEIGHT * bm25.get(r.id)!) / bestBm25,
      nameMatch: key === compact ? 6 : key.startsWith(compact) ? 3 : key.includes(compact) ? 1.5 : 0,
      kindWeight: KIND_WEIGHTS[r.kind] ?? 0,
      testFile: TEST_PATH.test(r.path) ? TEST_FILE : 0,
      exported: r.exported ? EXPORTED : 0,
    };
    const score = debug.coverage + debug.bm25 + debug.nameMatch + debug.kindWeight + debug.testFile + debug.exported;
    const firstDoc = r.doc.split("\n", 1)[0] ?? "";
    return {
      id: r.id,
      name: r.name,
      kind: r.kind,
      container: r.container,
      signature: r.signature,
      path: r.path,
      startLine: r.startLine,
      endLine: r.endLine,
      parts: r.parts.split(" "),
      exported: r.exported === 1,
      snippet: firstDoc ? `${r.signature}\n${firstDoc}` : r.signature,
      score: Math.round(score * 1000) / 1000,
      ...(req.debug ? { debug } : {}),
    };
  });
  hits.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.startLine - b.startLine);
  return { project, query: req.query, hits: hits.slice(0, req.top), tookMs: Math.round((performance.now() - started) * 100) / 100 };
}
