-- Source ids are never reused: an INTEGER PRIMARY KEY takes the largest id + 1, so after the newest
-- source was removed the next one took its id, and a `signet source rm 3` typed from an older listing
-- removed a source the owner never meant. The highest id ever given, kept by a trigger on every
-- insert (an id given explicitly, by a store copy, included); a new source takes the one after it.
-- An id removed before this migration, above the highest left, may be given once more: nothing kept it.
CREATE TABLE source_id_high (id INTEGER NOT NULL);
INSERT INTO source_id_high SELECT coalesce(max(id), 0) FROM sources;
CREATE TRIGGER source_id_high_insert AFTER INSERT ON sources BEGIN
  UPDATE source_id_high SET id = max(id, NEW.id);
END;
