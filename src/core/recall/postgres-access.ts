// Access bookkeeping's writes in a PostgreSQL store (access-log.ts says what they are).
import { type Access, type AccessWrites, SHOWN_UPSERT, type Surfaced } from "./access-log";

export class PostgresAccessWrites implements AccessWrites {
  constructor(private readonly sql: Bun.SQL) {}

  async shown(key: string, agentId: string, surfaced: Surfaced[], at: string): Promise<void> {
    await this.sql.begin(async (tx) => {
      for (const [rank, s] of surfaced.entries()) await tx.unsafe(SHOWN_UPSERT, [key, agentId, s.id, rank + 1, s.score, at]);
    });
  }

  async bump(batch: Access[]): Promise<void> {
    await this.sql.begin(async (tx) => {
      for (const { seqs, at } of batch) {
        await tx`UPDATE memories SET access_count = access_count + 1, last_accessed_at = ${at} WHERE seq = ANY(${tx.array(seqs, "INT")}::int[])`;
      }
    });
  }
}
