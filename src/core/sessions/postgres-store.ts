// Sessions in a PostgreSQL store shared by several daemons: the sessions table, what reached each
// session, transcripts (session_transcripts, PostgreSQL migrations 004 and 011, searched with
// PostgreSQL's own full text over the text and the extra index terms recall's keyword leg gives
// memories) and memory feedback signals. A session's writes are single statements; rating a
// memory locks its signal first, so two daemons rating one memory at once both count.
import { LOCK_SPACE } from "../advisory-locks";
import type { SessionMemory } from "../../contracts/session";
import { indexTerms, queryTerms } from "../search/text";
import { parameters } from "../sql-parameters";
import { excerptAround, missedCjk } from "./sqlite-store";
import { likeEscape, ratedMoves, type InjectionVia, type MemoryLine, type Opening, type SessionRemoval, type SessionRow, type SessionStore, type TranscriptHit } from "./store";

type Sql = Bun.SQL;

const SESSION_COLUMNS = `s.seq, s.key, s.agent_id, s.harness, s.project, s.parent_key, s.started_at, s.updated_at, s.ended_at,
  s.bypassed, s.injection_window, s.carry, s.summary,
  CASE WHEN EXISTS (SELECT 1 FROM session_transcripts t WHERE t.session_seq = s.seq) THEN 1 ELSE 0 END AS has_transcript`;

const LOCK_FEEDBACK = LOCK_SPACE.feedback;

/** What a transcript is searched by (the expression idx_session_transcripts_search indexes): its text, then its extra terms. */
const TRANSCRIPT_VECTOR = "(setweight(to_tsvector('english', t.content), 'A') || setweight(to_tsvector('english', COALESCE(t.terms, '')), 'B'))";

export class PostgresSessionStore implements SessionStore {
  /** Resolves once every transcript has its index terms (checked before this store's first search). */
  private termsComplete: Promise<void> | null = null;

  constructor(private readonly sql: Sql) {}

  async get(key: string, agentId: string): Promise<SessionRow | null> {
    const rows: SessionRow[] = await this.sql.unsafe(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.key = $1 AND s.agent_id = $2`, [key, agentId]);
    return rows[0] ?? null;
  }

  async open(o: Opening, reopen: boolean): Promise<SessionRow | null> {
    await this.sql`
      INSERT INTO sessions (key, agent_id, harness, project, parent_key, harness_process, started_at, updated_at)
      VALUES (${o.key}, ${o.agentId}, ${o.harness}, ${o.project}, ${o.parentKey}, ${o.harnessProcess ?? null}, ${o.at}, ${o.at})
      ON CONFLICT (key) DO UPDATE SET harness = excluded.harness,
        project = COALESCE(excluded.project, sessions.project), parent_key = COALESCE(excluded.parent_key, sessions.parent_key),
        harness_process = COALESCE(excluded.harness_process, sessions.harness_process),
        updated_at = excluded.updated_at, ended_at = CASE WHEN ${reopen} THEN NULL ELSE sessions.ended_at END
      WHERE sessions.agent_id = excluded.agent_id`;
    return this.get(o.key, o.agentId);
  }

  async placeholder(key: string, agentId: string, at: string): Promise<void> {
    await this.sql`INSERT INTO sessions (key, agent_id, harness, started_at, updated_at) VALUES (${key}, ${agentId}, 'unknown', ${at}, ${at}) ON CONFLICT (key) DO NOTHING`;
  }

  async setBypass(key: string, agentId: string, on: boolean, at: string): Promise<void> {
    await this.sql`UPDATE sessions SET bypassed = ${on ? 1 : 0}, updated_at = ${at} WHERE key = ${key} AND agent_id = ${agentId}`;
  }

  async end(key: string, agentId: string, at: string): Promise<void> {
    await this.sql`UPDATE sessions SET ended_at = ${at}, updated_at = ${at} WHERE key = ${key} AND agent_id = ${agentId}`;
  }

  async setSummary(key: string, agentId: string, summary: string): Promise<void> {
    await this.sql`UPDATE sessions SET summary = ${summary} WHERE key = ${key} AND agent_id = ${agentId}`;
  }

  async setCarry(key: string, agentId: string, carry: string | null, at: string): Promise<void> {
    await this.sql`UPDATE sessions SET carry = ${carry}, updated_at = ${at} WHERE key = ${key} AND agent_id = ${agentId}`;
  }

  async nextWindow(key: string, agentId: string, at: string): Promise<void> {
    await this.sql`UPDATE sessions SET injection_window = injection_window + 1, updated_at = ${at} WHERE key = ${key} AND agent_id = ${agentId}`;
  }

  async list(agentId: string, filter: { active?: boolean; project?: string; harnessProcess?: string; limit: number }): Promise<SessionRow[]> {
    const { values, p } = parameters();
    const where = [`s.agent_id = ${p(agentId)}`];
    if (filter.active !== undefined) where.push(filter.active ? "s.ended_at IS NULL" : "s.ended_at IS NOT NULL");
    if (filter.project !== undefined) where.push(`s.project = ${p(filter.project)}`);
    if (filter.harnessProcess !== undefined) where.push(`s.harness_process = ${p(filter.harnessProcess)}`);
    return this.sql.unsafe(
      `SELECT ${SESSION_COLUMNS} FROM sessions s WHERE ${where.join(" AND ")} ORDER BY s.updated_at DESC, s.seq DESC LIMIT ${p(filter.limit)}`,
      values,
    );
  }

  async latestMainSession(prefix: string, agentId: string, exceptKey: string): Promise<SessionRow | null> {
    const rows: SessionRow[] = await this.sql.unsafe(
      `SELECT ${SESSION_COLUMNS} FROM sessions s
       WHERE s.agent_id = $1 AND s.key LIKE $2 ESCAPE '\\' AND s.key NOT LIKE '%:subagent:%' AND s.key <> $3
       ORDER BY (s.key = $4) DESC, s.updated_at DESC LIMIT 1`,
      [agentId, `${likeEscape(prefix)}%`, exceptKey, `${prefix}main`],
    );
    return rows[0] ?? null;
  }

  async injectedIn(key: string, agentId: string, window: number, exceptVia: InjectionVia | null = null): Promise<Set<string>> {
    const rows = await this.sql<{ memory_id: string }[]>`
      SELECT memory_id FROM session_memories WHERE session_key = ${key} AND agent_id = ${agentId} AND injection_window = ${window}
        AND source = 'injected' AND via IS DISTINCT FROM ${exceptVia}`;
    return new Set(rows.map((r) => r.memory_id));
  }

  async recordInjected(key: string, agentId: string, window: number, via: InjectionVia, ids: string[], at: string): Promise<void> {
    if (ids.length === 0) return;
    await this.sql`
      INSERT INTO session_memories (session_key, agent_id, memory_id, injection_window, source, via, rank, created_at, updated_at)
      SELECT ${key}, ${agentId}, id, ${window}, 'injected', ${via}, rank, ${at}, ${at}
      FROM unnest(${this.sql.array(ids, "TEXT")}::text[]) WITH ORDINALITY AS given(id, rank)
      ON CONFLICT (session_key, agent_id, memory_id, injection_window) DO UPDATE SET
        via = CASE WHEN session_memories.source = 'recall' OR session_memories.via = 'session-start' THEN excluded.via ELSE session_memories.via END,
        source = 'injected', updated_at = excluded.updated_at`;
  }

  async memoriesOf(key: string, agentId: string): Promise<SessionMemory[]> {
    const rows = await this.sql<{ memory_id: string; via: SessionMemory["via"]; injection_window: number; created_at: string; relevance_score: number | null }[]>`
      SELECT memory_id, via, injection_window, created_at, relevance_score FROM session_memories
      WHERE session_key = ${key} AND agent_id = ${agentId} ORDER BY injection_window, created_at, rank`;
    return rows.map((r) => ({ memoryId: r.memory_id, via: r.via, window: r.injection_window, at: r.created_at, rating: r.relevance_score }));
  }

  pinned(agentIds: string[], limit: number): Promise<MemoryLine[]> {
    return this.sql`
      SELECT id, content, type FROM memories WHERE pinned = 1 AND deleted_at IS NULL AND agent_id = ANY(${this.sql.array(agentIds, "TEXT")}::text[])
      ORDER BY importance DESC, updated_at DESC LIMIT ${limit}`;
  }

  ofProject(agentIds: string[], project: string, limit: number): Promise<MemoryLine[]> {
    return this.sql`
      SELECT id, content, type FROM memories
      WHERE project = ${project} AND pinned = 0 AND deleted_at IS NULL AND agent_id = ANY(${this.sql.array(agentIds, "TEXT")}::text[])
      ORDER BY importance DESC, updated_at DESC LIMIT ${limit}`;
  }

  globalGuidance(agentIds: string[], types: readonly string[], limit: number): Promise<MemoryLine[]> {
    return this.sql`
      SELECT id, content, type FROM memories
      WHERE project IS NULL AND pinned = 0 AND deleted_at IS NULL AND type = ANY(${this.sql.array([...types], "TEXT")}::text[])
        AND agent_id = ANY(${this.sql.array(agentIds, "TEXT")}::text[])
      ORDER BY importance DESC, updated_at DESC LIMIT ${limit}`;
  }

  async memoryLines(agentIds: string[], ids: string[]): Promise<MemoryLine[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql<MemoryLine[]>`
      SELECT id, content, type FROM memories WHERE deleted_at IS NULL AND id = ANY(${this.sql.array(ids, "TEXT")}::text[])
        AND agent_id = ANY(${this.sql.array(agentIds, "TEXT")}::text[])`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async transcript(seq: number): Promise<string | null> {
    const [row] = await this.sql<{ content: string }[]>`SELECT content FROM session_transcripts WHERE session_seq = ${seq}`;
    return row?.content ?? null;
  }

  async setTranscript(seq: number, content: string): Promise<void> {
    const terms = indexTerms(content);
    await this.sql`
      INSERT INTO session_transcripts (session_seq, content, terms) VALUES (${seq}, ${content}, ${terms})
      ON CONFLICT (session_seq) DO UPDATE SET content = excluded.content, terms = excluded.terms`;
  }

  /**
   * Gives the transcripts without index terms theirs: those stored before the column was (migration
   * 011), and those a store copy wrote. Once per store object, before its first search; a transcript
   * another daemon writes meanwhile keeps the terms it wrote.
   */
  private completeTerms(): Promise<void> {
    this.termsComplete ??= (async () => {
      const missing = await this.sql<{ session_seq: number }[]>`SELECT session_seq FROM session_transcripts WHERE terms IS NULL`;
      for (const { session_seq: seq } of missing) {
        const [row] = await this.sql<{ content: string }[]>`SELECT content FROM session_transcripts WHERE session_seq = ${seq} AND terms IS NULL`;
        if (row) await this.sql`UPDATE session_transcripts SET terms = ${indexTerms(row.content)} WHERE session_seq = ${seq} AND terms IS NULL`;
      }
    })().catch((err: unknown) => {
      this.termsComplete = null;
      throw err;
    });
    return this.termsComplete;
  }

  async searchTranscripts(query: string, scope: { agentId: string; key?: string; project?: string }, limit: number): Promise<TranscriptHit[]> {
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    await this.completeTerms();
    // Any of the query's words, as FTS5's OR of terms: websearch syntax reads "or" between words so.
    const { values, p } = parameters();
    const words = p(terms.join(" or "));
    const where = [`${TRANSCRIPT_VECTOR} @@ q.q`, `s.agent_id = ${p(scope.agentId)}`];
    if (scope.key !== undefined) where.push(`s.key = ${p(scope.key)}`);
    if (scope.project !== undefined) where.push(`s.project = ${p(scope.project)}`);
    // ShortWord=0: ts_headline otherwise drops words of 3 letters or less at the excerpt's ends
    // ("Assistant: ok" ends at "Assistant"), which SQLite's snippet keeps: both stores show the same text.
    // ts_headline marks no cut at either end, SQLite's snippet does: "…" where the excerpt starts after
    // the transcript's first word or ends before its last.
    const hits: (TranscriptHit & { seq: number })[] = await this.sql.unsafe(
      `SELECT s.seq AS seq, s.key AS key, s.project AS project, s.updated_at AS updated_at,
         CASE WHEN c.at > c.lead + 1 THEN '…' ELSE '' END || h.x ||
         CASE WHEN c.at > 0 AND c.at + length(h.x) - 1 < length(rtrim(t.content, E' \t\r\n')) THEN '…' ELSE '' END AS excerpt
       FROM session_transcripts t JOIN sessions s ON s.seq = t.session_seq, websearch_to_tsquery('english', ${words}) AS q(q),
         LATERAL (SELECT ts_headline('english', t.content, q.q, 'MaxFragments=1, MaxWords=32, MinWords=12, ShortWord=0, StartSel="", StopSel="", FragmentDelimiter=…') AS x) h,
         LATERAL (SELECT strpos(t.content, h.x) AS at, length(t.content) - length(ltrim(t.content, E' \t\r\n')) AS lead) c
       WHERE ${where.join(" AND ")} ORDER BY ts_rank_cd(${TRANSCRIPT_VECTOR}, q.q) DESC, s.seq LIMIT ${p(limit)}`,
      values,
    );
    const out: TranscriptHit[] = [];
    for (const { seq, ...hit } of hits) {
      const missed = missedCjk(hit.excerpt, query);
      if (missed.length === 0) out.push(hit);
      else out.push({ ...hit, excerpt: excerptAround((await this.transcript(seq)) ?? "", missed, hit.excerpt) });
    }
    return out;
  }

  rate(key: string, agentId: string, ratings: [string, number][], at: string): Promise<{ accepted: Set<string>; moves: [string, number][] }> {
    return this.sql.begin(async (tx) => {
      const accepted = new Set<string>();
      const moves: [string, number][] = [];
      // Every rated memory's lock first, in one order for every transaction (as remove takes them):
      // taken in each request's own order, two sessions rating the same memories could deadlock.
      const ids = [...new Set(ratings.map(([id]) => id))];
      if (ids.length > 0) {
        await tx`SELECT pg_advisory_xact_lock(${LOCK_FEEDBACK}, h) FROM (SELECT DISTINCT hashtext(id) AS h FROM unnest(${this.sql.array(ids, "TEXT")}::text[]) AS r(id)) rated ORDER BY h`;
      }
      for (const [id, rating] of ratings) {
        const rated = await tx`
          UPDATE session_memories SET relevance_score = ${rating}, updated_at = ${at}
          WHERE session_key = ${key} AND agent_id = ${agentId} AND memory_id = ${id}`;
        if (rated.count === 0) continue;
        accepted.add(id);
        const move = await resignal(tx, id, at);
        if (Math.abs(move) > 1e-9) moves.push([id, move]);
      }
      return { accepted, moves };
    });
  }

  remove(key: string): Promise<SessionRemoval | null> {
    return this.sql.begin(async (tx) => {
      const [row] = await tx<{ seq: number; agent_id: string }[]>`SELECT seq, agent_id FROM sessions WHERE key = ${key} FOR UPDATE`;
      const transcript = row ? (await tx`DELETE FROM session_transcripts WHERE session_seq = ${row.seq}`).count : 0;
      const reached = await tx<{ memory_id: string; agent_id: string; relevance_score: number | null }[]>`
        DELETE FROM session_memories WHERE session_key = ${key} RETURNING memory_id, agent_id, relevance_score`;
      // The memories the session rated get their signal from the other sessions' ratings, each under
      // its lock as a rating takes it, in one order so two removals never wait on each other.
      const ratedRows = reached.filter((r) => r.relevance_score !== null);
      const rated = [...new Set(ratedRows.map((r) => r.memory_id))];
      const moved = new Map<string, number>();
      if (rated.length > 0) {
        await tx`SELECT pg_advisory_xact_lock(${LOCK_FEEDBACK}, h) FROM (SELECT DISTINCT hashtext(id) AS h FROM unnest(${this.sql.array(rated, "TEXT")}::text[]) AS r(id)) rated ORDER BY h`;
        const at = new Date().toISOString();
        for (const id of rated) moved.set(id, await resignal(tx, id, at));
      }
      const removed = {
        session: row ? (await tx`DELETE FROM sessions WHERE seq = ${row.seq}`).count : 0,
        transcript,
        memories: reached.length,
        presence: (await tx`DELETE FROM agent_presence WHERE session_key = ${key}`).count,
        messages: (await tx`DELETE FROM agent_message_deliveries WHERE session_key = ${key}`).count,
      };
      if (Object.values(removed).every((n) => n === 0)) return null;
      const raters = [...new Map(ratedRows.map((r) => [`${r.memory_id}\u0000${r.agent_id}`, r])).values()];
      return { response: { key, agentId: row?.agent_id ?? null, removed }, moves: ratedMoves(raters, moved) };
    });
  }
}

/**
 * Sets memory `id`'s feedback signal to the mean of the ratings sessions gave it (one per session),
 * or to none when no session rated it; how far the signal moved. In `tx`, the memory's lock held.
 */
async function resignal(tx: Sql, id: string, at: string): Promise<number> {
  const [{ signal, n }] = await tx`
    SELECT AVG(r) AS signal, COUNT(*)::int AS n FROM (
      SELECT MAX(relevance_score) AS r FROM session_memories
      WHERE memory_id = ${id} AND relevance_score IS NOT NULL GROUP BY session_key, agent_id) rated`;
  const [current] = await tx<{ signal: number }[]>`SELECT signal FROM memory_feedback WHERE memory_id = ${id}`;
  const before = current?.signal ?? 0;
  if (n === 0) {
    await tx`DELETE FROM memory_feedback WHERE memory_id = ${id}`;
    return -before;
  }
  const mean = signal === null ? 0 : Number(signal);
  await tx`
    INSERT INTO memory_feedback (memory_id, signal, ratings, updated_at) VALUES (${id}, ${mean}, ${n}, ${at})
    ON CONFLICT (memory_id) DO UPDATE SET signal = excluded.signal, ratings = excluded.ratings, updated_at = excluded.updated_at`;
  return mean - before;
}
