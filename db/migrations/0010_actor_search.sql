-- Actor search (POST /api/actors/search, docs/actors.md). An `eq` on an attribute compiles to
-- `attributes @> '{"name": "value"}'` and a short `in` to `attributes @> ANY(...)`, which this
-- index serves (several such conditions in one scan); jsonb_path_ops keeps it about a third the
-- size of the default jsonb_ops and serves exactly @>.
-- gin_pending_list_limit 256 kB (default 4 MB): new entries wait in a pending list that every
-- search reads in full until a vacuum or an overflow merges it; after a 100,000-user import the
-- default list made each search about 3 ms slower. Imports merge it more often instead.
-- Conditions on the enrichment select organisation entries and jobs through their primary keys
-- and organisation_entries__tenant_id_parent_id (0005), so they need no index of their own.
CREATE INDEX actors__attributes ON actors USING gin (attributes jsonb_path_ops) WITH (gin_pending_list_limit = 256);

-- `name` conditions compare the name an actor is shown with (the imported or upserted one, else
-- the first a statement gave); eq and in on it are served here instead of by a full scan.
CREATE INDEX actors__tenant_id_shown_name ON actors (tenant_id, COALESCE(name, names[1]));
