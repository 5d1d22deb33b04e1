// A source file's text and format (docs/api.md#sources): Markdown, code and other text read as
// UTF-8; PDF text extracted page by page with unpdf (pdf.js) on a worker thread (pdf.ts). The byte
// limit of each kind of file, which the reader applies (read.ts); binary files and PDFs past their
// limits are refused with a reason the caller reports.
import { extname } from "node:path";
import type { SourceFormat } from "../../contracts/sources";
import type { PdfExtractor, PdfLimits } from "./pdf";

/** Larger text files are skipped: they are data or generated, not documents. */
const MAX_TEXT_BYTES = 5 * 1024 * 1024;
const MAX_PDF_BYTES = 50 * 1024 * 1024;
/** A PDF is refused past these: as much text as a text file may hold, 512 MiB of memory, a minute. */
export const PDF_LIMITS: PdfLimits = { memoryBytes: 512 * 1024 * 1024, timeMs: 60_000, textChars: MAX_TEXT_BYTES };
/** A line longer than this marks minified or generated text. */
const MAX_LINE_CHARS = 20_000;
/** Bytes looked at for a NUL, the mark of a binary file. */
const SNIFF_BYTES = 8000;

const MARKDOWN = new Set([".md", ".markdown", ".mdx"]);
const CODE = new Set(
  (
    ".ts .tsx .mts .cts .js .jsx .mjs .cjs .py .pyi .rb .go .rs .java .kt .kts .scala .c .h .cc .cpp .cxx .hpp .hh .cs .swift " +
    ".m .mm .php .lua .sh .bash .zsh .fish .ps1 .sql .r .jl .ex .exs .erl .hs .ml .mli .clj .cljs .dart .vue .svelte .zig .nim " +
    ".tf .proto .graphql .gql .css .scss .less"
  ).split(" "),
);

function formatOf(path: string): SourceFormat {
  const ext = extname(path).toLowerCase();
  if (ext === ".pdf") return "pdf";
  if (MARKDOWN.has(ext)) return "markdown";
  if (CODE.has(ext)) return "code";
  return "text";
}

/** A file that cannot be taken as a document, and why. */
export class NotADocument extends Error {}

/** A byte limit as messages name it: "5 MiB", "256 KiB". */
export function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB` : `${Math.round((bytes / 1024) * 10) / 10} KiB`;
}

/** The most bytes of the file at `path` that are read: more, and it is skipped. */
export function byteLimitOf(path: string): number {
  return formatOf(path) === "pdf" ? MAX_PDF_BYTES : MAX_TEXT_BYTES;
}

export interface Extracted {
  text: string;
  format: SourceFormat;
  /** For a PDF: the 0-based line where each page starts in `text`. */
  pageStarts: number[];
}

/** `text` with each CRLF or lone CR (old Mac files) as a line feed: a line is a line whichever ends it. */
function withLineFeeds(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

/** `bytes` (at most byteLimitOf(path) of them) as a document, its lines ended by line feeds. */
export async function extractText(path: string, bytes: Uint8Array, pdf: PdfExtractor): Promise<Extracted> {
  const format = formatOf(path);
  if (format === "pdf") return extractPdf(bytes, pdf);
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) throw new NotADocument("a binary file");
  const text = withLineFeeds(new TextDecoder().decode(bytes));
  let lineStart = 0;
  for (let i = text.indexOf("\n"); ; i = text.indexOf("\n", lineStart)) {
    const end = i === -1 ? text.length : i;
    if (end - lineStart > MAX_LINE_CHARS) throw new NotADocument(`a line over ${MAX_LINE_CHARS} characters (minified or generated)`);
    if (i === -1) break;
    lineStart = i + 1;
  }
  return { text, format, pageStarts: [] };
}

async function extractPdf(bytes: Uint8Array, pdf: PdfExtractor): Promise<Extracted> {
  const outcome = await pdf.extract(bytes);
  if ("problem" in outcome) throw new NotADocument(outcome.problem);
  const pageStarts: number[] = [];
  const lines: string[] = [];
  for (const page of outcome.pages) {
    pageStarts.push(lines.length);
    lines.push(...withLineFeeds(page).split("\n"));
  }
  if (lines.every((l) => l.trim() === "")) throw new NotADocument("a PDF without extractable text (scanned images?)");
  return { text: lines.join("\n"), format: "pdf", pageStarts };
}
