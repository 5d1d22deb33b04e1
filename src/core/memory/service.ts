// The memory domain: scoping, dedupe, versions, soft delete and recovery. Every write is one
// transaction covering the row, its tags, its history and its keyword index (in a group commit, the
// group's transaction).
import type { Database } from "bun:sqlite";
import type {
  ForgetRequest,
  HistoryResponse,
  ListQuery,
  ListResponse,
  Memory,
  MemoryWithHistory,
  ModifyRequest,
  NoteRequest,
  RecoverRequest,
  RememberRequest,
  RememberResponse,
} from "../../contracts/memory";
import type { ExportRecord } from "../../contracts/transfer";
import { SignetError, invalidInput } from "../../contracts/errors";
import { keywordColumns } from "../search/text";
import { ignoredOnDedupe } from "./dedupe";
import { memoryFilter } from "./filter";
import { contentKey, normalizeContent } from "./normalize";
import { findById } from "./short-ids";
import type { CommitHooks } from "./group-commit";
import { MemoryStore, rowOf, toMemory, type HistoryWrite, type KeywordColumns, type KeywordWrite, type MemoryRow } from "./store";

/** Who is calling: the agent whose memories are in scope, and provenance for the history. */
export interface Caller {
  agentId: string;
  actor: string | null;
  actorType: string | null;
  runtimePath: string | null;
}

const RECOVER_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
const NOTE_SOURCE = "codex-native-note";

/** What changed, told after the transaction committed (the keyword and vector indexes and the embedder follow it). */
export interface MemoryChange {
  kind: "created" | "modified" | "forgotten" | "recovered";
  seq: number;
  agentId: string;
  project: string | null;
  contentChanged: boolean;
  /** The memory's keyword columns as written, null once it is forgotten: what a keyword index holds for it. */
  keywordColumns: KeywordColumns | null;
}

/** A change's keyword columns, from the row as written (null when it is forgotten). */
function keywordsOf(row: Pick<MemoryRow, "content" | "tags" | "hints" | "deleted_at">): KeywordColumns | null {
  return row.deleted_at === null ? keywordColumns(row.content, row.tags, row.hints) : null;
}

function changeOf(kind: MemoryChange["kind"], row: MemoryRow, contentChanged: boolean): MemoryChange {
  return { kind, seq: row.seq, agentId: row.agent_id, project: row.project, contentChanged, keywordColumns: keywordsOf(row) };
}

/** What memories_fts must do for a change: a memory new to the store has no row there to replace. */
function keywordWrite(change: MemoryChange): KeywordWrite {
  return { seq: change.seq, columns: change.keywordColumns, replaces: change.kind !== "created" };
}

/** What became of one imported memory (docs/api.md#post-apiimport). */
export type RestoreOutcome =
  | { outcome: "imported" }
  | { outcome: "skipped" }
  | { outcome: "duplicate"; existingId: string }
  | { outcome: "conflict"; reason: string };

export interface MemoryServiceOptions {
  /** Agents configured with `readPolicy: shared`: every agent may read their memories. */
  sharedAgents?: Iterable<string>;
  now?: () => Date;
  onChange?: (change: MemoryChange) => void;
}

export class MemoryService implements CommitHooks {
  readonly store: MemoryStore;
  private readonly shared: Set<string>;
  private readonly now: () => Date;
  private readonly onChange: (change: MemoryChange) => void;
  /** The changes of the group commit under way, in order (begin() to end()). */
  private grouped: MemoryChange[] | null = null;

  constructor(
    readonly db: Database,
    options: MemoryServiceOptions = {},
  ) {
    this.store = new MemoryStore(db);
    this.shared = new Set(options.sharedAgents ?? []);
    this.now = options.now ?? (() => new Date());
    this.onChange = options.onChange ?? (() => {});
  }

  /**
   * Runs `fn` as one immediate transaction (a savepoint inside a group commit), then tells onChange
   * what it committed, if anything. In a group commit the keyword index is written once for the
   * group, before its commit (beforeCommit), and the news waits for that commit (end).
   */
  private write<T>(fn: () => [T, MemoryChange | null]): T {
    const group = this.grouped;
    const [result, change] = this.db
      .transaction((): [T, MemoryChange | null] => {
        const written = fn();
        if (!group && written[1]) this.store.writeKeywords([keywordWrite(written[1])]);
        return written;
      })
      .immediate();
    if (change) {
      if (group) group.push(change);
      else this.onChange(change);
    }
    return result;
  }

  /** A group commit's transaction begins: writes until end() are part of it. */
  begin(): void {
    this.grouped = [];
  }

  /**
   * The group's keyword index rows, all at once before its commit: FTS5 makes what it holds at each
   * savepoint (one per write) a segment of its own, to be merged later; one per commit costs less.
   */
  beforeCommit(): void {
    this.store.writeKeywords((this.grouped ?? []).map(keywordWrite));
  }

  /** The group commit is over: its changes are announced once committed, dropped if rolled back. */
  end(committed: boolean): void {
    const changes = this.grouped ?? [];
    this.grouped = null;
    if (committed) for (const change of changes) this.onChange(change);
  }

  /** The agents whose memories this caller may read: its own, then every shared agent. */
  readableAgents(caller: Caller): string[] {
    return [caller.agentId, ...[...this.shared].filter((a) => a !== caller.agentId)];
  }

  remember(caller: Caller, req: RememberRequest, source?: string): RememberResponse {
    const nowIso = this.now().toISOString();
    if (req.createdAt !== undefined && req.createdAt > nowIso) {
      throw invalidInput(`createdAt ${req.createdAt} is in the future; give a past time or leave it out`);
    }
    const project = req.project ?? null;
    const key = contentKey(project, req.content);
    return this.write((): [RememberResponse, MemoryChange | null] => {
      const existing = this.findDuplicate(caller.agentId, project, key, req.content);
      if (existing) {
        const stored = toMemory(existing);
        return [{ ...stored, deduped: true, dedupe: { ignored: ignoredOnDedupe(stored, req) } }, null];
      }
      const row = {
        id: crypto.randomUUID(),
        agent_id: caller.agentId,
        content: req.content,
        content_key: key,
        type: req.type ?? "fact",
        importance: req.importance ?? 0.5,
        tags: JSON.stringify(req.tags ?? []),
        pinned: req.pinned ? 1 : 0,
        who: req.who ?? caller.agentId,
        project,
        source: source ?? caller.actor ?? "api",
        session_key: req.sessionKey ?? null,
        hints: JSON.stringify(req.hints ?? []),
        transcript: req.transcript ?? null,
        structured: req.structured === undefined ? null : JSON.stringify(req.structured),
        review_after: req.reviewAfter ?? null,
        created_at: req.createdAt ?? nowIso,
        updated_at: nowIso,
      };
      const seq = this.store.insert(row);
      const full: MemoryRow = { ...row, seq, version: 1, access_count: 0, last_accessed_at: null, deleted_at: null, delete_reason: null };
      this.store.recordHistory(full, this.historyWrite(caller, "create", null, nowIso));
      return [{ ...toMemory(full), deduped: false }, changeOf("created", full, true)];
    });
  }

  /** `signet_save_note`: a memory of type `note`, its title kept as the first line. */
  note(caller: Caller, req: NoteRequest): RememberResponse {
    const content = req.title ? `${req.title}\n\n${req.content}` : req.content;
    return this.remember(caller, { content, type: "note", tags: req.tags, project: req.project }, NOTE_SOURCE);
  }

  get(caller: Caller, id: string): MemoryWithHistory {
    const row = this.readable(caller, id);
    return { ...toMemory(row), history: this.store.history(row.id) };
  }

  history(caller: Caller, id: string): HistoryResponse {
    const row = this.readable(caller, id);
    return { memoryId: row.id, history: this.store.history(row.id) };
  }

  list(caller: Caller, query: ListQuery): ListResponse {
    const rows = this.store.list({ ...memoryFilter(this.readableAgents(caller), query), limit: query.limit + 1, offset: query.offset });
    const hasMore = rows.length > query.limit;
    return { memories: rows.slice(0, query.limit).map(toMemory), limit: query.limit, offset: query.offset, hasMore };
  }

  modify(caller: Caller, id: string, req: ModifyRequest): Memory {
    return this.write((): [Memory, MemoryChange | null] => {
      const row = this.writable(caller, id);
      if (row.deleted_at !== null) {
        throw new SignetError("deleted", `memory ${id} is forgotten; recover it before modifying it`);
      }
      if (req.ifVersion !== undefined && req.ifVersion !== row.version) {
        throw new SignetError(
          "version_conflict",
          `memory ${id} is at version ${row.version}, not ${req.ifVersion}: re-read it and apply your change again`,
        );
      }
      const next: MemoryRow = {
        ...row,
        content: req.content ?? row.content,
        type: req.type ?? row.type,
        importance: req.importance ?? row.importance,
        tags: req.tags === undefined ? row.tags : JSON.stringify(req.tags),
        pinned: req.pinned === undefined ? row.pinned : req.pinned ? 1 : 0,
      };
      const changed =
        next.content !== row.content ||
        next.type !== row.type ||
        next.importance !== row.importance ||
        next.tags !== row.tags ||
        next.pinned !== row.pinned;
      if (!changed) return [toMemory(row), null];
      const nowIso = this.now().toISOString();
      next.content_key = contentKey(row.project, next.content);
      next.updated_at = nowIso;
      next.version = row.version + 1;
      this.store.update(next);
      this.store.recordHistory(next, this.historyWrite(caller, "modify", req.reason, nowIso));
      return [toMemory(next), changeOf("modified", next, next.content !== row.content)];
    });
  }

  forget(caller: Caller, id: string, req: ForgetRequest): Memory {
    return this.write((): [Memory, MemoryChange | null] => {
      const row = this.writable(caller, id);
      if (row.deleted_at !== null) throw new SignetError("deleted", `memory ${id} is already forgotten`);
      if (row.pinned === 1 && !req.force) {
        throw new SignetError(
          "pinned",
          `memory ${id} is pinned: unpin it first (modify with pinned=false), or pass force=true to forget it anyway`,
        );
      }
      const nowIso = this.now().toISOString();
      this.store.markDeleted(row, nowIso, req.reason, nowIso);
      const next: MemoryRow = { ...row, deleted_at: nowIso, delete_reason: req.reason, updated_at: nowIso, version: row.version + 1 };
      this.store.recordHistory(next, this.historyWrite(caller, "forget", req.reason, nowIso));
      return [toMemory(next), changeOf("forgotten", next, false)];
    });
  }

  recover(caller: Caller, id: string, req: RecoverRequest): Memory {
    return this.write((): [Memory, MemoryChange | null] => {
      const row = this.writable(caller, id);
      if (row.deleted_at === null) return [toMemory(row), null];
      const now = this.now();
      if (now.getTime() - Date.parse(row.deleted_at) > RECOVER_WINDOW_MS) {
        throw new SignetError("deleted", `memory ${id} was forgotten on ${row.deleted_at}, more than 30 days ago; it cannot be recovered`);
      }
      const nowIso = now.toISOString();
      this.store.markDeleted(row, null, null, nowIso);
      const next: MemoryRow = { ...row, deleted_at: null, delete_reason: null, updated_at: nowIso, version: row.version + 1 };
      this.store.recordHistory(next, this.historyWrite(caller, "recover", req.reason ?? null, nowIso));
      return [toMemory(next), changeOf("recovered", next, false)];
    });
  }

  /**
   * Writes a memory exported elsewhere exactly as it was: id, versions, history, state
   * (docs/api.md#post-apiimport). Nothing stored is ever overwritten: the same memory is skipped,
   * another one under its id is a conflict, and a live memory with the same text (dedupe) makes a
   * live record a duplicate.
   */
  restore(record: ExportRecord): RestoreOutcome {
    return this.write((): [RestoreOutcome, MemoryChange | null] => {
      const existing = this.store.get(record.id);
      if (existing) return [this.sameOrConflict(existing, record), null];
      const key = contentKey(record.project, record.content);
      const live = record.deletedAt === null;
      // Forgotten memories take no part in dedupe, here as in remember.
      const duplicate = live ? this.findDuplicate(record.agentId, record.project, key, record.content) : null;
      if (duplicate) return [{ outcome: "duplicate", existingId: duplicate.id }, null];
      const row = { ...rowOf(record), content_key: key };
      const seq = this.store.restore(row, record.history);
      return [{ outcome: "imported" }, changeOf(live ? "created" : "forgotten", { ...row, seq }, true)];
    });
  }

  /**
   * An imported record against the memory stored under its id: skipped when the memory holds the
   * record's latest version (at that version, or changed here since: its history has that version with
   * that content), a conflict saying how they differ otherwise.
   */
  private sameOrConflict(stored: MemoryRow, record: ExportRecord): RestoreOutcome {
    const at = stored.version === record.version ? stored : this.store.history(stored.id).find((h) => h.version === record.version);
    const differs =
      stored.agent_id !== record.agentId
        ? `it belongs to agent ${stored.agent_id} here and to ${record.agentId} in the file`
        : at === undefined
          ? `it is at version ${stored.version} here and at version ${record.version} in the file`
          : at.content !== record.content
            ? `its content at version ${record.version} differs from the file's`
            : null;
    return differs === null ? { outcome: "skipped" } : { outcome: "conflict", reason: `memory ${record.id} exists and ${differs}: left as it is` };
  }

  private findDuplicate(agentId: string, project: string | null, key: string, content: string): MemoryRow | null {
    const normalized = normalizeContent(content);
    return (
      this.store.findLiveByKey(agentId, key).find((r) => r.project === project && normalizeContent(r.content) === normalized) ??
      null
    );
  }

  /**
   * A row the caller may read, by its id or a unique prefix of it; others' private memories are
   * indistinguishable from missing ones.
   */
  private readable(caller: Caller, id: string): MemoryRow {
    return findById(this.store, this.readableAgents(caller), id);
  }

  /** A row the caller may change: only its own agent's. */
  private writable(caller: Caller, id: string): MemoryRow {
    const row = this.readable(caller, id);
    if (row.agent_id !== caller.agentId) {
      throw new SignetError(
        "forbidden",
        `memory ${id} belongs to agent ${row.agent_id}; shared memories are read-only for other agents`,
      );
    }
    return row;
  }

  private historyWrite(caller: Caller, action: HistoryWrite["action"], reason: string | null, at: string): HistoryWrite {
    return { action, actor: caller.actor, actorType: caller.actorType, runtimePath: caller.runtimePath, reason, at };
  }
}
