-- The daemons sharing this store, each writing its row every few seconds while it runs
-- (core/cluster/roster.ts): `signet doctor` lists the ones seen lately, and background work a daemon
-- leased is taken over once its row goes stale. A lone daemon on SQLite shares with nobody, so this
-- table has no SQLite twin.
CREATE TABLE daemons (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  version TEXT NOT NULL,
  started_at TEXT NOT NULL,
  seen_at TEXT NOT NULL
);
