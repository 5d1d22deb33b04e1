// The PostgreSQL store's migrations, embedded in the binary. The first is the SQLite schema as its
// migrations leave it, in PostgreSQL's types; later ones follow the SQLite migrations they mirror,
// or add what only a shared store needs.
// Append new files here in order; never edit a shipped one.
import p001 from "../../migrations/postgres/001_schema.sql" with { type: "text" };
import p002 from "../../migrations/postgres/002_rate_buckets.sql" with { type: "text" };
import p003 from "../../migrations/postgres/003_memory_changes.sql" with { type: "text" };
import p004 from "../../migrations/postgres/004_session_transcripts.sql" with { type: "text" };
import p005 from "../../migrations/postgres/005_secret_job_daemons.sql" with { type: "text" };
import p006 from "../../migrations/postgres/006_source_changes.sql" with { type: "text" };
import p007 from "../../migrations/postgres/007_daemons.sql" with { type: "text" };
import p008 from "../../migrations/postgres/008_work_leases.sql" with { type: "text" };
import p009 from "../../migrations/postgres/009_change_log_pruning.sql" with { type: "text" };
import p010 from "../../migrations/postgres/010_history_by_memory_seq.sql" with { type: "text" };
import p011 from "../../migrations/postgres/011_session_transcript_terms.sql" with { type: "text" };
import p012 from "../../migrations/postgres/012_graph_names_again.sql" with { type: "text" };
import type { Migration } from "./migrations";

export const POSTGRES_MIGRATIONS: Migration[] = [
  { version: 1, name: "001_schema", sql: p001 },
  { version: 2, name: "002_rate_buckets", sql: p002 },
  { version: 3, name: "003_memory_changes", sql: p003 },
  { version: 4, name: "004_session_transcripts", sql: p004 },
  { version: 5, name: "005_secret_job_daemons", sql: p005 },
  { version: 6, name: "006_source_changes", sql: p006 },
  { version: 7, name: "007_daemons", sql: p007 },
  { version: 8, name: "008_work_leases", sql: p008 },
  { version: 9, name: "009_change_log_pruning", sql: p009 },
  { version: 10, name: "010_history_by_memory_seq", sql: p010 },
  { version: 11, name: "011_session_transcript_terms", sql: p011 },
  { version: 12, name: "012_graph_names_again", sql: p012 },
];
