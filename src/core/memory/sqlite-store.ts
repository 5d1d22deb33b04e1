// Memories in the daemon's SQLite file: rows, tag sets and version history, with statements
// prepared once (SqliteMemoryRows), and the store the service writes through (SqliteMemoryStore).
// Writes that arrive together share one transaction and one commit (group-commit.ts), each in its
// own savepoint. Keyword search is the daemon's in-memory index (search/keyword-index.ts), which
// follows the changes: the file keeps no full-text index of memories.
import type { Database, Statement } from "bun:sqlite";
import type { HistoryEntry } from "../../contracts/memory";
import type { ExportHistoryEntry } from "../../contracts/transfer";
import { filterSql } from "./filter";
import { GroupCommit } from "./group-commit";
import { lookupQuery, pickLookedUp, prefixRange, SHOWN_CANDIDATES } from "./short-ids";
import {
  changeOf,
  type Decision,
  HISTORY_COLUMNS,
  historyRowOf,
  type HistoryRow,
  type ListFilter,
  MEMORY_COLUMNS,
  type MemoryChange,
  type MemoryLookup,
  type MemoryRow,
  type MemoryStore,
  type ReadForWrite,
  type RowWrite,
  toExportHistoryEntry,
  toHistoryEntry,
  type WriteReads,
  dedupeKeyOf,
} from "./store";

/** The SQL of memories, synchronous: the store's writes run inside it, and an export reads through it. */
export class SqliteMemoryRows {
  private readonly byId: Statement<MemoryRow, [string]>;
  private readonly byKey: Statement<MemoryRow, [string, string]>;
  private readonly insertRow: Statement;
  private readonly updateRow: Statement;
  private readonly insertTag: Statement;
  private readonly deleteTags: Statement;
  private readonly insertHistory: Statement;
  private readonly historyOf: Statement<HistoryRow, [number]>;

  constructor(readonly db: Database) {
    this.byId = db.query(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = ?`);
    this.byKey = db.query(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE agent_id = ? AND content_key = ? AND deleted_at IS NULL`,
    );
    this.insertRow = db.query(
      `INSERT INTO memories (id, agent_id, content, content_key, type, importance, tags, pinned, who, project, source,
        session_key, hints, transcript, structured, review_after, created_at, updated_at, version, access_count,
        last_accessed_at, deleted_at, delete_reason)
       VALUES ($id, $agent_id, $content, $content_key, $type, $importance, $tags, $pinned, $who, $project, $source,
        $session_key, $hints, $transcript, $structured, $review_after, $created_at, $updated_at, $version, $access_count,
        $last_accessed_at, $deleted_at, $delete_reason)`,
    );
    this.updateRow = db.query(
      `UPDATE memories SET content = $content, content_key = $content_key, type = $type, importance = $importance,
        tags = $tags, pinned = $pinned, updated_at = $updated_at, version = $version, deleted_at = $deleted_at,
        delete_reason = $delete_reason WHERE seq = $seq`,
    );
    this.insertTag = db.query("INSERT OR IGNORE INTO memory_tags (tag, memory_seq) VALUES (?, ?)");
    this.deleteTags = db.query("DELETE FROM memory_tags WHERE memory_seq = ?");
    this.insertHistory = db.query(
      `INSERT INTO memory_history (memory_id, memory_seq, ${HISTORY_COLUMNS})
       VALUES ($memory_id, $memory_seq, $version, $action, $content, $type, $importance, $tags, $pinned, $agent_id,
        $actor, $actor_type, $runtime_path, $reason, $created_at)`,
    );
    this.historyOf = db.query(`SELECT ${HISTORY_COLUMNS} FROM memory_history WHERE memory_seq = ? ORDER BY id`);
  }

  get(id: string): MemoryRow | null {
    return this.byId.get(id);
  }

  find(lookup: MemoryLookup): MemoryRow {
    const query = lookupQuery(lookup);
    if ("id" in query) return pickLookedUp(lookup, query, [this.byId.get(query.id)].filter((r) => r !== null));
    // The prefix's candidates in scope; others' ids are read past (few share a 6-character prefix).
    const [from, to] = prefixRange(query.prefix);
    const inScope = this.db
      .query<MemoryRow, (string | number)[]>(
        `SELECT ${MEMORY_COLUMNS} FROM memories WHERE id >= ? AND id < ?
         AND agent_id IN (${lookup.agentIds.map(() => "?").join(", ")}) ORDER BY id LIMIT ?`,
      )
      .all(from, to, ...lookup.agentIds, SHOWN_CANDIDATES + 1);
    return pickLookedUp(lookup, query, inScope);
  }

  findLiveByKey(agentId: string, key: string): MemoryRow[] {
    return this.byKey.all(agentId, key);
  }

  /** Writes a row in any state, with its history verbatim; returns its seq. */
  insert(row: Omit<MemoryRow, "seq">, history: ExportHistoryEntry[]): number {
    const { lastInsertRowid } = this.insertRow.run(row as never);
    const seq = Number(lastInsertRowid);
    this.writeTags(seq, JSON.parse(row.tags) as string[]);
    for (const entry of history) this.insertHistory.run(historyRowOf(row.id, seq, entry) as never);
    return seq;
  }

  /** Moves a stored row to its next state, with the history entry of the change. */
  update(prev: MemoryRow, next: MemoryRow, history: ExportHistoryEntry): void {
    this.updateRow.run({
      seq: next.seq,
      content: next.content,
      content_key: next.content_key,
      type: next.type,
      importance: next.importance,
      tags: next.tags,
      pinned: next.pinned,
      updated_at: next.updated_at,
      version: next.version,
      deleted_at: next.deleted_at,
      delete_reason: next.delete_reason,
    } as never);
    if (next.tags !== prev.tags) {
      this.deleteTags.run(next.seq);
      this.writeTags(next.seq, JSON.parse(next.tags) as string[]);
    }
    this.insertHistory.run(historyRowOf(next.id, next.seq, history) as never);
  }

  history(seq: number): HistoryEntry[] {
    return this.historyOf.all(seq).map(toHistoryEntry);
  }

  /** The whole history, with what the API leaves out (the runtime path), for an export. */
  exportHistory(seq: number): ExportHistoryEntry[] {
    return this.historyOf.all(seq).map(toExportHistoryEntry);
  }

  list(filter: ListFilter): MemoryRow[] {
    const { where, params } = filterSql(filter);
    // Forgotten memories are listed by when they were forgotten: the latest mistake comes first.
    const order = filter.forgotten ? "deleted_at DESC, seq DESC" : "created_at DESC, seq DESC";
    const sql = `SELECT ${MEMORY_COLUMNS} FROM memories WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`;
    return this.db.query<MemoryRow, (string | number)[]>(sql).all(...params, filter.limit, filter.offset);
  }

  /** How many memories an export holds: live ones, and forgotten ones with `forgotten`. */
  count(forgotten: boolean): number {
    const sql = `SELECT COUNT(*) AS n FROM memories${forgotten ? "" : " WHERE deleted_at IS NULL"}`;
    return this.db.query<{ n: number }, []>(sql).get()!.n;
  }

  /** The next `limit` memories after `afterSeq` in the order they were stored, for an export. */
  page(afterSeq: number, limit: number, forgotten: boolean): MemoryRow[] {
    const sql = `SELECT ${MEMORY_COLUMNS} FROM memories WHERE seq > ?${forgotten ? "" : " AND deleted_at IS NULL"} ORDER BY seq LIMIT ?`;
    return this.db.query<MemoryRow, [number, number]>(sql).all(afterSeq, limit);
  }

  private writeTags(seq: number, tags: string[]): void {
    for (const tag of tags) this.insertTag.run(tag, seq);
  }
}

export class SqliteMemoryStore implements MemoryStore {
  readonly rows: SqliteMemoryRows;
  private readonly group: GroupCommit;

  /** `lost`: why the database file is no longer the one opened (db/store-file.ts), or null. */
  constructor(
    readonly db: Database,
    lost?: () => string | null,
  ) {
    this.rows = new SqliteMemoryRows(db);
    this.group = new GroupCommit(db, lost);
  }

  async get(id: string): Promise<MemoryRow | null> {
    return this.rows.get(id);
  }

  async find(lookup: MemoryLookup): Promise<MemoryRow> {
    return this.rows.find(lookup);
  }

  async history(seq: number): Promise<HistoryEntry[]> {
    return this.rows.history(seq);
  }

  async list(filter: ListFilter): Promise<MemoryRow[]> {
    return this.rows.list(filter);
  }

  async count(forgotten: boolean): Promise<number> {
    return this.rows.count(forgotten);
  }

  /** Runs in the next group commit, in a savepoint of its own: a decision that throws undoes this write alone. */
  write<T>(reads: WriteReads, decide: (read: ReadForWrite) => Decision<T>): Promise<{ answer: T; change: MemoryChange | null }> {
    return this.group.run(() =>
      this.db
        .transaction(() => {
          const decision = decide(this.read(reads));
          return { answer: decision.answer, change: decision.write ? this.apply(decision.write) : null };
        })
        .immediate(),
    );
  }

  private read(reads: WriteReads): ReadForWrite {
    const existing = reads.existing === undefined ? null : this.rows.get(reads.existing);
    const target = reads.target ? this.rows.find(reads.target) : null;
    const dedupe = dedupeKeyOf(reads, target);
    return {
      target,
      existing: existing ? { row: existing, history: this.rows.history(existing.seq) } : null,
      sameKey: dedupe ? this.rows.findLiveByKey(dedupe.agentId, dedupe.key) : [],
    };
  }

  private apply(write: RowWrite): MemoryChange {
    if (write.kind === "insert") {
      const seq = this.rows.insert(write.row, write.history);
      return changeOf(write.change, { ...write.row, seq }, true);
    }
    this.rows.update(write.prev, write.next, write.history);
    return changeOf(write.change, write.next, write.contentChanged);
  }
}
