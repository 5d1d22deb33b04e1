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
}

export type ParseResult = { id: number; lines: number; facts: FileFacts } | { id: number; failure: string };

/** One parser per language for the life of the thread: creating one loads its grammar. */
const parsers = new Map<LanguageId, Promise<Parser>>();

export async function parseFile(job: ParseJob): Promise<ParseResult> {
  let source: string;
  try {
    source = new TextDecoder().decode(readFileSync(job.path));
  } catch (err) {
    return { id: job.id, failure: `unreadable: ${(err as Error).message}` };
  }
  try {
    let parser = parsers.get(job.language);
    if (!parser) {
      parser = parserFor(job.language);
      parsers.set(job.language, parser);
      parser.catch(() => parsers.delete(job.language));
    }
    const facts = extractFacts(await parser, job.language, source);
    return { id: job.id, lines: source.split("\n").length, facts };
  } catch (err) {
    return { id: job.id, failure: `parse failed: ${(err as Error).message}` };
  }
}
