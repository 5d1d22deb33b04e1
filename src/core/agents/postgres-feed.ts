// The stored messages' ids on PostgreSQL, followed with the change feed (core/change-feed.ts) for the
// live streams: every daemon stores messages, each announced on MESSAGE_CHANNEL when it commits, and
// read on each notice and every second besides (a notice lost while the listening connection was
// down). The feed's cursor is the settled id a stream reads up to (store.ts, MessageFeed): a message
// still being committed holds it back, so the messages after it wait for it, and it is not skipped.
import { ChangeFeed } from "../change-feed";
import type { MessageFeed } from "./store";

/** The channel a stored message is announced on; its payload is the message's id. */
export const MESSAGE_CHANNEL = "signet_agent_messages";

/**
 * How long a missing id is waited for. A message is one statement, committed in milliseconds: an id
 * missing longer belonged to a write that failed, and the messages after it wait this long once.
 * Generous, since a message still committing when it passes would never reach the open streams.
 */
const GAP_GRACE_MS = 10_000;

export interface MessageFeedOptions {
  /** How long a missing id is waited for (default 10 s). */
  gapGraceMs?: number;
  /** How often the ids are read without a notice (default 1 s). */
  pollMs?: number;
}

export class PostgresMessageFeed extends ChangeFeed<number> implements MessageFeed {
  /** The settled id `changed` was last called for. */
  private announced = 0;

  constructor(
    sql: Bun.SQL,
    private readonly changed: () => void,
    options: MessageFeedOptions = {},
  ) {
    super(
      sql,
      {
        name: "agent messages",
        channel: MESSAGE_CHANNEL,
        async read(after, limit) {
          const rows = await sql<{ id: number }[]>`SELECT id FROM agent_messages WHERE id > ${after} ORDER BY id LIMIT ${limit}`;
          return rows.map(({ id }) => ({ n: Number(id), row: Number(id) }));
        },
      },
      { onRow: () => {}, gapGraceMs: options.gapGraceMs ?? GAP_GRACE_MS, pollMs: options.pollMs },
    );
  }

  override start(from: number): Promise<void> {
    this.announced = from;
    return super.start(from);
  }

  settled(): number {
    return this.cursor;
  }

  refresh(): Promise<void> {
    return this.read();
  }

  /** Every read, whatever asked for it (a notice, the poll, a refresh), tells `changed` when the cursor moved. */
  override async read(): Promise<void> {
    await super.read();
    if (this.cursor > this.announced) {
      this.announced = this.cursor;
      this.changed();
    }
  }
}
