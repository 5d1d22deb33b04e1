-- Re-embedding after a model or provider change (docs/api.md#re-embedding).

-- How each model's vectors were made, so a query can still be embedded for the vectors of a previous
-- model while they are being replaced. No credentials: an API key comes from config or environment.
CREATE TABLE embedding_models (
  model TEXT PRIMARY KEY,
  provider TEXT NOT NULL,
  base_url TEXT,
  dimensions INTEGER NOT NULL,
  recorded_at TEXT NOT NULL
);

-- The re-embedding under way, or the last one finished: one row, kept across restarts.
CREATE TABLE embed_reindex (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  -- The model everything is being re-embedded with.
  model TEXT NOT NULL,
  -- `signet embed reindex --all`: vectors written before this are redone even when of this model.
  redo_before TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT
);
