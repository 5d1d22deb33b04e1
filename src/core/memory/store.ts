// What the memory domain needs of a store, and the rows both stores return: the SQLite one
// (sqlite-store.ts) and the PostgreSQL one (postgres-store.ts). A write is declared once, as what it
// reads and a decision over those rows (service.ts); each store runs the reads, the decision and
// the rows it asks for in one transaction of its own, so two writers never decide on the same state.
import type { HistoryEntry, Memory } from "../../contracts/memory";
import type { ExportHistoryEntry } from "../../contracts/transfer";
import type { MemoryFilter } from "./filter";

/**
 * A memory's author as a query can name it (recall's author lift and the vector leg's search among an
 * author's memories): its `who`, unless that is the id of the agent that stored it, which `who`
 * defaults to. That says whose store the memory is in, not who said it: "the default port" names no
 * one, and every memory of the agent "default" would otherwise be lifted.
 */
export function authorOf(m: { who: string | null; agent_id: string }): string | null {
  return m.who === m.agent_id ? null : m.who;
}

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

export interface HistoryRow {
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

/** The text a keyword index holds for a memory: its content, tags and hints (JSON), as written. */
export type KeywordText = Pick<MemoryRow, "content" | "tags" | "hints">;

export interface ListFilter extends MemoryFilter {
  limit: number;
  offset: number;
}

export const MEMORY_COLUMNS = `seq, id, agent_id, content, content_key, type, importance, tags, pinned, who, project, source,
  session_key, hints, transcript, structured, review_after, created_at, updated_at, version, access_count,
  last_accessed_at, deleted_at, delete_reason`;

export const HISTORY_COLUMNS = "version, action, content, type, importance, tags, pinned, agent_id, actor, actor_type, runtime_path, reason, created_at";

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

export function toHistoryEntry(row: HistoryRow): HistoryEntry {
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

/** An entry of the whole history, with what the API leaves out (the runtime path), for an export. */
export function toExportHistoryEntry(row: HistoryRow): ExportHistoryEntry {
  return { ...toHistoryEntry(row), runtimePath: row.runtime_path };
}

/**
 * A history entry as both stores write it: `memory_history`'s columns but its id. Entries are found
 * through the memory's seq: ids are random, seqs grow, so an index on the seq takes new entries on its
 * last page instead of a random one.
 */
export function historyRowOf(memoryId: string, memorySeq: number, entry: ExportHistoryEntry): HistoryRow & { memory_id: string; memory_seq: number } {
  return {
    memory_id: memoryId,
    memory_seq: memorySeq,
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
  };
}

/** What changed, told after the transaction committed (the keyword and vector indexes and the embedder follow it). */
export interface MemoryChange {
  kind: "created" | "modified" | "forgotten" | "recovered";
  seq: number;
  agentId: string;
  project: string | null;
  contentChanged: boolean;
  /** The memory's text as written, null once it is forgotten: what a keyword index holds for it. */
  text: KeywordText | null;
}

/** The change a row as written makes. */
export function changeOf(kind: MemoryChange["kind"], row: MemoryRow, contentChanged: boolean): MemoryChange {
  return {
    kind,
    seq: row.seq,
    agentId: row.agent_id,
    project: row.project,
    contentChanged,
    text: row.deleted_at === null ? { content: row.content, tags: row.tags, hints: row.hints } : null,
  };
}

/** A memory named by its id or a unique prefix of it, among the memories of `agentIds` (short-ids.ts). */
export interface MemoryLookup {
  id: string;
  agentIds: string[];
}

/** What a write reads in its transaction before it decides. */
export interface WriteReads {
  /** The memory the write is about; one missing or out of scope fails the write (not found). */
  target?: MemoryLookup;
  /** The memory stored under exactly this id, if any, with its history (an import). */
  existing?: string;
  /**
   * The live memories of an agent with this dedupe key (normalize.ts contentKey), or with the key a
   * function gives for the target once it is read (none when it gives undefined).
   */
  sameKey?: DedupeKey | ((target: MemoryRow) => DedupeKey | undefined);
}

export interface DedupeKey {
  agentId: string;
  key: string;
}

/** The dedupe key a write reads, `target` being what it read of its target. */
export function dedupeKeyOf(reads: WriteReads, target: MemoryRow | null): DedupeKey | undefined {
  if (typeof reads.sameKey !== "function") return reads.sameKey;
  return target ? reads.sameKey(target) : undefined;
}

export interface ReadForWrite {
  target: MemoryRow | null;
  existing: { row: MemoryRow; history: HistoryEntry[] } | null;
  sameKey: MemoryRow[];
}

/**
 * The rows a decision asks for: a new memory with its history (seq unassigned), or the next state
 * of a stored one with the history entry of the change.
 */
export type RowWrite =
  | { kind: "insert"; row: Omit<MemoryRow, "seq">; history: ExportHistoryEntry[]; change: MemoryChange["kind"] }
  | { kind: "update"; prev: MemoryRow; next: MemoryRow; history: ExportHistoryEntry; change: MemoryChange["kind"]; contentChanged: boolean };

/** A decision: the answer, and the rows to write for it (none when nothing changes). */
export interface Decision<T> {
  answer: T;
  write?: RowWrite;
}

/** Memories, in whichever store the daemon runs on. */
export interface MemoryStore {
  get(id: string): Promise<MemoryRow | null>;
  /** The memory `lookup` names; not found, ambiguous and too short a prefix are errors (short-ids.ts). */
  find(lookup: MemoryLookup): Promise<MemoryRow>;
  /** The history of the memory stored as `seq`, oldest first. */
  history(seq: number): Promise<HistoryEntry[]>;
  /** Newest first (forgotten ones by when they were forgotten), paged. */
  list(filter: ListFilter): Promise<MemoryRow[]>;
  /** How many memories the store holds, of every agent: live ones, and forgotten ones with `forgotten`. */
  count(forgotten: boolean): Promise<number>;
  /**
   * Reads what `reads` asks for, calls `decide` on it and writes what it asks for, in one
   * transaction; an error thrown by `decide` writes nothing. Resolves once committed, with the
   * answer and the change made (null when nothing was written).
   */
  write<T>(reads: WriteReads, decide: (read: ReadForWrite) => Decision<T>): Promise<{ answer: T; change: MemoryChange | null }>;
}
