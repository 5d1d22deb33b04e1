// The answer of `DELETE /api/sessions/:key` (docs/api.md#delete-apisessionskey-admin-token): what was
// removed of one session, whichever agent held it. `signet doctor` removes its dry-run sessions so.

export interface SessionRemovalResponse {
  key: string;
  /** The agent that held the session; null when only rows without a session were left under the key. */
  agentId: string | null;
  /**
   * Rows removed: the session, its transcript, the memories that reached it (`session_memories`),
   * its presence, and the records of messages given to it at a prompt.
   */
  removed: { session: number; transcript: number; memories: number; presence: number; messages: number };
}
