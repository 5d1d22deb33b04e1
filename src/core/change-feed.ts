// A change feed on PostgreSQL: how a daemon learns what the other daemons sharing the store wrote,
// to keep its in-memory state in step. A feed is a table whose rows are numbered as they are
// written (an identity or a sequence) and a channel its writes notify when they commit; the feed
// reads the rows past its cursor on each notification, and every `pollMs` besides (a notification
// missed while the connection was down, a restart), and tells each row once.
//
// Rows are numbered when their write takes the number, not when it commits, so a number can be
// missing for a while: a write that took it has not committed yet. The cursor (every row at or
// below it has been told) waits at such a gap; rows past it are told at once all the same, and
// again never. A number still missing after `gapGraceMs` belonged to a write that rolled back (or a
// row deleted since), and is passed.

/** Rows read at once. */
const PAGE = 1000;

/** What a feed reads: its channel, and its rows past a number, in order. */
export interface FeedSource<R> {
  /** What the feed is called in its errors. */
  name: string;
  channel: string;
  /** At most `limit` rows numbered above `after`, by number. */
  read(after: number, limit: number): Promise<{ n: number; row: R }[]>;
}

export interface ChangeFeedOptions<R> {
  /** Told of each row past the cursor, once. */
  onRow(row: R): void;
  /** How long a missing number is waited for (default 2 s: a write takes milliseconds). */
  gapGraceMs?: number;
  /** How often the feed is read without a notification (default 1 s). */
  pollMs?: number;
  onError?: (message: string) => void;
  now?: () => number;
}

export class ChangeFeed<R> {
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
    private readonly source: FeedSource<R>,
    private readonly options: ChangeFeedOptions<R>,
  ) {}

  /** Every row at or below it has been told. */
  get cursor(): number {
    return this.position;
  }

  /** Follows the feed from number `from` on (rows after it are told). */
  async start(from: number): Promise<void> {
    this.position = from;
    const subscription = await this.sql.listen(this.source.channel, () => void this.read());
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
      .catch((err: unknown) => this.options.onError?.(`${this.source.name}: reading it failed, trying again: ${(err as Error).message}`))
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
      const rows = await this.source.read(read, PAGE);
      for (const { n, row } of rows) {
        if (!this.told.has(n)) {
          this.told.add(n);
          this.options.onRow(row);
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
