-- Transcripts gain the extra index terms memories have in recall's keyword index (code identifiers'
-- parts, CJK bigrams and characters: src/core/search/text.ts indexTerms), so session search finds a
-- word inside an unspaced CJK run as recall does (SQLite migration 017). A transcript stored before
-- has no terms (NULL) until the store indexes it, before its first search
-- (src/core/sessions/postgres-store.ts). The search index covers both, the terms weighing less.
ALTER TABLE session_transcripts ADD COLUMN terms TEXT;
DROP INDEX idx_session_transcripts_search;
CREATE INDEX idx_session_transcripts_search ON session_transcripts USING GIN (
  (setweight(to_tsvector('english', content), 'A') || setweight(to_tsvector('english', COALESCE(terms, '')), 'B'))
);
