-- Extraction takes fewer words for names than it did (src/core/graph/extract.ts: no question words,
-- greetings or contractions, no name across punctuation, everyday words only where written as names)
-- and claims a value only when it is one: every memory the graph read is read again once, in the
-- background after the start, which replaces its mentions and claims; the next Dreaming pass prunes
-- the entities no memory mentions any longer.
UPDATE graph_extracted SET version = -1;
