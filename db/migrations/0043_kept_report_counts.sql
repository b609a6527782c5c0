-- Issue 42: the reports' counts kept as the writes happen (docs/learning.md, "Counts kept as the
-- writes happen"). Owned by learning; written in the transactions of the writes that change them
-- (statements, people, the organisation, the jobs, the settings, the registry) and by a rebuild.

-- Per person the reports count (actors' peopleSql: imported, active, not an authority only): the
-- organisation entry and the job they are counted under ('' for none) and their evidence, how many
-- registered activities they completed (passed, for one that requires success).
CREATE TABLE learning_counted_people (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  agent_key text NOT NULL,
  position_id text NOT NULL,
  job_id text NOT NULL,
  evidence integer NOT NULL CHECK (evidence >= 0),
  CONSTRAINT learning_counted_people__tenant_id_agent_key PRIMARY KEY (tenant_id, agent_key)
);

-- The people above summed per (entry, job): what the completion reports by unit and by job read.
-- Changes arrive as signed deltas (INSERT … ON CONFLICT adds them), so no CHECK here: PostgreSQL
-- checks the proposed row before it finds the conflict. A row whose people reach 0 is deleted.
CREATE TABLE learning_unit_counts (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  position_id text NOT NULL,
  job_id text NOT NULL,
  people integer NOT NULL,
  evidence bigint NOT NULL,
  CONSTRAINT learning_unit_counts__tenant_id_position_id_job_id PRIMARY KEY (tenant_id, position_id, job_id)
);

-- The tenants whose kept counts are being rebuilt (a change too large for its request, an upgrade,
-- `learnbase reports rebuild`): their reports recount from the records until the rebuild is done.
CREATE TABLE learning_count_rebuilds (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  requested_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT learning_count_rebuilds__tenant_id PRIMARY KEY (tenant_id)
);

-- Every tenant that exists now has records and people counted by no one yet.
INSERT INTO learning_count_rebuilds (tenant_id) SELECT id FROM tenants;
