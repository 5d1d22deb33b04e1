// SQL for memories: rows, tag sets, version history and the keyword index, with prepared statements
// made once. No rules live here; the service decides what to write.
import type { Database, Statement } from "bun:sqlite";
import type { HistoryEntry, Memory } from "../../contracts/memory";
import type { ExportHistoryEntry } from "../../contracts/transfer";
import { filterSql, type MemoryFilter } from "./filter";

export interface MemoryRow {
  seq: number;
  id: string;
  agent_id: string;
  content: string;
  content_key: string;
  type: string;
  importance: number;
  tags: string;
  pinned: number;
  who: string | null;
  project: string | null;
  source: string | null;
  session_key: string | null;
  hints: string;
  transcript: string | null;
  structured: string | null;
  review_after: string | null;
  created_at: string;
  updated_at: string;
  version: number;
  access_count: number;
  last_accessed_at: string | null;
  deleted_at: string | null;
  delete_reason: string | null;
}

interface HistoryRow {
  version: number;
  action: HistoryEntry["action"];
  content: string;
  type: string;
  importance: number;
  tags: string;
  pinned: number;
  agent_id: string;
  actor: string | null;
  actor_type: string | null;
  runtime_path: string | null;
  reason: string | null;
  created_at: string;
}

export interface HistoryWrite {
  action: HistoryEntry["action"];
  actor: string | null;
  actorType: string | null;
  runtimePath: string | null;
  reason: string | null;
  at: string;
}

/** A memory's keyword columns: content, tags, hints and extra terms (search/text.ts keywordColumns). */
export type KeywordColumns = [string, string, string, string];

/** What the keyword index (memories_fts) holds for a memory after a write: its columns, or nothing. */
export interface KeywordWrite {
  seq: number;
  /** The memory's columns as written; null once it is forgotten (the index holds live memories only). */
  columns: KeywordColumns | null;
  /** False for a memory new to the store, which the index cannot hold yet. */
  replaces: boolean;
}

/** A new memory's row: version 1, never read, not forgotten. */
type NewMemoryRow = Omit<MemoryRow, "seq" | "version" | "access_count" | "last_accessed_at" | "deleted_at" | "delete_reason">;

export interface ListFilter extends MemoryFilter {
  limit: number;
  offset: number;
}

/** The fields a memory and each of its history entries share, in the order both answer them. */
function snapshotOf(row: Pick<MemoryRow, "content" | "type" | "importance" | "tags" | "pinned">) {
  return {
    content: row.content,
    type: row.type,
    importance: row.importance,
    tags: JSON.parse(row.tags) as string[],
    pinned: row.pinned === 1,
  };
}

export function toMemory(row: MemoryRow): Memory {
  return {
    id: row.id,
    ...snapshotOf(row),
    who: row.who,
    project: row.project,
    agentId: row.agent_id,
    source: row.source,
    sessionKey: row.session_key,
    hints: JSON.parse(row.hints) as string[],
    transcript: row.transcript,
    structured: row.structured === null ? null : (JSON.parse(row.structured) as Record<string, unknown>),
    reviewAfter: row.review_after,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
    accessCount: row.access_count,
    lastAccessedAt: row.last_accessed_at,
    deletedAt: row.deleted_at,
    deleteReason: row.delete_reason,
  };
}

/** The row of a memory as an export holds it (toMemory's inverse); its dedupe key is the caller's to compute. */
export function rowOf(m: Memory): Omit<MemoryRow, "seq" | "content_key"> {
  return {
    id: m.id,
    agent_id: m.agentId,
    content: m.content,
    type: m.type,
    importance: m.importance,
    tags: JSON.stringify(m.tags),
    pinned: m.pinned ? 1 : 0,
    who: m.who,
    project: m.project,
    source: m.source,
    session_key: m.sessionKey,
    hints: JSON.stringify(m.hints),
    transcript: m.transcript,
    structured: m.structured === null ? null : JSON.stringify(m.structured),
    review_after: m.reviewAfter,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
    version: m.version,
    access_count: m.accessCount,
    last_accessed_at: m.lastAccessedAt,
    deleted_at: m.deletedAt,
    delete_reason: m.deleteReason,
  };
}

function toHistoryEntry(row: HistoryRow): HistoryEntry {
  return {
    version: row.version,
    action: row.action,
    ...snapshotOf(row),
    agentId: row.agent_id,
    actor: row.actor,
    actorType: row.actor_type,
    reason: row.reason,
    createdAt: row.created_at,
  };
}

const MEMORY_COLUMNS = `seq, id, agent_id, content, content_key, type, importance, tags, pinned, who, project, source,
  session_key, hints, transcript, structured, review_after, created_at, updated_at, version, access_count,
  last_accessed_at, deleted_at, delete_reason`;

export class MemoryStore {
  private readonly byId: Statement<MemoryRow, [string]>;
  private readonly byKey: Statement<MemoryRow, [string, string]>;
  private readonly insertRow: Statement;
  private readonly updateRow: Statement;
  private readonly setDeleted: Statement;
  private readonly insertTag: Statement;
  private readonly deleteTags: Statement;
  private readonly insertFts: Statement;
  private readonly deleteFts: Statement;
  private readonly insertHistory: Statement;
  private readonly historyOf: Statement<HistoryRow, [string]>;

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
        tags = $tags, pinned = $pinned, updated_at = $updated_at, version = version + 1 WHERE seq = $seq`,
    );
    this.setDeleted = db.query(
      `UPDATE memories SET deleted_at = $deleted_at, delete_reason = $delete_reason, updated_at = $updated_at,
        version = version + 1 WHERE seq = $seq`,
    );
    this.insertTag = db.query("INSERT OR IGNORE INTO memory_tags (tag, memory_seq) VALUES (?, ?)");
    this.deleteTags = db.query("DELETE FROM memory_tags WHERE memory_seq = ?");
    this.insertFts = db.query("INSERT INTO memories_fts (rowid, content, tags, hints, terms) VALUES (?, ?, ?, ?, ?)");
    this.deleteFts = db.query("DELETE FROM memories_fts WHERE rowid = ?");
    this.insertHistory = db.query(
      `INSERT INTO memory_history (memory_id, version, action, content, type, importance, tags, pinned, agent_id,
        actor, actor_type, runtime_path, reason, created_at)
       VALUES ($memory_id, $version, $action, $content, $type, $importance, $tags, $pinned, $agent_id,
        $actor, $actor_type, $runtime_path, $reason, $created_at)`,
    );
    this.historyOf = db.query(
      `SELECT version, action, content, type, importance, tags, pinned, agent_id, actor, actor_type, runtime_path, reason,
        created_at FROM memory_history WHERE memory_id = ? ORDER BY id`,
    );
  }

  get(id: string): MemoryRow | null {
    return this.byId.get(id);
  }

  findLiveByKey(agentId: string, key: string): MemoryRow[] {
    return this.byKey.all(agentId, key);
  }

  insert(row: NewMemoryRow): number {
    return this.restore({ ...row, version: 1, access_count: 0, last_accessed_at: null, deleted_at: null, delete_reason: null }, []);
  }

  /**
   * Writes a memory as it was somewhere else (an import): its row in any state, and its history
   * verbatim. Its keyword index row is the caller's to write (writeKeywords).
   */
  restore(row: Omit<MemoryRow, "seq">, history: ExportHistoryEntry[]): number {
    const { lastInsertRowid } = this.insertRow.run(row as never);
    const seq = Number(lastInsertRowid);
    this.writeTags(seq, JSON.parse(row.tags) as string[]);
    for (const entry of history) this.writeHistory(row.id, entry);
    return seq;
  }

  update(row: MemoryRow): void {
    this.updateRow.run({
      seq: row.seq,
      content: row.content,
      content_key: row.content_key,
      type: row.type,
      importance: row.importance,
      tags: row.tags,
      pinned: row.pinned,
      updated_at: row.updated_at,
    } as never);
    this.deleteTags.run(row.seq);
    this.writeTags(row.seq, JSON.parse(row.tags) as string[]);
  }

  /** Marks a row forgotten (or live again with `deletedAt` null). */
  markDeleted(row: MemoryRow, deletedAt: string | null, reason: string | null, at: string): void {
    this.setDeleted.run({ seq: row.seq, deleted_at: deletedAt, delete_reason: reason, updated_at: at } as never);
  }

  /** Brings memories_fts in step with `writes`, in their order. */
  writeKeywords(writes: Iterable<KeywordWrite>): void {
    for (const { seq, columns, replaces } of writes) {
      if (replaces) this.deleteFts.run(seq);
      if (columns) this.insertFts.run(seq, ...columns);
    }
  }

  recordHistory(row: MemoryRow, write: HistoryWrite): void {
    this.writeHistory(row.id, {
      version: row.version,
      action: write.action,
      ...snapshotOf(row),
      agentId: row.agent_id,
      actor: write.actor,
      actorType: write.actorType,
      runtimePath: write.runtimePath,
      reason: write.reason,
      createdAt: write.at,
    });
  }

  history(id: string): HistoryEntry[] {
    return this.historyOf.all(id).map(toHistoryEntry);
  }

  /** The whole history, with what the API leaves out (the runtime path), for an export. */
  exportHistory(id: string): ExportHistoryEntry[] {
    return this.historyOf.all(id).map((row) => ({ ...toHistoryEntry(row), runtimePath: row.runtime_path }));
  }

  list(filter: ListFilter): MemoryRow[] {
    const { where, params } = filterSql(filter);
    // Forgotten memories are listed by when they were forgotten: the latest mistake comes first.
    const order = filter.forgotten ? "deleted_at DESC, seq DESC" : "created_at DESC, seq DESC";
    const sql = `SELECT ${MEMORY_COLUMNS} FROM memories WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`;
    return this.db.query<MemoryRow, (string | number)[]>(sql).all(...params, filter.limit, filter.offset);
  }

  /**
   * Memories of `agentIds` whose id starts with `prefix` (lower-case hex and dashes), at most `limit`.
   * Ids hold only [0-9a-f-], all below "g", so the range [prefix, prefix + "g") is exactly the ids
   * starting with it, and the id index answers it.
   */
  withIdPrefix(prefix: string, agentIds: string[], limit: number): MemoryRow[] {
    const sql = `SELECT ${MEMORY_COLUMNS} FROM memories WHERE id >= ? AND id < ?
      AND agent_id IN (${agentIds.map(() => "?").join(", ")}) ORDER BY id LIMIT ?`;
    return this.db.query<MemoryRow, (string | number)[]>(sql).all(prefix, `${prefix}g`, ...agentIds, limit);
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

  private writeHistory(memoryId: string, entry: ExportHistoryEntry): void {
    this.insertHistory.run({
      memory_id: memoryId,
      version: entry.version,
      action: entry.action,
      content: entry.content,
      type: entry.type,
      importance: entry.importance,
      tags: JSON.stringify(entry.tags),
      pinned: entry.pinned ? 1 : 0,
      agent_id: entry.agentId,
      actor: entry.actor,
      actor_type: entry.actorType,
      runtime_path: entry.runtimePath,
      reason: entry.reason,
      created_at: entry.createdAt,
    } as never);
  }

  private writeTags(seq: number, tags: string[]): void {
    for (const tag of tags) this.insertTag.run(tag, seq);
  }
}
