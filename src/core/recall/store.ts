// What recall needs of a store, and the rows both stores return: the SQLite one (sqlite-store.ts)
// and the PostgreSQL one (postgres-store.ts). The keyword leg runs in the daemon's in-memory index;
// a store with a full-text search of its own (SQLite's FTS5) answers while that index loads.
import type { MemoryFilter } from "../memory/filter";
import type { MemoryRow } from "../memory/store";
import type { TermStats } from "../search/scoring";

/** BM25 weights of a memory's keyword columns (content, tags, hints, extra terms), in FTS5 and in the keyword index alike. */
export const COLUMN_WEIGHTS = [1.0, 0.8, 0.8, 0.5] as const;

/** What ranking and the answer need of a memory. */
export type CandidateRow = Pick<
  MemoryRow,
  | "seq"
  | "id"
  | "agent_id"
  | "content"
  | "type"
  | "importance"
  | "tags"
  | "pinned"
  | "who"
  | "project"
  | "session_key"
  | "created_at"
  | "access_count"
  | "last_accessed_at"
> & {
  /** The memory's feedback signal, -1..1 (memory_feedback), or null when never rated. */
  feedback: number | null;
};
export const CANDIDATE_COLUMNS = `seq, id, agent_id, content, type, importance, tags, pinned, who, project, session_key, created_at,
  access_count, last_accessed_at, (SELECT signal FROM memory_feedback f WHERE f.memory_id = memories.id) AS feedback`;

/** What the keyword index is built from. */
export type IndexRow = Pick<MemoryRow, "seq" | "agent_id" | "project" | "content" | "tags" | "hints">;
export const INDEX_COLUMNS = "seq, agent_id, project, content, tags, hints";

/** An FTS5 match: bm25() is negative, better the lower. */
export interface FtsHit {
  seq: number;
  score: number;
}

/** FTS5's search over the memories (memories_fts), where the store keeps it. */
export interface FtsSearch {
  /** The best `limit` FTS5 matches of `match` over every memory, unscoped. */
  ftsTop(match: string, limit: number): FtsHit[];
  /** The best `limit` FTS5 matches of `match` among the rows that pass `filter`. */
  ftsTopFiltered(match: string, filter: MemoryFilter, limit: number): FtsHit[];
  /** The indexed memories and how many match each FTS5 expression, for weighing the terms (search/scoring.ts). */
  termStats(matches: string[]): TermStats;
  /** Per memory of `seqs`, the positions in `matches` of the FTS5 expressions it matches. */
  matchedTerms(matches: string[], seqs: number[]): Map<number, number[]>;
  /** The agents that own live memories. */
  liveOwners(): string[];
}

/** Recall's reads, in whichever store the daemon runs on. */
/** A memory's neighbours in its session, nearest first. */
export interface SessionNeighbours {
  before: CandidateRow[];
  after: CandidateRow[];
}

export interface RecallStore {
  /** The store's own full-text search, or null (PostgreSQL: the in-memory index alone answers). */
  readonly fts: FtsSearch | null;
  /** Every row that passes `filter`. */
  seqsPassing(filter: MemoryFilter): Promise<number[]>;
  /** The rows among `seqs` that pass `filter`. */
  seqsPassingAmong(seqs: number[], filter: MemoryFilter): Promise<number[]>;
  /** The candidate rows among `seqs` that pass `filter`. */
  candidatesAmong(seqs: number[], filter: MemoryFilter): Promise<CandidateRow[]>;
  /** The next `limit` live memories after `afterSeq`, in seq order, for loading the keyword index. */
  indexChunk(afterSeq: number, limit: number): Promise<IndexRow[]>;
  /**
   * For each of `rows` with a session, the live memories its agent stored just before and just after
   * it in that session, up to `count` each side, nearest first: one read for them all.
   */
  sessionNeighbours(rows: CandidateRow[], count: number): Promise<Map<number, SessionNeighbours>>;
}
