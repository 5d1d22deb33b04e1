// SQL for sessions (migrations/005_sessions.sql, 011): the sessions table, what reached each session
// (session_memories), transcripts (FTS5) and memory feedback signals.
import type { Database } from "bun:sqlite";
import type { SessionMemory, SessionSummary } from "../../contracts/session";

export interface SessionRow {
  seq: number;
  key: string;
  agent_id: string;
  harness: string;
  project: string | null;
  parent_key: string | null;
  started_at: string;
  updated_at: string;
  ended_at: string | null;
  bypassed: number;
  injection_window: number;
  carry: string | null;
  summary: string | null;
  has_transcript: number;
}

const SESSION_COLUMNS = `s.seq, s.key, s.agent_id, s.harness, s.project, s.parent_key, s.started_at, s.updated_at, s.ended_at,
  s.bypassed, s.injection_window, s.carry, s.summary,
  EXISTS (SELECT 1 FROM session_transcripts_fts t WHERE t.rowid = s.seq) AS has_transcript`;

export type InjectionVia = Exclude<SessionMemory["via"], "recall">;

export interface Opening {
  key: string;
  agentId: string;
  harness: string;
  project: string | null;
  parentKey: string | null;
  /** The harness process the hook ran under (`<pid>:<start>`), when it reported one. */
  harnessProcess?: string | null;
  at: string;
}

export interface MemoryLine {
  id: string;
  content: string;
  type: string;
}

export interface TranscriptHit {
  key: string;
  project: string | null;
  updated_at: string;
  excerpt: string;
}

export function toSummary(row: SessionRow): SessionSummary {
  return {
    key: row.key,
    agentId: row.agent_id,
    harness: row.harness,
    project: row.project,
    parentKey: row.parent_key,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
    bypassed: row.bypassed === 1,
    window: row.injection_window,
    hasTranscript: row.has_transcript === 1,
  };
}

export class SessionStore {
  constructor(private readonly db: Database) {}

  /** `agentId`'s session `key`; null when there is none or another agent holds it. */
  get(key: string, agentId: string): SessionRow | null {
    return this.db
      .query<SessionRow, [string, string]>(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.key = ? AND s.agent_id = ?`)
      .get(key, agentId);
  }

  /**
   * Creates the session, or brings it up to date when it exists (a resumed session, or one a
   * bypass named first): harness, project and parent follow the latest report. A session stays
   * with its agent: null when another agent holds the key, which is left as it was.
   */
  open(o: Opening, reopen: boolean): SessionRow | null {
    this.db
      .query(
        `INSERT INTO sessions (key, agent_id, harness, project, parent_key, harness_process, started_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?8, ?6, ?6)
         ON CONFLICT(key) DO UPDATE SET harness = excluded.harness,
           project = COALESCE(excluded.project, sessions.project), parent_key = COALESCE(excluded.parent_key, sessions.parent_key),
           harness_process = COALESCE(excluded.harness_process, sessions.harness_process),
           updated_at = excluded.updated_at, ended_at = CASE WHEN ?7 THEN NULL ELSE sessions.ended_at END
         WHERE sessions.agent_id = excluded.agent_id`,
      )
      .run(o.key, o.agentId, o.harness, o.project, o.parentKey, o.at, reopen ? 1 : 0, o.harnessProcess ?? null);
    return this.get(o.key, o.agentId);
  }

  /** A session row for a key no hook reported yet, so a bypass set first is kept. */
  placeholder(key: string, agentId: string, at: string): void {
    this.db
      .query("INSERT INTO sessions (key, agent_id, harness, started_at, updated_at) VALUES (?, ?, 'unknown', ?, ?) ON CONFLICT(key) DO NOTHING")
      .run(key, agentId, at, at);
  }

  // Every change below names the session's agent too: a key alone never reaches another agent's session.

  setBypass(key: string, agentId: string, on: boolean, at: string): void {
    this.db.query("UPDATE sessions SET bypassed = ?, updated_at = ? WHERE key = ? AND agent_id = ?").run(on ? 1 : 0, at, key, agentId);
  }

  end(key: string, agentId: string, at: string): void {
    this.db.query("UPDATE sessions SET ended_at = ?, updated_at = ? WHERE key = ? AND agent_id = ?").run(at, at, key, agentId);
  }

  setSummary(key: string, agentId: string, summary: string): void {
    this.db.query("UPDATE sessions SET summary = ? WHERE key = ? AND agent_id = ?").run(summary, key, agentId);
  }

  /** The memory ids pre-compaction chose to carry across (JSON), or null once they were. */
  setCarry(key: string, agentId: string, carry: string | null, at: string): void {
    this.db.query("UPDATE sessions SET carry = ?, updated_at = ? WHERE key = ? AND agent_id = ?").run(carry, at, key, agentId);
  }

  /** Opens the next injection window. */
  nextWindow(key: string, agentId: string, at: string): void {
    this.db
      .query("UPDATE sessions SET injection_window = injection_window + 1, updated_at = ? WHERE key = ? AND agent_id = ?")
      .run(at, key, agentId);
  }

  list(agentId: string, filter: { active?: boolean; project?: string; harnessProcess?: string; limit: number }): SessionRow[] {
    const where = ["s.agent_id = ?"];
    const params: (string | number)[] = [agentId];
    if (filter.active !== undefined) where.push(filter.active ? "s.ended_at IS NULL" : "s.ended_at IS NOT NULL");
    if (filter.project !== undefined) {
      where.push("s.project = ?");
      params.push(filter.project);
    }
    if (filter.harnessProcess !== undefined) {
      where.push("s.harness_process = ?");
      params.push(filter.harnessProcess);
    }
    params.push(filter.limit);
    return this.db
      .query<SessionRow, (string | number)[]>(
        `SELECT ${SESSION_COLUMNS} FROM sessions s WHERE ${where.join(" AND ")} ORDER BY s.updated_at DESC, s.seq DESC LIMIT ?`,
      )
      .all(...params);
  }

  /**
   * The most recently active session of `agentId` whose key starts with `prefix` (`agent:<id>:`),
   * sub-agents' excluded; `<prefix>main` first when it exists.
   */
  latestMainSession(prefix: string, agentId: string, exceptKey: string): SessionRow | null {
    return this.db
      .query<SessionRow, [string, string, string, string]>(
        `SELECT ${SESSION_COLUMNS} FROM sessions s
         WHERE s.agent_id = ?1 AND s.key LIKE ?2 ESCAPE '\\' AND s.key NOT LIKE '%:subagent:%' AND s.key <> ?3
         ORDER BY (s.key = ?4) DESC, s.updated_at DESC LIMIT 1`,
      )
      .get(agentId, `${likeEscape(prefix)}%`, exceptKey, `${prefix}main`);
  }

  // ---- what reached a session ----

  /** Memory ids injected into the session in `window` by any hook. */
  /** The ids injected into the session's window, but for those only `exceptVia` gave. */
  injectedIn(key: string, agentId: string, window: number, exceptVia: InjectionVia | null = null): Set<string> {
    const rows = this.db
      .query<{ memory_id: string }, [string, string, number, string | null]>(
        `SELECT memory_id FROM session_memories WHERE session_key = ? AND agent_id = ? AND injection_window = ? AND source = 'injected'
           AND via IS NOT ?`,
      )
      .all(key, agentId, window, exceptVia);
    return new Set(rows.map((r) => r.memory_id));
  }

  /**
   * Records injected memories; one injected earlier in the same window keeps the way it first came,
   * but for session start's block: a prompt that restates one of its memories takes it over.
   */
  recordInjected(key: string, agentId: string, window: number, via: InjectionVia, ids: string[], at: string): void {
    if (ids.length === 0) return;
    const insert = this.db.query(
      `INSERT INTO session_memories (session_key, agent_id, memory_id, injection_window, source, via, rank, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'injected', ?, ?, ?, ?)
       ON CONFLICT(session_key, agent_id, memory_id, injection_window) DO UPDATE SET
         via = CASE WHEN source = 'recall' OR via = 'session-start' THEN excluded.via ELSE via END, source = 'injected', updated_at = excluded.updated_at`,
    );
    this.db.transaction(() => ids.forEach((id, i) => insert.run(key, agentId, id, window, via, i + 1, at, at)))();
  }

  memoriesOf(key: string, agentId: string): SessionMemory[] {
    return this.db
      .query<{ memory_id: string; via: SessionMemory["via"]; injection_window: number; created_at: string; relevance_score: number | null }, [string, string]>(
        `SELECT memory_id, via, injection_window, created_at, relevance_score FROM session_memories
         WHERE session_key = ? AND agent_id = ? ORDER BY injection_window, created_at, rank`,
      )
      .all(key, agentId)
      .map((r) => ({ memoryId: r.memory_id, via: r.via, window: r.injection_window, at: r.created_at, rating: r.relevance_score }));
  }

  // ---- memories for context blocks ----

  /** Live pinned memories `agentIds` may read, most important first. */
  pinned(agentIds: string[], limit: number): MemoryLine[] {
    return this.db
      .query<MemoryLine, [string, number]>(
        `SELECT id, content, type FROM memories
         WHERE pinned = 1 AND deleted_at IS NULL AND agent_id IN (SELECT value FROM json_each(?))
         ORDER BY importance DESC, updated_at DESC LIMIT ?`,
      )
      .all(JSON.stringify(agentIds), limit);
  }

  /** Live unpinned memories of one project, most important then most recent first. */
  ofProject(agentIds: string[], project: string, limit: number): MemoryLine[] {
    return this.db
      .query<MemoryLine, [string, string, number]>(
        `SELECT id, content, type FROM memories
         WHERE project = ? AND pinned = 0 AND deleted_at IS NULL AND agent_id IN (SELECT value FROM json_each(?))
         ORDER BY importance DESC, updated_at DESC LIMIT ?`,
      )
      .all(project, JSON.stringify(agentIds), limit);
  }

  /**
   * Live unpinned memories of no project whose type guides work anywhere (`types`: preferences,
   * decisions, rules), most important then most recent first.
   */
  globalGuidance(agentIds: string[], types: readonly string[], limit: number): MemoryLine[] {
    return this.db
      .query<MemoryLine, [string, string, number]>(
        `SELECT id, content, type FROM memories
         WHERE project IS NULL AND pinned = 0 AND deleted_at IS NULL AND type IN (SELECT value FROM json_each(?1))
           AND agent_id IN (SELECT value FROM json_each(?2))
         ORDER BY importance DESC, updated_at DESC LIMIT ?3`,
      )
      .all(JSON.stringify(types), JSON.stringify(agentIds), limit);
  }

  /** Those of the given live memories `agentIds` may read, in the order of `ids`. */
  memoryLines(agentIds: string[], ids: string[]): MemoryLine[] {
    if (ids.length === 0) return [];
    const rows = this.db
      .query<MemoryLine, [string, string]>(
        `SELECT id, content, type FROM memories WHERE deleted_at IS NULL AND id IN (SELECT value FROM json_each(?))
           AND agent_id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(ids), JSON.stringify(agentIds));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  // ---- transcripts ----

  transcript(seq: number): string | null {
    return this.db.query<{ content: string }, [number]>("SELECT content FROM session_transcripts_fts WHERE rowid = ?").get(seq)?.content ?? null;
  }

  setTranscript(seq: number, content: string): void {
    this.db.transaction(() => {
      this.db.query("DELETE FROM session_transcripts_fts WHERE rowid = ?").run(seq);
      this.db.query("INSERT INTO session_transcripts_fts (rowid, content) VALUES (?, ?)").run(seq, content);
    })();
  }

  searchTranscripts(
    match: string,
    scope: { agentId: string; key?: string; project?: string },
    limit: number,
  ): TranscriptHit[] {
    const where = ["session_transcripts_fts MATCH ?", "s.agent_id = ?"];
    const params: (string | number)[] = [match, scope.agentId];
    if (scope.key !== undefined) {
      where.push("s.key = ?");
      params.push(scope.key);
    }
    if (scope.project !== undefined) {
      where.push("s.project = ?");
      params.push(scope.project);
    }
    params.push(limit);
    return this.db
      .query<TranscriptHit, (string | number)[]>(
        `SELECT s.key AS key, s.project AS project, s.updated_at AS updated_at,
           snippet(session_transcripts_fts, 0, '', '', '…', 32) AS excerpt
         FROM session_transcripts_fts JOIN sessions s ON s.seq = session_transcripts_fts.rowid
         WHERE ${where.join(" AND ")} ORDER BY bm25(session_transcripts_fts) LIMIT ?`,
      )
      .all(...params);
  }

  // ---- feedback ----

  /**
   * Records the session's ratings of memories that reached it, and recomputes each rated memory's
   * signal (the mean over sessions). Returns which ids were accepted, and how each accepted memory's
   * signal moved (the knowledge graph follows the move, so rating again with the same value moves nothing).
   */
  rate(key: string, agentId: string, ratings: [string, number][], at: string): { accepted: Set<string>; moves: [string, number][] } {
    const rate = this.db.query(
      "UPDATE session_memories SET relevance_score = ?, updated_at = ? WHERE session_key = ? AND agent_id = ? AND memory_id = ?",
    );
    const mean = this.db.query<{ signal: number | null; n: number }, [string]>(
      `SELECT AVG(r) AS signal, COUNT(*) AS n FROM (
         SELECT MAX(relevance_score) AS r FROM session_memories
         WHERE memory_id = ? AND relevance_score IS NOT NULL GROUP BY session_key, agent_id)`,
    );
    const current = this.db.query<{ signal: number }, [string]>("SELECT signal FROM memory_feedback WHERE memory_id = ?");
    const store = this.db.query(
      `INSERT INTO memory_feedback (memory_id, signal, ratings, updated_at) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT(memory_id) DO UPDATE SET signal = excluded.signal, ratings = excluded.ratings, updated_at = excluded.updated_at`,
    );
    return this.db
      .transaction(() => {
        const accepted = new Set<string>();
        const moves: [string, number][] = [];
        for (const [id, rating] of ratings) {
          if (rate.run(rating, at, key, agentId, id).changes === 0) continue;
          accepted.add(id);
          const { signal, n } = mean.get(id)!;
          const move = (signal ?? 0) - (current.get(id)?.signal ?? 0);
          store.run(id, signal ?? 0, n, at);
          if (Math.abs(move) > 1e-9) moves.push([id, move]);
        }
        return { accepted, moves };
      })
      .immediate();
  }
}

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
