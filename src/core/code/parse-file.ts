// One file read, parsed and turned into facts, and the loop every parsing thread of a run runs over
// the run's files (parse-pool.ts, parse-worker.ts).
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

/** What every parsing thread of a run is given. */
export interface ParseShare {
  jobs: ParseJob[];
  /** One Int32: the index of the next job to take, shared by the threads. */
  next: SharedArrayBuffer;
  /** The WebAssembly modules the calling thread compiled, by file (grammars.ts). */
  modules: Record<string, WebAssembly.Module>;
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

async function parseFile(job: ParseJob): Promise<ParseResult> {
  let source: string;
  try {
    source = new TextDecoder().decode(readFileSync(job.path));
  } catch (err) {
    return { id: job.id, failure: `unreadable: ${(err as Error).message}` };
  }
  try {
    const facts = extractFacts(await parserOf(job.language), job.language, source);
    return { id: job.id, lines: lineCount(source), facts };
  } catch (err) {
    return { id: job.id, failure: `parse failed: ${(err as Error).message}` };
  }
}

/** Takes files from `share` until none is left, handing each result to `deliver`. */
export async function parseShare(share: ParseShare, deliver: (result: ParseResult) => void | Promise<void>): Promise<void> {
  const next = new Int32Array(share.next);
  for (let i = Atomics.add(next, 0, 1); i < share.jobs.length; i = Atomics.add(next, 0, 1)) await deliver(await parseFile(share.jobs[i]!));
}

function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}
