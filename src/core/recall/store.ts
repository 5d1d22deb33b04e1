// What recall needs of a store, and the rows both stores return: the SQLite one (sqlite-store.ts)
// and the PostgreSQL one (postgres-store.ts). The keyword leg runs in the daemon's in-memory index
// on both.
import type { MemoryFilter } from "../memory/filter";
import type { MemoryRow } from "../memory/store";

/** BM25 weights of a memory's keyword columns (content, tags, hints, extra terms) in the keyword index. */
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

/** A memory's neighbours in its session, nearest first. */
export interface SessionNeighbours {
  before: CandidateRow[];
  after: CandidateRow[];
}

/** Recall's reads, in whichever store the daemon runs on. */
export interface RecallStore {
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
