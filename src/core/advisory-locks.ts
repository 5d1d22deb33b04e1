// The advisory-lock spaces (the first key of PostgreSQL's two-key form) the stores lock in, in one
// place so no two areas take the same space.
export const LOCK_SPACE = {
  /** An agent's dedupe key, while a remember checks for its duplicate (memory/postgres-store.ts). */
  dedupeKey: 1,
  /** An imported memory's id (memory/postgres-store.ts). */
  importedId: 2,
  /** A memory's feedback signal (sessions/postgres-store.ts). */
  feedback: 3,
  /** An agent's graph writes (graph/postgres-store.ts). */
  graphWrites: 4,
  /** An agent's Dreaming pass, held for the pass (graph/postgres-store.ts). */
  dream: 5,
  /** A document source's writes (sources/postgres-store.ts). */
  source: 6,
  /** The store's pruning, so one daemon prunes at a time (cluster/pruner.ts). */
  pruning: 7,
} as const;
