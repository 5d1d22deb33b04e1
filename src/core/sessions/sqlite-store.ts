// Sessions in the daemon's SQLite file (migrations/005_sessions.sql, 011, 017): the sessions table,
// what reached each session (session_memories), transcripts (FTS5, with the extra index terms
// recall's keyword leg gives memories) and memory feedback signals.
import type { Database } from "bun:sqlite";
import type { SessionMemory } from "../../contracts/session";
import { indexTerms, matchExpression } from "../search/text";
import { likeEscape, ratedMoves, type InjectionVia, type MemoryLine, type Opening, type SessionRemoval, type SessionRow, type SessionStore, type TranscriptHit } from "./store";

const SESSION_COLUMNS = `s.seq, s.key, s.agent_id, s.harness, s.project, s.parent_key, s.started_at, s.updated_at, s.ended_at,
  s.bypassed, s.injection_window, s.carry, s.summary,
  EXISTS (SELECT 1 FROM session_transcripts_fts t WHERE t.rowid = s.seq) AS has_transcript`;

/** BM25 weights of a transcript's columns: its text, and its extra index terms (as recall weighs a memory's). */
const TRANSCRIPT_BM25 = "bm25(session_transcripts_fts, 1.0, 0.5)";

export class SqliteSessionStore implements SessionStore {
  /** Whether every transcript has its index terms (checked before this store's first search). */
  private termsComplete = false;

  constructor(private readonly db: Database) {}

  async get(key: string, agentId: string): Promise<SessionRow | null> {
    return this.db
      .query<SessionRow, [string, string]>(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.key = ? AND s.agent_id = ?`)
      .get(key, agentId);
  }

  async open(o: Opening, reopen: boolean): Promise<SessionRow | null> {
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

  async placeholder(key: string, agentId: string, at: string): Promise<void> {
    this.db
      .query("INSERT INTO sessions (key, agent_id, harness, started_at, updated_at) VALUES (?, ?, 'unknown', ?, ?) ON CONFLICT(key) DO NOTHING")
      .run(key, agentId, at, at);
  }

  async setBypass(key: string, agentId: string, on: boolean, at: string): Promise<void> {
    this.db.query("UPDATE sessions SET bypassed = ?, updated_at = ? WHERE key = ? AND agent_id = ?").run(on ? 1 : 0, at, key, agentId);
  }

  async end(key: string, agentId: string, at: string): Promise<void> {
    this.db.query("UPDATE sessions SET ended_at = ?, updated_at = ? WHERE key = ? AND agent_id = ?").run(at, at, key, agentId);
  }

  async setSummary(key: string, agentId: string, summary: string): Promise<void> {
    this.db.query("UPDATE sessions SET summary = ? WHERE key = ? AND agent_id = ?").run(summary, key, agentId);
  }

  async setCarry(key: string, agentId: string, carry: string | null, at: string): Promise<void> {
    this.db.query("UPDATE sessions SET carry = ?, updated_at = ? WHERE key = ? AND agent_id = ?").run(carry, at, key, agentId);
  }

  async nextWindow(key: string, agentId: string, at: string): Promise<void> {
    this.db
      .query("UPDATE sessions SET injection_window = injection_window + 1, updated_at = ? WHERE key = ? AND agent_id = ?")
      .run(at, key, agentId);
  }

  async list(agentId: string, filter: { active?: boolean; project?: string; harnessProcess?: string; limit: number }): Promise<SessionRow[]> {
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

  async latestMainSession(prefix: string, agentId: string, exceptKey: string): Promise<SessionRow | null> {
    return this.db
      .query<SessionRow, [string, string, string, string]>(
        `SELECT ${SESSION_COLUMNS} FROM sessions s
         WHERE s.agent_id = ?1 AND s.key LIKE ?2 ESCAPE '\\' AND s.key NOT LIKE '%:subagent:%' AND s.key <> ?3
         ORDER BY (s.key = ?4) DESC, s.updated_at DESC LIMIT 1`,
      )
      .get(agentId, `${likeEscape(prefix)}%`, exceptKey, `${prefix}main`);
  }

  // ---- what reached a session ----

  async injectedIn(key: string, agentId: string, window: number, exceptVia: InjectionVia | null = null): Promise<Set<string>> {
    const rows = this.db
      .query<{ memory_id: string }, [string, string, number, string | null]>(
        `SELECT memory_id FROM session_memories WHERE session_key = ? AND agent_id = ? AND injection_window = ? AND source = 'injected'
           AND via IS NOT ?`,
      )
      .all(key, agentId, window, exceptVia);
    return new Set(rows.map((r) => r.memory_id));
  }

  async recordInjected(key: string, agentId: string, window: number, via: InjectionVia, ids: string[], at: string): Promise<void> {
    if (ids.length === 0) return;
    const insert = this.db.query(
      `INSERT INTO session_memories (session_key, agent_id, memory_id, injection_window, source, via, rank, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'injected', ?, ?, ?, ?)
       ON CONFLICT(session_key, agent_id, memory_id, injection_window) DO UPDATE SET
         via = CASE WHEN source = 'recall' OR via = 'session-start' THEN excluded.via ELSE via END, source = 'injected', updated_at = excluded.updated_at`,
    );
    this.db.transaction(() => ids.forEach((id, i) => insert.run(key, agentId, id, window, via, i + 1, at, at)))();
  }

  async memoriesOf(key: string, agentId: string): Promise<SessionMemory[]> {
    return this.db
      .query<{ memory_id: string; via: SessionMemory["via"]; injection_window: number; created_at: string; relevance_score: number | null }, [string, string]>(
        `SELECT memory_id, via, injection_window, created_at, relevance_score FROM session_memories
         WHERE session_key = ? AND agent_id = ? ORDER BY injection_window, created_at, rank`,
      )
      .all(key, agentId)
      .map((r) => ({ memoryId: r.memory_id, via: r.via, window: r.injection_window, at: r.created_at, rating: r.relevance_score }));
  }

  // ---- memories for context blocks ----

  async pinned(agentIds: string[], limit: number): Promise<MemoryLine[]> {
    return this.db
      .query<MemoryLine, [string, number]>(
        `SELECT id, content, type FROM memories
         WHERE pinned = 1 AND deleted_at IS NULL AND agent_id IN (SELECT value FROM json_each(?))
         ORDER BY importance DESC, updated_at DESC LIMIT ?`,
      )
      .all(JSON.stringify(agentIds), limit);
  }

  async ofProject(agentIds: string[], project: string, limit: number): Promise<MemoryLine[]> {
    return this.db
      .query<MemoryLine, [string, string, number]>(
        `SELECT id, content, type FROM memories
         WHERE project = ? AND pinned = 0 AND deleted_at IS NULL AND agent_id IN (SELECT value FROM json_each(?))
         ORDER BY importance DESC, updated_at DESC LIMIT ?`,
      )
      .all(project, JSON.stringify(agentIds), limit);
  }

  async globalGuidance(agentIds: string[], types: readonly string[], limit: number): Promise<MemoryLine[]> {
    return this.db
      .query<MemoryLine, [string, string, number]>(
        `SELECT id, content, type FROM memories
         WHERE project IS NULL AND pinned = 0 AND deleted_at IS NULL AND type IN (SELECT value FROM json_each(?1))
           AND agent_id IN (SELECT value FROM json_each(?2))
         ORDER BY importance DESC, updated_at DESC LIMIT ?3`,
      )
      .all(JSON.stringify(types), JSON.stringify(agentIds), limit);
  }

  async memoryLines(agentIds: string[], ids: string[]): Promise<MemoryLine[]> {
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

  async transcript(seq: number): Promise<string | null> {
    return this.db.query<{ content: string }, [number]>("SELECT content FROM session_transcripts_fts WHERE rowid = ?").get(seq)?.content ?? null;
  }

  async setTranscript(seq: number, content: string): Promise<void> {
    this.db.transaction(() => {
      this.db.query("DELETE FROM session_transcripts_fts WHERE rowid = ?").run(seq);
      this.db.query("INSERT INTO session_transcripts_fts (rowid, content, terms) VALUES (?, ?, ?)").run(seq, content, indexTerms(content));
    })();
  }

  /**
   * Gives the transcripts without index terms theirs: those stored before the column was (migration
   * 017), and those a store copy wrote. Once per store object, before its first search.
   */
  private completeTerms(): void {
    if (this.termsComplete) return;
    const missing = this.db.query<{ seq: number }, []>("SELECT rowid AS seq FROM session_transcripts_fts WHERE terms IS NULL").all();
    const content = this.db.query<{ content: string }, [number]>("SELECT content FROM session_transcripts_fts WHERE rowid = ?");
    const index = this.db.query("UPDATE session_transcripts_fts SET terms = ? WHERE rowid = ?");
    if (missing.length > 0) {
      this.db
        .transaction(() => {
          for (const { seq } of missing) index.run(indexTerms(content.get(seq)?.content ?? ""), seq);
        })
        .immediate();
    }
    this.termsComplete = true;
  }

  async searchTranscripts(query: string, scope: { agentId: string; key?: string; project?: string }, limit: number): Promise<TranscriptHit[]> {
    const match = matchExpression(query);
    if (!match) return [];
    this.completeTerms();
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
    const hits = this.db
      .query<TranscriptHit & { seq: number }, (string | number)[]>(
        `SELECT s.seq AS seq, s.key AS key, s.project AS project, s.updated_at AS updated_at,
           snippet(session_transcripts_fts, 0, '', '', '…', 32) AS excerpt
         FROM session_transcripts_fts JOIN sessions s ON s.seq = session_transcripts_fts.rowid
         WHERE ${where.join(" AND ")} ORDER BY ${TRANSCRIPT_BM25} LIMIT ?`,
      )
      .all(...params);
    const content = this.db.query<{ content: string }, [number]>("SELECT content FROM session_transcripts_fts WHERE rowid = ?");
    return hits.map(({ seq, ...hit }) => {
      const missed = missedCjk(hit.excerpt, query);
      return missed.length === 0 ? hit : { ...hit, excerpt: excerptAround(content.get(seq)?.content ?? "", missed, hit.excerpt) };
    });
  }

  // ---- feedback ----

  async rate(key: string, agentId: string, ratings: [string, number][], at: string): Promise<{ accepted: Set<string>; moves: [string, number][] }> {
    const rate = this.db.query(
      "UPDATE session_memories SET relevance_score = ?, updated_at = ? WHERE session_key = ? AND agent_id = ? AND memory_id = ?",
    );
    return this.db
      .transaction(() => {
        const accepted = new Set<string>();
        const moves: [string, number][] = [];
        for (const [id, rating] of ratings) {
          if (rate.run(rating, at, key, agentId, id).changes === 0) continue;
          accepted.add(id);
          const move = this.resignal(id, at);
          if (Math.abs(move) > 1e-9) moves.push([id, move]);
        }
        return { accepted, moves };
      })
      .immediate();
  }

  /**
   * Sets memory `id`'s feedback signal to the mean of the ratings sessions gave it (one per session),
   * or to none when no session rated it; how far the signal moved. In the caller's transaction.
   */
  private resignal(id: string, at: string): number {
    const { signal, n } = this.db
      .query<{ signal: number | null; n: number }, [string]>(
        `SELECT AVG(r) AS signal, COUNT(*) AS n FROM (
           SELECT MAX(relevance_score) AS r FROM session_memories
           WHERE memory_id = ? AND relevance_score IS NOT NULL GROUP BY session_key, agent_id)`,
      )
      .get(id)!;
    const before = this.db.query<{ signal: number }, [string]>("SELECT signal FROM memory_feedback WHERE memory_id = ?").get(id)?.signal ?? 0;
    if (n === 0) {
      this.db.query("DELETE FROM memory_feedback WHERE memory_id = ?").run(id);
      return -before;
    }
    this.db
      .query(
        `INSERT INTO memory_feedback (memory_id, signal, ratings, updated_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(memory_id) DO UPDATE SET signal = excluded.signal, ratings = excluded.ratings, updated_at = excluded.updated_at`,
      )
      .run(id, signal ?? 0, n, at);
    return (signal ?? 0) - before;
  }

  async remove(key: string): Promise<SessionRemoval | null> {
    const db = this.db;
    return db.transaction(() => {
      const row = db.query<{ seq: number; agent_id: string }, [string]>("SELECT seq, agent_id FROM sessions WHERE key = ?").get(key);
      // Recall with a session key records rows here for keys no hook reported.
      const reached = this.removeMemories(key);
      const removed = {
        session: row ? db.query("DELETE FROM sessions WHERE seq = ?").run(row.seq).changes : 0,
        // The transcript's rowid is the session's seq (migrations/005_sessions.sql).
        transcript: row ? db.query("DELETE FROM session_transcripts_fts WHERE rowid = ?").run(row.seq).changes : 0,
        memories: reached.count,
        presence: db.query("DELETE FROM agent_presence WHERE session_key = ?").run(key).changes,
        messages: db.query("DELETE FROM agent_message_deliveries WHERE session_key = ?").run(key).changes,
      };
      if (Object.values(removed).every((n) => n === 0)) return null;
      return { response: { key, agentId: row?.agent_id ?? null, removed }, moves: reached.moves };
    })();
  }

  /** Deletes what reached session `key`; the memories it rated get their signal from the other sessions' ratings. */
  private removeMemories(key: string): { count: number; moves: SessionRemoval["moves"] } {
    const rated = this.db
      .query<{ memory_id: string; agent_id: string }, [string]>(
        "SELECT DISTINCT memory_id, agent_id FROM session_memories WHERE session_key = ? AND relevance_score IS NOT NULL",
      )
      .all(key);
    const count = this.db.query("DELETE FROM session_memories WHERE session_key = ?").run(key).changes;
    const at = new Date().toISOString();
    const moved = new Map<string, number>();
    for (const memoryId of new Set(rated.map((r) => r.memory_id))) moved.set(memoryId, this.resignal(memoryId, at));
    return { count, moves: ratedMoves(rated, moved) };
  }
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
/** Characters of a transcript shown either side of a CJK match. */
const CJK_EXCERPT_SIDE = 40;

/** Longer than this, a full-text excerpt holds a long unspaced run whole (about 32 words of other text fit). */
const EXCERPT_MAX_CHARS = 400;

/**
 * The query's CJK text an excerpt does not place: full-text excerpts place matches by whole tokens,
 * and an unspaced CJK run is one token, so a match inside one (found through its bigrams) may be left
 * out of the excerpt, or shown inside a run thousands of characters long. The query's CJK runs,
 * longest first, then their bigrams; none when the query has no CJK text or the excerpt, of a usual
 * length, shows some of it. Shared by both stores.
 */
export function missedCjk(excerpt: string, query: string): string[] {
  const runs = (query.normalize("NFKC").match(CJK_RUN) ?? []).sort((a, b) => b.length - a.length);
  const pieces = [...runs, ...runs.flatMap(bigrams)];
  return excerpt.length <= EXCERPT_MAX_CHARS && pieces.some((p) => excerpt.includes(p)) ? [] : pieces;
}

/** The text around the first place one of `pieces` (in order) occurs in `text`; `excerpt` when none does. */
export function excerptAround(text: string, pieces: string[], excerpt: string): string {
  for (const piece of pieces) {
    const at = text.indexOf(piece);
    if (at < 0) continue;
    const start = whole(text, Math.max(0, at - CJK_EXCERPT_SIDE));
    const end = whole(text, Math.min(text.length, at + piece.length + CJK_EXCERPT_SIDE));
    return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`;
  }
  return excerpt;
}

function bigrams(run: string): string[] {
  const chars = [...run];
  return chars.slice(1).map((c, i) => chars[i]! + c);
}

/** `at`, or the index before it when it falls inside a surrogate pair: a cut never splits a character. */
function whole(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}
