/**
 * The completions' part of a statement another module writes over its own tables (learning's
 * assignment statuses): what one person's completion records say about one activity, as SQL text
 * to embed. The completions module owns `completion_records` and this read of it; the caller's
 * values are bound by its own placeholders, never written into the text.
 */

/**
 * A subquery answering exactly one row for the person `agentKey` and the activity `activityId`
 * (SQL expressions of the embedding statement, typically columns of its rows: `m.agent_key`,
 * `x.activity_id`), over the records of every registration together:
 *
 * - `records` (bigint): how many records the person has of the activity; 0 when none (no statement
 *   about it ever counted, docs/completions.md "Which statements count");
 * - `first_at` (timestamptz): the earliest statement timestamp of those records (NULL when none);
 * - `completed_at` (timestamptz): the earliest `completedAt` of those records: when a statement
 *   first completed the activity (NULL when none did);
 * - `passed_at` (timestamptz): the earliest `passedAt`: when a statement first passed it.
 *
 * Embed it with `CROSS JOIN LATERAL (…) alias`: the aggregate always answers its one row, and each
 * probe reads the records' primary key (tenant, agent key, activity id, registration) by prefix.
 */
export function activityProgressSql(tenantParameter: string, agentKey: string, activityId: string): string {
  return `SELECT count(*) AS records, min(r.first_at) AS first_at, min(r.completed_at) AS completed_at, min(r.passed_at) AS passed_at
            FROM completion_records r
           WHERE r.tenant_id = ${tenantParameter} AND r.agent_key = ${agentKey} AND r.activity_id = ${activityId}`;
}
