-- Keyword search over memories is the daemon's in-memory index (src/core/search/keyword-index.ts),
-- loaded at start and kept in step with every write, as on PostgreSQL. The FTS5 table that answered
-- while it loaded cost every write a segment at its commit; its shadow tables go with it.
DROP TABLE IF EXISTS memories_fts;
