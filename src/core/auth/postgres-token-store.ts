// API tokens in a PostgreSQL store shared by several daemons. Every daemon checks a presented token
// against the shared table, so one revoked anywhere is refused everywhere from the next request; a
// revocation is also announced on CHANNEL in the statement that makes it, so the streams other
// daemons hold open with that token end too. A notice sent while a daemon's listening connection is
// down is lost to it: that daemon reads its streams' tokens again once it listens again, and every
// few seconds besides (a connection lost without the client noticing).
import { TOKEN_COLUMNS, type RevocationEvents, type TokenRow, type TokenStore } from "./token-store";

/** The channel a revocation is announced on; its payload is the token's id. */
const CHANNEL = "signet_token_revocations";

/** How often the watched tokens are read again without a reconnection (one indexed read, only while streams are open). */
const RECHECK_MS = 5_000;

export interface PostgresTokenStoreOptions {
  /** How often the watched tokens are read again regardless (default 5 s). */
  recheckMs?: number;
}

export class PostgresTokenStore implements TokenStore {
  private readonly recheckMs: number;

  constructor(
    private readonly sql: Bun.SQL,
    options: PostgresTokenStoreOptions = {},
  ) {
    this.recheckMs = options.recheckMs ?? RECHECK_MS;
  }

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

  async byIds(ids: string[]): Promise<TokenRow[]> {
    if (ids.length === 0) return [];
    return this.sql<TokenRow[]>`SELECT ${this.sql.unsafe(TOKEN_COLUMNS)} FROM api_tokens WHERE id = ANY(${this.sql.array(ids, "TEXT")})`;
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

  async watchRevocations(events: RevocationEvents): Promise<() => Promise<void>> {
    // The client connects its listening connection again by itself and calls the third argument each
    // time it listens (the first time too, which costs one read).
    const subscription = await this.sql.listen(CHANNEL, (id: string) => events.revoked(id), () => events.recheck());
    const timer = setInterval(() => events.recheck(), this.recheckMs);
    return async () => {
      clearInterval(timer);
      await subscription.unlisten();
    };
  }
}
