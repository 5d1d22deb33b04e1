-- Transcripts gain the extra index terms memories have in recall's keyword index (code identifiers'
-- parts, CJK bigrams and characters: src/core/search/text.ts indexTerms), so session search finds a
-- word inside an unspaced CJK run ("デプロイ" in "明日のデプロイは中止です") as recall does. The table
-- is made again with the column; a transcript stored before has no terms (NULL) until the store
-- indexes it, before its first search (src/core/sessions/sqlite-store.ts).
CREATE VIRTUAL TABLE session_transcripts_terms_fts USING fts5(content, terms, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO session_transcripts_terms_fts (rowid, content) SELECT rowid, content FROM session_transcripts_fts;
DROP TABLE session_transcripts_fts;
ALTER TABLE session_transcripts_terms_fts RENAME TO session_transcripts_fts;
