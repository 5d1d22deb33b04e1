-- The memories' change feed, an append-only log: every write to a memory adds a line here in its
-- own transaction, so a daemon sharing the store reads what any daemon changed since its cursor
-- (core/memory/postgres-feed.ts). A number is missing from it only while the write that took it
-- has not committed, or when that write rolled back. A lone daemon on SQLite is told of its own
-- writes directly, so this table has no SQLite twin.
CREATE TABLE memory_changes (
  change_seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  memory_seq INTEGER NOT NULL REFERENCES memories(seq),
  changed_at TEXT NOT NULL
);
