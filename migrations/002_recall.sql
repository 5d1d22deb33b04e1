-- Embedding vectors, one per memory, tagged with the model that made them and the content they
-- were made from (memories.content_key), so a model change or an edit marks them stale.
CREATE TABLE memory_vectors (
  seq INTEGER PRIMARY KEY REFERENCES memories(seq),
  model TEXT NOT NULL,
  dimensions INTEGER NOT NULL,
  content_key TEXT NOT NULL,
  vector BLOB NOT NULL,
  created_at TEXT NOT NULL
);

-- Memories surfaced to (recalled in) or injected into a session, for feedback and per-session views.
CREATE TABLE session_memories (
  session_key TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  memory_id TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('recall', 'injected')),
  rank INTEGER,
  score REAL,
  relevance_score REAL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (session_key, agent_id, memory_id)
) WITHOUT ROWID;
