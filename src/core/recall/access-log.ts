// Access bookkeeping for recall, off the answer's path: surfaced memories get their access count
// bumped, and with a session key they are recorded in session_memories, in one batched write a
// moment after the answer has gone out.
import type { Database } from "bun:sqlite";
import { normalizeSessionKey } from "../../contracts/session";
import type { Logger } from "../../logger";

interface Surfaced {
  seq: number;
  id: string;
  score: number;
}

interface Entry {
  agentId: string;
  sessionKey: string | undefined;
  surfaced: Surfaced[];
  at: string;
}

export class AccessLog {
  private queue: Entry[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly db: Database,
    private readonly log: Pick<Logger, "error">,
    private readonly delayMs = 50,
  ) {}

  record(agentId: string, sessionKey: string | undefined, surfaced: Surfaced[]): void {
    if (surfaced.length === 0) return;
    this.queue.push({ agentId, sessionKey, surfaced, at: new Date().toISOString() });
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const bump = this.db.query("UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? WHERE seq = ?");
    // Recorded in the session's current injection window (0 for a session no hook reported).
    const surfaced = this.db.query(
      `INSERT INTO session_memories (session_key, agent_id, memory_id, injection_window, source, via, rank, score, created_at, updated_at)
       VALUES (?1, ?2, ?3, COALESCE((SELECT injection_window FROM sessions WHERE key = ?1), 0), 'recall', 'recall', ?4, ?5, ?6, ?6)
       ON CONFLICT(session_key, agent_id, memory_id, injection_window) DO UPDATE SET rank = excluded.rank, score = excluded.score,
         updated_at = excluded.updated_at`,
    );
    try {
      this.db.transaction(() => {
        for (const e of batch) {
          e.surfaced.forEach((s, rank) => {
            bump.run(e.at, s.seq);
            if (e.sessionKey) surfaced.run(normalizeSessionKey(e.sessionKey), e.agentId, s.id, rank + 1, s.score, e.at);
          });
        }
      })();
    } catch (err) {
      // Bookkeeping is best effort: losing an access count must never fail or stop the daemon.
      this.log.error(`access bookkeeping failed: ${(err as Error).message}`);
    }
  }
}
