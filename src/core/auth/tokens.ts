// API tokens (docs/security.md#tokens): created with a role (and, for agents, the agent they act as),
// shown once, stored only as a hash, checked on every request, expired by time, revoked by id.
//
// The stored hash is a plain SHA-256: a token is 256 random bits, so its hash cannot be reversed by
// guessing, and a slow password hash (bcrypt, argon2) would only add tens of milliseconds to every
// request without making a high-entropy secret any safer. Looking the hash up by index reveals
// nothing usable through timing: learning a prefix of a SHA-256 tells nothing about the token.
import type { Database } from "bun:sqlite";
import { createHash, randomBytes } from "node:crypto";
import { notFound } from "../../contracts/errors";
import { parseLifetime, type Role, type TokenCreateRequest, type TokenCreateResponse, type TokenInfo } from "../../contracts/auth";

/** What every token starts with, so a leaked one is recognisable (secret scanners, logs). */
const TOKEN_PREFIX = "sgt_";

interface TokenRow {
  id: string;
  role: Role;
  agent_id: string | null;
  name: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/** Why a presented token is refused, in words the caller can act on. */
type TokenProblem = "unknown" | "expired" | "revoked";

export type TokenCheck = { ok: true; token: TokenInfo } | { ok: false; problem: TokenProblem };

function hashOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function info(row: TokenRow): TokenInfo {
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

const COLUMNS = "id, role, agent_id, name, created_at, expires_at, revoked_at";

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days; a longer one fires after 1 ms): a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What is told when a watched token ends (revoked or expired), and the timer set for its expiry. */
interface Watch {
  ends: Set<() => void>;
  timer?: ReturnType<typeof setTimeout>;
}

export class TokenStore {
  private readonly byHash;
  private readonly byId;
  private readonly all;
  private readonly insert;
  private readonly markRevoked;
  /** Tokens something open depends on (streams), by id. */
  private readonly watches = new Map<string, Watch>();

  constructor(db: Database) {
    this.byHash = db.query<TokenRow, [string]>(`SELECT ${COLUMNS} FROM api_tokens WHERE hash = ?`);
    this.byId = db.query<TokenRow, [string]>(`SELECT ${COLUMNS} FROM api_tokens WHERE id = ?`);
    this.all = db.query<TokenRow, []>(`SELECT ${COLUMNS} FROM api_tokens ORDER BY created_at DESC, id`);
    this.insert = db.query(
      "INSERT INTO api_tokens (id, hash, role, agent_id, name, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.markRevoked = db.query("UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL");
  }

  create(req: TokenCreateRequest, now = new Date()): TokenCreateResponse {
    const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
    const id = `tok_${randomBytes(8).toString("hex")}`;
    const lifetime = req.expires === undefined ? null : parseLifetime(req.expires);
    const expiresAt = lifetime === null ? null : new Date(now.getTime() + lifetime).toISOString();
    this.insert.run(id, hashOf(token), req.role, req.agentId ?? null, req.name ?? null, now.toISOString(), expiresAt);
    return { token, ...info(this.byId.get(id)!) };
  }

  list(): TokenInfo[] {
    return this.all.all().map(info);
  }

  /** Refused from the next request on, and what watches it is told now; revoking twice keeps the first time. */
  revoke(id: string, now = new Date()): TokenInfo {
    this.markRevoked.run(now.toISOString(), id);
    const row = this.byId.get(id);
    if (!row) throw notFound(`token ${id}`);
    this.ended(id);
    return info(row);
  }

  /**
   * Calls `onEnd` once when token `id` is revoked or reaches its expiry (at once when it is not live
   * now): what outlives the request that checked the token (a stream) ends with it. One timer per
   * watched token, set for its expiry. Returns the unwatch, which clears the timer with the last one.
   */
  watch(id: string, onEnd: () => void): () => void {
    const row = this.byId.get(id);
    if (!row || !live(row, Date.now())) {
      onEnd();
      return () => {};
    }
    const watch = this.watches.get(id) ?? this.newWatch(id, row.expires_at);
    watch.ends.add(onEnd);
    return () => {
      watch.ends.delete(onEnd);
      if (watch.ends.size === 0 && this.watches.get(id) === watch) {
        clearTimeout(watch.timer);
        this.watches.delete(id);
      }
    };
  }

  private newWatch(id: string, expiresAt: string | null): Watch {
    const watch: Watch = { ends: new Set() };
    this.watches.set(id, watch);
    if (expiresAt !== null) this.expireAt(id, watch, Date.parse(expiresAt));
    return watch;
  }

  /** Ends the watch at `at`; always from a timer, so what is being added to it hears the end too. */
  private expireAt(id: string, watch: Watch, at: number): void {
    const wait = Math.min(Math.max(at - Date.now(), 0), MAX_TIMER_MS);
    watch.timer = setTimeout(() => (at > Date.now() ? this.expireAt(id, watch, at) : this.ended(id)), wait);
  }

  /** Tells what watches token `id` that it ended, once. */
  private ended(id: string): void {
    const watch = this.watches.get(id);
    if (!watch) return;
    this.watches.delete(id);
    clearTimeout(watch.timer);
    for (const end of [...watch.ends]) end();
  }

  /** The token's record when it is live; why not otherwise. */
  check(token: string, now = Date.now()): TokenCheck {
    const row = this.byHash.get(hashOf(token));
    if (!row) return { ok: false, problem: "unknown" };
    if (row.revoked_at !== null) return { ok: false, problem: "revoked" };
    if (row.expires_at !== null && Date.parse(row.expires_at) <= now) return { ok: false, problem: "expired" };
    return { ok: true, token: info(row) };
  }
}

function live(row: TokenRow, now: number): boolean {
  return row.revoked_at === null && (row.expires_at === null || Date.parse(row.expires_at) > now);
}
