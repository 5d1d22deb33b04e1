// The memories' change feed on PostgreSQL (core/change-feed.ts): every write to a memory, and every
// vector stored for one, adds a line to memory_changes (PostgreSQL migration 003) and notifies
// MEMORY_CHANNEL when it commits; a daemon following the feed is told of each memory as it is now.
import { ChangeFeed, type ChangeFeedOptions } from "../change-feed";
import { changeOf, MEMORY_COLUMNS, type MemoryChange, type MemoryRow } from "./store";

export const MEMORY_CHANNEL = "signet_memory_changes";

export interface MemoryFeedOptions extends Omit<ChangeFeedOptions<MemoryChange>, "onRow"> {
  /** Told of each memory written past the cursor, as it is now, once per line of the feed. */
  onChange(change: MemoryChange): void;
}

/** The change a memory as it is now makes: forgotten, new, or changed in ways the feed does not say. */
function changeOfRow(row: MemoryRow): MemoryChange {
  return changeOf(row.deleted_at !== null ? "forgotten" : row.version === 1 ? "created" : "modified", row, true);
}

export class MemoryFeed extends ChangeFeed<MemoryChange> {
  constructor(sql: Bun.SQL, options: MemoryFeedOptions) {
    const { onChange, ...rest } = options;
    super(
      sql,
      {
        name: "memory change feed",
        channel: MEMORY_CHANNEL,
        async read(after, limit) {
          const rows: (MemoryRow & { change_seq: string | number })[] = await sql.unsafe(
            `SELECT c.change_seq, ${MEMORY_COLUMNS.replace(/(^|,)\s*/g, "$1 m.")} FROM memory_changes c JOIN memories m ON m.seq = c.memory_seq
             WHERE c.change_seq > $1 ORDER BY c.change_seq LIMIT $2`,
            [after, limit],
          );
          return rows.map(({ change_seq, ...row }) => ({ n: Number(change_seq), row: changeOfRow(row) }));
        },
      },
      { ...rest, onRow: onChange },
    );
  }

  /** The feed's newest number: a daemon that loads every memory starts its feed here, read before the memories. */
  static async head(sql: Bun.SQL): Promise<number> {
    const [row] = await sql<{ n: string | number | null }[]>`SELECT MAX(change_seq) AS n FROM memory_changes`;
    return Number(row?.n ?? 0);
  }
}
