-- Issue 42: each member row of an assignment keeps its person's progress (docs/learning.md,
-- "Counts kept as the writes happen"; assignment-progress.repository.ts): the activities done,
-- done late and started, so that an assignment's counts and its people by status read the member
-- rows instead of probing every (member, activity) pair's records. Written by learning in the
-- transactions that change them (statements, memberships, assignments, the registry).
ALTER TABLE learning_assignment_members
  ADD COLUMN done integer NOT NULL DEFAULT 0,
  ADD COLUMN late integer NOT NULL DEFAULT 0,
  ADD COLUMN started integer NOT NULL DEFAULT 0;

-- The members that exist now have no progress kept yet: every tenant's counts are rebuilt (its
-- assignments read from the records until then).
INSERT INTO learning_count_rebuilds (tenant_id) SELECT id FROM tenants ON CONFLICT (tenant_id) DO NOTHING;

-- The assignments of an activity: a statement write updates the progress of its people's member
-- rows in the assignments of the activities it changed, and no other.
CREATE INDEX learning_assignment_activities__tenant_id_activity_id ON learning_assignment_activities (tenant_id, activity_id);
