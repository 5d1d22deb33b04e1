-- Which models the stored vectors are of, without reading the vectors: at start the embedding worker
-- asks whether any vector is of another model than the current one (a re-embedding to resume or
-- open), which otherwise scans every 2 KB row (~0.4 s at 100,000 memories, the daemon's event loop
-- held meanwhile).
CREATE INDEX idx_memory_vectors_model ON memory_vectors(model, dimensions);
