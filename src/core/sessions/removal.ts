// Removing one session and everything recorded under its key (docs/api.md#delete-apisessionskey-admin-token):
// the session row, its transcript, what reached it, its presence and the messages given to it, in
// one transaction (a message given only to a removed session counts as never given). Whichever
// agent holds it: the route is the owner's alone. Memories stored during the session stay; they are
// the agent's, not the session's.
import type { Database } from "bun:sqlite";
import { normalizeSessionKey } from "../../contracts/session";
import type { SessionRemovalResponse } from "../../contracts/session-removal";

/** What was removed of `rawKey`, or null when nothing was recorded under it. */
export function removeSession(db: Database, rawKey: string): SessionRemovalResponse | null {
  const key = normalizeSessionKey(rawKey);
  return db.transaction(() => {
    const row = db.query<{ seq: number; agent_id: string }, [string]>("SELECT seq, agent_id FROM sessions WHERE key = ?").get(key);
    const removed = {
      session: row ? db.query("DELETE FROM sessions WHERE seq = ?").run(row.seq).changes : 0,
      // The transcript's rowid is the session's seq (migrations/005_sessions.sql).
      transcript: row ? db.query("DELETE FROM session_transcripts_fts WHERE rowid = ?").run(row.seq).changes : 0,
      // Recall with a session key records rows here for keys no hook reported.
      memories: db.query("DELETE FROM session_memories WHERE session_key = ?").run(key).changes,
      presence: db.query("DELETE FROM agent_presence WHERE session_key = ?").run(key).changes,
      messages: db.query("DELETE FROM agent_message_deliveries WHERE session_key = ?").run(key).changes,
    };
    if (Object.values(removed).every((n) => n === 0)) return null;
    return { key, agentId: row?.agent_id ?? null, removed };
  })();
}
