-- Completion records (GET /api/actors/completions, docs/completions.md): one row per actor,
-- activity and registration, derived from statements in the transaction that stores them
-- (src/modules/completions). `registration` is '' for statements without one, so it can sit in
-- the primary key. `progress` is a percentage, 0 to 100. `score` is the `result.score` of the
-- latest statement (by `timestamp`) that had one, `score_at` that statement's timestamp.
-- `statement_ids` are the statements that made the record: voiding one refolds the others.
CREATE TABLE completion_records (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  agent_key text NOT NULL,
  activity_id text COLLATE "C" NOT NULL,
  registration text NOT NULL DEFAULT '',
  -- The agent as an xAPI object with only its identifier, for answers.
  actor jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('in-progress', 'completed', 'passed', 'failed')),
  progress numeric CHECK (progress >= 0 AND progress <= 100),
  score jsonb,
  score_at timestamptz,
  first_at timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  statement_ids text[] NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT completion_records__tenant_id_agent_key_activity_id_registration PRIMARY KEY (tenant_id, agent_key, activity_id, registration)
);

-- The `context.contextActivities.parent` links statements stated (activity -> parent), which
-- `expand=hierarchy` walks beside the registry's parent_id. Kept when a statement is voided.
CREATE TABLE completion_activity_parents (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  parent_id text COLLATE "C" NOT NULL,
  activity_id text COLLATE "C" NOT NULL,
  CONSTRAINT completion_activity_parents__tenant_id_parent_id_activity_id PRIMARY KEY (tenant_id, parent_id, activity_id)
);
