// Who holds a session key: the agent whose hook, presence heartbeat or bypass named it first. Keys
// are not secret (presence lists every present session), so holding one is what lets an agent act
// on a session: another agent's hooks and heartbeats are refused, so they can neither take it over
// nor read what it carries (transcript, injected and carried memories).
import type { Database } from "bun:sqlite";
import { SignetError } from "../../contracts/errors";

/** The agent holding `key`: the one present under it, else the one its hooks reported; null when none. */
export function sessionHolder(db: Database, key: string): string | null {
  const present = db.query<{ agent_id: string }, [string]>("SELECT agent_id FROM agent_presence WHERE session_key = ?").get(key);
  if (present) return present.agent_id;
  return db.query<{ agent_id: string }, [string]>("SELECT agent_id FROM sessions WHERE key = ?").get(key)?.agent_id ?? null;
}

/** Whether an agent other than `agentId` holds `key`, in presence or in the sessions table. */
export function heldByAnother(db: Database, key: string, agentId: string): boolean {
  return (
    db
      .query<{ one: number }, [string, string]>(
        `SELECT 1 AS one FROM agent_presence WHERE session_key = ?1 AND agent_id <> ?2
         UNION ALL SELECT 1 FROM sessions WHERE key = ?1 AND agent_id <> ?2 LIMIT 1`,
      )
      .get(key, agentId) !== null
  );
}

/** The refusal of a hook, a heartbeat or a sender naming a session another agent holds (`field`: the field that named it). */
export function sessionOfAnotherAgent(key: string, field?: string): SignetError {
  return new SignetError("forbidden", `${field ? `${field}: ` : ""}session ${key} belongs to another agent`);
}
