-- Per-token rate-limit buckets (docs/security.md#rate-limits), shared by the daemons of one store so
-- a token's budget is one however its requests are spread. A daemon on its own SQLite file keeps
-- its buckets in memory, so this table has no SQLite twin.
CREATE TABLE rate_buckets (
  key TEXT PRIMARY KEY,
  -- What is left of the budget, fractional while it refills.
  tokens DOUBLE PRECISION NOT NULL,
  -- When it was last spent from, in milliseconds since the epoch.
  at BIGINT NOT NULL,
  -- Whether that last request was let through.
  taken BOOLEAN NOT NULL
);
