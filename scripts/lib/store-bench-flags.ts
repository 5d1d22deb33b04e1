// The flags bench-store.ts (in process) and bench-cluster.ts (daemons over HTTP) share: both measure
// writes, recall at a size and the change feed, on SQLite and on PostgreSQL.
import type { FlagSpec } from "./args";

export const STORE_BENCH_FLAGS = {
  writes: { kind: "int", min: 100 },
  clients: { kind: "int", min: 1 },
  "recall-size": { kind: "int", min: 1000 },
  queries: { kind: "int", min: 10 },
  "feed-writes": { kind: "int", min: 10 },
  json: { kind: "bool" },
} as const satisfies Record<string, FlagSpec>;
