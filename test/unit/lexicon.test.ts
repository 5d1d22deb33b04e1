// The concept lexicon: its data keeps its rules (one token per term, at most two concepts per
// token), its concept tokens survive the keyword index's tokenizer and FTS5 itself unchanged, and a
// memory and a prompt about one concept in different words meet on it.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tokenize } from "../../src/core/search/fts5-tokenizer";
import { CONCEPT_PREFIX, CONCEPTS, conceptsOf, conceptToken } from "../../src/core/search/lexicon";
import { queryTerms } from "../../src/core/search/text";

const ROOT = join(import.meta.dir, "../..");
// The tokenizer memories_fts is declared with, so the test follows the migration if it changes.
const FTS_TOKENIZER = /memories_fts USING fts5\([^)]*tokenize = '([^']+)'/.exec(
  readFileSync(join(ROOT, "migrations/001_init.sql"), "utf8"),
)![1]!;

const of = (text: string) => conceptsOf(tokenize(text));

describe("lexicon data", () => {
  test("has at least 120 concepts, each with a unique id and terms", () => {
    expect(CONCEPTS.length).toBeGreaterThanOrEqual(120);
    const ids = CONCEPTS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { id, terms } of CONCEPTS) {
      expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(terms.length, id).toBeGreaterThan(0);
    }
  });

  test("every term is lower case and one token", () => {
    const bad = CONCEPTS.flatMap(({ id, terms }) =>
      terms.filter((t) => t !== t.toLowerCase() || tokenize(t).length !== 1).map((t) => `${id}: ${t}`),
    );
    expect(bad).toEqual([]);
  });

  test("no token stands for more than two concepts", () => {
    const byToken = new Map<string, Set<string>>();
    for (const { id, terms } of CONCEPTS) {
      for (const term of terms) {
        const token = tokenize(term)[0]!;
        byToken.set(token, (byToken.get(token) ?? new Set()).add(id));
      }
    }
    const crowded = [...byToken].filter(([, ids]) => ids.size > 2).map(([token, ids]) => `${token}: ${[...ids]}`);
    expect(crowded).toEqual([]);
  });
});

describe("concept tokens", () => {
  const tokens = CONCEPTS.map((c) => conceptToken(c.id));

  test("are distinct and start with the prefix", () => {
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const t of tokens) expect(t.startsWith(CONCEPT_PREFIX)).toBe(true);
  });

  test("are their own single token under tokenize and under FTS5", () => {
    for (const t of tokens) expect(tokenize(t)).toEqual([t]);
    const db = new Database(":memory:");
    db.run(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '${FTS_TOKENIZER}')`);
    db.run("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')");
    db.query("INSERT INTO t (x) VALUES (?)").run(tokens.join(" "));
    const indexed = (db.query("SELECT term FROM v").values() as [string][]).map(([term]) => term);
    db.close();
    expect(indexed.sort()).toEqual([...tokens].sort());
  });

  test("never come out of ordinary text or a query", () => {
    const text = "Use pnpm, never npm or yarn; zcpackagemanager indentation, tabs and spaces";
    expect(tokenize(text).some((t) => t.includes(CONCEPT_PREFIX))).toBe(false);
    // Even a query that holds one verbatim loses the marker: queries keep letters, digits and "_".
    expect(queryTerms(`${conceptToken("indentation")} tabs`).some((t) => t.includes(CONCEPT_PREFIX))).toBe(false);
  });
});

describe("conceptsOf", () => {
  test("a package manager preference and an install question meet", () => {
    const memory = of("Use pnpm, never npm or yarn");
    const prompt = of("how do I install a dependency");
    expect(memory).toContain("package-manager");
    expect(prompt).toContain("package-manager");
  });

  test("an indentation preference and an indentation question meet", () => {
    expect(of("Prefer tabs")).toContain("indentation");
    expect(of("which indentation do I like?")).toContain("indentation");
  });

  test("a migration tool and a schema change meet", () => {
    expect(of("Run migrations with sqitch")).toContain("db-migration");
    expect(of("add a column to the orders table")).toContain("db-migration");
  });

  test("finds nothing in text about no developer concept", () => {
    expect(of("Rename the variable foo to bar")).toEqual([]);
    expect(of("what is the capital of France")).toEqual([]);
  });

  test("gives each concept once, in order of first mention", () => {
    expect(of("vitest then jest, then vitest again")).toEqual(["testing", "unit-testing"]);
    expect(conceptsOf([])).toEqual([]);
  });

  test("is cheap per call (printed, not asserted)", () => {
    const text = tokenize(
      "We deploy the api with docker on kubernetes, run migrations with sqitch, keep secrets in vault, " +
        "log to datadog and test everything with vitest before every release to the staging cluster",
    ).slice(0, 30);
    expect(text.length).toBe(30);
    let found = 0;
    const start = performance.now();
    for (let i = 0; i < 10_000; i++) found += conceptsOf(text).length;
    const ms = performance.now() - start;
    console.log(`conceptsOf: 10,000 calls on 30 tokens in ${ms.toFixed(1)} ms`);
    expect(found).toBe(10_000 * conceptsOf(text).length);
  });
});
