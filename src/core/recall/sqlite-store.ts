// Recall's reads in the daemon's SQLite file: the rows the legs' hits are re-read and filtered by, the
// keyword index's source rows and same-session neighbours. Fixed statements are prepared once; those
// whose shape depends on a filter go through db.query, which caches one statement per distinct SQL
// text.
import type { Database, Statement } from "bun:sqlite";
import { filterSql, type MemoryFilter } from "../memory/filter";
import { CANDIDATE_COLUMNS, type CandidateRow, INDEX_COLUMNS, type IndexRow, type RecallStore, type SessionNeighbours } from "./store";

type Neighbour = Statement<CandidateRow, [string, string, string, number, number]>;

export class SqliteRecallStore implements RecallStore {
  private readonly indexChunkStmt: Statement<IndexRow, [number, number]>;
  private readonly before: Neighbour;
  private readonly after: Neighbour;

  constructor(private readonly db: Database) {
    this.indexChunkStmt = db.query(
      `SELECT ${INDEX_COLUMNS} FROM memories WHERE deleted_at IS NULL AND seq > ? ORDER BY seq LIMIT ?`,
    );
    const neighbour = (op: string, order: string): Neighbour =>
      db.query(
        `SELECT ${CANDIDATE_COLUMNS} FROM memories WHERE session_key = ? AND agent_id = ? AND deleted_at IS NULL
         AND (created_at, seq) ${op} (?, ?) ORDER BY created_at ${order}, seq ${order} LIMIT ?`,
      );
    this.before = neighbour("<", "DESC");
    this.after = neighbour(">", "ASC");
  }

  /** Every row that passes `filter`. */
  async seqsPassing(filter: MemoryFilter): Promise<number[]> {
    const { where, params } = filterSql(filter);
    return this.db
      .query<{ seq: number }, (string | number)[]>(`SELECT seq FROM memories WHERE ${where}`)
      .all(...params)
      .map((r) => r.seq);
  }

  /** The rows among `seqs` that pass `filter`. */
  async seqsPassingAmong(seqs: number[], filter: MemoryFilter): Promise<number[]> {
    return this.among<{ seq: number }>("seq", seqs, filter).map((r) => r.seq);
  }

  /** The candidate rows among `seqs` that pass `filter`. */
  async candidatesAmong(seqs: number[], filter: MemoryFilter): Promise<CandidateRow[]> {
    return this.among<CandidateRow>(CANDIDATE_COLUMNS, seqs, filter);
  }

  /** The next `limit` live memories after `afterSeq`, in seq order, for loading the keyword index. */
  async indexChunk(afterSeq: number, limit: number): Promise<IndexRow[]> {
    return this.indexChunkStmt.all(afterSeq, limit);
  }

  async sessionNeighbours(rows: CandidateRow[], count: number): Promise<Map<number, SessionNeighbours>> {
    const out = new Map<number, SessionNeighbours>();
    for (const row of rows) {
      if (!row.session_key) continue;
      const args = [row.session_key, row.agent_id, row.created_at, row.seq, count] as const;
      out.set(row.seq, { before: this.before.all(...args), after: this.after.all(...args) });
    }
    return out;
  }

  private among<T>(columns: string, seqs: number[], filter: MemoryFilter): T[] {
    const { where, params } = filterSql(filter);
    // rowid lookups only (NOT INDEXED): an index on the filter columns would scan the whole agent.
    return this.db
      .query<T, (string | number)[]>(
        `SELECT ${columns} FROM memories NOT INDEXED WHERE seq IN (SELECT value FROM json_each(?)) AND ${where}`,
      )
      .all(JSON.stringify(seqs), ...params);
  }
}
