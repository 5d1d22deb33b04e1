// The memories' change feed on PostgreSQL: how a daemon learns of what the other daemons sharing the
// store wrote, to keep its own in-memory indexes in step. Every write adds a line to memory_changes
// (PostgreSQL migration 003) and notifies MEMORY_CHANNEL when it commits; the feed reads the lines
// past its cursor on each notification, and every `pollMs` besides (a notification missed while the
// connection was down, a restart), and tells each memory as it is now.
//
// Lines are numbered when their write takes the number, not when it commits, so a number can be
// missing for a while: a write that took it has not committed yet. The cursor (every line at or
// below it has been told) waits at such a gap; lines past it are told at once all the same, and
// again never. A number still missing after `gapGraceMs` belonged to a write that rolled back, and
// is passed.
import { changeOf, MEMORY_COLUMNS, type MemoryChange, type MemoryRow } from "./store";

export const MEMORY_CHANNEL = "signet_memory_changes";

/** Lines read at once. */
const PAGE = 1000;

export interface MemoryFeedOptions {
  /** Told of each memory written past the cursor, as it is now, once per line of the feed. */
  onChange(change: MemoryChange): void;
  /** How long a missing number is waited for (default 2 s: a memory write takes milliseconds). */
  gapGraceMs?: number;
  /** How often the feed is read without a notification (default 1 s). */
  pollMs?: number;
  onError?: (message: string) => void;
  now?: () => number;
}

/** The change a memory as it is now makes: forgotten, new, or changed in ways the feed does not say. */
function changeOfRow(row: MemoryRow): MemoryChange {
  return changeOf(row.deleted_at !== null ? "forgotten" : row.version === 1 ? "created" : "modified", row, true);
}

export class MemoryFeed {
  private position = 0;
  /** Numbers past the cursor already told (the cursor waits at a gap below them). */
  private readonly told = new Set<number>();
  /** Missing numbers past the cursor, with when each was first found missing. */
  private readonly gaps = new Map<number, number>();
  private reading: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly sql: Bun.SQL,
    private readonly options: MemoryFeedOptions,
  ) {}

  /** The feed's newest number: a daemon that loads every memory starts its feed here, read before the memories. */
  static async head(sql: Bun.SQL): Promise<number> {
    const [row] = await sql<{ n: string | number | null }[]>`SELECT MAX(change_seq) AS n FROM memory_changes`;
    return Number(row?.n ?? 0);
  }

  /** Every line at or below it has been told. */
  get cursor(): number {
    return this.position;
  }

  /** Follows the feed from line `from` on (lines after it are told). */
  async start(from: number): Promise<void> {
    this.position = from;
    const subscription = await this.sql.listen(MEMORY_CHANNEL, () => void this.read());
    // A stop that came while the listening was set up has nothing left to end it.
    if (this.stopped) {
      await subscription.unlisten();
      return;
    }
    this.unlisten = () => subscription.unlisten();
    this.timer = setInterval(() => void this.read(), this.options.pollMs ?? 1000);
    await this.read();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.unlisten?.();
    this.unlisten = null;
    await this.reading;
  }

  /** Reads past the cursor: one read at a time, and one more after it when asked meanwhile. */
  read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        await this.readOnce();
      } while (this.again && !this.stopped);
    })()
      .catch((err: unknown) => this.options.onError?.(`memory change feed: reading it failed, trying again: ${(err as Error).message}`))
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    const now = (this.options.now ?? Date.now)();
    const grace = this.options.gapGraceMs ?? 2000;
    let read = this.position;
    let next = this.position + 1;
    let waiting = false;
    for (;;) {
      const rows: (MemoryRow & { change_seq: string | number })[] = await this.sql.unsafe(
        `SELECT c.change_seq, ${MEMORY_COLUMNS.replace(/(^|,)\s*/g, "$1 m.")} FROM memory_changes c JOIN memories m ON m.seq = c.memory_seq
         WHERE c.change_seq > $1 ORDER BY c.change_seq LIMIT $2`,
        [read, PAGE],
      );
      for (const { change_seq, ...row } of rows) {
        const n = Number(change_seq);
        if (!this.told.has(n)) {
          this.told.add(n);
          this.options.onChange(changeOfRow(row));
        }
        for (let missing = next; missing < n; missing++) if (!this.gaps.has(missing)) this.gaps.set(missing, now);
        if (!waiting) {
          // Past the gaps whose grace is over; the cursor stops at the first one still waited for.
          while (next < n && now - this.gaps.get(next)! >= grace) next++;
          if (next < n) waiting = true;
          else next = n + 1;
        }
        read = n;
      }
      if (rows.length < PAGE) break;
    }
    this.advance(next - 1);
  }

  private advance(to: number): void {
    if (to <= this.position) return;
    for (let n = this.position + 1; n <= to; n++) {
      this.told.delete(n);
      this.gaps.delete(n);
    }
    this.position = to;
  }
}
