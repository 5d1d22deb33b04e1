// What document sources need of a store, and the rows both stores return: the SQLite one
// (sqlite-store.ts, with FTS5) and the PostgreSQL one (postgres-store.ts) several daemons share. The
// keyword leg runs in the daemon's in-memory index; a store with a full-text search of its own
// (SQLite's FTS5) answers while that index loads, and for what the index cannot answer alone.
import { basename, relative } from "node:path";
import type { SourceFormat, SourceSummary } from "../../contracts/sources";
import type { TermStats } from "../search/scoring";
import { indexTerms } from "../search/text";
import type { Chunk } from "./chunk";

/** BM25 weights of the keyword columns (source_chunks_fts and the in-memory index): content, heading, path (relative to the source), extra terms. */
export const COLUMN_WEIGHTS = [1.0, 0.8, 0.5, 0.5] as const;

/**
 * Which chunk vectors are current: those of the embedding model, of its size when known (null: any).
 * A model's vectors have one size, so after a change of embedding.dimensions the others are to be
 * made again, as the memories' are (core/embed/worker.ts).
 */
export interface ChunkVectors {
  model: string;
  dimensions: number | null;
}

export interface SourceRow {
  id: number;
  path: string;
  kind: "file" | "dir";
  glob: string | null;
  created_at: string;
  synced_at: string;
}

export interface FileRow {
  id: number;
  source_id: number;
  path: string;
  size: number;
  mtime_ms: number;
  content_hash: string;
}

export interface ChunkRow {
  seq: number;
  id: string;
  path: string;
  start_line: number;
  end_line: number;
  /** The chunk's place in its file, from 0. */
  ordinal: number;
  heading: string | null;
  content: string;
}
export const CHUNK_COLUMNS = "c.seq, c.id, f.path, c.start_line, c.end_line, c.ordinal, c.heading, c.content";

export interface FtsHit {
  seq: number;
  /** bm25(): negative, better the lower. */
  score: number;
}

/** A character that gives a word index terms of its own: an underscore, a digit, a capital or a CJK character. */
const TERM_CHAR = /[_\p{N}\p{Lu}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** Runs of letters, digits and underscores, and the term characters that are none of those (CJK radicals, circled kana: symbols). */
const WORD_PIECE = /[\p{L}\p{N}_]+|[_\p{N}\p{Lu}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
/** A piece of WORD_PIECE that is a run (the other kind is one symbol). */
const WORD_RUN_START = /^[\p{L}\p{N}_]/u;

/**
 * Words that can have index terms of their own: a run of letters, digits and underscores holding a
 * term character, or joined to one of the symbols above with the run after it (indexTerms finds
 * nothing in a plain lowercase word, the commonest kind, so those are not even looked up). These are
 * the matches of `[\p{L}\p{N}_]*[<term char>][\p{L}\p{N}_]*`, found in one pass: that regex retries
 * every position of a long run without a term character to its end, quadratically.
 */
function termWords(text: string): string[] {
  const pieces = [...text.matchAll(WORD_PIECE)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0], run: WORD_RUN_START.test(m[0]) }));
  const words: string[] = [];
  const adjacent = (k: number, at: number, run: boolean) => pieces[k]?.start === at && pieces[k]!.run === run;
  for (let k = 0; k < pieces.length; ) {
    const piece = pieces[k]!;
    if (piece.run && !adjacent(k + 1, piece.end, false)) {
      if (TERM_CHAR.test(piece.text)) words.push(piece.text);
      k++;
      continue;
    }
    // A run then a symbol, or a symbol alone: the word goes on through the run right after the symbol.
    const symbol = piece.run ? k + 1 : k;
    let word = piece.run ? piece.text + pieces[symbol]!.text : piece.text;
    k = symbol + 1;
    if (adjacent(k, pieces[symbol]!.end, true)) word += pieces[k++]!.text;
    words.push(word);
  }
  return words;
}

/** Words whose index terms are remembered at most; past this the memory starts over. */
const TERMS_CACHE_WORDS = 200_000;
const termsOfWord = new Map<string, string>();

/**
 * search/text.ts's extra index terms (identifier parts, CJK bigrams) of a chunk, word by distinct
 * word: identifiers repeat across a source tree, and splitting them is most of the cost of indexing.
 */
function chunkTerms(text: string): string {
  const out: string[] = [];
  for (const word of new Set(termWords(text))) {
    let terms = termsOfWord.get(word);
    if (terms === undefined) {
      if (termsOfWord.size >= TERMS_CACHE_WORDS) termsOfWord.clear();
      terms = indexTerms(word);
      termsOfWord.set(word, terms);
    }
    if (terms) out.push(terms);
  }
  return out.join(" ");
}

/** A chunk's four keyword columns, as source_chunks_fts and the in-memory index hold them. */
export type KeywordColumns = [content: string, heading: string, path: string, terms: string];

export interface IndexedChunk {
  seq: number;
  columns: KeywordColumns;
}

/** `relPath`: the file's path relative to its source's root (its name for a file source). */
export function keywordColumns(content: string, heading: string | null, relPath: string): KeywordColumns {
  return [content, heading ?? "", relPath, chunkTerms(`${heading ?? ""}\n${relPath}\n${content}`)];
}

/** A chunk's row with its file's and source's paths, as the keyword index is loaded from. */
export interface ChunkSourceRow {
  seq: number;
  content: string;
  heading: string | null;
  path: string;
  root: string;
  kind: string;
}
export const CHUNK_SOURCE_COLUMNS = "c.seq, c.content, c.heading, f.path, s.path AS root, s.kind";

export function indexedChunk(r: ChunkSourceRow): IndexedChunk {
  return { seq: r.seq, columns: keywordColumns(r.content, r.heading, r.kind === "dir" ? relative(r.root, r.path) : basename(r.path)) };
}

/** A file read and chunked, to be written with its chunks. */
export interface FileWrite {
  path: string;
  /** The path relative to the source's root (its name for a file source). */
  relative: string;
  format: SourceFormat;
  size: number;
  mtimeMs: number;
  hash: string;
  chunks: (Chunk & { id: string })[];
}

/** What one step of an ingestion writes, all of it in one transaction. */
export interface IngestBatch {
  /** Files whose content did not change, with their new size and mtime. */
  touched?: { id: number; size: number; mtimeMs: number }[];
  /** Files written anew, each replacing the row and chunks its path had. */
  written?: FileWrite[];
  /** Files that left the source, with their chunks. */
  deleted?: number[];
}

/** The chunks a write removed and those it added, for the keyword index and the vectors. */
export interface ChunkChanges {
  removed: number[];
  added: IndexedChunk[];
}

/**
 * A chunk as it is now, told by the change feed of a store several daemons share (postgres-feed.ts):
 * its keyword columns and stored vector, or null columns once it is gone.
 */
export interface ChunkChange {
  seq: number;
  columns: KeywordColumns | null;
  vector: { model: string; bytes: Uint8Array } | null;
}

/** FTS5's search over the chunks (source_chunks_fts), where the store keeps it; `path` keeps the chunks of files whose path contains it. */
export interface SourceFts {
  ftsTop(match: string, limit: number, path?: string): FtsHit[];
  /** How many chunks there are (under `path`) and how many match each expression, for weighing terms (search/scoring.ts). */
  termStats(matches: string[], path?: string): TermStats;
  /** Per chunk of `seqs`, the positions in `matches` of the expressions it matches. */
  matchedTerms(matches: string[], seqs: number[]): Map<number, number[]>;
}

/** Sources, their files, chunks and chunk vectors, in whichever store the daemon runs on. */
export interface SourceStore {
  /** Where the chunk vector index keeps its file (vector-file.ts). */
  readonly vectorDir: string;
  /** The store's own full-text search, or null (PostgreSQL: the in-memory index alone answers). */
  readonly fts: SourceFts | null;
  /**
   * Whether other daemons share the store (PostgreSQL): a source one of them added may be on a machine
   * this daemon cannot see, so a sync here does not take a root it cannot find for one that is gone.
   */
  readonly shared: boolean;
  sourceByPath(path: string): Promise<SourceRow | null>;
  sourceById(id: number): Promise<SourceRow | null>;
  allSources(): Promise<SourceRow[]>;
  /** The source kept under `path`, created unless there is one (two adds of one path at once get the same row). */
  openSource(path: string, kind: "file" | "dir", glob: string | null, now: string): Promise<{ row: SourceRow; created: boolean }>;
  updateSource(id: number, glob: string | null, syncedAt: string): Promise<void>;
  /** Removes the source with its files, chunks and vectors; returns the chunks' seqs. */
  deleteSource(id: number): Promise<number[]>;
  /** The source's counts; `embedded`: its chunks with a vector of `vectors` (none when null). */
  summary(row: SourceRow, vectors: ChunkVectors | null): Promise<SourceSummary>;
  filesOf(sourceId: number): Promise<FileRow[]>;
  /** The file's row whichever source holds it. */
  fileByPath(path: string): Promise<FileRow | null>;
  /** Writes one step of source `sourceId`'s ingestion in one transaction. */
  writeBatch(sourceId: number, batch: IngestBatch, now: string): Promise<ChunkChanges>;
  /** The next `limit` chunks after `afterSeq` with their keyword columns, for loading the in-memory index. */
  indexChunk(afterSeq: number, limit: number): Promise<IndexedChunk[]>;
  chunksAmong(seqs: number[]): Promise<ChunkRow[]>;
  /** Chunks whose file path contains `path`. */
  seqsUnder(path: string): Promise<number[]>;
  /** Chunks without a vector of `vectors`, in order. */
  unembedded(vectors: ChunkVectors): Promise<number[]>;
  /** What is embedded of each chunk among `seqs` that still exists: its heading and content. */
  textsOf(seqs: number[]): Promise<{ seq: number; text: string }[]>;
  /** Stores vectors of chunks that still exist (one may have been replaced while it was embedded); returns their seqs. */
  storeVectors(model: string, rows: { seq: number; vector: Float32Array }[]): Promise<number[]>;
  /**
   * Of `seqs`, the chunks this daemon embeds for `vectors` now: on a shared store those still without
   * such a vector whose lease it holds (core/cluster/leases.ts; storing the vectors ends it); on a
   * lone store all of them.
   */
  lease(seqs: number[], vectors: ChunkVectors): Promise<number[]>;
  /**
   * On a shared store: chunks without a vector of `vectors`, last changed before `changedBefore`,
   * that no daemon holds the lease of (the daemon that wrote them died, or lost the store). Absent on
   * a lone store.
   */
  orphans?(vectors: ChunkVectors, changedBefore: string): Promise<number[]>;
  /** The next `limit` vectors of `vectors` after `afterSeq`, in seq order. */
  storedVectors(vectors: ChunkVectors, afterSeq: number, limit: number): Promise<{ seq: number; vector: Uint8Array }[]>;
}
