// One file read, parsed and turned into facts: the work a parsing thread does (parse-worker.ts).
import { readFileSync } from "node:fs";
import type { Parser } from "web-tree-sitter";
import { extractFacts, type FileFacts } from "./extract";
import { parserFor, type LanguageId } from "./grammars";

export interface ParseJob {
  id: number;
  /** Absolute path of the file. */
  path: string;
  language: LanguageId;
  /** Bytes, to balance the threads' shares. */
  size: number;
}

export type ParseResult = { id: number; lines: number; facts: FileFacts } | { id: number; failure: string };

/** One parser per language for the life of the thread: creating one loads its grammar. */
const parsers = new Map<LanguageId, Promise<Parser>>();

/** The parser for `language`, created on first use. */
function parserOf(language: LanguageId): Promise<Parser> {
  let parser = parsers.get(language);
  if (!parser) {
    parser = parserFor(language);
    parsers.set(language, parser);
    parser.catch(() => parsers.delete(language));
  }
  return parser;
}

export async function parseFile(job: ParseJob): Promise<ParseResult> {
  let source: string;
  try {
    source = new TextDecoder().decode(readFileSync(job.path));
  } catch (err) {
    return { id: job.id, failure: `unreadable: ${(err as Error).message}` };
  }
  try {
    const facts = extractFacts(await parserOf(job.language), job.language, source);
    return { id: job.id, lines: source.split("\n").length, facts };
  } catch (err) {
    return { id: job.id, failure: `parse failed: ${(err as Error).message}` };
  }
}
