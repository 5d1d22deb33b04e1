// Chunking (docs/api.md#sources): a file's lines cut where its structure breaks (Markdown headings,
// top-level declarations in code, pages of a PDF), small neighbouring sections merged, and sections
// larger than a chunk cut at blank lines where one is near, each piece after the first repeating the
// last OVERLAP_LINES lines of the one before. A chunk is always whole lines of the file, so its
// content is exactly its line range (1-based, inclusive), blank lines at its edges left out.
import type { SourceFormat } from "../../contracts/sources";

/** A chunk's target size in characters (about 400 tokens). */
export const MAX_CHUNK_CHARS = 1600;
/** A section smaller than this is merged with the next one when both fit in one chunk. */
const MIN_CHUNK_CHARS = 200;
/** Lines of a cut section that the next chunk repeats. */
const OVERLAP_LINES = 2;

export interface Chunk {
  startLine: number;
  endLine: number;
  heading: string | null;
  content: string;
}

interface Section {
  /** 0-based, inclusive. */
  start: number;
  end: number;
  heading: string | null;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

const isSpaceOrTab = (c: string | undefined) => c === " " || c === "\t";

/**
 * An ATX heading's level and title (CommonMark: up to three spaces, one to six `#`, then a space or
 * the end; a closing run of `#` after a space is not part of the title), or null. Scanned by index:
 * a regex with a lazy title before the closing run backtracks quadratically on a long line of `#`s
 * and spaces, and file content is anything.
 */
function atxHeading(line: string): { level: number; title: string } | null {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  const hashes = i;
  while (line[i] === "#") i++;
  const level = i - hashes;
  if (level < 1 || level > 6 || (i < line.length && !isSpaceOrTab(line[i]))) return null;
  let end = line.length;
  while (end > i && isSpaceOrTab(line[end - 1])) end--;
  let closing = end;
  while (closing > i && line[closing - 1] === "#") closing--;
  // The closing run counts only after a space (`# C#` is titled "C#") or as the whole rest (`## ##`).
  if (closing === i || isSpaceOrTab(line[closing - 1])) end = closing;
  return { level, title: line.slice(i, end).trim() };
}

/** Sections starting at each heading outside fenced code; the heading is the path of titles to it. */
function markdownSections(lines: string[]): Section[] {
  const starts: { line: number; heading: string }[] = [];
  const titles: string[] = [];
  let fence: string | null = null;
  lines.forEach((line, i) => {
    const f = FENCE.exec(line);
    if (f) {
      const marker = f[1]!;
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      return;
    }
    if (fence !== null) return;
    const h = atxHeading(line);
    if (!h) return;
    titles.length = h.level - 1;
    titles[h.level - 1] = h.title;
    starts.push({ line: i, heading: titles.filter((t) => t).join(" > ") });
  });
  return sectionsFrom(lines.length, starts);
}

/**
 * A top-level declaration in most languages: not indented, and starting with a keyword that opens a
 * function, class, type or binding (JS/TS, Python, Go, Rust, Ruby, Java-likes, shell functions, ...).
 */
const DECLARATION =
  /^(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|abstract|static|final|public|private|protected|internal|sealed|open|data|inline|unsafe|extern)\s+)*(?:function\*?|class|interface|type|enum|const|let|var|namespace|module|def|fn|func|struct|trait|impl|mod|object|record|protocol|extension|macro_rules!|sub|proc)\b|^[A-Za-z_][\w.]*\s*\(\)\s*\{/;
/** Lines that belong to the declaration after them: comments, doc comments and decorators. */
const LEADING = /^\s*(?:\/\/|\/\*|\*|#(?!include|define|if|endif|else|pragma)|@|"""|''')/;

/**
 * A declaration's heading: the line up to its first `{`, `=`, `:` or `(` (its body, value, type or
 * parameters), or the whole line when that leaves nothing; at most 120 characters. Cut by index: a
 * regex that trims the spaces before the cut retries at every space of a long run, quadratically.
 */
function declarationHeading(line: string): string {
  const cut = line.search(/[{=:(]/);
  const head = (cut === -1 ? line : line.slice(0, cut)).trim();
  return (head || line.trim()).slice(0, 120);
}

/** Sections starting at each top-level declaration, with the comments and decorators just above it. */
function codeSections(lines: string[]): Section[] {
  const starts: { line: number; heading: string }[] = [];
  let previousEnd = -1;
  lines.forEach((line, i) => {
    if (!DECLARATION.test(line)) return;
    let start = i;
    while (start - 1 > previousEnd && lines[start - 1]!.trim() !== "" && LEADING.test(lines[start - 1]!)) start--;
    previousEnd = i;
    starts.push({ line: start, heading: declarationHeading(line) });
  });
  return sectionsFrom(lines.length, starts);
}

/** Sections from their start lines: the lines before the first one are a section of their own. */
function sectionsFrom(lineCount: number, starts: { line: number; heading: string }[]): Section[] {
  const sections: Section[] = [];
  const first = starts[0]?.line ?? lineCount;
  if (first > 0) sections.push({ start: 0, end: first - 1, heading: null });
  starts.forEach((s, i) => {
    const end = (starts[i + 1]?.line ?? lineCount) - 1;
    if (end >= s.line) sections.push({ start: s.line, end, heading: s.heading || null });
  });
  return sections;
}

const isBlank = (line: string) => line.trim() === "";

/** Characters (newlines included) of lines start..end, from prefix sums: `offsets[i]` is where line i starts. */
const charsOf = (offsets: number[], start: number, end: number) => offsets[end + 1]! - offsets[start]!;

/** Neighbouring sections merged while the first is small and both fit in one chunk. */
function mergeSmall(offsets: number[], sections: Section[]): Section[] {
  const out: Section[] = [];
  for (const s of sections) {
    const last = out[out.length - 1];
    if (last && charsOf(offsets, last.start, last.end) < MIN_CHUNK_CHARS && charsOf(offsets, last.start, s.end) <= MAX_CHUNK_CHARS) {
      last.end = s.end;
      last.heading ??= s.heading;
    } else out.push({ ...s });
  }
  return out;
}

/** One section as chunks: whole if it fits, else cut at blank lines near the limit, with overlap. */
function cutSection(lines: string[], offsets: number[], section: Section, into: Chunk[]): void {
  let start = section.start;
  let last = section.end;
  while (last >= start && isBlank(lines[last]!)) last--;
  while (start <= last) {
    while (start <= last && isBlank(lines[start]!)) start++;
    if (start > last) return;
    let end = start;
    while (end < last && charsOf(offsets, start, end + 1) <= MAX_CHUNK_CHARS) end++;
    if (end < last) {
      // Prefer to end at a paragraph's end, unless that leaves the chunk under a third of its size.
      for (let j = end; j > start && charsOf(offsets, start, j) >= MAX_CHUNK_CHARS / 3; j--) {
        if (isBlank(lines[j]!)) {
          end = j - 1;
          break;
        }
      }
    }
    while (end > start && isBlank(lines[end]!)) end--;
    into.push({ startLine: start + 1, endLine: end + 1, heading: section.heading, content: lines.slice(start, end + 1).join("\n") });
    if (end >= last) return;
    start = Math.max(start + 1, end - OVERLAP_LINES + 1);
  }
}

/** `text` (its lines ended by line feeds: extract.ts) cut into chunks; `pageStarts` (0-based lines) are a PDF's page boundaries. */
export function chunkText(text: string, format: SourceFormat, pageStarts: number[] = []): Chunk[] {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const sections =
    format === "markdown"
      ? markdownSections(lines)
      : format === "code"
        ? codeSections(lines)
        : format === "pdf"
          ? sectionsFrom(lines.length, pageStarts.map((line, i) => ({ line, heading: `page ${i + 1}` })))
          : [{ start: 0, end: lines.length - 1, heading: null }];
  const offsets = [0];
  for (const line of lines) offsets.push(offsets[offsets.length - 1]! + line.length + 1);
  const chunks: Chunk[] = [];
  for (const section of mergeSmall(offsets, sections)) cutSection(lines, offsets, section, chunks);
  return chunks;
}
