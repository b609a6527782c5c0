import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { SqlValues } from '../../../platform/database/sql-filters.js';
import { COMPLIANCE, type ComplianceCounts, noCompliance } from './report-rules.js';

/**
 * The compliance counts kept per (entry, job, assignment) (migration 0048, docs/learning.md,
 * "Counts kept as the writes happen"): the (person, activity) pairs of the members now who are
 * counted, by progress. Two triggers keep them as deltas; this file counts them again, compares,
 * folds and reads them.
 */

const PARTS = ['on_time', 'late', 'started', 'idle'] as const;

/**
 * SQL: the pairs counted from the member rows now of the assignments `assignments` selects (a
 * condition over `m.assignment_id`; `$1` the tenant), per (entry, job, assignment) of the counted
 * people: columns `position_id`, `job_id`, `assignment_id` and one per part. As the triggers of
 * migration 0048 count them.
 */
function complianceCountedSql(assignments: string): string {
  return `SELECT c.position_id, c.job_id, m.assignment_id,
                 sum(m.done - m.late)::int AS on_time, sum(m.late)::int AS late, sum(m.started)::int AS started,
                 sum(greatest(n.n - m.done - m.started, 0))::int AS idle
            FROM learning_assignment_members m
            JOIN learning_counted_people c ON c.tenant_id = $1 AND c.agent_key = m.agent_key
           CROSS JOIN LATERAL (
             SELECT count(*)::int AS n FROM learning_assignment_activities x WHERE x.tenant_id = $1 AND x.assignment_id = m.assignment_id
           ) n
           WHERE m.tenant_id = $1 AND m.left_at IS NULL AND c.position_id <> '' AND ${assignments}
           GROUP BY c.position_id, c.job_id, m.assignment_id
          HAVING (sum(m.done - m.late), sum(m.late), sum(m.started), sum(greatest(n.n - m.done - m.started, 0))) <> (0, 0, 0, 0)`;
}

/** SQL: the kept pairs of the tenant (`$1`) summed per (entry, job, assignment), the groups whose sums are not all 0. */
const COMPLIANCE_KEPT = `SELECT position_id, job_id, assignment_id, ${PARTS.map((part) => `sum(${part})::int AS ${part}`).join(', ')}
    FROM learning_compliance_counts WHERE tenant_id = $1 GROUP BY position_id, job_id, assignment_id
   HAVING (${PARTS.map((part) => `sum(${part})`).join(', ')}) <> (0, 0, 0, 0)`;

/**
 * The pairs of the assignments `assignments` selects (over `m.assignment_id`; `values`, `$1` the
 * tenant) counted again from their member rows, replacing what was kept, in one statement: what a
 * change of an assignment's activities (their number) and a rebuild need.
 */
export async function recountCompliance(tx: SqlClient, assignments: string, values: readonly unknown[]): Promise<void> {
  await tx.query(
    `WITH gone AS (DELETE FROM learning_compliance_counts m WHERE m.tenant_id = $1 AND ${assignments})
     INSERT INTO learning_compliance_counts (tenant_id, position_id, job_id, assignment_id, ${PARTS.join(', ')})
     SELECT $1, c.position_id, c.job_id, c.assignment_id, ${PARTS.map((part) => `c.${part}`).join(', ')}
       FROM (${complianceCountedSql(assignments)}) c`,
    values,
  );
}

/**
 * The tenant's groups kept in more than one row folded into one row each (none where they sum to
 * nothing), in one statement: the rows folded are exactly those deleted.
 */
export async function foldCompliance(sql: SqlClient, tenantId: string): Promise<void> {
  await sql.query(
    `WITH many AS (
       SELECT position_id, job_id, assignment_id FROM learning_compliance_counts WHERE tenant_id = $1
        GROUP BY position_id, job_id, assignment_id HAVING count(*) > 1
     ),
     gone AS (
       DELETE FROM learning_compliance_counts k USING many
        WHERE k.tenant_id = $1 AND k.position_id = many.position_id AND k.job_id = many.job_id AND k.assignment_id = many.assignment_id
       RETURNING k.*
     )
     INSERT INTO learning_compliance_counts (tenant_id, position_id, job_id, assignment_id, ${PARTS.join(', ')})
     SELECT * FROM (
       SELECT $1::uuid, position_id, job_id, assignment_id, ${PARTS.map((part) => `sum(${part})::int AS ${part}`).join(', ')}
         FROM gone GROUP BY position_id, job_id, assignment_id
     ) f WHERE (${PARTS.map((part) => `f.${part}`).join(', ')}) <> (0, 0, 0, 0)`,
    [tenantId],
  );
}

/** The tenants with a group kept in more than one row. */
export async function complianceToFold(sql: SqlClient): Promise<string[]> {
  const { rows } = await sql.query<{ tenant_id: string }>(
    `SELECT DISTINCT tenant_id FROM learning_compliance_counts
      GROUP BY tenant_id, position_id, job_id, assignment_id HAVING count(*) > 1`,
  );
  return rows.map((row) => row.tenant_id);
}

/**
 * The kept pairs summed per entry, by compliance: the open pairs of an assignment whose due date
 * has passed (by the database's clock) are overdue, else in progress or not started. Of the job
 * `jobId`, the assignment `assignmentId` and the entries `positionIds` when given (placeholders of
 * `parameters`, `$1` the tenant); undefined while the tenant's counts wait for a rebuild. One
 * statement, the groups as JSON arrays in one row (as readUnitCounts).
 */
export async function readComplianceCounts(
  sql: SqlClient,
  parameters: SqlValues,
  filters: { jobId?: string; assignmentId?: string; positionIds?: string },
): Promise<Map<string, ComplianceCounts> | undefined> {
  const conditions = [`k.tenant_id = $1`, `k.position_id <> ''`];
  if (filters.jobId !== undefined) conditions.push(`k.job_id = ${filters.jobId}`);
  if (filters.assignmentId !== undefined) conditions.push(`k.assignment_id = ${filters.assignmentId}::uuid`);
  // A subtree's entries drive the read through the (tenant, entry) index, whatever the statistics say.
  const positions =
    filters.positionIds === undefined ? '' : `JOIN unnest(${filters.positionIds}::text[]) AS p (id) ON p.id = k.position_id`;
  const { rows } = await sql.query<{ rebuilding: boolean; ids: string[] | null } & Record<(typeof COMPLIANCE)[number], number[] | null>>(
    `SELECT s.rebuilding, g.*
       FROM (SELECT EXISTS (SELECT 1 FROM learning_count_rebuilds WHERE tenant_id = $1) AS rebuilding) s
       LEFT JOIN LATERAL (
         SELECT json_agg(u.position_id) AS ids, json_agg(u.on_time) AS "onTime", json_agg(u.late) AS late,
                json_agg(u.overdue) AS overdue, json_agg(u.in_progress) AS "inProgress", json_agg(u.not_started) AS "notStarted"
           FROM (
             SELECT k.position_id, sum(k.on_time) AS on_time, sum(k.late) AS late,
                    sum(CASE WHEN a.past THEN k.started + k.idle ELSE 0 END) AS overdue,
                    sum(CASE WHEN a.past THEN 0 ELSE k.started END) AS in_progress,
                    sum(CASE WHEN a.past THEN 0 ELSE k.idle END) AS not_started
               FROM learning_compliance_counts k ${positions}
               JOIN (SELECT id, COALESCE(due_at < now(), false) AS past FROM learning_assignments WHERE tenant_id = $1) a
                 ON a.id = k.assignment_id
              WHERE ${conditions.join(' AND ')}
              GROUP BY k.position_id
           ) u
       ) g ON NOT s.rebuilding`,
    parameters.values,
  );
  const [row] = rows;
  if (row.rebuilding) return undefined;
  const groups = new Map<string, ComplianceCounts>();
  row.ids?.forEach((id, i) => {
    const counts = noCompliance();
    for (const word of COMPLIANCE) counts[word] = Number(row[word]?.[i] ?? 0);
    groups.set(id, counts);
  });
  return groups;
}

/** The groups whose kept pairs differ from a count of the member rows, and the first of them. */
export async function compareCompliance(
  sql: SqlClient,
  tenantId: string,
  limit: number,
): Promise<Array<{ positionId: string; jobId: string; assignmentId: string; kept: string; recounted: string }>> {
  const text = (alias: string) => `concat_ws(' ', ${PARTS.map((part) => `'${part}=' || COALESCE(${alias}.${part}, 0)`).join(', ')})`;
  const { rows } = await sql.query<{ position_id: string; job_id: string; assignment_id: string; kept: string; recounted: string }>(
    `SELECT COALESCE(k.position_id, c.position_id) AS position_id, COALESCE(k.job_id, c.job_id) AS job_id,
            COALESCE(k.assignment_id, c.assignment_id) AS assignment_id, ${text('k')} AS kept, ${text('c')} AS recounted
       FROM (${COMPLIANCE_KEPT}) k
       FULL JOIN (${complianceCountedSql('true')}) c
         ON c.position_id = k.position_id AND c.job_id = k.job_id AND c.assignment_id = k.assignment_id
      WHERE ${text('k')} <> ${text('c')}
      ORDER BY 3, 1, 2 LIMIT $2`,
    [tenantId, limit],
  );
  return rows.map((row) => ({
    positionId: row.position_id,
    jobId: row.job_id,
    assignmentId: row.assignment_id,
    kept: row.kept,
    recounted: row.recounted,
  }));
}
