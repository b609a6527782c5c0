-- The rate limits' counters when several processes share them (LEARNBASE_RATE_LIMIT_STORE=postgres,
-- docs/operations.md "Rate limits"). One row per limit and client address (`token:192.0.2.7`): the
-- requests counted in the window that began with its first one, which ends at `expires_at`. The
-- next request after that starts a new window in the same row; rows nobody renews are purged.
--
-- Not tenant-owned: a client address is counted across tenants. UNLOGGED: every counted request
-- writes a row, and a count is worth no WAL (after a crash the table is empty, which only forgives
-- the clients counted in the current minute; standbys do not see it).
CREATE UNLOGGED TABLE rate_limit_counters (
  key text NOT NULL,
  count integer NOT NULL,
  expires_at timestamptz NOT NULL,
  CONSTRAINT rate_limit_counters__key PRIMARY KEY (key)
);
