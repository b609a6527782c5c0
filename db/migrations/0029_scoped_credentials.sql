-- Scoped administration (docs/learning.md, "Scoped administration"): an admin account or an API
-- key may be limited to one organisation entry and everything below it. Set at creation (an
-- admin's may change later with `learnbase admin set-scope`); NULL: the whole tenant. No foreign
-- key: the structure is replaced whole by each import, and a scope naming an entry the structure
-- no longer has reaches nobody (it fails closed, never open).
ALTER TABLE api_keys ADD COLUMN scope_organisation_id text;
ALTER TABLE admins ADD COLUMN scope_organisation_id text;
