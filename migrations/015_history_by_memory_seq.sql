-- A memory's history is found through the memory's seq, not its id. Ids are random (UUID v4), so an
-- index keyed by the id puts each new entry on a random page of it, one more page for every write
-- of a group commit to write to the WAL; seqs grow, so new entries land on its last page.
ALTER TABLE memory_history ADD COLUMN memory_seq INTEGER;
UPDATE memory_history SET memory_seq = (SELECT seq FROM memories WHERE memories.id = memory_history.memory_id);
CREATE INDEX idx_memory_history_seq ON memory_history(memory_seq, id);
DROP INDEX idx_memory_history_memory;
