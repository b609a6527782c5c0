-- The statements that made each completion record, in the order they were stored, as rows of
-- their own instead of the record's `statement_ids` array (migration 0014). Every write of a
-- record rewrote its whole array, so a record of thousands of statements (a video reporting
-- progress every few seconds) made each of its writes slower than the last; a row per statement
-- is one small insert. `position` orders them. Answered as `statementIds`
-- (docs/completions.md); a voiding refolds a record from the statements left.
CREATE TABLE completion_record_statements (
  tenant_id uuid NOT NULL,
  agent_key text NOT NULL,
  activity_id text COLLATE "C" NOT NULL,
  registration text NOT NULL,
  position bigint GENERATED ALWAYS AS IDENTITY,
  statement_id text NOT NULL,
  CONSTRAINT completion_record_statements__record_position PRIMARY KEY (tenant_id, agent_key, activity_id, registration, position),
  -- Deleted with their record (a voiding that leaves none, a tenant's deletion).
  CONSTRAINT completion_record_statements__record FOREIGN KEY (tenant_id, agent_key, activity_id, registration)
    REFERENCES completion_records (tenant_id, agent_key, activity_id, registration) ON DELETE CASCADE
);

INSERT INTO completion_record_statements (tenant_id, agent_key, activity_id, registration, statement_id)
SELECT r.tenant_id, r.agent_key, r.activity_id, r.registration, s.statement_id
  FROM completion_records AS r
 CROSS JOIN LATERAL unnest(r.statement_ids) WITH ORDINALITY AS s (statement_id, ord)
 ORDER BY r.tenant_id, r.agent_key, r.activity_id, r.registration, s.ord;

ALTER TABLE completion_records DROP COLUMN statement_ids;
