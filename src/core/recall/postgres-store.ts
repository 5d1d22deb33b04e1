// Recall's reads in a PostgreSQL store shared by several daemons: the rows the legs' hits are re-read
// and filtered by, the keyword index's source rows and same-session neighbours. The daemon's in-memory
// keyword index answers every keyword leg.
import { filterSql, numbered, type MemoryFilter } from "../memory/filter";
import { CANDIDATE_COLUMNS, type CandidateRow, INDEX_COLUMNS, type IndexRow, type RecallStore, type SessionNeighbours } from "./store";

export class PostgresRecallStore implements RecallStore {
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

  async sessionNeighbours(rows: CandidateRow[], count: number): Promise<Map<number, SessionNeighbours>> {
    const out = new Map<number, SessionNeighbours>();
    const asked = rows.filter((r) => r.session_key);
    if (asked.length === 0) return out;
    for (const r of asked) out.set(r.seq, { before: [], after: [] });
    // One statement for every row and both sides: a round trip each would cost more than the reads.
    const side = (op: string, order: string, label: string) =>
      `SELECT '${label}' AS side, a.seq AS of_seq, n.* FROM asked a CROSS JOIN LATERAL (
         SELECT ${CANDIDATE_COLUMNS} FROM memories WHERE memories.session_key = a.session_key AND memories.agent_id = a.agent_id
           AND memories.deleted_at IS NULL AND (memories.created_at, memories.seq) ${op} (a.created_at, a.seq)
         ORDER BY memories.created_at ${order}, memories.seq ${order} LIMIT $5) n`;
    const found: (CandidateRow & { side: "before" | "after"; of_seq: number })[] = await this.sql.unsafe(
      `WITH asked AS (SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS a(seq, session_key, agent_id, created_at))
       ${side("<", "DESC", "before")} UNION ALL ${side(">", "ASC", "after")}`,
      [
        this.sql.array(asked.map((r) => r.seq), "INT"),
        asked.map((r) => r.session_key),
        asked.map((r) => r.agent_id),
        asked.map((r) => r.created_at),
        count,
      ],
    );
    for (const { side: which, of_seq, ...row } of found) out.get(of_seq)![which].push(row as CandidateRow);
    // Nearest first on each side: the statement's order is not its answer's.
    const later = (a: CandidateRow, b: CandidateRow) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.seq - b.seq);
    for (const n of out.values()) {
      n.before.sort((a, b) => later(b, a));
      n.after.sort(later);
    }
    return out;
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
