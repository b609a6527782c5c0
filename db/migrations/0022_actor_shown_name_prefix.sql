-- A name is text of any length (a statement's actor name, an imported or upserted one), but a
-- B-tree entry holds at most 2,704 bytes: indexing the whole shown name made every write of a name
-- over about 2.7 KB fail with SQLSTATE 54000, a 500 (issue 24), and one such row failed a whole
-- user import. The index now holds the name's first 200 characters (at most 800 bytes of UTF-8),
-- which tell names apart as well in practice; `name` eq and in (actor-search-compiler.ts) find
-- the rows by that prefix through the index and compare the whole name on the rows found.
DROP INDEX actors__tenant_id_shown_name;
CREATE INDEX actors__tenant_id_shown_name_prefix ON actors (tenant_id, left(COALESCE(name, names[1]), 200));
