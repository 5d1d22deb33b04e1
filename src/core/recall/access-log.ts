// Access bookkeeping for recall. What a session was shown is recorded before the recall answers, so
// the session can rate it at once (feedback counts only memories that reached it); the access counts
// of surfaced memories are bumped off the answer's path, in one batched write a moment later. The
// writes are the store's (AccessWrites: SQLite here, PostgreSQL in postgres-access.ts).
import type { Database } from "bun:sqlite";
import { normalizeSessionKey } from "../../contracts/session";
import type { Logger } from "../../logger";

export interface Surfaced {
  seq: number;
  id: string;
  score: number;
}

export interface Access {
  seqs: number[];
  at: string;
}

/** The two writes of access bookkeeping, each one transaction. */
export interface AccessWrites {
  /** The memories a recall surfaced in session `key`, in its current injection window (0 for a session no hook reported). */
  shown(key: string, agentId: string, surfaced: Surfaced[], at: string): void | Promise<void>;
  /** One access more for each memory of each batch, at its time. */
  bump(batch: Access[]): void | Promise<void>;
}

export const SHOWN_UPSERT = `INSERT INTO session_memories (session_key, agent_id, memory_id, injection_window, source, via, rank, score, created_at, updated_at)
  VALUES ($1, $2, $3, COALESCE((SELECT injection_window FROM sessions WHERE key = $1), 0), 'recall', 'recall', $4, $5, $6, $6)
  ON CONFLICT (session_key, agent_id, memory_id, injection_window) DO UPDATE SET rank = excluded.rank, score = excluded.score,
    updated_at = excluded.updated_at`;

export class SqliteAccessWrites implements AccessWrites {
  constructor(private readonly db: Database) {}

  shown(key: string, agentId: string, surfaced: Surfaced[], at: string): void {
    const insert = this.db.query(SHOWN_UPSERT.replace(/\$(\d)/g, "?$1"));
    this.db.transaction(() => surfaced.forEach((s, rank) => insert.run(key, agentId, s.id, rank + 1, s.score, at)))();
  }

  bump(batch: Access[]): void {
    const bump = this.db.query("UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? WHERE seq = ?");
    this.db.transaction(() => {
      for (const { seqs, at } of batch) for (const seq of seqs) bump.run(at, seq);
    })();
  }
}

export class AccessLog {
  private queue: Access[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly writes: AccessWrites,
    private readonly log: Pick<Logger, "error">,
    private readonly delayMs = 50,
  ) {}

  async record(agentId: string, sessionKey: string | undefined, surfaced: Surfaced[]): Promise<void> {
    if (surfaced.length === 0) return;
    const at = new Date().toISOString();
    if (sessionKey) {
      const key = normalizeSessionKey(sessionKey);
      await this.bestEffort(`recording what session ${key} was shown`, () => this.writes.shown(key, agentId, surfaced, at));
    }
    this.queue.push({ seqs: surfaced.map((s) => s.seq), at });
    this.timer ??= setTimeout(() => void this.flush(), this.delayMs);
  }

  /** Writes the pending access counts now (the batch's timer, and the daemon's stop). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 0) await this.bestEffort("access bookkeeping", () => this.writes.bump(batch));
  }

  private async bestEffort(what: string, write: () => void | Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      // Bookkeeping must never fail a recall or stop the daemon; a lost record costs that feedback.
      this.log.error(`${what} failed: ${(err as Error).message}`);
    }
  }
}
