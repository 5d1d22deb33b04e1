// Chunking (src/core/sources/chunk.ts) on known files: boundaries and line ranges exactly. The
// .gitignore rules are checked against git in file-walk.test.ts.
import { describe, expect, test } from "bun:test";
import { MAX_CHUNK_CHARS, chunkText } from "../../src/core/sources/chunk";
import { extractText } from "../../src/core/sources/extract";
import type { PdfExtractor } from "../../src/core/sources/pdf";

/** A line of exactly `n` characters. */
const line = (word: string, n: number) => `${word} `.repeat(n).slice(0, n);

/** The Markdown file the exact-boundary test knows line by line. */
function handbook(): string {
  return [
    "# Quokka handbook", // 1
    "",
    line("intro", 250), // 3
    "",
    "## Feeding", // 5
    "",
    line("leaves", 250), // 7
    "",
    "```sh", // 9
    "# not a heading inside a fence",
    "```", // 11
    "",
    "## Long section", // 13
    "",
    ...Array.from({ length: 10 }, (_, i) => line(`alpha${i}`, 150)), // 15-24
    "",
    ...Array.from({ length: 5 }, (_, i) => line(`beta${i}`, 150)), // 26-30
    "",
    "### Tail", // 32
    "",
    line("tail", 250), // 34
    "",
  ].join("\n");
}

describe("chunking", () => {
  test("Markdown: a chunk per heading section, a long section cut at a paragraph end with two lines of overlap", () => {
    const chunks = chunkText(handbook(), "markdown");
    expect(chunks.map((c) => [c.startLine, c.endLine, c.heading])).toEqual([
      [1, 3, "Quokka handbook"],
      // The "# ..." line inside the fence is not a heading.
      [5, 11, "Quokka handbook > Feeding"],
      // 13-24 is the most that fits below MAX_CHUNK_CHARS ending at a paragraph's end ...
      [13, 24, "Quokka handbook > Long section"],
      // ... and the rest repeats its last two lines.
      [23, 30, "Quokka handbook > Long section"],
      [32, 34, "Quokka handbook > Long section > Tail"],
    ]);
    const lines = handbook().split("\n");
    for (const c of chunks) {
      expect(c.content).toBe(lines.slice(c.startLine - 1, c.endLine).join("\n"));
      expect(c.content.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
    }
  });

  test("small neighbouring sections are merged into one chunk", () => {
    const chunks = chunkText("# A\n\nshort\n\n## B\n\nalso short\n", "markdown");
    expect(chunks.map((c) => [c.startLine, c.endLine, c.heading])).toEqual([[1, 7, "A"]]);
  });

  test("code: a chunk starts at each top-level declaration, with the comment above it", () => {
    const body = (name: string) => Array.from({ length: 6 }, (_, i) => `  const ${name}${i} = compute("${line(name, 30)}");`);
    const text = [
      'import { x } from "y";', // 1
      "",
      "/** Adds things. */", // 3
      "export function add(a: number) {", // 4
      ...body("add"), // 5-10
      "}", // 11
      "",
      "// The class.", // 13
      "@decorated", // 14
      "export class Store {", // 15
      ...body("store"), // 16-21
      "}", // 22
      "",
      "def python_too():", // 24
      ...body("py"), // 25-30
    ].join("\n");
    const chunks = chunkText(text, "code");
    expect(chunks.map((c) => [c.startLine, c.endLine, c.heading])).toEqual([
      // The import lines alone are under the merge size, so they join the first function.
      [1, 11, "export function add"],
      [13, 22, "export class Store"],
      [24, 30, "def python_too"],
    ]);
  });

  test("text: blank-line paragraphs packed up to the size, each cut repeating two lines", () => {
    const paragraphs = Array.from({ length: 6 }, (_, p) => Array.from({ length: 4 }, (_, i) => line(`p${p}l${i}`, 100)).join("\n"));
    const chunks = chunkText(paragraphs.join("\n\n"), "text");
    // Paragraph k occupies lines 5k+1 .. 5k+4; three paragraphs (1,214 characters) fit, a fourth does not.
    expect(chunks.map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 14],
      [13, 29],
    ]);
    expect(chunks.every((c) => c.heading === null)).toBe(true);
  });

  test("a PDF's pages are sections", () => {
    const text = [line("first", 300), line("more", 300), line("second", 300)].join("\n");
    expect(chunkText(text, "pdf", [0, 2]).map((c) => [c.startLine, c.endLine, c.heading])).toEqual([
      [1, 2, "page 1"],
      [3, 3, "page 2"],
    ]);
  });

  test("CRLF and lone CR (old Mac files) end lines as a line feed does: the same chunks and line ranges", async () => {
    const noPdf = {} as PdfExtractor; // a .md file never reaches the PDF extractor
    const chunksOf = async (text: string) => {
      const extracted = await extractText("handbook.md", new TextEncoder().encode(text), noPdf);
      return chunkText(extracted.text, extracted.format, extracted.pageStarts);
    };
    const lf = await chunksOf(handbook());
    expect(lf.length).toBeGreaterThan(2);
    expect(await chunksOf(handbook().replaceAll("\n", "\r\n"))).toEqual(lf);
    expect(await chunksOf(handbook().replaceAll("\n", "\r"))).toEqual(lf);
  });

  test("an empty or blank file has no chunk", () => {
    expect(chunkText("", "text")).toEqual([]);
    expect(chunkText("\n\n  \n", "markdown")).toEqual([]);
  });
});
