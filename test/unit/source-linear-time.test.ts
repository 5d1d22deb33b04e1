// What chunking and keyword indexing do with a file's lines takes time in proportion to the text
// (src/core/sources/chunk.ts, store.ts): a file of long heading-like, declaration-like or plain word
// lines (up to the 20,000-character line limit) must not hold the daemon for seconds. No clock
// limit: the same number of characters is timed as one long line and as sixteen lines a sixteenth
// as long, and the times compared: work in proportion to the text takes about as long either way,
// work growing with the square of a line's length sixteen times as long on the long line.
import { describe, expect, test } from "bun:test";
import { chunkText } from "../../src/core/sources/chunk";
import { keywordColumns } from "../../src/core/sources/store";

const PIECES = 16;
const SHORT = 1200;
/** Halfway (in log scale) between 1 and 16: well above proportional work, well under quadratic. */
const MAX_RATIO = 4;

/** The least time of several calls of `work`: the one that GC and the JIT did not disturb. */
function fastest(work: () => void, runs = 7): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** How much longer `work` takes on one line of PIECES * SHORT characters than on PIECES lines of SHORT. */
function growth(lineOf: (chars: number) => string, work: (text: string) => void): number {
  const short = `${lineOf(SHORT)}\n`.repeat(PIECES);
  const long = `${lineOf(SHORT * PIECES)}\n`;
  work(short); // compiled before it is timed
  return fastest(() => work(long)) / fastest(() => work(short));
}

describe("chunking and indexing take time in proportion to a line's length", () => {
  test.each([
    ["hashes and spaces", (n: number) => `# ${" #".repeat(n / 2)}x`],
    ["a heading of spaces", (n: number) => `#${" ".repeat(n)}x`],
    ["a heading with a closing run", (n: number) => `## ${"a ".repeat(n / 4)}${"#".repeat(n / 2)}x`],
  ])("Markdown: %s", (_, lineOf) => {
    expect(growth(lineOf, (text) => chunkText(text, "markdown"))).toBeLessThan(MAX_RATIO);
  });

  test.each([
    ["a declaration keyword then spaces", (n: number) => `function${" ".repeat(n)}x`],
    ["export then spaces", (n: number) => `export${" ".repeat(n)}x`],
    ["modifiers", (n: number) => `${"async ".repeat(n / 6)}x`],
    ["a shell function's name", (n: number) => `a${"b".repeat(n / 2)}${" ".repeat(n / 2)}x`],
    ["a comment above a declaration", (n: number) => `${" ".repeat(n)}x\nfunction f() {`],
  ])("code: %s", (_, lineOf) => {
    expect(growth(lineOf, (text) => chunkText(text, "code"))).toBeLessThan(MAX_RATIO);
  });

  test.each([
    ["a lowercase word", (n: number) => "a".repeat(n)],
    ["words with no capital", (n: number) => "ab".repeat(n / 2)],
  ])("index terms: %s", (_, lineOf) => {
    expect(growth(lineOf, (text) => keywordColumns(text, null, "notes/a.md"))).toBeLessThan(MAX_RATIO);
  });
});

describe("the linear scans find what the patterns they replace found", () => {
  test("ATX headings: levels, titles and closing runs as CommonMark reads them", () => {
    const headings = (text: string) => chunkText(`${text}\n\n${"body text ".repeat(30)}\n`, "markdown")[0]!.heading;
    expect(headings("# Guide")).toBe("Guide");
    expect(headings("   ### Deep ###   ")).toBe("Deep");
    expect(headings("## Install\t##")).toBe("Install");
    expect(headings("# C#")).toBe("C#");
    expect(headings("#\tTabbed")).toBe("Tabbed");
    // Not headings: no space after the hashes, seven hashes, four spaces of indent.
    expect(headings("#hashtag")).toBeNull();
    expect(headings("####### seven")).toBeNull();
    expect(headings("    # indented")).toBeNull();
  });

  test("a declaration's heading is the line up to its body, value, type or parameters", () => {
    const heading = (line: string) => chunkText(`${line}\n  return 1;\n}\n`, "code")[0]!.heading;
    expect(heading("export function burrowDepth(density: number): number {")).toBe("export function burrowDepth");
    expect(heading("const limit = 5;")).toBe("const limit");
    expect(heading("def walk(self):")).toBe("def walk");
    expect(heading("class Den {")).toBe("class Den");
    expect(heading(`function${" ".repeat(30)}(x) {`)).toBe("function");
  });

  test("index terms are those of each word with a capital, digit, underscore or CJK character", () => {
    const terms = (text: string) => keywordColumns(text, null, "")[3];
    expect(terms("plain words only")).toBe("");
    expect(terms("burrowDepth snake_case")).toBe(keywordColumns("burrowDepth", null, "")[3] + " " + keywordColumns("snake_case", null, "")[3]);
    expect(terms("burrowDepth")).not.toBe("");
  });
});
