// One file read, parsed and turned into facts, and the loop every parsing thread of a run runs over
// the run's files (parse-pool.ts, parse-worker.ts).
import { constants, readFileSync } from "node:fs";
import type { Parser } from "web-tree-sitter";
import { extractFacts, type FileFacts } from "./extract";
import { parserFor, type LanguageId } from "./grammars";
import { contentHash } from "./content-hash";

export interface ParseJob {
  id: number;
  /** Absolute path of the file. */
  path: string;
  language: LanguageId;
  /**
   * SHA-256 of the content the run read and checked (indexer.ts): what is read here is parsed only
   * when it is that content, so a file swapped since (for a link to another file) is not.
   */
  hash?: string;
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

/** Never through a link, never blocking (a named pipe swapped in): the run checked a regular file there. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CHANGED = "changed while it was indexed: the next run takes it";

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
    const bytes = readFileSync(job.path, { flag: READ_FLAGS });
    if (job.hash !== undefined && contentHash(bytes) !== job.hash) return { id: job.id, failure: CHANGED };
    source = new TextDecoder().decode(bytes);
  } catch (err) {
    // A link swapped in for the file since it was checked.
    if ((err as NodeJS.ErrnoException).code === "ELOOP") return { id: job.id, failure: CHANGED };
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
