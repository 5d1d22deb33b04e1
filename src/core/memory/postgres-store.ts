// Memories in a PostgreSQL store shared by several daemons. A write runs in one transaction that
// first locks what its decision depends on, so two daemons never decide on the same state: the row
// it changes (FOR UPDATE), the dedupe key it checks (an advisory lock on agent and key, since the
// duplicate it looks for may not exist yet) or the id it imports under. Every write adds a line to
// the change feed (memory_changes), which the other daemons follow (postgres-feed.ts). There is no
// keyword index here: each daemon keeps its own in memory (search/keyword-index.ts).
import { LOCK_SPACE } from "../advisory-locks";
import type { HistoryEntry } from "../../contracts/memory";
import type { ExportHistoryEntry } from "../../contracts/transfer";
import { filterSql, numbered } from "./filter";
import { MEMORY_CHANNEL } from "./postgres-feed";
import { lookupQuery, pickLookedUp, SHOWN_CANDIDATES } from "./short-ids";
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
  toHistoryEntry,
  type WriteReads,
  dedupeKeyOf,
} from "./store";

type Sql = Bun.SQL;

const LOCK_DEDUPE_KEY = LOCK_SPACE.dedupeKey;
const LOCK_IMPORTED_ID = LOCK_SPACE.importedId;

/** The columns of a new row: every one but seq, which the identity assigns. */
const INSERT_COLUMNS = MEMORY_COLUMNS.replace(/^seq,\s*/, "")
  .split(",")
  .map((c) => c.trim()) as (keyof Omit<MemoryRow, "seq">)[];


export class PostgresMemoryStore implements MemoryStore {
  constructor(private readonly sql: Sql) {}

  async get(id: string): Promise<MemoryRow | null> {
    return byId(this.sql, id, false);
  }

  async find(lookup: MemoryLookup): Promise<MemoryRow> {
    return find(this.sql, lookup);
  }

  async history(seq: number): Promise<HistoryEntry[]> {
    return (await historyOf(this.sql, seq)).map(toHistoryEntry);
  }

  async count(forgotten: boolean): Promise<number> {
    const [row] = await this.sql.unsafe(`SELECT count(*)::int AS n FROM memories${forgotten ? "" : " WHERE deleted_at IS NULL"}`);
    return row.n;
  }

  async list(filter: ListFilter): Promise<MemoryRow[]> {
    const { where, params } = filterSql(filter);
    const order = filter.forgotten ? "deleted_at DESC, seq DESC" : "created_at DESC, seq DESC";
    return this.sql.unsafe(numbered(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`), [
      ...params,
      filter.limit,
      filter.offset,
    ]);
  }

  write<T>(reads: WriteReads, decide: (read: ReadForWrite) => Decision<T>): Promise<{ answer: T; change: MemoryChange | null }> {
    return this.sql.begin(async (tx) => {
      const decision = decide(await read(tx, reads));
      const change = decision.write ? await apply(tx, decision.write) : null;
      return { answer: decision.answer, change };
    });
  }
}

async function byId(sql: Sql, id: string, lock: boolean): Promise<MemoryRow | null> {
  const rows: MemoryRow[] = await sql.unsafe(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id]);
  return rows[0] ?? null;
}

async function find(sql: Sql, lookup: MemoryLookup): Promise<MemoryRow> {
  const query = lookupQuery(lookup);
  if ("id" in query) return pickLookedUp(lookup, query, [await byId(sql, query.id, false)].filter((r) => r !== null));
  // Ids in byte order, as SQLite orders them, whatever the database's collation.
  const rows: MemoryRow[] = await sql.unsafe(
    `SELECT ${MEMORY_COLUMNS} FROM memories WHERE starts_with(id, $1) AND agent_id = ANY($2) ORDER BY id COLLATE "C" LIMIT $3`,
    [query.prefix, sql.array(lookup.agentIds, "TEXT"), SHOWN_CANDIDATES + 1],
  );
  return pickLookedUp(lookup, query, rows);
}

async function historyOf(sql: Sql, seq: number): Promise<HistoryRow[]> {
  return sql.unsafe(`SELECT ${HISTORY_COLUMNS} FROM memory_history WHERE memory_seq = $1 ORDER BY id`, [seq]);
}

/** What the write reads, each under the lock that keeps it as read until the commit. */
async function read(tx: Sql, reads: WriteReads): Promise<ReadForWrite> {
  let target: MemoryRow | null = null;
  if (reads.target) {
    // Found as the caller names it, then locked and read again: a write before the lock is seen.
    const found = await find(tx, reads.target);
    target = await byId(tx, found.id, true);
  }
  let existing: ReadForWrite["existing"] = null;
  if (reads.existing !== undefined) {
    await tx`SELECT pg_advisory_xact_lock(${LOCK_IMPORTED_ID}, hashtext(${reads.existing}))`;
    const row = await byId(tx, reads.existing, true);
    if (row) existing = { row, history: (await historyOf(tx, row.seq)).map(toHistoryEntry) };
  }
  let sameKey: MemoryRow[] = [];
  const dedupe = dedupeKeyOf(reads, target);
  if (dedupe) {
    const { agentId, key } = dedupe;
    await tx`SELECT pg_advisory_xact_lock(${LOCK_DEDUPE_KEY}, hashtext(${`${agentId}\u0001${key}`}))`;
    sameKey = await tx`SELECT ${tx.unsafe(MEMORY_COLUMNS)} FROM memories WHERE agent_id = ${agentId} AND content_key = ${key} AND deleted_at IS NULL`;
  }
  return { target, existing, sameKey };
}

/**
 * Writes what the decision asked for. The row, its tags and its line in the change feed (with the
 * notification, sent at the commit) go in one statement; history entries in one more.
 */
async function apply(tx: Sql, write: RowWrite): Promise<MemoryChange> {
  if (write.kind === "insert") {
    const [stored] = await tx`
      WITH stored AS (INSERT INTO memories ${tx(write.row, ...INSERT_COLUMNS)} RETURNING seq),
      tagged AS (
        INSERT INTO memory_tags (tag, memory_seq)
        SELECT tag, stored.seq FROM stored, unnest(${tx.array(JSON.parse(write.row.tags) as string[], "TEXT")}::text[]) AS tag ON CONFLICT DO NOTHING),
      logged AS (INSERT INTO memory_changes (memory_seq, changed_at) SELECT seq, ${write.row.updated_at} FROM stored RETURNING change_seq)
      SELECT stored.seq, pg_notify(${MEMORY_CHANNEL}, logged.change_seq::text) FROM stored, logged`;
    const seq = (stored as { seq: number }).seq;
    for (const entry of write.history) await writeHistory(tx, write.row.id, seq, entry);
    return changeOf(write.change, { ...write.row, seq }, true);
  }
  const { prev, next } = write;
  await tx`
    WITH updated AS (
      UPDATE memories SET content = ${next.content}, content_key = ${next.content_key}, type = ${next.type},
        importance = ${next.importance}, tags = ${next.tags}, pinned = ${next.pinned}, updated_at = ${next.updated_at},
        version = ${next.version}, deleted_at = ${next.deleted_at}, delete_reason = ${next.delete_reason}
      WHERE seq = ${next.seq} RETURNING seq),
    logged AS (INSERT INTO memory_changes (memory_seq, changed_at) SELECT seq, ${next.updated_at} FROM updated RETURNING change_seq)
    SELECT pg_notify(${MEMORY_CHANNEL}, change_seq::text) FROM logged`;
  if (next.tags !== prev.tags) {
    await tx`DELETE FROM memory_tags WHERE memory_seq = ${next.seq}`;
    await writeTags(tx, next.seq, next.tags);
  }
  await writeHistory(tx, next.id, next.seq, write.history);
  return changeOf(write.change, next, write.contentChanged);
}

async function writeTags(tx: Sql, seq: number, tagsJson: string): Promise<void> {
  const tags = JSON.parse(tagsJson) as string[];
  if (tags.length === 0) return;
  await tx`INSERT INTO memory_tags (tag, memory_seq) SELECT unnest(${tx.array(tags, "TEXT")}::text[]), ${seq} ON CONFLICT DO NOTHING`;
}

const HISTORY_INSERT = HISTORY_COLUMNS.split(",").map((c) => c.trim());

async function writeHistory(tx: Sql, memoryId: string, memorySeq: number, entry: ExportHistoryEntry): Promise<void> {
  const row: Record<string, unknown> = { ...historyRowOf(memoryId, memorySeq, entry) };
  await tx`INSERT INTO memory_history ${tx(row, "memory_id", "memory_seq", ...HISTORY_INSERT)}`;
}
