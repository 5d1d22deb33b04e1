// Recall's reads in a PostgreSQL store shared by several daemons: the rows the legs' hits are re-read
// and filtered by, the keyword index's source rows and same-session neighbours. There is no full-text
// search here: the daemon's in-memory keyword index answers every keyword leg.
import { filterSql, numbered, type MemoryFilter } from "../memory/filter";
import { CANDIDATE_COLUMNS, type CandidateRow, INDEX_COLUMNS, type IndexRow, type RecallStore } from "./store";

export class PostgresRecallStore implements RecallStore {
  readonly fts = null;

  constructor(private readonly sql: Bun.SQL) {}

  async seqsPassing(filter: MemoryFilter): Promise<number[]> {
    const { where, params } = filterSql(filter);
    const rows: { seq: number }[] = await this.sql.unsafe(numbered(`SELECT seq FROM memories WHERE ${where}`), params);
    return rows.map((r) => r.seq);
  }

  async seqsPassingAmong(seqs: number[], filter: MemoryFilter): Promise<number[]> {
    return (await this.among<{ seq: number }>("seq", seqs, filter)).map((r) => r.seq);
  }

  candidatesAmong(seqs: number[], filter: MemoryFilter): Promise<CandidateRow[]> {
    return this.among<CandidateRow>(CANDIDATE_COLUMNS, seqs, filter);
  }

  indexChunk(afterSeq: number, limit: number): Promise<IndexRow[]> {
    return this.sql.unsafe(`SELECT ${INDEX_COLUMNS} FROM memories WHERE deleted_at IS NULL AND seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit]);
  }

  neighbours(side: "before" | "after", sessionKey: string, row: CandidateRow, count = 1): Promise<CandidateRow[]> {
    const [op, order] = side === "before" ? ["<", "DESC"] : [">", "ASC"];
    return this.sql.unsafe(
      `SELECT ${CANDIDATE_COLUMNS} FROM memories WHERE session_key = $1 AND agent_id = $2 AND deleted_at IS NULL
       AND (created_at, seq) ${op} ($3, $4) ORDER BY created_at ${order}, seq ${order} LIMIT $5`,
      [sessionKey, row.agent_id, row.created_at, row.seq, count],
    );
  }

  private among<T>(columns: string, seqs: number[], filter: MemoryFilter): Promise<T[]> {
    if (seqs.length === 0) return Promise.resolve([]);
    const { where, params } = filterSql(filter);
    // The seqs are the first parameter; the filter's placeholders follow it.
    return this.sql.unsafe(numbered(`SELECT ${columns} FROM memories WHERE seq = ANY(?::int[]) AND ${where}`), [
      this.sql.array(seqs, "INT"),
      ...params,
    ]);
  }
}
