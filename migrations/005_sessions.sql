-- Sessions the lifecycle hooks report (docs/api.md#sessions-and-hooks). `key` is the harness's
-- session key (a `session:` prefix removed); `injection_window` grows by one at each compaction, so
-- memories injected before it may be injected again; `bypassed` silences every hook for the session
-- and outlives the daemon.
CREATE TABLE sessions (
  seq INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  agent_id TEXT NOT NULL,
  harness TEXT NOT NULL,
  project TEXT,
  parent_key TEXT,
  started_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  ended_at TEXT,
  bypassed INTEGER NOT NULL DEFAULT 0,
  injection_window INTEGER NOT NULL DEFAULT 0,
  -- What pre-compaction said to carry across, and what session-end kept as the session's summary.
  carry TEXT,
  summary TEXT
);
CREATE INDEX idx_sessions_agent_updated ON sessions(agent_id, updated_at DESC);

-- Transcripts, searchable (rowid = sessions.seq): the same tokenizer as memories_fts.
CREATE VIRTUAL TABLE session_transcripts_fts USING fts5(content, tokenize = 'porter unicode61 remove_diacritics 2');

-- session_memories gains the injection window and the way each memory reached the session
-- (`via`: the hook that injected it, or recall); one row per window, so every
-- injection stays on record. Rows from before keep window 0.
CREATE TABLE session_memories_new (
  session_key TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  memory_id TEXT NOT NULL,
  injection_window INTEGER NOT NULL DEFAULT 0,
  source TEXT NOT NULL CHECK (source IN ('recall', 'injected')),
  via TEXT NOT NULL CHECK (via IN ('session-start', 'user-prompt-submit', 'pre-compaction', 'compaction-complete', 'recall')),
  rank INTEGER,
  score REAL,
  -- The session's rating of the memory, -1..1 (memory_feedback), copied to each of its windows.
  relevance_score REAL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (session_key, agent_id, memory_id, injection_window)
) WITHOUT ROWID;
INSERT INTO session_memories_new (session_key, agent_id, memory_id, injection_window, source, via, rank, score, relevance_score, created_at, updated_at)
  SELECT session_key, agent_id, memory_id, 0, source, CASE source WHEN 'recall' THEN 'recall' ELSE 'session-start' END,
         rank, score, relevance_score, created_at, updated_at
  FROM session_memories;
DROP TABLE session_memories;
ALTER TABLE session_memories_new RENAME TO session_memories;
CREATE INDEX idx_session_memories_memory ON session_memories(memory_id);

-- Each memory's feedback signal: the mean of the ratings sessions gave it (one per session), -1..1.
-- Recall reads it to order results (docs/api.md#feedback).
CREATE TABLE memory_feedback (
  memory_id TEXT PRIMARY KEY,
  signal REAL NOT NULL,
  ratings INTEGER NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;

-- Agents present now: registered by session-start, removed by session-end (issue 11 builds
-- agent presence and messages on it).
CREATE TABLE agent_presence (
  session_key TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  harness TEXT NOT NULL,
  project TEXT,
  started_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX idx_agent_presence_agent ON agent_presence(agent_id);
