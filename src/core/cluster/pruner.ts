// Keeps a shared store's bookkeeping from growing with every write. The change logs keep, per memory
// and per chunk, the line of its last change: a feed reading an earlier line is told the item as it
// is now, so a superseded line tells nothing the later one does not, and a daemon that fell behind
// passes the missing numbers as it passes a rolled-back write's (core/change-feed.ts). Lines are
// kept a while before they go, so a daemon reading near the head never meets a gap pruning made.
// The daemons' rows not written for a day, and leases that ran out an hour ago, go too. One daemon
// prunes at a time (an advisory lock); the others skip that round.
import { LOCK_SPACE } from "../advisory-locks";

export interface PruneCounts {
  memoryChanges: number;
  sourceChanges: number;
  daemons: number;
  leases: number;
}

export interface PrunerOptions {
  /** How often a daemon prunes (default 10 min). */
  everyMs?: number;
  /** How old a superseded line is before it goes (default 10 min). */
  keepMs?: number;
  now?: () => number;
  onError?: (message: string) => void;
}

const HOUR_MS = 3_600_000;

export class StorePruner {
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly sql: Bun.SQL,
    private readonly options: PrunerOptions = {},
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.prune().catch((err: Error) => this.options.onError?.(`pruning the store's change logs failed: ${err.message}`));
    }, this.options.everyMs ?? 10 * 60_000);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One round; null when another daemon is pruning. */
  prune(): Promise<PruneCounts | null> {
    const now = (this.options.now ?? Date.now)();
    const iso = (ms: number) => new Date(now - ms).toISOString();
    const before = iso(this.options.keepMs ?? 10 * 60_000);
    return this.sql.begin(async (tx) => {
      const [lock] = await tx`SELECT pg_try_advisory_xact_lock(${LOCK_SPACE.pruning}, 0) AS got`;
      if (!lock.got) return null;
      const memoryChanges = await tx`
        DELETE FROM memory_changes c WHERE c.changed_at < ${before}
          AND EXISTS (SELECT 1 FROM memory_changes d WHERE d.memory_seq = c.memory_seq AND d.change_seq > c.change_seq)`;
      const sourceChanges = await tx`
        DELETE FROM source_changes c WHERE c.changed_at < ${before}
          AND EXISTS (SELECT 1 FROM source_changes d WHERE d.chunk_seq = c.chunk_seq AND d.change_seq > c.change_seq)`;
      const daemons = await tx`DELETE FROM daemons WHERE seen_at < ${iso(24 * HOUR_MS)}`;
      const leases = await tx`DELETE FROM work_leases WHERE lease_until < ${iso(HOUR_MS)}`;
      return { memoryChanges: memoryChanges.count, sourceChanges: sourceChanges.count, daemons: daemons.count, leases: leases.count };
    });
  }
}
