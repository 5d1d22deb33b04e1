-- Background work leased to one daemon for a while (core/cluster/leases.ts): a daemon about to embed
-- a memory takes its lease first, so two daemons never embed one memory, and one whose lease ran out
-- (its daemon died or lost the store) is taken over by the others. A lone daemon on SQLite does all
-- its work itself, so this table has no SQLite twin.
CREATE TABLE work_leases (
  kind TEXT NOT NULL,
  item BIGINT NOT NULL,
  daemon_id TEXT NOT NULL,
  lease_until TEXT NOT NULL,
  PRIMARY KEY (kind, item)
);
