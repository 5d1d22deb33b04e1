// Recall's reads in the daemon's SQLite file: the rows the legs' hits are re-read and filtered by, the
// keyword index's source rows, same-session neighbours, and FTS5 (memories_fts), which answers while
// the in-memory keyword index loads and for what it cannot answer. Fixed statements are prepared
// once; those whose shape depends on a filter go through db.query, which caches one statement per
// distinct SQL text.
import type { Database, Statement } from "bun:sqlite";
import { filterSql, type MemoryFilter } from "../memory/filter";
import type { TermStats } from "../search/scoring";
import { matchesAmong } from "../search/matches";
import { CANDIDATE_COLUMNS, COLUMN_WEIGHTS, type CandidateRow, type FtsHit, type FtsSearch, INDEX_COLUMNS, type IndexRow, type RecallStore, type SessionNeighbours } from "./store";

type Neighbour = Statement<CandidateRow, [string, string, string, number, number]>;

export class SqliteRecallStore implements RecallStore, FtsSearch {
  readonly fts: FtsSearch = this;
  private readonly bm25: string;
  private readonly ftsTopStmt: Statement<FtsHit, [string, number]>;
  private readonly indexChunkStmt: Statement<IndexRow, [number, number]>;
  private readonly ownersStmt: Statement<{ agent_id: string }, []>;
  private readonly ftsRowsStmt: Statement<{ n: number }, []>;
  private readonly ftsCountStmt: Statement<{ n: number }, [string]>;
  private readonly ftsAmongStmt: Statement<{ seq: number }, [string, string]>;
  private readonly before: Neighbour;
  private readonly after: Neighbour;

  constructor(private readonly db: Database) {
    this.bm25 = `bm25(memories_fts, ${COLUMN_WEIGHTS.join(", ")})`;
    this.ftsTopStmt = db.query(
      `SELECT rowid AS seq, ${this.bm25} AS score FROM memories_fts WHERE memories_fts MATCH ? ORDER BY score LIMIT ?`,
    );
    this.indexChunkStmt = db.query(
      `SELECT ${INDEX_COLUMNS} FROM memories WHERE deleted_at IS NULL AND seq > ? ORDER BY seq LIMIT ?`,
    );
    this.ownersStmt = db.query("SELECT DISTINCT agent_id FROM memories WHERE deleted_at IS NULL");
    // One docsize row per indexed memory: counting them is a b-tree count, not a scan of the index.
    this.ftsRowsStmt = db.query("SELECT count(*) AS n FROM memories_fts_docsize");
    this.ftsCountStmt = db.query("SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ?");
    this.ftsAmongStmt = db.query(
      "SELECT rowid AS seq FROM memories_fts WHERE memories_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
    );
    const neighbour = (op: string, order: string): Neighbour =>
      db.query(
        `SELECT ${CANDIDATE_COLUMNS} FROM memories WHERE session_key = ? AND agent_id = ? AND deleted_at IS NULL
         AND (created_at, seq) ${op} (?, ?) ORDER BY created_at ${order}, seq ${order} LIMIT ?`,
      );
    this.before = neighbour("<", "DESC");
    this.after = neighbour(">", "ASC");
  }

  /** The best `limit` FTS5 matches of `match` over every memory, unscoped. */
  ftsTop(match: string, limit: number): FtsHit[] {
    return this.ftsTopStmt.all(match, limit);
  }

  /** The best `limit` FTS5 matches of `match` among the rows that pass `filter`. */
  ftsTopFiltered(match: string, filter: MemoryFilter, limit: number): FtsHit[] {
    const { where, params } = filterSql(filter, "m");
    return this.db
      .query<FtsHit, (string | number)[]>(
        `SELECT m.seq AS seq, ${this.bm25} AS score FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
         WHERE memories_fts MATCH ? AND ${where} ORDER BY score LIMIT ?`,
      )
      .all(match, ...params, limit);
  }

  /** The indexed memories and how many match each FTS5 expression, for weighing the terms (search/scoring.ts). */
  termStats(matches: string[]): TermStats {
    return { n: this.ftsRowsStmt.get()!.n, df: matches.map((m) => this.ftsCountStmt.get(m)!.n) };
  }

  /** Per memory of `seqs`, the positions in `matches` of the FTS5 expressions it matches. */
  matchedTerms(matches: string[], seqs: number[]): Map<number, number[]> {
    return matchesAmong(this.ftsAmongStmt, matches, seqs);
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

  /** The agents that own live memories. */
  liveOwners(): string[] {
    return this.ownersStmt.all().map((r) => r.agent_id);
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
