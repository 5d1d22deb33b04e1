-- A memory's history is found through the memory's seq, as on SQLite
-- (migrations/015_history_by_memory_seq.sql): new entries land on the index's last page.
ALTER TABLE memory_history ADD COLUMN memory_seq INTEGER;
UPDATE memory_history SET memory_seq = memories.seq FROM memories WHERE memories.id = memory_history.memory_id;
CREATE INDEX idx_memory_history_seq ON memory_history(memory_seq, id);
DROP INDEX idx_memory_history_memory;
