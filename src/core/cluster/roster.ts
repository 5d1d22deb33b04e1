// The daemons sharing a PostgreSQL store: each writes its row (PostgreSQL migration 007) when it
// starts and every few seconds while it runs, and removes it when it stops. A row not written for
// three beats is a daemon that died or lost the store: `signet doctor` no longer counts it.

export interface DaemonEntry {
  /** The daemon's lasting id (`.daemon/daemon.id`). */
  id: string;
  url: string;
  version: string;
  startedAt: string;
  seenAt: string;
}

export interface RosterOptions {
  /** How often the daemon writes its row (default 5 s). */
  beatMs?: number;
  now?: () => number;
  onError?: (message: string) => void;
}

export class DaemonRoster {
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly beatMs: number;
  private readonly now: () => number;
  private failing = false;

  constructor(
    private readonly sql: Bun.SQL,
    private readonly self: Omit<DaemonEntry, "seenAt">,
    private readonly options: RosterOptions = {},
  ) {
    this.beatMs = options.beatMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.beatMs);
    this.timer.unref?.();
  }

  private async beat(): Promise<void> {
    const { id, url, version, startedAt } = this.self;
    const seenAt = new Date(this.now()).toISOString();
    try {
      await this.sql`
        INSERT INTO daemons (id, url, version, started_at, seen_at) VALUES (${id}, ${url}, ${version}, ${startedAt}, ${seenAt})
        ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, version = EXCLUDED.version, started_at = EXCLUDED.started_at, seen_at = EXCLUDED.seen_at`;
      this.failing = false;
    } catch (err) {
      // Said once per outage: the store going away is logged by whatever else fails too.
      if (!this.failing) this.options.onError?.(`daemon roster: writing this daemon's row failed: ${(err as Error).message}`);
      this.failing = true;
    }
  }

  /** The daemons seen in the last three beats, this one first, then by id. */
  async list(): Promise<DaemonEntry[]> {
    const since = new Date(this.now() - 3 * this.beatMs).toISOString();
    const rows = await this.sql<{ id: string; url: string; version: string; started_at: string; seen_at: string }[]>`
      SELECT id, url, version, started_at, seen_at FROM daemons WHERE seen_at >= ${since} OR id = ${this.self.id} ORDER BY (id = ${this.self.id}) DESC, id`;
    return rows.map((r) => ({ id: r.id, url: r.url, version: r.version, startedAt: r.started_at, seenAt: r.seen_at }));
  }

  /** Stops beating and removes the row: a daemon that stopped is not one that shares the store. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sql`DELETE FROM daemons WHERE id = ${this.self.id}`.catch(() => undefined);
  }
}
