// API tokens (docs/security.md#tokens): created with a role (and, for agents, the agent they act as),
// shown once, stored only as a hash, checked on every request, expired by time, revoked by id.
//
// The stored hash is a plain SHA-256: a token is 256 random bits, so its hash cannot be reversed by
// guessing, and a slow password hash (bcrypt, argon2) would only add tens of milliseconds to every
// request without making a high-entropy secret any safer. Looking the hash up by index reveals
// nothing usable through timing: learning a prefix of a SHA-256 tells nothing about the token.
import { createHash, randomBytes } from "node:crypto";
import { notFound } from "../../contracts/errors";
import { parseLifetime, type TokenCreateRequest, type TokenCreateResponse, type TokenInfo } from "../../contracts/auth";
import { toTokenInfo, type TokenRow, type TokenStore } from "./token-store";
import { listenRetrying } from "../listening";

/** What every token starts with, so a leaked one is recognisable (secret scanners, logs). */
const TOKEN_PREFIX = "sgt_";

/** Why a presented token is refused, in words the caller can act on. */
type TokenProblem = "unknown" | "expired" | "revoked";

export type TokenCheck = { ok: true; token: TokenInfo } | { ok: false; problem: TokenProblem };

function hashOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days; a longer one fires after 1 ms): a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What is told when a watched token ends (revoked or expired), and the timer set for its expiry. */
interface Watch {
  ends: Set<() => void>;
  timer?: ReturnType<typeof setTimeout>;
}

export class TokenService {
  /** Tokens something open depends on (streams), by id. */
  private readonly watches = new Map<string, Watch>();
  private unwatch: (() => Promise<void>) | null = null;
  private readonly stopping = new AbortController();
  /** The recheck under way, and whether another was asked for meanwhile. */
  private rechecking: Promise<void> | null = null;
  private recheckAgain = false;

  constructor(
    private readonly store: TokenStore,
    private readonly options: { onError?: (message: string) => void } = {},
  ) {}

  /**
   * Streams also end when a daemon sharing the store revokes their token (none on SQLite). Resolves
   * after the first try to listen; one that failed is tried again in the background (listening.ts).
   */
  start(): Promise<void> {
    return listenRetrying(() => this.store.watchRevocations({ revoked: (id) => this.ended(id), recheck: () => void this.recheck() }), {
      signal: this.stopping.signal,
      keep: (unwatch) => (this.unwatch = unwatch),
      end: (unwatch) => unwatch(),
      onError: this.options.onError ?? (() => {}),
      what: "tokens revoked by other daemons",
    });
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.unwatch?.();
    this.unwatch = null;
    for (const watch of this.watches.values()) clearTimeout(watch.timer);
    this.watches.clear();
  }

  async create(req: TokenCreateRequest, now = new Date()): Promise<TokenCreateResponse> {
    const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
    const lifetime = req.expires === undefined ? null : parseLifetime(req.expires);
    const row = await this.store.insert(
      {
        id: `tok_${randomBytes(8).toString("hex")}`,
        role: req.role,
        agent_id: req.agentId ?? null,
        name: req.name ?? null,
        created_at: now.toISOString(),
        expires_at: lifetime === null ? null : new Date(now.getTime() + lifetime).toISOString(),
      },
      hashOf(token),
    );
    return { token, ...toTokenInfo(row) };
  }

  async list(): Promise<TokenInfo[]> {
    return (await this.store.list()).map(toTokenInfo);
  }

  /** Refused from the next request on, and what watches it is told now; revoking twice keeps the first time. */
  async revoke(id: string, now = new Date()): Promise<TokenInfo> {
    const row = await this.store.revoke(id, now.toISOString());
    if (!row) throw notFound(`token ${id}`);
    this.ended(id);
    return toTokenInfo(row);
  }

  /**
   * Calls `onEnd` once when token `id` is revoked or reaches its expiry (as soon as its record is
   * read, when it is not live then): what outlives the request that checked the token (a stream)
   * ends with it. One timer per watched token, set for its expiry. Returns the unwatch, which clears
   * the timer with the last one.
   */
  watch(id: string, onEnd: () => void): () => void {
    const watch = this.watches.get(id) ?? this.newWatch(id);
    watch.ends.add(onEnd);
    return () => {
      watch.ends.delete(onEnd);
      if (watch.ends.size === 0 && this.watches.get(id) === watch) {
        clearTimeout(watch.timer);
        this.watches.delete(id);
      }
    };
  }

  /** A watch of token `id`, which reads its record to learn when it expires; one that cannot be read ends. */
  private newWatch(id: string): Watch {
    const watch: Watch = { ends: new Set() };
    this.watches.set(id, watch);
    this.store.byId(id).then(
      (row) => {
        if (this.watches.get(id) !== watch) return;
        if (!row || !live(row, Date.now())) this.ended(id);
        else if (row.expires_at !== null) this.expireAt(id, watch, Date.parse(row.expires_at));
      },
      () => this.ended(id),
    );
    return watch;
  }

  /** Ends the watch at `at`; always from a timer, so what is being added to it hears the end too. */
  private expireAt(id: string, watch: Watch, at: number): void {
    const wait = Math.min(Math.max(at - Date.now(), 0), MAX_TIMER_MS);
    watch.timer = setTimeout(() => (at > Date.now() ? this.expireAt(id, watch, at) : this.ended(id)), wait);
  }

  /**
   * Reads the watched tokens again and ends the watches of those no longer live: a revocation this
   * daemon did not hear of (made while its listening connection was down). One read at a time, and
   * one more after it when asked meanwhile, since that one may have begun before the revocation.
   */
  private recheck(): Promise<void> {
    if (this.rechecking) {
      this.recheckAgain = true;
      return this.rechecking;
    }
    this.rechecking = (async () => {
      do {
        this.recheckAgain = false;
        await this.recheckOnce();
      } while (this.recheckAgain && !this.stopped);
    })().finally(() => {
      this.rechecking = null;
    });
    return this.rechecking;
  }

  private async recheckOnce(): Promise<void> {
    const ids = [...this.watches.keys()];
    if (ids.length === 0) return;
    let rows: TokenRow[];
    try {
      rows = await this.store.byIds(ids);
    } catch {
      // The store is unreachable: the next recheck (periodic, or on reconnecting) reads them again.
      return;
    }
    const byId = new Map(rows.map((row) => [row.id, row]));
    const now = Date.now();
    for (const id of ids) {
      const row = byId.get(id);
      if (!row || !live(row, now)) this.ended(id);
    }
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
  async check(token: string, now = Date.now()): Promise<TokenCheck> {
    const row = await this.store.byHash(hashOf(token));
    if (!row) return { ok: false, problem: "unknown" };
    if (row.revoked_at !== null) return { ok: false, problem: "revoked" };
    if (row.expires_at !== null && Date.parse(row.expires_at) <= now) return { ok: false, problem: "expired" };
    return { ok: true, token: toTokenInfo(row) };
  }
}

function live(row: TokenRow, now: number): boolean {
  return row.revoked_at === null && (row.expires_at === null || Date.parse(row.expires_at) > now);
}
