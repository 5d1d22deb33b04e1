-- Memories: the rows agents store and recall. `seq` is the stable integer key the FTS index uses.
CREATE TABLE memories (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  agent_id TEXT NOT NULL,
  content TEXT NOT NULL,
  -- Hash of project + normalized content: the dedupe key.
  content_key TEXT NOT NULL,
  type TEXT NOT NULL DEFAULT 'fact',
  importance REAL NOT NULL DEFAULT 0.5,
  tags TEXT NOT NULL DEFAULT '[]',
  pinned INTEGER NOT NULL DEFAULT 0,
  who TEXT,
  project TEXT,
  source TEXT,
  session_key TEXT,
  hints TEXT NOT NULL DEFAULT '[]',
  transcript TEXT,
  structured TEXT,
  review_after TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 1,
  access_count INTEGER NOT NULL DEFAULT 0,
  last_accessed_at TEXT,
  deleted_at TEXT,
  delete_reason TEXT
);
CREATE INDEX idx_memories_agent_created ON memories(agent_id, created_at DESC, seq DESC) WHERE deleted_at IS NULL;
CREATE INDEX idx_memories_dedupe ON memories(agent_id, content_key) WHERE deleted_at IS NULL;
-- Recall and list are most often scoped to a project.
CREATE INDEX idx_memories_project ON memories(agent_id, project, created_at DESC) WHERE deleted_at IS NULL;
CREATE INDEX idx_memories_session ON memories(session_key, created_at, seq) WHERE session_key IS NOT NULL;

-- Tags as an exact-match set, one row per (memory, tag), so an all-of filter never matches substrings.
CREATE TABLE memory_tags (
  tag TEXT NOT NULL,
  memory_seq INTEGER NOT NULL REFERENCES memories(seq),
  PRIMARY KEY (tag, memory_seq)
) WITHOUT ROWID;
CREATE INDEX idx_memory_tags_memory ON memory_tags(memory_seq);

-- Immutable evidence: every version of every memory, with who changed it, why and when.
CREATE TABLE memory_history (
  id INTEGER PRIMARY KEY,
  memory_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('create', 'modify', 'forget', 'recover')),
  content TEXT NOT NULL,
  type TEXT NOT NULL,
  importance REAL NOT NULL,
  tags TEXT NOT NULL,
  pinned INTEGER NOT NULL,
  agent_id TEXT NOT NULL,
  actor TEXT,
  actor_type TEXT,
  runtime_path TEXT,
  reason TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_memory_history_memory ON memory_history(memory_id, id);

-- Keyword index over live memories (rowid = memories.seq); forgotten rows are removed from it.
-- Porter stemming lets "painted" find "paint"; `terms` holds identifier parts and CJK bigrams.
CREATE VIRTUAL TABLE memories_fts USING fts5(content, tags, hints, terms, tokenize = 'porter unicode61 remove_diacritics 2');
