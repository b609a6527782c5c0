import type { SqlClient } from '../../../platform/database/sql-client.js';
import { requiresSuccessSql } from '../../activities/index.js';
import { activityProgressSql } from '../../completions/index.js';
import { recountCompliance } from '../reports/kept-compliance.repository.js';
import { rebuildRequested } from '../reports/kept-counts.repository.js';

/**
 * What each member row of an assignment keeps of its person's progress (docs/learning.md, "Counts
 * kept as the writes happen"), so that an assignment's counts and its people by status are a read
 * of its member rows instead of a probe of every (member, activity) pair's records:
 *
 * - `done`: the assignment's activities the person has done (their earliest completedAt, or
 *   passedAt when the activity requires success); for a former member, the activities they kept
 *   at their last leaving that are still assigned;
 * - `late`: of those, the ones done after the due date;
 * - `started`: for a member now, the activities not done with a record (a statement about it
 *   counted); 0 for a former member.
 *
 * The status is then a function of these, the number of activities and the due date against now
 * (keptStatusSql): nothing stored changes when a due date passes. The columns are derived from the
 * records, the registry, the assignment and the kept rows alone: refreshProgress makes them again
 * for any member rows, and a recount compares.
 */

/**
 * SQL: the progress of the member rows `members` selects (a condition over `m`,
 * learning_assignment_members), as statusesSql of assignment-status.repository.ts reads it:
 * columns `assignment_id`, `agent_key`, `done`, `late`, `started`. `$1` is the tenant.
 */
export function memberProgressSql(members: string): string {
  return `SELECT m.assignment_id, m.agent_key,
                 count(d.done_at)::int AS done,
                 count(*) FILTER (WHERE d.done_at > s.due_at)::int AS late,
                 count(*) FILTER (WHERE m.left_at IS NULL AND d.done_at IS NULL AND p.records > 0)::int AS started
            FROM learning_assignment_members m
            JOIN learning_assignments s ON s.tenant_id = m.tenant_id AND s.id = m.assignment_id
            JOIN learning_assignment_activities x ON x.tenant_id = m.tenant_id AND x.assignment_id = m.assignment_id
            LEFT JOIN learning_assignment_kept k
              ON k.tenant_id = m.tenant_id AND k.assignment_id = m.assignment_id AND k.agent_key = m.agent_key
             AND k.activity_id = x.activity_id AND k.left_at = m.left_at
           CROSS JOIN LATERAL (${activityProgressSql('$1', 'm.agent_key', 'x.activity_id')}) p
           CROSS JOIN LATERAL (
             SELECT CASE WHEN m.left_at IS NOT NULL THEN k.completed_at
                         WHEN ${requiresSuccessSql('$1', 'x.activity_id')} THEN p.passed_at ELSE p.completed_at END AS done_at
           ) d
          WHERE m.tenant_id = $1 AND ${members}
          GROUP BY m.assignment_id, m.agent_key`;
}

/**
 * The progress of the member rows `members` selects (a condition over `m`; `values`, `$1` the
 * tenant) derived again and stored where it changed. The rows are locked, or their writers
 * excluded by the locks held (KeptCounts' order: the tenant's, the assignments', the people's).
 */
export async function refreshProgress(tx: SqlClient, members: string, values: readonly unknown[]): Promise<void> {
  await tx.query(
    `UPDATE learning_assignment_members AS t SET done = f.done, late = f.late, started = f.started
       FROM (${memberProgressSql(members)}) f
      WHERE t.tenant_id = $1 AND t.assignment_id = f.assignment_id AND t.agent_key = f.agent_key
        AND (t.done, t.late, t.started) IS DISTINCT FROM (f.done, f.late, f.started)`,
    values,
  );
}

/**
 * An assignment written (created or replaced: its members, activities or due date changed): the
 * progress of its member rows, unless a rebuild will make it, and, when its activities were
 * replaced, their classes and compliance counted again. The assignments' lock is held alone
 * (assignment.service.ts), so no statement write changes them meanwhile.
 */
export async function keepAssignmentProgress(
  tx: SqlClient,
  tenantId: string,
  assignmentId: string,
  /** Whether its activities were replaced (their number may have changed under its member rows). */
  change: { activitiesReplaced: boolean },
): Promise<void> {
  if ((await rebuildRequested(tx, tenantId)) === undefined) await refreshProgress(tx, 'm.assignment_id = $2', [tenantId, assignmentId]);
  if (!change.activitiesReplaced) return;
  // Its number of activities may have changed: every row's class and open pairs with it, which the
  // triggers counted with the number as it was.
  await recountClasses(tx, 'm.assignment_id = $2', [tenantId, assignmentId]);
  await recountCompliance(tx, 'm.assignment_id = $2', [tenantId, assignmentId]);
}

/**
 * Of `agentKeys`, the member rows now (of every assignment), locked until the transaction ends
 * (in the rows' key order); answers whether there is any.
 */
export async function lockMemberRows(tx: SqlClient, tenantId: string, agentKeys: readonly string[]): Promise<boolean> {
  const { rows } = await tx.query(
    `SELECT 1 FROM learning_assignment_members m
      WHERE m.tenant_id = $1 AND m.agent_key = ANY($2::text[]) AND m.left_at IS NULL
      ORDER BY m.assignment_id, m.agent_key FOR UPDATE`,
    [tenantId, [...agentKeys]],
  );
  return rows.length > 0;
}

/**
 * SQL: a member row's status from its kept progress (over `m`, with `n` the assignment's number of
 * activities and `s` the assignment), as statusesSql and personStatusSql decide it from the
 * records: a former member's kept activities are all done; a member now is overdue when an
 * activity is not done and the due date has passed, completed (or completedLate) when every one is
 * done, inProgress when any is started or done, else assigned.
 */
export const keptStatusSql = (m: string, n: string, s: string) =>
  `CASE WHEN ${m}.left_at IS NOT NULL THEN CASE WHEN ${m}.late > 0 THEN 'completedLate' ELSE 'completed' END
        WHEN ${m}.done < ${n} AND ${s}.due_at < now() THEN 'overdue'
        WHEN ${m}.done >= ${n} THEN CASE WHEN ${m}.late > 0 THEN 'completedLate' ELSE 'completed' END
        WHEN ${m}.done > 0 OR ${m}.started > 0 THEN 'inProgress'
        ELSE 'assigned' END`;

/** How many member rows of the tenant keep a progress that differs from a recount, and the first of them. */
export async function compareProgress(
  sql: SqlClient,
  tenantId: string,
  limit: number,
): Promise<Array<{ assignmentId: string; agentKey: string; kept: string; recounted: string }>> {
  const { rows } = await sql.query<{ assignment_id: string; agent_key: string; kept: string; recounted: string }>(
    `SELECT t.assignment_id, t.agent_key,
            concat_ws(' ', 'done=' || t.done, 'late=' || t.late, 'started=' || t.started) AS kept,
            concat_ws(' ', 'done=' || f.done, 'late=' || f.late, 'started=' || f.started) AS recounted
       FROM learning_assignment_members t JOIN (${memberProgressSql('true')}) f
         ON f.assignment_id = t.assignment_id AND f.agent_key = t.agent_key
      WHERE t.tenant_id = $1 AND (t.done, t.late, t.started) IS DISTINCT FROM (f.done, f.late, f.started)
      ORDER BY 1, 2 LIMIT $2`,
    [tenantId, limit],
  );
  return rows.map((row) => ({ assignmentId: row.assignment_id, agentKey: row.agent_key, kept: row.kept, recounted: row.recounted }));
}

// ---------------------------------------------------------------------------------------------
// Member classes: an assignment's counts by status in a few rows (migration 0047)

/** The classes of member rows (learning_member_class in migration 0047), as the table's columns. */
const CLASSES = ['completed', 'completed_late', 'open_started', 'open_idle', 'former_completed', 'former_late'] as const;
type MemberClass = (typeof CLASSES)[number];

/** An assignment's member rows counted by class. */
export type ClassCounts = Record<MemberClass, number>;

/**
 * SQL: the classes of the member rows of the assignments `assignments` selects (a condition over
 * `m.assignment_id`; `$1` the tenant) counted from the rows: columns `assignment_id` and one per
 * class. What the trigger of migration 0047 keeps as deltas, counted again.
 */
function classesCountedSql(assignments: string): string {
  return `SELECT c.assignment_id, ${CLASSES.map((name) => `count(*) FILTER (WHERE c.class = '${name}')::int AS ${name}`).join(', ')}
            FROM (
              SELECT m.assignment_id, learning_member_class(m.left_at, m.done, m.late, m.started, n.n) AS class
                FROM learning_assignment_members m
               CROSS JOIN LATERAL (
                 SELECT count(*)::int AS n FROM learning_assignment_activities x WHERE x.tenant_id = $1 AND x.assignment_id = m.assignment_id
               ) n
               WHERE m.tenant_id = $1 AND ${assignments}
            ) c
           WHERE c.class IS NOT NULL
           GROUP BY c.assignment_id`;
}

/** SQL: the kept classes of the tenant's (`$1`) assignments `assignments` selects (over `k.assignment_id`), summed: as classesCountedSql. */
function classesKeptSql(assignments: string): string {
  return `SELECT k.assignment_id, ${CLASSES.map((name) => `sum(k.${name})::int AS ${name}`).join(', ')}
            FROM learning_assignment_classes k WHERE k.tenant_id = $1 AND ${assignments} GROUP BY k.assignment_id`;
}

/**
 * The classes of the assignments `assignments` selects (over `m.assignment_id`; `values`, `$1` the
 * tenant) counted again from their member rows, replacing what was kept, in one statement (one
 * snapshot: a delta committed meanwhile is either in what is replaced and in the count, or in
 * neither). What a change of an assignment's activities needs: every row's class may change with
 * their number, and no member row changes.
 */
export async function recountClasses(tx: SqlClient, assignments: string, values: readonly unknown[]): Promise<void> {
  await tx.query(
    `WITH gone AS (DELETE FROM learning_assignment_classes m WHERE m.tenant_id = $1 AND ${assignments})
     INSERT INTO learning_assignment_classes (tenant_id, assignment_id, ${CLASSES.join(', ')})
     SELECT $1, c.assignment_id, ${CLASSES.map((name) => `c.${name}`).join(', ')} FROM (${classesCountedSql(assignments)}) c`,
    values,
  );
}

/**
 * The tenant's assignments kept in more than one row of deltas folded into one row each, in one
 * statement per tenant: the rows folded are exactly those deleted. Run in the background; writers
 * only ever insert, so nobody waits for it.
 */
export async function foldClasses(sql: SqlClient, tenantId: string): Promise<void> {
  await sql.query(
    `WITH many AS (
       SELECT assignment_id FROM learning_assignment_classes WHERE tenant_id = $1 GROUP BY assignment_id HAVING count(*) > 1
     ),
     gone AS (
       DELETE FROM learning_assignment_classes k USING many
        WHERE k.tenant_id = $1 AND k.assignment_id = many.assignment_id
       RETURNING k.*
     )
     INSERT INTO learning_assignment_classes (tenant_id, assignment_id, ${CLASSES.join(', ')})
     SELECT $1, assignment_id, ${CLASSES.map((name) => `sum(${name})`).join(', ')} FROM gone GROUP BY assignment_id`,
    [tenantId],
  );
}

/** The tenants with an assignment kept in more than one row. */
export async function tenantsToFold(sql: SqlClient): Promise<string[]> {
  const { rows } = await sql.query<{ tenant_id: string }>(
    'SELECT DISTINCT tenant_id FROM learning_assignment_classes GROUP BY tenant_id, assignment_id HAVING count(*) > 1',
  );
  return rows.map((row) => row.tenant_id);
}

/**
 * One assignment's kept classes (every class 0 when none is kept), and whether its due date has
 * passed (by the database's clock, as the statuses read from the records say).
 */
export async function readClasses(
  sql: SqlClient,
  tenantId: string,
  assignmentId: string,
): Promise<{ classes: ClassCounts; past: boolean }> {
  const { rows } = await sql.query<Partial<ClassCounts> & { past: boolean | null }>(
    `SELECT s.due_at < now() AS past, k.*
       FROM learning_assignments s LEFT JOIN (${classesKeptSql('k.assignment_id = $2')}) k ON true
      WHERE s.tenant_id = $1 AND s.id = $2`,
    [tenantId, assignmentId],
  );
  const classes = Object.fromEntries(CLASSES.map((name) => [name, rows[0]?.[name] ?? 0])) as ClassCounts;
  return { classes, past: rows[0]?.past === true };
}

/** The tenant's assignments whose kept classes differ from a count of their member rows, and the first of them. */
export async function compareClasses(
  sql: SqlClient,
  tenantId: string,
  limit: number,
): Promise<Array<{ assignmentId: string; kept: string; recounted: string }>> {
  const text = (alias: string) => `concat_ws(' ', ${CLASSES.map((name) => `'${name}=' || COALESCE(${alias}.${name}, 0)`).join(', ')})`;
  const { rows } = await sql.query<{ assignment_id: string; kept: string; recounted: string }>(
    `SELECT COALESCE(k.assignment_id, c.assignment_id) AS assignment_id, ${text('k')} AS kept, ${text('c')} AS recounted
       FROM (${classesKeptSql('true')}) k FULL JOIN (${classesCountedSql('true')}) c ON c.assignment_id = k.assignment_id
      WHERE ${text('k')} <> ${text('c')}
      ORDER BY 1 LIMIT $2`,
    [tenantId, limit],
  );
  return rows.map((row) => ({ assignmentId: row.assignment_id, kept: row.kept, recounted: row.recounted }));
}
