-- Issue 42: the compliance report per organisation entry reads a few thousand rows instead of
-- every member's pairs (docs/learning.md, "Counts kept as the writes happen"). Per (entry, job,
-- assignment), the (person, assignment activity) pairs of its members now who are counted
-- (learning_counted_people: an active person, under the entry and job their attributes name),
-- from each member row's kept progress (0045) and the assignment's number of activities `n`:
--   on_time  done in time (done - late);
--   late     done after the due date;
--   started  not done, with a record (in progress; overdue once the due date has passed);
--   idle     not done, without one (not started; overdue once the due date has passed).
--
-- Deltas, as learning_assignment_classes (0047): a trigger on the member rows adds their change
-- under the person's entry and job now, a trigger on the counted people moves a person's pairs
-- when their entry or job changes, or when they come to be counted or stop; writers only insert,
-- and learning folds the rows of a group into one in the background.
CREATE TABLE learning_compliance_counts (
  tenant_id uuid NOT NULL,
  position_id text NOT NULL,
  job_id text NOT NULL,
  assignment_id uuid NOT NULL,
  on_time integer NOT NULL DEFAULT 0,
  late integer NOT NULL DEFAULT 0,
  started integer NOT NULL DEFAULT 0,
  idle integer NOT NULL DEFAULT 0,
  CONSTRAINT learning_compliance_counts__assignment FOREIGN KEY (tenant_id, assignment_id)
    REFERENCES learning_assignments (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX learning_compliance_counts__tenant_id_position_id ON learning_compliance_counts (tenant_id, position_id);
CREATE INDEX learning_compliance_counts__tenant_id_assignment_id ON learning_compliance_counts (tenant_id, assignment_id);

-- The pairs of member rows (`moved`: SQL of rows with the member columns and `sign`), counted
-- under the counted person's (entry, job) now, one row per group whose sums are not all 0.
CREATE FUNCTION learning_compliance_deltas(moved text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($q$
    INSERT INTO learning_compliance_counts (tenant_id, position_id, job_id, assignment_id, on_time, late, started, idle)
    SELECT * FROM (
      SELECT r.tenant_id, r.position_id, r.job_id, r.assignment_id,
             sum(r.sign * (r.done - r.late))::int AS on_time, sum(r.sign * r.late)::int AS late,
             sum(r.sign * r.started)::int AS started, sum(r.sign * greatest(n.n - r.done - r.started, 0))::int AS idle
        FROM (%s) r
        JOIN learning_assignments s ON s.tenant_id = r.tenant_id AND s.id = r.assignment_id
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS n FROM learning_assignment_activities x
          WHERE x.tenant_id = r.tenant_id AND x.assignment_id = r.assignment_id
       ) n
       WHERE r.left_at IS NULL AND r.position_id <> ''
       GROUP BY r.tenant_id, r.position_id, r.job_id, r.assignment_id
    ) d
    WHERE (d.on_time, d.late, d.started, d.idle) <> (0, 0, 0, 0)$q$, moved)
$$;

-- Member rows changed: their classes (0047), and their pairs, before (-1) and after (+1), under
-- their person's entry and job now. One trigger, one pass over what the statement moved.
CREATE OR REPLACE FUNCTION learning_assignment_members_moved() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  moved text := learning_moved_rows(TG_OP, 'old_members', 'new_members');
BEGIN
  EXECUTE learning_assignment_classes_deltas(moved);
  EXECUTE learning_compliance_deltas(format(
    'SELECT m.tenant_id, m.assignment_id, m.left_at, m.done, m.late, m.started, m.sign, c.position_id, c.job_id
       FROM (%s) m JOIN learning_counted_people c ON c.tenant_id = m.tenant_id AND c.agent_key = m.agent_key', moved));
  RETURN NULL;
END
$$;

-- Counted people changed (their entry or job, or counted or no longer): their member rows' pairs
-- now, taken from where they were (-1) and put where they are (+1).
CREATE FUNCTION learning_compliance_people_moved() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- An update moves the people whose entry or job changed alone.
  moved text := CASE TG_OP WHEN 'UPDATE' THEN
      'SELECT o.*, -1 AS sign FROM old_people o JOIN new_people w ON w.tenant_id = o.tenant_id AND w.agent_key = o.agent_key
        WHERE (o.position_id, o.job_id) IS DISTINCT FROM (w.position_id, w.job_id)
       UNION ALL
       SELECT w.*, 1 FROM new_people w JOIN old_people o ON o.tenant_id = w.tenant_id AND o.agent_key = w.agent_key
        WHERE (o.position_id, o.job_id) IS DISTINCT FROM (w.position_id, w.job_id)'
    ELSE learning_moved_rows(TG_OP, 'old_people', 'new_people') END;
BEGIN
  -- An update of the evidence alone (every statement write's) moves nothing: answered by a cached plan.
  IF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (
      SELECT 1 FROM old_people o JOIN new_people w ON w.tenant_id = o.tenant_id AND w.agent_key = o.agent_key
       WHERE (o.position_id, o.job_id) IS DISTINCT FROM (w.position_id, w.job_id)
    ) THEN
      RETURN NULL;
    END IF;
  END IF;
  EXECUTE learning_compliance_deltas(format(
    'SELECT m.tenant_id, m.assignment_id, m.left_at, m.done, m.late, m.started, c.sign, c.position_id, c.job_id
       FROM (%s) c JOIN learning_assignment_members m ON m.tenant_id = c.tenant_id AND m.agent_key = c.agent_key
      WHERE m.left_at IS NULL', moved));
  RETURN NULL;
END
$$;

CREATE TRIGGER learning_counted_people__compliance_inserted AFTER INSERT ON learning_counted_people
  REFERENCING NEW TABLE AS new_people FOR EACH STATEMENT EXECUTE FUNCTION learning_compliance_people_moved();
CREATE TRIGGER learning_counted_people__compliance_updated AFTER UPDATE ON learning_counted_people
  REFERENCING OLD TABLE AS old_people NEW TABLE AS new_people FOR EACH STATEMENT EXECUTE FUNCTION learning_compliance_people_moved();
CREATE TRIGGER learning_counted_people__compliance_deleted AFTER DELETE ON learning_counted_people
  REFERENCING OLD TABLE AS old_people FOR EACH STATEMENT EXECUTE FUNCTION learning_compliance_people_moved();

-- The member rows that exist now, counted once.
DO $$
BEGIN
  EXECUTE learning_compliance_deltas(
    'SELECT m.tenant_id, m.assignment_id, m.left_at, m.done, m.late, m.started, 1 AS sign, c.position_id, c.job_id
       FROM learning_assignment_members m JOIN learning_counted_people c ON c.tenant_id = m.tenant_id AND c.agent_key = m.agent_key');
END
$$;

-- The planner's statistics of the table just filled (a large tenant's rows).
ANALYZE learning_compliance_counts;
