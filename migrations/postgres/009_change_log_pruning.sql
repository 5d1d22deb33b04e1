-- What the store's pruning (core/cluster/pruner.ts) looks lines up by: a memory's or a chunk's
-- later line in the change logs.
CREATE INDEX idx_memory_changes_memory ON memory_changes (memory_seq, change_seq);
CREATE INDEX idx_source_changes_chunk ON source_changes (chunk_seq, change_seq);
