// The re-embedding job (table embed_reindex, docs/api.md#re-embedding): which model everything is
// being re-embedded with, since when, and whether it is done. The work itself is the embedding
// worker's (its queue holds every memory without a vector of the current model); the job's row (the
// store's, store.ts) is what survives a restart, so the count of memories done is recounted from
// the vectors themselves.

export interface ReindexJob {
  model: string;
  /** With `--all`: vectors written before this are redone even when they are of `model`. */
  redoBefore: string | null;
  startedAt: string;
  finishedAt: string | null;
}
