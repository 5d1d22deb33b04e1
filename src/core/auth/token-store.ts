// What API tokens need of a store, and the row both stores return: the SQLite one
// (sqlite-token-store.ts) and the PostgreSQL one (postgres-token-store.ts). A token is kept only as
// its hash; the service (tokens.ts) makes them, checks them and ends what depends on them.
import type { Role, TokenInfo } from "../../contracts/auth";

export interface TokenRow {
  id: string;
  role: Role;
  agent_id: string | null;
  name: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export const TOKEN_COLUMNS = "id, role, agent_id, name, created_at, expires_at, revoked_at";

export function toTokenInfo(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    role: row.role,
    agentId: row.agent_id,
    name: row.name,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

/** API tokens, in whichever store the daemon runs on. */
export interface TokenStore {
  insert(row: Omit<TokenRow, "revoked_at">, hash: string): Promise<TokenRow>;
  byHash(hash: string): Promise<TokenRow | null>;
  byId(id: string): Promise<TokenRow | null>;
  /** Newest first. */
  list(): Promise<TokenRow[]>;
  /** Marks token `id` revoked at `at` unless it already is (the first time stays); its row after, or null. */
  revoke(id: string, at: string): Promise<TokenRow | null>;
  /** The records of those of `ids` that exist. */
  byIds(ids: string[]): Promise<TokenRow[]>;
  /**
   * Tells `events` of the revocations the daemons sharing the store make (none other shares a
   * SQLite file); resolves to the function that stops listening.
   */
  watchRevocations(events: RevocationEvents): Promise<() => Promise<void>>;
}

/** What a store tells of the revocations made by the daemons sharing it. */
export interface RevocationEvents {
  /** Token `id` was revoked. */
  revoked(id: string): void;
  /**
   * A revocation may have gone unheard (the store's listening connection was down and is back, or
   * a periodic check is due, for a connection lost unnoticed): the watched tokens are read again.
   */
  recheck(): void;
}
