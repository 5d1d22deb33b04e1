-- Document sources (docs/api.md#sources): files and directories the owner added, the files found in
-- them with what decides whether one changed (size, mtime, content hash), and their chunks, each with
-- its line range. Chunks are keyword-indexed in source_chunks_fts (contentless: the text lives in
-- source_chunks) and embedded in the background into source_vectors. Memories never live here.
CREATE TABLE sources (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('file', 'dir')),
  glob TEXT,
  created_at TEXT NOT NULL,
  synced_at TEXT NOT NULL
);

CREATE TABLE source_files (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  path TEXT NOT NULL UNIQUE,
  format TEXT NOT NULL CHECK (format IN ('markdown', 'text', 'code', 'pdf')),
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  content_hash TEXT NOT NULL,
  ingested_at TEXT NOT NULL
);
CREATE INDEX source_files_source ON source_files(source_id);

CREATE TABLE source_chunks (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  file_id INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  heading TEXT,
  content TEXT NOT NULL
);
CREATE INDEX source_chunks_file ON source_chunks(file_id);

CREATE VIRTUAL TABLE source_chunks_fts USING fts5(
  content, heading, path, terms,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE source_vectors (
  seq INTEGER PRIMARY KEY REFERENCES source_chunks(seq) ON DELETE CASCADE,
  model TEXT NOT NULL,
  dimensions INTEGER NOT NULL,
  vector BLOB NOT NULL
);
