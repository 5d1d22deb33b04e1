-- The document chunks' change feed, an append-only log like memory_changes (003): every chunk written
-- or removed, and every vector stored for one, adds a line here in its own transaction, so a daemon
-- sharing the store keeps its keyword and vector indexes in step (core/sources/postgres-feed.ts).
-- chunk_seq has no foreign key: a removed chunk's line outlives it. A lone daemon on SQLite changes
-- its indexes itself, so this table has no SQLite twin.
CREATE TABLE source_changes (
  change_seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  chunk_seq INTEGER NOT NULL,
  changed_at TEXT NOT NULL
);
