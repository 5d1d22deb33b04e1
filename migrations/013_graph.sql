-- The knowledge graph (docs/graph.md): derived from memories, per agent, never written by callers.
-- Extraction fills entities, their names, mentions and claims as memories arrive; Dreaming merges,
-- supersedes, relates and queues reviews, and records what it did.
CREATE TABLE graph_entities (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  pinned INTEGER NOT NULL DEFAULT 0,
  -- Set when Dreaming merged this entity into another: its names, mentions and claims moved there.
  merged_into TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX idx_graph_entities_agent ON graph_entities(agent_id) WHERE merged_into IS NULL;

-- Every name an entity is known by, its own included, by its normalized key: the gazetteer.
CREATE TABLE graph_aliases (
  agent_id TEXT NOT NULL,
  key TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  alias TEXT NOT NULL,
  PRIMARY KEY (agent_id, key, entity_id)
) WITHOUT ROWID;
CREATE INDEX idx_graph_aliases_entity ON graph_aliases(entity_id);

CREATE TABLE graph_mentions (
  entity_id TEXT NOT NULL,
  memory_seq INTEGER NOT NULL,
  PRIMARY KEY (entity_id, memory_seq)
) WITHOUT ROWID;
CREATE INDEX idx_graph_mentions_memory ON graph_mentions(memory_seq);

CREATE TABLE graph_aspects (
  entity_id TEXT NOT NULL,
  name TEXT NOT NULL,
  weight REAL NOT NULL DEFAULT 1,
  PRIMARY KEY (entity_id, name)
) WITHOUT ROWID;

-- A claim: the value a memory gives an entity's slot. Bi-temporal: valid_from is the evidence's own
-- time (the memory's), recorded_at when it was extracted; a superseded claim keeps both and gains
-- valid_until and the claim that superseded it.
CREATE TABLE graph_claims (
  id INTEGER PRIMARY KEY,
  entity_id TEXT NOT NULL,
  aspect TEXT NOT NULL,
  slot TEXT NOT NULL,
  value TEXT NOT NULL,
  confidence REAL NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded')),
  valid_from TEXT NOT NULL,
  valid_until TEXT,
  superseded_by INTEGER,
  memory_seq INTEGER NOT NULL,
  recorded_at TEXT NOT NULL
);
CREATE INDEX idx_graph_claims_slot ON graph_claims(entity_id, aspect, slot);
CREATE INDEX idx_graph_claims_memory ON graph_claims(memory_seq);

CREATE TABLE graph_relations (
  from_id TEXT NOT NULL,
  to_id TEXT NOT NULL,
  type TEXT NOT NULL,
  strength REAL NOT NULL,
  evidence INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (from_id, to_id, type)
) WITHOUT ROWID;
CREATE INDEX idx_graph_relations_to ON graph_relations(to_id);

-- Which version of each memory extraction has read: the rest waits, across restarts and kill -9.
CREATE TABLE graph_extracted (
  memory_seq INTEGER PRIMARY KEY,
  version INTEGER NOT NULL,
  agent_id TEXT NOT NULL,
  extracted_at TEXT NOT NULL
);
CREATE INDEX idx_graph_extracted_agent ON graph_extracted(agent_id);

-- Which memories have a reviewAfter: Dreaming looks for those due without reading every memory.
CREATE INDEX idx_memories_review_after ON memories(review_after) WHERE review_after IS NOT NULL AND deleted_at IS NULL;

-- Memories whose reviewAfter has passed, queued by Dreaming; surfaced_at once a session start listed one.
CREATE TABLE graph_reviews (
  memory_seq INTEGER PRIMARY KEY,
  agent_id TEXT NOT NULL,
  due_at TEXT NOT NULL,
  reason TEXT NOT NULL,
  queued_at TEXT NOT NULL,
  surfaced_at TEXT
);
CREATE INDEX idx_graph_reviews_agent ON graph_reviews(agent_id, surfaced_at);

-- Importance decayed by Dreaming: the importance it decays from (the memory's own at that version;
-- a change of the memory starts again from its new importance).
CREATE TABLE graph_decay (
  memory_seq INTEGER PRIMARY KEY,
  version INTEGER NOT NULL,
  base REAL NOT NULL,
  decayed_at TEXT NOT NULL
);

-- Per agent: when Dreaming last looked at all of its memories for decay (once a day).
CREATE TABLE graph_agents (
  agent_id TEXT PRIMARY KEY,
  decayed_at TEXT NOT NULL
);

-- Each Dreaming pass and what it did.
CREATE TABLE graph_dreams (
  id INTEGER PRIMARY KEY,
  agent_id TEXT NOT NULL,
  trigger TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  summary TEXT NOT NULL
);
CREATE TABLE graph_audit (
  dream_id INTEGER NOT NULL,
  action TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX idx_graph_audit_dream ON graph_audit(dream_id);
