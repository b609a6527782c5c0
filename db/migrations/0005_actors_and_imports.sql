-- The learning-platform half: the actor store, tenant settings, the organisation structure, the
-- job architecture and the history of imports (interface sections 1, 2.1-2.6, 4.1).

-- One actor store per tenant (interface 2.6). An actor is an xAPI Agent, keyed by its canonical
-- IFI key (agent.ts), whether a statement named it or an import created it: the table that
-- recorded the agents statements name becomes the store, so a person imported with an account
-- and the same account named in a statement are one row. `names` are the names statements gave;
-- `name` and `attributes` are what an import (or, later, an upsert) set; `imported_at` is when.
ALTER TABLE xapi_agents RENAME TO actors;
ALTER TABLE actors RENAME CONSTRAINT xapi_agents__tenant_id_agent_key TO actors__tenant_id_agent_key;
ALTER TABLE actors
  ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN name text,
  ADD COLUMN attributes jsonb,
  ADD COLUMN imported_at timestamptz,
  ADD CONSTRAINT actors__tenant_id_id UNIQUE (tenant_id, id),
  ADD CONSTRAINT actors__attributes_object CHECK (attributes IS NULL OR jsonb_typeof(attributes) = 'object');

-- The values of the tenant's unique attributes (settings.uniqueAttributes) that identify a
-- person: one person per (attribute, value), enforced here so that two imports running at once
-- can never create two actors for one person.
CREATE TABLE actor_identifiers (
  tenant_id uuid NOT NULL,
  attribute text NOT NULL,
  value text NOT NULL,
  agent_key text NOT NULL,
  CONSTRAINT actor_identifiers__tenant_id_attribute_value PRIMARY KEY (tenant_id, attribute, value),
  CONSTRAINT actor_identifiers__actor FOREIGN KEY (tenant_id, agent_key)
    REFERENCES actors (tenant_id, agent_key) ON DELETE CASCADE
);
CREATE INDEX actor_identifiers__tenant_id_agent_key ON actor_identifiers (tenant_id, agent_key);

-- Per-tenant settings (GET/PUT /api/settings); absent keys take their defaults in code.
CREATE TABLE tenant_settings (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  settings jsonb NOT NULL CHECK (jsonb_typeof(settings) = 'object'),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tenant_settings__tenant_id PRIMARY KEY (tenant_id)
);

-- The organisation structure (interface 2.4): a position hierarchy through parent_id, or flat
-- location data without it. Replaced whole by each import; `position` keeps the import's order.
CREATE TABLE organisation_entries (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id text NOT NULL,
  parent_id text,
  attributes jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
  position integer NOT NULL,
  CONSTRAINT organisation_entries__tenant_id_id PRIMARY KEY (tenant_id, id),
  -- Checked at commit: an import replaces the whole set in one transaction, parents in any order.
  CONSTRAINT organisation_entries__parent FOREIGN KEY (tenant_id, parent_id)
    REFERENCES organisation_entries (tenant_id, id) DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX organisation_entries__tenant_id_parent_id ON organisation_entries (tenant_id, parent_id);

-- The job architecture (interface 2.5). Replaced whole by each import.
CREATE TABLE jobs (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id text NOT NULL,
  name text NOT NULL,
  competencies jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(competencies) = 'array'),
  attributes jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(attributes) = 'object'),
  position integer NOT NULL,
  CONSTRAINT jobs__tenant_id_id PRIMARY KEY (tenant_id, id)
);

-- Every import, verified or not: who ran it, when, and what came of it (GET /api/import/history).
CREATE TABLE import_runs (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('users', 'organisation', 'jobs')),
  verify boolean NOT NULL,
  principal_kind text NOT NULL,
  principal_id text NOT NULL,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL,
  -- users: the import summary without its messages' details beyond counts; organisation, jobs: {"entries": n}.
  summary jsonb NOT NULL,
  CONSTRAINT import_runs__tenant_id_id PRIMARY KEY (tenant_id, id)
);
CREATE INDEX import_runs__tenant_id_finished_at ON import_runs (tenant_id, finished_at DESC, id);
