// Every migration, embedded in the binary. Append new files here in order; never edit a shipped one.
import m001 from "../../migrations/001_init.sql" with { type: "text" };
import m002 from "../../migrations/002_recall.sql" with { type: "text" };
import m003 from "../../migrations/003_mcp_bridge.sql" with { type: "text" };
import m004 from "../../migrations/004_mcp_invocation_extras.sql" with { type: "text" };
import m005 from "../../migrations/005_sessions.sql" with { type: "text" };
import m006 from "../../migrations/006_sources.sql" with { type: "text" };
import m007 from "../../migrations/007_embed_reindex.sql" with { type: "text" };
import m008 from "../../migrations/008_secrets.sql" with { type: "text" };
import m009 from "../../migrations/009_tokens.sql" with { type: "text" };
import m010 from "../../migrations/010_agents.sql" with { type: "text" };
import m011 from "../../migrations/011_session_process_deliveries.sql" with { type: "text" };
import m012 from "../../migrations/012_vector_models.sql" with { type: "text" };
import m013 from "../../migrations/013_graph.sql" with { type: "text" };
import m014 from "../../migrations/014_memories_without_fts.sql" with { type: "text" };
import m015 from "../../migrations/015_history_by_memory_seq.sql" with { type: "text" };
import m016 from "../../migrations/016_source_ids.sql" with { type: "text" };
import m017 from "../../migrations/017_session_transcript_terms.sql" with { type: "text" };
import m018 from "../../migrations/018_graph_names_again.sql" with { type: "text" };

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  { version: 1, name: "001_init", sql: m001 },
  { version: 2, name: "002_recall", sql: m002 },
  { version: 3, name: "003_mcp_bridge", sql: m003 },
  { version: 4, name: "004_mcp_invocation_extras", sql: m004 },
  { version: 5, name: "005_sessions", sql: m005 },
  { version: 6, name: "006_sources", sql: m006 },
  { version: 7, name: "007_embed_reindex", sql: m007 },
  { version: 8, name: "008_secrets", sql: m008 },
  { version: 9, name: "009_tokens", sql: m009 },
  { version: 10, name: "010_agents", sql: m010 },
  { version: 11, name: "011_session_process_deliveries", sql: m011 },
  { version: 12, name: "012_vector_models", sql: m012 },
  { version: 13, name: "013_graph", sql: m013 },
  { version: 14, name: "014_memories_without_fts", sql: m014 },
  { version: 15, name: "015_history_by_memory_seq", sql: m015 },
  { version: 16, name: "016_source_ids", sql: m016 },
  { version: 17, name: "017_session_transcript_terms", sql: m017 },
  { version: 18, name: "018_graph_names_again", sql: m018 },
];
