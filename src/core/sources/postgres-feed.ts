// The document chunks' change feed on PostgreSQL (core/change-feed.ts): every chunk written or
// removed, and every vector stored for one, adds a line to source_changes (PostgreSQL migration 006)
// and notifies SOURCE_CHANNEL when it commits; a daemon following the feed is told of each chunk as
// it is now (SourceService.followStored).
import { ChangeFeed, type ChangeFeedOptions } from "../change-feed";
import { CHUNK_SOURCE_COLUMNS, indexedChunk, type ChunkChange, type ChunkSourceRow } from "./store";

export const SOURCE_CHANNEL = "signet_source_changes";

export interface SourceFeedOptions extends Omit<ChangeFeedOptions<ChunkChange>, "onRow"> {
  /** Told of each chunk changed past the cursor, as it is now, once per line of the feed. */
  onChange(change: ChunkChange): void;
}

/** A line of the feed with its chunk as it is now: the chunk's columns are null once it is gone. */
type FeedRow = { change_seq: string | number; chunk_seq: number; model: string | null; vector: Uint8Array | null } & (
  | ChunkSourceRow
  | { [K in keyof ChunkSourceRow]: null }
);

export class SourceFeed extends ChangeFeed<ChunkChange> {
  constructor(sql: Bun.SQL, options: SourceFeedOptions) {
    const { onChange, ...rest } = options;
    super(
      sql,
      {
        name: "source change feed",
        channel: SOURCE_CHANNEL,
        async read(after, limit) {
          const rows: FeedRow[] = await sql.unsafe(
            `SELECT l.change_seq, l.chunk_seq, ${CHUNK_SOURCE_COLUMNS}, v.model, v.vector FROM source_changes l
             LEFT JOIN source_chunks c ON c.seq = l.chunk_seq LEFT JOIN source_files f ON f.id = c.file_id
             LEFT JOIN sources s ON s.id = f.source_id LEFT JOIN source_vectors v ON v.seq = c.seq
             WHERE l.change_seq > $1 ORDER BY l.change_seq LIMIT $2`,
            [after, limit],
          );
          return rows.map((r) => ({
            n: Number(r.change_seq),
            row: {
              seq: r.chunk_seq,
              columns: r.seq === null ? null : indexedChunk(r).columns,
              vector: r.model === null || r.vector === null ? null : { model: r.model, bytes: r.vector },
            },
          }));
        },
      },
      { ...rest, onRow: onChange },
    );
  }

  /** The feed's newest number: a daemon that loads every chunk starts its feed here, read before the chunks. */
  static async head(sql: Bun.SQL): Promise<number> {
    const [row] = await sql<{ n: string | number | null }[]>`SELECT MAX(change_seq) AS n FROM source_changes`;
    return Number(row?.n ?? 0);
  }
}
