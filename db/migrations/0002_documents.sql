-- The three xAPI document resources (state, activity profile, agent profile) in one table.
-- Parts a kind does not use are stored as '' so that the primary key stays total:
-- activity profiles have no agent, agent profiles no activity, only state has a registration.
CREATE TABLE xapi_documents (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('state', 'activity_profile', 'agent_profile')),
  activity_id text NOT NULL,
  agent_key text NOT NULL,
  registration text NOT NULL,
  document_id text NOT NULL,
  content bytea NOT NULL,
  content_type text NOT NULL,
  etag text NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT xapi_documents__key PRIMARY KEY (tenant_id, kind, activity_id, agent_key, registration, document_id)
);

-- The primary key also serves the listings: its leading columns are what a GET without an id filters on.
