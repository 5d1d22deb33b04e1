// API tokens (api_tokens, migration 009) in the daemon's SQLite file, with statements prepared once.
import type { Database } from "bun:sqlite";
import { TOKEN_COLUMNS, type TokenRow, type TokenStore } from "./token-store";

export class SqliteTokenStore implements TokenStore {
  private readonly byHashStmt;
  private readonly byIdStmt;
  private readonly byIdsStmt;
  private readonly allStmt;
  private readonly insertStmt;
  private readonly revokeStmt;

  constructor(db: Database) {
    this.byHashStmt = db.query<TokenRow, [string]>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE hash = ?`);
    this.byIdStmt = db.query<TokenRow, [string]>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE id = ?`);
    this.byIdsStmt = db.query<TokenRow, [string]>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE id IN (SELECT value FROM json_each(?))`);
    this.allStmt = db.query<TokenRow, []>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens ORDER BY created_at DESC, id`);
    this.insertStmt = db.query<TokenRow, (string | null)[]>(
      `INSERT INTO api_tokens (id, hash, role, agent_id, name, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${TOKEN_COLUMNS}`,
    );
    this.revokeStmt = db.query("UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL");
  }

  async insert(row: Omit<TokenRow, "revoked_at">, hash: string): Promise<TokenRow> {
    return this.insertStmt.get(row.id, hash, row.role, row.agent_id, row.name, row.created_at, row.expires_at)!;
  }

  async byHash(hash: string): Promise<TokenRow | null> {
    return this.byHashStmt.get(hash);
  }

  async byId(id: string): Promise<TokenRow | null> {
    return this.byIdStmt.get(id);
  }

  async byIds(ids: string[]): Promise<TokenRow[]> {
    return this.byIdsStmt.all(JSON.stringify(ids));
  }

  async list(): Promise<TokenRow[]> {
    return this.allStmt.all();
  }

  async revoke(id: string, at: string): Promise<TokenRow | null> {
    this.revokeStmt.run(at, id);
    return this.byIdStmt.get(id);
  }

  async watchRevocations(): Promise<() => Promise<void>> {
    return async () => {};
  }
}
