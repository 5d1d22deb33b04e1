// API tokens in a PostgreSQL store shared by several daemons. Every daemon checks a presented token
// against the shared table, so one revoked anywhere is refused everywhere from the next request; a
// revocation is also announced on CHANNEL in the statement that makes it, so the streams other
// daemons hold open with that token end too.
import { TOKEN_COLUMNS, type TokenRow, type TokenStore } from "./token-store";

/** The channel a revocation is announced on; its payload is the token's id. */
const CHANNEL = "signet_token_revocations";

export class PostgresTokenStore implements TokenStore {
  constructor(private readonly sql: Bun.SQL) {}

  async insert(row: Omit<TokenRow, "revoked_at">, hash: string): Promise<TokenRow> {
    const [stored] = await this.sql<TokenRow[]>`
      INSERT INTO api_tokens (id, hash, role, agent_id, name, created_at, expires_at)
      VALUES (${row.id}, ${hash}, ${row.role}, ${row.agent_id}, ${row.name}, ${row.created_at}, ${row.expires_at})
      RETURNING ${this.sql.unsafe(TOKEN_COLUMNS)}`;
    return stored!;
  }

  async byHash(hash: string): Promise<TokenRow | null> {
    const [row] = await this.sql<TokenRow[]>`SELECT ${this.sql.unsafe(TOKEN_COLUMNS)} FROM api_tokens WHERE hash = ${hash}`;
    return row ?? null;
  }

  async byId(id: string): Promise<TokenRow | null> {
    const [row] = await this.sql<TokenRow[]>`SELECT ${this.sql.unsafe(TOKEN_COLUMNS)} FROM api_tokens WHERE id = ${id}`;
    return row ?? null;
  }

  async list(): Promise<TokenRow[]> {
    return this.sql<TokenRow[]>`SELECT ${this.sql.unsafe(TOKEN_COLUMNS)} FROM api_tokens ORDER BY created_at DESC, id`;
  }

  async revoke(id: string, at: string): Promise<TokenRow | null> {
    // The notice goes out only when this statement revoked it, and is sent when it commits.
    await this.sql`
      WITH revoked AS (UPDATE api_tokens SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL RETURNING id)
      SELECT pg_notify(${CHANNEL}, id) FROM revoked`;
    return this.byId(id);
  }

  async watchRevocations(revoked: (id: string) => void): Promise<() => Promise<void>> {
    const subscription = await this.sql.listen(CHANNEL, (id: string) => revoked(id));
    return () => subscription.unlisten();
  }
}
