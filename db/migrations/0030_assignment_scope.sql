-- Scoped assignments (docs/learning.md, "Scoped credentials and assignments"): an assignment made by
-- an admin or an API key limited to an organisation entry keeps that entry, and its members are only
-- ever people placed in the entry or below it, whoever later refreshes them (an unscoped import
-- included). NULL: the whole tenant. No foreign key, as for the credentials' scopes (0029): each
-- import replaces the structure whole, and a scope naming an entry the structure no longer has
-- reaches nobody (it fails closed, never open).
ALTER TABLE learning_assignments ADD COLUMN scope_organisation_id text;
