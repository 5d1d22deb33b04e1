// Every migration, embedded in the binary. Append new files here in order; never edit a shipped one.
import m001 from "../../migrations/001_init.sql" with { type: "text" };
import m002 from "../../migrations/002_recall.sql" with { type: "text" };
import m003 from "../../migrations/003_mcp_bridge.sql" with { type: "text" };
import m004 from "../../migrations/004_mcp_invocation_extras.sql" with { type: "text" };
import m007 from "../../migrations/007_sources.sql" with { type: "text" };
import m011 from "../../migrations/011_embed_reindex.sql" with { type: "text" };

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
  { version: 7, name: "007_sources", sql: m007 },
  { version: 11, name: "011_embed_reindex", sql: m011 },
];
