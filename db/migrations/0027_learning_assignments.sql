-- Learning assignments (issue 28, item 4; docs/learning.md, "Assignments"): an admin assigns
-- registered activities to people chosen by explicit actor ids (static) or by criteria, an
-- organisation subtree or a job (dynamic), with an optional due date. Written by the learning
-- module only. A person's status per activity is not stored: it is read from their completion
-- records when asked, so the statement path does no assignment work. What is stored is who the
-- assignment takes: its members, when each joined, and for those who stopped matching when they
-- left and which activities they had done by then (they keep those, and lose the rest).
CREATE TABLE learning_assignments (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  -- Which of the four selections `people` holds: actorIds (static), criteria, organisationId or
  -- jobId (dynamic: membership follows the people's data).
  selection text NOT NULL CHECK (selection IN ('actorIds', 'criteria', 'organisationId', 'jobId')),
  -- The selection as the request gave it, the actor ids in their canonical form.
  people jsonb NOT NULL CHECK (jsonb_typeof(people) = 'object'),
  due_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Breaks ties between assignments made in one transaction: the list's order is total.
  seq bigint GENERATED ALWAYS AS IDENTITY,
  CONSTRAINT learning_assignments__tenant_id_id PRIMARY KEY (tenant_id, id)
);
-- The list, newest first; and the dynamic assignments a change of people refreshes.
CREATE INDEX learning_assignments__tenant_id_seq ON learning_assignments (tenant_id, seq);
CREATE INDEX learning_assignments__dynamic ON learning_assignments (tenant_id, id) WHERE selection <> 'actorIds';

-- The activities of an assignment, in the order given (`position`).
CREATE TABLE learning_assignment_activities (
  tenant_id uuid NOT NULL,
  assignment_id uuid NOT NULL,
  -- Byte order, as the registry's ids.
  activity_id text COLLATE "C" NOT NULL,
  position integer NOT NULL,
  CONSTRAINT learning_assignment_activities__tenant_id_assignment_id_activity_id PRIMARY KEY (tenant_id, assignment_id, activity_id),
  CONSTRAINT learning_assignment_activities__assignment FOREIGN KEY (tenant_id, assignment_id)
    REFERENCES learning_assignments (tenant_id, id) ON DELETE CASCADE
);

-- Who an assignment takes. `left_at` NULL: a member now; set: they stopped matching then, and keep
-- the activities learning_assignment_kept holds for that leaving (none: they are not listed). Rows
-- are never deleted but with their assignment (or actor): a person who matches again is the same
-- row, `left_at` cleared. So a refresh only inserts and updates (INSERT … ON CONFLICT, by key),
-- and never joins two large sets to delete rows. Keyed by the actor store's agent key, as the
-- completion records are, so the status read probes their primary key.
CREATE TABLE learning_assignment_members (
  tenant_id uuid NOT NULL,
  assignment_id uuid NOT NULL,
  agent_key text NOT NULL,
  joined_at timestamptz NOT NULL,
  left_at timestamptz,
  CONSTRAINT learning_assignment_members__tenant_id_assignment_id_agent_key PRIMARY KEY (tenant_id, assignment_id, agent_key),
  CONSTRAINT learning_assignment_members__assignment FOREIGN KEY (tenant_id, assignment_id)
    REFERENCES learning_assignments (tenant_id, id) ON DELETE CASCADE,
  -- An actor erased from the store takes its memberships with it.
  CONSTRAINT learning_assignment_members__actor FOREIGN KEY (tenant_id, agent_key)
    REFERENCES actors (tenant_id, agent_key) ON DELETE CASCADE
);
-- A person's assignments (GET /api/actors/assignments), and reports joining people to them.
CREATE INDEX learning_assignment_members__tenant_id_agent_key ON learning_assignment_members (tenant_id, agent_key, assignment_id);

-- What a former member keeps: each activity of the assignment they had done when they left
-- (`left_at`, their member row's), with when it counted as done (its completion record's
-- completedAt, or passedAt when the activity requires success). Only the rows of the member's
-- last leaving count, and only for activities still assigned; a later leaving overwrites them.
CREATE TABLE learning_assignment_kept (
  tenant_id uuid NOT NULL,
  assignment_id uuid NOT NULL,
  agent_key text NOT NULL,
  activity_id text COLLATE "C" NOT NULL,
  left_at timestamptz NOT NULL,
  completed_at timestamptz NOT NULL,
  CONSTRAINT learning_assignment_kept__tenant_id_assignment_id_agent_key_activity_id
    PRIMARY KEY (tenant_id, assignment_id, agent_key, activity_id),
  CONSTRAINT learning_assignment_kept__member FOREIGN KEY (tenant_id, assignment_id, agent_key)
    REFERENCES learning_assignment_members (tenant_id, assignment_id, agent_key) ON DELETE CASCADE
);
