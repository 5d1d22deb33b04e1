-- Session transcripts. SQLite keeps them in an FTS5 table (session_transcripts_fts, rowid = the
-- session's seq); here they are a table of their own with a full-text index in PostgreSQL's terms
-- (English stemming, as FTS5's porter tokenizer stems).
CREATE TABLE session_transcripts (
  session_seq INTEGER PRIMARY KEY REFERENCES sessions(seq),
  content TEXT NOT NULL
);
CREATE INDEX idx_session_transcripts_search ON session_transcripts USING GIN (to_tsvector('english', content));
