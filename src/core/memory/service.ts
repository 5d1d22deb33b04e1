// The memory domain: scoping, dedupe, versions, soft delete and recovery. Each write is declared
// here once, as what it reads and a decision over it; the store runs both in one transaction with
// the rows decided (the row, its tags, its history, and in SQLite its keyword index).
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
import type { ExportHistoryEntry, ExportRecord } from "../../contracts/transfer";
import { SignetError, invalidInput } from "../../contracts/errors";
import { normalizeSessionKey } from "../../contracts/session";
import { ignoredOnDedupe } from "./dedupe";
import { memoryFilter } from "./filter";
import { contentKey, normalizeContent } from "./normalize";
import { type Decision, type HistoryRow, type MemoryChange, type MemoryRow, type MemoryStore, type ReadForWrite, rowOf, toMemory, type WriteReads } from "./store";

/** Who is calling: the agent whose memories are in scope, and provenance for the history. */
export interface Caller {
  agentId: string;
  actor: string | null;
  actorType: string | null;
  runtimePath: string | null;
}

const RECOVER_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
const NOTE_SOURCE = "codex-native-note";

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

/** The live memory among `sameKey` that `content` (in `project`) duplicates, if any. */
function duplicateOf(sameKey: MemoryRow[], project: string | null, content: string): MemoryRow | null {
  const normalized = normalizeContent(content);
  return sameKey.find((r) => r.project === project && normalizeContent(r.content) === normalized) ?? null;
}

/**
 * Refuses a change that would leave two live memories of one agent and project with the same text
 * (dedupe's folding): remember never makes one, an import would keep only the first of them, and
 * neither says more than the other.
 */
function refuseLiveTwin(read: ReadForWrite, row: MemoryRow, content: string, refusal: (twin: string) => string): void {
  const twin = duplicateOf(read.sameKey.filter((r) => r.id !== row.id), row.project, content);
  if (twin) throw new SignetError("exists", refusal(twin.id));
}

/** A row the caller may change: only its own agent's (the lookup already kept it to those it may read). */
function writable(read: ReadForWrite, caller: Caller): MemoryRow {
  const row = read.target!;
  if (row.agent_id !== caller.agentId) {
    throw new SignetError("forbidden", `memory ${row.id} belongs to agent ${row.agent_id}; shared memories are read-only for other agents`);
  }
  return row;
}

export class MemoryService {
  private readonly shared: Set<string>;
  private readonly now: () => Date;
  private readonly onChange: (change: MemoryChange) => void;

  constructor(
    readonly store: MemoryStore,
    options: MemoryServiceOptions = {},
  ) {
    this.shared = new Set(options.sharedAgents ?? []);
    this.now = options.now ?? (() => new Date());
    this.onChange = options.onChange ?? (() => {});
  }

  /** Runs one write in the store; what it changed is told once committed. */
  private async write<T>(reads: WriteReads, decide: (read: ReadForWrite) => Decision<T>): Promise<T> {
    const { answer, change } = await this.store.write(reads, decide);
    if (change) this.onChange(change);
    return answer;
  }

  /** The agents whose memories this caller may read: its own, then every shared agent. */
  readableAgents(caller: Caller): string[] {
    return [caller.agentId, ...[...this.shared].filter((a) => a !== caller.agentId)];
  }

  remember(caller: Caller, req: RememberRequest, source?: string): Promise<RememberResponse> {
    const nowIso = this.now().toISOString();
    if (req.createdAt !== undefined && req.createdAt > nowIso) {
      return Promise.reject(invalidInput(`createdAt ${req.createdAt} is in the future; give a past time or leave it out`));
    }
    const project = req.project ?? null;
    const key = contentKey(project, req.content);
    return this.write({ sameKey: { agentId: caller.agentId, key } }, (read): Decision<RememberResponse> => {
      const existing = duplicateOf(read.sameKey, project, req.content);
      if (existing) {
        const stored = toMemory(existing);
        return { answer: { ...stored, deduped: true, dedupe: { ignored: ignoredOnDedupe(stored, req) } } };
      }
      const row: Omit<MemoryRow, "seq"> = {
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
        // `session:<uuid>` and `<uuid>` are one session: its memories are neighbours whichever spelling stored them.
        session_key: req.sessionKey === undefined ? null : normalizeSessionKey(req.sessionKey),
        hints: JSON.stringify(req.hints ?? []),
        transcript: req.transcript ?? null,
        structured: req.structured === undefined ? null : JSON.stringify(req.structured),
        review_after: req.reviewAfter ?? null,
        created_at: req.createdAt ?? nowIso,
        updated_at: nowIso,
        version: 1,
        access_count: 0,
        last_accessed_at: null,
        deleted_at: null,
        delete_reason: null,
      };
      return {
        answer: { ...toMemory({ ...row, seq: 0 }), deduped: false },
        write: { kind: "insert", row, history: [this.historyEntry(caller, row, "create", null, nowIso)], change: "created" },
      };
    });
  }

  /** `signet_save_note`: a memory of type `note`, its title kept as the first line. */
  note(caller: Caller, req: NoteRequest): Promise<RememberResponse> {
    const content = req.title ? `${req.title}\n\n${req.content}` : req.content;
    return this.remember(caller, { content, type: "note", tags: req.tags, project: req.project }, NOTE_SOURCE);
  }

  /** Live memories in the store, of every agent (for /health). */
  liveCount(): Promise<number> {
    return this.store.count(false);
  }

  async get(caller: Caller, id: string): Promise<MemoryWithHistory> {
    const row = await this.readable(caller, id);
    return { ...toMemory(row), history: await this.store.history(row.seq) };
  }

  async history(caller: Caller, id: string): Promise<HistoryResponse> {
    const row = await this.readable(caller, id);
    return { memoryId: row.id, history: await this.store.history(row.seq) };
  }

  async list(caller: Caller, query: ListQuery): Promise<ListResponse> {
    const rows = await this.store.list({ ...memoryFilter(this.readableAgents(caller), query), limit: query.limit + 1, offset: query.offset });
    const hasMore = rows.length > query.limit;
    return { memories: rows.slice(0, query.limit).map(toMemory), limit: query.limit, offset: query.offset, hasMore };
  }

  modify(caller: Caller, id: string, req: ModifyRequest): Promise<Memory> {
    // New text is checked against the agent's other live memories of the project, as remember checks it.
    const content = req.content;
    const sameKey = content === undefined ? undefined : (row: MemoryRow) => ({ agentId: row.agent_id, key: contentKey(row.project, content) });
    return this.write({ target: this.lookup(caller, id), sameKey }, (read): Decision<Memory> => {
      const row = writable(read, caller);
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
        // Tags are a set: the same tags in another order change nothing, and keep the stored order.
        tags: req.tags === undefined || sameTagSet(row.tags, req.tags) ? row.tags : JSON.stringify(req.tags),
        pinned: req.pinned === undefined ? row.pinned : req.pinned ? 1 : 0,
      };
      const changed =
        next.content !== row.content ||
        next.type !== row.type ||
        next.importance !== row.importance ||
        next.tags !== row.tags ||
        next.pinned !== row.pinned;
      if (!changed) return { answer: toMemory(row) };
      if (next.content !== row.content) refuseLiveTwin(read, row, next.content, (twin) => `memory ${twin} already says this; forget one of the two instead of making them alike`);
      const nowIso = this.now().toISOString();
      next.content_key = contentKey(row.project, next.content);
      next.updated_at = nowIso;
      next.version = row.version + 1;
      const history = this.historyEntry(caller, next, "modify", req.reason, nowIso);
      return { answer: toMemory(next), write: { kind: "update", prev: row, next, history, change: "modified", contentChanged: next.content !== row.content } };
    });
  }

  forget(caller: Caller, id: string, req: ForgetRequest): Promise<Memory> {
    return this.write({ target: this.lookup(caller, id) }, (read): Decision<Memory> => {
      const row = writable(read, caller);
      if (row.deleted_at !== null) throw new SignetError("deleted", `memory ${id} is already forgotten`);
      if (row.pinned === 1 && !req.force) {
        throw new SignetError(
          "pinned",
          `memory ${id} is pinned: unpin it first (modify with pinned=false), or pass force=true to forget it anyway`,
        );
      }
      const nowIso = this.now().toISOString();
      const next: MemoryRow = { ...row, deleted_at: nowIso, delete_reason: req.reason, updated_at: nowIso, version: row.version + 1 };
      const history = this.historyEntry(caller, next, "forget", req.reason, nowIso);
      return { answer: toMemory(next), write: { kind: "update", prev: row, next, history, change: "forgotten", contentChanged: false } };
    });
  }

  recover(caller: Caller, id: string, req: RecoverRequest): Promise<Memory> {
    const sameKey = (row: MemoryRow) => (row.deleted_at === null ? undefined : { agentId: row.agent_id, key: row.content_key });
    return this.write({ target: this.lookup(caller, id), sameKey }, (read): Decision<Memory> => {
      const row = writable(read, caller);
      if (row.deleted_at === null) return { answer: toMemory(row) };
      const now = this.now();
      if (now.getTime() - Date.parse(row.deleted_at) > RECOVER_WINDOW_MS) {
        throw new SignetError("deleted", `memory ${id} was forgotten on ${row.deleted_at}, more than 30 days ago; it cannot be recovered`);
      }
      refuseLiveTwin(read, row, row.content, (twin) => `memory ${twin} says the same and stands for it now; forget that one first to recover this one`);
      const nowIso = now.toISOString();
      const next: MemoryRow = { ...row, deleted_at: null, delete_reason: null, updated_at: nowIso, version: row.version + 1 };
      const history = this.historyEntry(caller, next, "recover", req.reason ?? null, nowIso);
      return { answer: toMemory(next), write: { kind: "update", prev: row, next, history, change: "recovered", contentChanged: false } };
    });
  }

  /**
   * Writes a memory exported elsewhere exactly as it was: id, versions, history, state
   * (docs/api.md#post-apiimport). Nothing stored is ever overwritten: the same memory is skipped,
   * another one under its id is a conflict, and a live memory with the same text (dedupe) makes a
   * live record a duplicate.
   */
  restore(record: ExportRecord): Promise<RestoreOutcome> {
    const nowIso = this.now().toISOString();
    for (const [field, at] of [["createdAt", record.createdAt], ["updatedAt", record.updatedAt]] as const) {
      if (at > nowIso) return Promise.reject(invalidInput(`${field} ${at} is in the future`));
    }
    const key = contentKey(record.project, record.content);
    const live = record.deletedAt === null;
    const reads: WriteReads = { existing: record.id, ...(live ? { sameKey: { agentId: record.agentId, key } } : {}) };
    return this.write(reads, (read): Decision<RestoreOutcome> => {
      if (read.existing) return { answer: sameOrConflict(read.existing, record) };
      // Forgotten memories take no part in dedupe, here as in remember.
      const duplicate = live ? duplicateOf(read.sameKey, record.project, record.content) : null;
      if (duplicate) return { answer: { outcome: "duplicate", existingId: duplicate.id } };
      const row = { ...rowOf(record), content_key: key };
      return { answer: { outcome: "imported" }, write: { kind: "insert", row, history: record.history, change: live ? "created" : "forgotten" } };
    });
  }

  /** A lookup of the memory `id` names among those the caller may read; others' private memories are indistinguishable from missing ones. */
  private lookup(caller: Caller, id: string) {
    return { id, agentIds: this.readableAgents(caller) };
  }

  private readable(caller: Caller, id: string): Promise<MemoryRow> {
    return this.store.find(this.lookup(caller, id));
  }

  /** The history entry of a change the caller makes, recording the row as it is after it. */
  private historyEntry(
    caller: Caller,
    row: Pick<HistoryRow, "version" | "content" | "type" | "importance" | "tags" | "pinned" | "agent_id">,
    action: ExportHistoryEntry["action"],
    reason: string | null,
    at: string,
  ): ExportHistoryEntry {
    return {
      version: row.version,
      action,
      content: row.content,
      type: row.type,
      importance: row.importance,
      tags: JSON.parse(row.tags) as string[],
      pinned: row.pinned === 1,
      agentId: row.agent_id,
      actor: caller.actor,
      actorType: caller.actorType,
      runtimePath: caller.runtimePath,
      reason,
      createdAt: at,
    };
  }
}

/**
 * An imported record against the memory stored under its id: skipped when the memory holds the
 * record's latest version (at that version, or changed here since: its history has that version with
 * that content), a conflict saying how they differ otherwise.
 */
function sameOrConflict(existing: NonNullable<ReadForWrite["existing"]>, record: ExportRecord): RestoreOutcome {
  const { row: stored, history } = existing;
  const at = stored.version === record.version ? stored : history.find((h) => h.version === record.version);
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

/** Whether the stored tags (JSON) hold exactly the set `tags`. */
function sameTagSet(stored: string, tags: readonly string[]): boolean {
  const have = JSON.parse(stored) as string[];
  return have.length === tags.length && tags.every((t) => have.includes(t));
}
