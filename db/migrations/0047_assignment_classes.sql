-- Issue 42: an assignment's counts by status read a few rows instead of its member rows (docs/
-- learning.md, "Counts kept as the writes happen"). Each member row is of one class, from its kept
-- progress (0045) and the assignment's number of activities, that no passing of time changes:
--   completed, completed_late   a member now with every activity done (one of them late or none);
--   open_started, open_idle     a member now with an activity not done, with a record or done
--                               activity or none (overdue, both, once the due date has passed);
--   former_completed, former_late  a former member keeping a done activity (one late, or none).
-- A former member keeping nothing is of none (they are not listed).
--
-- The rows below are deltas: the trigger adds one row per assignment at every statement that
-- inserts, updates or deletes member rows (a cascade too), so that concurrent writers never wait
-- for each other on a count row; the counts of an assignment are the sums of its rows, and
-- learning folds them into one row in the background (kept-counts.service.ts).
CREATE TABLE learning_assignment_classes (
  tenant_id uuid NOT NULL,
  assignment_id uuid NOT NULL,
  completed integer NOT NULL DEFAULT 0,
  completed_late integer NOT NULL DEFAULT 0,
  open_started integer NOT NULL DEFAULT 0,
  open_idle integer NOT NULL DEFAULT 0,
  former_completed integer NOT NULL DEFAULT 0,
  former_late integer NOT NULL DEFAULT 0,
  CONSTRAINT learning_assignment_classes__assignment FOREIGN KEY (tenant_id, assignment_id)
    REFERENCES learning_assignments (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX learning_assignment_classes__tenant_id_assignment_id ON learning_assignment_classes (tenant_id, assignment_id);

-- A member row's class (NULL for a former member keeping nothing), `n` its assignment's number of
-- activities: the one definition, read by the trigger below and by learning's recount
-- (assignment-progress.repository.ts, classesCountedSql). Inlined by the planner.
CREATE FUNCTION learning_member_class(left_at timestamptz, done integer, late integer, started integer, n integer)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN left_at IS NOT NULL THEN CASE WHEN done = 0 THEN NULL WHEN late > 0 THEN 'former_late' ELSE 'former_completed' END
              WHEN done >= n THEN CASE WHEN late > 0 THEN 'completed_late' ELSE 'completed' END
              WHEN done > 0 OR started > 0 THEN 'open_started'
              ELSE 'open_idle' END
$$;

-- SQL of the rows a statement-level trigger's statement moved (`op`: TG_OP), each with `sign`: the
-- rows after (+1) and those before (-1), from its transition tables `old_rows` and `new_rows`.
CREATE FUNCTION learning_moved_rows(op text, old_rows text, new_rows text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE op
    WHEN 'INSERT' THEN format('SELECT *, 1 AS sign FROM %I', new_rows)
    WHEN 'DELETE' THEN format('SELECT *, -1 AS sign FROM %I', old_rows)
    ELSE format('SELECT *, -1 AS sign FROM %I UNION ALL SELECT *, 1 FROM %I', old_rows, new_rows) END
$$;

-- SQL adding the classes of member rows (`moved`: SQL of rows with the member columns and `sign`)
-- to learning_assignment_classes, one row per assignment still there (a deleted assignment's rows
-- go with it) whose sums are not all 0. An assignment's number of activities is read as it is now:
-- a replacement of its activities recounts its classes after.
CREATE FUNCTION learning_assignment_classes_deltas(moved text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($q$
    INSERT INTO learning_assignment_classes
      (tenant_id, assignment_id, completed, completed_late, open_started, open_idle, former_completed, former_late)
    SELECT * FROM (
      SELECT c.tenant_id, c.assignment_id,
             COALESCE(sum(c.sign) FILTER (WHERE c.class = 'completed'), 0)::int AS completed,
             COALESCE(sum(c.sign) FILTER (WHERE c.class = 'completed_late'), 0)::int AS completed_late,
             COALESCE(sum(c.sign) FILTER (WHERE c.class = 'open_started'), 0)::int AS open_started,
             COALESCE(sum(c.sign) FILTER (WHERE c.class = 'open_idle'), 0)::int AS open_idle,
             COALESCE(sum(c.sign) FILTER (WHERE c.class = 'former_completed'), 0)::int AS former_completed,
             COALESCE(sum(c.sign) FILTER (WHERE c.class = 'former_late'), 0)::int AS former_late
        FROM (
          SELECT r.tenant_id, r.assignment_id, r.sign, learning_member_class(r.left_at, r.done, r.late, r.started, n.n) AS class
            FROM (%s) r
            JOIN learning_assignments s ON s.tenant_id = r.tenant_id AND s.id = r.assignment_id
           CROSS JOIN LATERAL (
             SELECT count(*)::int AS n FROM learning_assignment_activities x
              WHERE x.tenant_id = r.tenant_id AND x.assignment_id = r.assignment_id
           ) n
        ) c
       WHERE c.class IS NOT NULL
       GROUP BY c.tenant_id, c.assignment_id
    ) d
    WHERE (d.completed, d.completed_late, d.open_started, d.open_idle, d.former_completed, d.former_late) <> (0, 0, 0, 0, 0, 0)$q$, moved)
$$;

-- The one trigger on the member rows: what each statement moved, counted into what learning keeps
-- of them (migration 0048 adds the compliance to it).
CREATE FUNCTION learning_assignment_members_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE learning_assignment_classes_deltas(learning_moved_rows(TG_OP, 'old_members', 'new_members'));
  RETURN NULL;
END
$$;

CREATE TRIGGER learning_assignment_members__moved_inserted AFTER INSERT ON learning_assignment_members
  REFERENCING NEW TABLE AS new_members FOR EACH STATEMENT EXECUTE FUNCTION learning_assignment_members_moved();
CREATE TRIGGER learning_assignment_members__moved_updated AFTER UPDATE ON learning_assignment_members
  REFERENCING OLD TABLE AS old_members NEW TABLE AS new_members FOR EACH STATEMENT EXECUTE FUNCTION learning_assignment_members_moved();
CREATE TRIGGER learning_assignment_members__moved_deleted AFTER DELETE ON learning_assignment_members
  REFERENCING OLD TABLE AS old_members FOR EACH STATEMENT EXECUTE FUNCTION learning_assignment_members_moved();

-- The member rows that exist now, counted once.
DO $$
BEGIN
  EXECUTE learning_assignment_classes_deltas('SELECT *, 1 AS sign FROM learning_assignment_members');
END
$$;

-- The planner's statistics of the table just filled (a large tenant's rows).
ANALYZE learning_assignment_classes;
