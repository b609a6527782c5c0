import type { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { registeredActivitiesSql, registeredRequiresSuccessSql } from '../../activities/index.js';
import { completionRecordsSql } from '../../completions/index.js';

/**
 * The statements of the counts the reports keep (docs/learning.md, "Counts kept as the writes
 * happen"): `learning_counted_people`, per person the entry and job they are counted under and
 * their evidence, and `learning_unit_counts`, those summed per (entry, job). Both are derived from
 * the records and the people alone, so a rebuild or a recount makes them again from nothing.
 *
 * Locks, so that a count never misses a write made beside it (every transaction reads what it
 * derives *after* the locks are held, in a later statement, whose snapshot then holds every write
 * made before them):
 * - the tenant's lock (`learning-counts:<tenant>`): shared by the writers of a few people (the
 *   statement writes, a write of some people), exclusive for a change of everyone (settings,
 *   organisation, jobs, registry) and for a rebuild;
 * - each person's lock (`learning-counts:<tenant>:<agent key>`): shared by the statement writes of
 *   the person (their records change; the counted row itself is then taken FOR UPDATE), exclusive
 *   for a write of the person (whether and where they are counted changes).
 * The tenant's lock first, then the people's in their keys' order: no two lockers wait for each other.
 */

export type LockMode = 'shared' | 'exclusive';

const tenantLock = (tenantId: string) => `learning-counts:${tenantId}`;

/** The assignments' lock (assignment.repository.ts lockAssignments): the same name, so the same lock. */
const assignmentsLock = (tenantId: string) => `learnbase:assignments:${tenantId}`;

/** Which of the counts' locks a transaction takes, and how. */
export interface CountLocks {
  tenant: LockMode;
  /** The tenant's assignments lock: the member rows' progress follows the same rule (assignment-progress.repository.ts). */
  assignments?: LockMode;
  people?: { agentKeys: readonly string[]; mode: LockMode };
}

/**
 * Takes the tenant's lock, then the assignments' lock, then each person's (`agentKeys`), each in
 * its mode, in one statement: every transaction that takes more than one of them takes them in
 * this order.
 */
export async function lockCounts(tx: SqlClient, tenantId: string, locks: CountLocks): Promise<void> {
  const names = [
    { name: tenantLock(tenantId), mode: locks.tenant },
    ...(locks.assignments === undefined ? [] : [{ name: assignmentsLock(tenantId), mode: locks.assignments }]),
  ];
  const people = locks.people ?? { agentKeys: [], mode: 'shared' as LockMode };
  await tx.query(
    `SELECT count(CASE s.mode WHEN 'shared' THEN pg_advisory_xact_lock_shared(hashtextextended(s.name, 0))
                              ELSE pg_advisory_xact_lock(hashtextextended(s.name, 0)) END)
       FROM (SELECT n.name, n.mode, n.o AS o FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS n(name, mode, o)
             UNION ALL
             SELECT DISTINCT $3::text || ':' || k, $4::text, 1000 FROM unnest($5::text[]) k
              ORDER BY o, name) s`,
    [names.map((n) => n.name), names.map((n) => n.mode), tenantLock(tenantId), people.mode, [...people.agentKeys]],
  );
}

/** Whether the tenant's counts are being rebuilt (then nothing keeps them until the rebuild is done). */
export async function rebuildRequested(sql: SqlClient, tenantId: string): Promise<Date | undefined> {
  const { rows } = await sql.query<{ requested_at: Date }>('SELECT requested_at FROM learning_count_rebuilds WHERE tenant_id = $1', [
    tenantId,
  ]);
  return rows[0]?.requested_at;
}

/** Asks for a rebuild of the tenant's counts (the background rebuild takes it up). */
export async function requestRebuild(tx: SqlClient, tenantId: string): Promise<void> {
  await tx.query('INSERT INTO learning_count_rebuilds (tenant_id) VALUES ($1) ON CONFLICT (tenant_id) DO NOTHING', [tenantId]);
}

/** The tenants whose counts wait for a rebuild, the longest waiting first. */
export async function requestedRebuilds(sql: SqlClient): Promise<string[]> {
  const { rows } = await sql.query<{ tenant_id: string }>('SELECT tenant_id FROM learning_count_rebuilds ORDER BY requested_at, tenant_id');
  return rows.map((row) => row.tenant_id);
}

/**
 * What a statement write keeps of the (person, activity) pairs whose records it changed (after its
 * locks): whether a rebuild is requested (then nothing: the rebuild will count what is written
 * meanwhile), whether any is a member now of an assignment of that activity, and which of the
 * people are counted; those member rows and counted rows locked until the transaction ends, in
 * that order.
 */
export async function lockKeptRows(
  tx: SqlClient,
  tenantId: string,
  pairs: ReadonlyArray<{ agentKey: string; activityId: string }>,
): Promise<{ rebuilding: boolean; members: boolean; counted: string[] }> {
  const { rows } = await tx.query<{ rebuilding: boolean; members: string | number; counted: string[] }>(
    `WITH rebuilding AS (SELECT EXISTS (SELECT 1 FROM learning_count_rebuilds b WHERE b.tenant_id = $1) AS yes),
     members AS (
       SELECT 1 FROM learning_assignment_members m
        WHERE m.tenant_id = $1 AND NOT (SELECT yes FROM rebuilding) AND m.left_at IS NULL
          AND (m.assignment_id, m.agent_key) IN (
            SELECT x.assignment_id, p.agent_key FROM unnest($2::text[], $3::text[]) AS p(agent_key, activity_id)
              JOIN learning_assignment_activities x ON x.tenant_id = $1 AND x.activity_id = p.activity_id)
        ORDER BY m.assignment_id, m.agent_key FOR UPDATE OF m
     ),
     counted AS (
       SELECT c.agent_key FROM learning_counted_people c
        WHERE c.tenant_id = $1 AND c.agent_key = ANY($2::text[]) AND NOT (SELECT yes FROM rebuilding)
        ORDER BY c.agent_key FOR UPDATE
     )
     SELECT (SELECT yes FROM rebuilding) AS rebuilding, (SELECT count(*) FROM members) AS members,
            ARRAY(SELECT agent_key FROM counted) AS counted`,
    [tenantId, pairs.map((pair) => pair.agentKey), pairs.map((pair) => pair.activityId)],
  );
  return { rebuilding: rows[0].rebuilding, members: Number(rows[0].members) > 0, counted: rows[0].counted };
}

/**
 * SQL: per person with any, their evidence: how many registered activities they completed (passed,
 * for one that requires success), over the records of every registration (each activity once).
 * `matching`: a condition over the records `r` (the people's keys). Columns `agent_key`, `evidence`.
 */
export const evidenceSql = (matching: string, few = false) =>
  few
    ? // A few people's records (a statement write's): the records done in some way, each probing the
      // registry's key, instead of a pass over the whole registry per write.
      `SELECT r.agent_key, count(DISTINCT r.activity_id) AS evidence
         FROM (${completionRecordsSql('$1', matching)}) r
        WHERE (r.completed_at IS NOT NULL OR r.passed_at IS NOT NULL)
          AND CASE ${registeredRequiresSuccessSql('$1', 'r.activity_id')} WHEN true THEN r.passed_at IS NOT NULL
                   WHEN false THEN r.completed_at IS NOT NULL ELSE false END
        GROUP BY r.agent_key`
    : `SELECT r.agent_key, count(DISTINCT r.activity_id) AS evidence
         FROM (${completionRecordsSql('$1', matching)}) r
         JOIN (${registeredActivitiesSql('$1')}) a ON a.id = r.activity_id
        WHERE CASE WHEN a.requires_success THEN r.passed_at ELSE r.completed_at END IS NOT NULL
        GROUP BY r.agent_key`;

/**
 * SQL: the counted people as they are now (`people`, peopleSql's text with the tenant's settings,
 * every person: its columns `agent_key`, `position_id`, `job_id`), with their evidence; with
 * `agentKeys` (a placeholder of a text array) only those. Columns `agent_key`, `position_id`,
 * `job_id` ('' for none), `evidence`.
 */
export function freshPeopleSql(people: string, agentKeys?: string): string {
  const among = agentKeys === undefined ? '' : `WHERE p.agent_key = ANY(${agentKeys})`;
  return `SELECT p.agent_key, COALESCE(p.position_id, '') AS position_id, COALESCE(p.job_id, '') AS job_id,
                 COALESCE(e.evidence, 0)::int AS evidence
            FROM (${people}) p
            LEFT JOIN (${evidenceSql(agentKeys === undefined ? 'true' : `r.agent_key = ANY(${agentKeys})`)}) e ON e.agent_key = p.agent_key
            ${among}`;
}

/**
 * The CTEs that add the changes of `old` and `fresh` (CTEs with `position_id`, `job_id`,
 * `evidence`: the rows before and after, one per person) to the unit counts, in the units' order,
 * answering the units whose people reached 0.
 */
const addToUnits = `
     deltas AS (
       SELECT position_id, job_id, sum(people)::int AS people, sum(evidence)::bigint AS evidence
         FROM (SELECT position_id, job_id, -1 AS people, -evidence AS evidence FROM old
               UNION ALL SELECT position_id, job_id, 1, evidence FROM fresh) x
        GROUP BY position_id, job_id
       HAVING sum(people) <> 0 OR sum(evidence) <> 0
     )
     INSERT INTO learning_unit_counts AS u (tenant_id, position_id, job_id, people, evidence)
     SELECT $1, d.position_id, d.job_id, d.people, d.evidence FROM deltas d ORDER BY d.position_id, d.job_id
     ON CONFLICT (tenant_id, position_id, job_id)
     DO UPDATE SET people = u.people + excluded.people, evidence = u.evidence + excluded.evidence
     RETURNING u.position_id, u.job_id, u.people`;

/** Deletes the units `emptied` (rows of addToUnits' answer) whose people are 0. */
async function dropEmptyUnits(tx: SqlClient, tenantId: string, rows: readonly { position_id: string; job_id: string; people: number }[]) {
  const empty = rows.filter((row) => Number(row.people) === 0);
  if (empty.length === 0) return;
  await tx.query(
    `DELETE FROM learning_unit_counts u USING unnest($2::text[], $3::text[]) e(position_id, job_id)
      WHERE u.tenant_id = $1 AND u.position_id = e.position_id AND u.job_id = e.job_id AND u.people = 0`,
    [tenantId, empty.map((row) => row.position_id), empty.map((row) => row.job_id)],
  );
}

/**
 * The counted people `agentKeys` derived again (whether they are counted, where, their evidence)
 * from `people` (peopleSql's text; its values in `parameters`, `$1` the tenant), and the unit
 * counts moved by the difference. Their locks are held (exclusive, or the tenant's).
 */
export async function refreshPeople(
  tx: SqlClient,
  tenantId: string,
  people: string,
  parameters: SqlValues,
  agentKeys: readonly string[],
): Promise<void> {
  const keys = parameters.bind([...new Set(agentKeys)]);
  const { rows } = await tx.query<{ position_id: string; job_id: string; people: number }>(
    `WITH fresh AS MATERIALIZED (${freshPeopleSql(people, `${keys}::text[]`)}),
     old AS MATERIALIZED (SELECT agent_key, position_id, job_id, evidence FROM learning_counted_people WHERE tenant_id = $1 AND agent_key = ANY(${keys}::text[])),
     gone AS (
       DELETE FROM learning_counted_people c USING old
        WHERE c.tenant_id = $1 AND c.agent_key = old.agent_key AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.agent_key = old.agent_key)
     ),
     put AS (
       INSERT INTO learning_counted_people AS c (tenant_id, agent_key, position_id, job_id, evidence)
       SELECT $1, agent_key, position_id, job_id, evidence FROM fresh ORDER BY agent_key
       ON CONFLICT (tenant_id, agent_key) DO UPDATE SET position_id = excluded.position_id, job_id = excluded.job_id, evidence = excluded.evidence
        WHERE (c.position_id, c.job_id, c.evidence) IS DISTINCT FROM (excluded.position_id, excluded.job_id, excluded.evidence)
     ),
     ${addToUnits}`,
    parameters.values,
  );
  await dropEmptyUnits(tx, tenantId, rows);
}

/**
 * Every counted person placed again (`people`: peopleSql's text of every person; its values in
 * `parameters`, `$1` the tenant) after a change of everyone that moves people and changes no one's
 * records (the organisation, the jobs, the settings): the entry and the job of each person who
 * stays, and the people who come to be counted (their evidence derived from their records, theirs
 * alone) or stop; the unit counts moved by the difference. One statement; the tenant's lock is
 * held exclusively.
 */
export async function movePeople(tx: SqlClient, tenantId: string, people: string, parameters: SqlValues): Promise<void> {
  const { rows } = await tx.query<{ position_id: string; job_id: string; people: number }>(
    `WITH now_placed AS MATERIALIZED (
       SELECT p.agent_key, COALESCE(p.position_id, '') AS position_id, COALESCE(p.job_id, '') AS job_id FROM (${people}) p
     ),
     counted AS MATERIALIZED (SELECT agent_key, position_id, job_id, evidence FROM learning_counted_people WHERE tenant_id = $1),
     came AS MATERIALIZED (
       SELECT n.agent_key, n.position_id, n.job_id FROM now_placed n WHERE NOT EXISTS (SELECT 1 FROM counted c WHERE c.agent_key = n.agent_key)
     ),
     old AS MATERIALIZED (
       SELECT c.agent_key, c.position_id, c.job_id, c.evidence FROM counted c
         LEFT JOIN now_placed n ON n.agent_key = c.agent_key
        WHERE n.agent_key IS NULL OR (n.position_id, n.job_id) <> (c.position_id, c.job_id)
     ),
     fresh AS MATERIALIZED (
       SELECT o.agent_key, n.position_id, n.job_id, o.evidence FROM old o JOIN now_placed n ON n.agent_key = o.agent_key
       UNION ALL
       SELECT c.agent_key, c.position_id, c.job_id, COALESCE(e.evidence, 0)::int
         FROM came c LEFT JOIN (${evidenceSql('r.agent_key IN (SELECT agent_key FROM came)')}) e ON e.agent_key = c.agent_key
     ),
     gone AS (
       DELETE FROM learning_counted_people c USING old
        WHERE c.tenant_id = $1 AND c.agent_key = old.agent_key AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.agent_key = old.agent_key)
     ),
     put AS (
       INSERT INTO learning_counted_people AS c (tenant_id, agent_key, position_id, job_id, evidence)
       SELECT $1, agent_key, position_id, job_id, evidence FROM fresh ORDER BY agent_key
       ON CONFLICT (tenant_id, agent_key) DO UPDATE SET position_id = excluded.position_id, job_id = excluded.job_id
     ),
     ${addToUnits}`,
    parameters.values,
  );
  await dropEmptyUnits(tx, tenantId, rows);
}

/**
 * The evidence of the counted people `agentKeys` (their rows locked) derived again from their
 * records, and the unit counts moved by the difference: what a statement write changes.
 */
export async function refreshEvidence(tx: SqlClient, tenantId: string, agentKeys: readonly string[]): Promise<void> {
  const { rows } = await tx.query<{ position_id: string; job_id: string; people: number }>(
    `WITH old AS MATERIALIZED (
       SELECT agent_key, position_id, job_id, evidence FROM learning_counted_people WHERE tenant_id = $1 AND agent_key = ANY($2::text[])
     ),
     fresh AS MATERIALIZED (
       SELECT o.agent_key, o.position_id, o.job_id, COALESCE(e.evidence, 0)::int AS evidence
         FROM old o LEFT JOIN (${evidenceSql('r.agent_key = ANY($2::text[])', true)}) e ON e.agent_key = o.agent_key
     ),
     put AS (
       UPDATE learning_counted_people c SET evidence = f.evidence FROM fresh f
        WHERE c.tenant_id = $1 AND c.agent_key = f.agent_key AND c.evidence <> f.evidence
     ),
     ${addToUnits}`,
    [tenantId, [...agentKeys]],
  );
  await dropEmptyUnits(tx, tenantId, rows);
}

/**
 * The evidence of every counted person with a record of `activityIds` derived again (a change of
 * the registry: an activity registered, or now requiring success or no longer). The tenant's lock
 * is held exclusively.
 */
export async function refreshEvidenceOfActivities(tx: SqlClient, tenantId: string, activityIds: readonly string[]): Promise<void> {
  const { rows } = await tx.query<{ agent_key: string }>(
    `SELECT DISTINCT c.agent_key FROM learning_counted_people c
      WHERE c.tenant_id = $1
        AND c.agent_key IN (SELECT r.agent_key FROM (${completionRecordsSql('$1', 'r.activity_id = ANY($2::text[])')}) r)`,
    [tenantId, [...activityIds]],
  );
  if (rows.length > 0)
    await refreshEvidence(
      tx,
      tenantId,
      rows.map((row) => row.agent_key),
    );
}

/** How many people of the tenant are counted. */
export async function countCountedPeople(sql: SqlClient, tenantId: string): Promise<number> {
  const { rows } = await sql.query<{ n: string | number }>('SELECT count(*) AS n FROM learning_counted_people WHERE tenant_id = $1', [
    tenantId,
  ]);
  return Number(rows[0].n);
}

/** How many people of the tenant have a record of one of `activityIds`. */
export async function countPeopleWithRecordsOf(sql: SqlClient, tenantId: string, activityIds: readonly string[]): Promise<number> {
  const { rows } = await sql.query<{ n: string | number }>(
    `SELECT count(DISTINCT r.agent_key) AS n FROM (${completionRecordsSql('$1', 'r.activity_id = ANY($2::text[])')}) r`,
    [tenantId, [...activityIds]],
  );
  return Number(rows[0].n);
}

/**
 * The tenant's counts made again from the records (`people`: peopleSql's text of every person):
 * each counted person derived again and written where they differ (only those rows change, so the
 * triggers on the counted people move only theirs), the unit counts summed again from them; and
 * the rebuild request, if any, done. The tenant's lock is held exclusively.
 */
export async function rebuildCounts(tx: SqlClient, tenantId: string, people: string, parameters: SqlValues): Promise<void> {
  await tx.query(
    `WITH fresh AS MATERIALIZED (${freshPeopleSql(people)}),
     gone AS (
       DELETE FROM learning_counted_people c
        WHERE c.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.agent_key = c.agent_key)
     )
     INSERT INTO learning_counted_people AS c (tenant_id, agent_key, position_id, job_id, evidence)
     SELECT $1, f.agent_key, f.position_id, f.job_id, f.evidence FROM fresh f ORDER BY f.agent_key
     ON CONFLICT (tenant_id, agent_key) DO UPDATE SET position_id = excluded.position_id, job_id = excluded.job_id, evidence = excluded.evidence
      WHERE (c.position_id, c.job_id, c.evidence) IS DISTINCT FROM (excluded.position_id, excluded.job_id, excluded.evidence)`,
    parameters.values,
  );
  await tx.query('DELETE FROM learning_unit_counts WHERE tenant_id = $1', [tenantId]);
  await tx.query(
    `INSERT INTO learning_unit_counts (tenant_id, position_id, job_id, people, evidence)
     SELECT $1, position_id, job_id, count(*), sum(evidence) FROM learning_counted_people WHERE tenant_id = $1 GROUP BY position_id, job_id`,
    [tenantId],
  );
  await tx.query('DELETE FROM learning_count_rebuilds WHERE tenant_id = $1', [tenantId]);
}

/** What a recount found different from what is kept: rows of people and of units, each side's figures. */
export interface CountDifferences {
  people: Array<{ agentKey: string; kept: string | null; recounted: string | null }>;
  units: Array<{ positionId: string; jobId: string; kept: string | null; recounted: string | null }>;
  /** Member rows of assignments whose kept progress differs (assignment-progress.repository.ts). */
  members: Array<{ assignmentId: string; agentKey: string; kept: string; recounted: string }>;
  /** Assignments whose kept classes differ from their member rows' (assignment-progress.repository.ts). */
  classes: Array<{ assignmentId: string; kept: string; recounted: string }>;
  /** (Entry, job, assignment) groups whose kept compliance pairs differ from their member rows' (kept-compliance.repository.ts). */
  compliance: Array<{ positionId: string; jobId: string; assignmentId: string; kept: string; recounted: string }>;
}

/**
 * The kept counts compared with a recount from the records and the people (`people`: peopleSql's
 * text of every person), at most `limit` differences of each kind.
 */
export async function compareCounts(
  sql: SqlClient,
  people: string,
  parameters: SqlValues,
  limit: number,
): Promise<Omit<CountDifferences, 'members' | 'classes' | 'compliance'>> {
  const cap = parameters.bind(limit);
  const { rows } = await sql.query<{
    kind: 'p' | 'u';
    agent_key: string;
    position_id: string;
    job_id: string;
    kept: string | null;
    recounted: string | null;
  }>(
    `WITH fresh AS MATERIALIZED (${freshPeopleSql(people)}),
     kept AS (SELECT agent_key, position_id, job_id, evidence FROM learning_counted_people WHERE tenant_id = $1),
     people_diff AS (
       SELECT COALESCE(k.agent_key, f.agent_key) AS agent_key,
              CASE WHEN k.agent_key IS NOT NULL THEN concat_ws(' ', 'position=' || k.position_id, 'job=' || k.job_id, 'evidence=' || k.evidence) END AS kept,
              CASE WHEN f.agent_key IS NOT NULL THEN concat_ws(' ', 'position=' || f.position_id, 'job=' || f.job_id, 'evidence=' || f.evidence) END AS recounted
         FROM kept k FULL JOIN fresh f ON f.agent_key = k.agent_key
        WHERE (k.position_id, k.job_id, k.evidence) IS DISTINCT FROM (f.position_id, f.job_id, f.evidence)
        ORDER BY 1 LIMIT ${cap}
     ),
     fresh_units AS (SELECT position_id, job_id, count(*) AS people, sum(evidence) AS evidence FROM fresh GROUP BY position_id, job_id),
     kept_units AS (SELECT position_id, job_id, people, evidence FROM learning_unit_counts WHERE tenant_id = $1),
     unit_diff AS (
       SELECT COALESCE(k.position_id, f.position_id) AS position_id, COALESCE(k.job_id, f.job_id) AS job_id,
              CASE WHEN k.position_id IS NOT NULL THEN concat_ws(' ', 'people=' || k.people, 'evidence=' || k.evidence) END AS kept,
              CASE WHEN f.position_id IS NOT NULL THEN concat_ws(' ', 'people=' || f.people, 'evidence=' || f.evidence) END AS recounted
         FROM kept_units k FULL JOIN fresh_units f ON f.position_id = k.position_id AND f.job_id = k.job_id
        WHERE (k.people, k.evidence) IS DISTINCT FROM (f.people, f.evidence)
        ORDER BY 1, 2 LIMIT ${cap}
     )
     SELECT 'p' AS kind, agent_key, '' AS position_id, '' AS job_id, kept, recounted FROM people_diff
     UNION ALL
     SELECT 'u', '', position_id, job_id, kept, recounted FROM unit_diff`,
    parameters.values,
  );
  return {
    people: rows.filter((row) => row.kind === 'p').map((row) => ({ agentKey: row.agent_key, kept: row.kept, recounted: row.recounted })),
    units: rows
      .filter((row) => row.kind === 'u')
      .map((row) => ({ positionId: row.position_id, jobId: row.job_id, kept: row.kept, recounted: row.recounted })),
  };
}

/**
 * The kept completion counts summed per `group` (entry or job), of the job `jobId` and of the
 * entries `positionIds` when given (placeholders of `parameters`, `$1` the tenant), and how many
 * activities the registry holds (what the evidence is over); undefined while the tenant's counts
 * wait for a rebuild. One statement: the counts are read in the snapshot the rebuild flag is.
 */
export async function readUnitCounts(
  sql: SqlClient,
  parameters: SqlValues,
  group: 'position_id' | 'job_id',
  filters: { jobId?: string; positionIds?: string },
): Promise<{ activities: number; groups: Map<string, { people: number; completed: number }> } | undefined> {
  const conditions = [`u.tenant_id = $1`, `u.${group} <> ''`];
  if (filters.jobId !== undefined) conditions.push(`u.job_id = ${filters.jobId}`);
  // A subtree's entries drive the read through the (tenant, entry) key, whatever the statistics say.
  const positions =
    filters.positionIds === undefined ? '' : `JOIN unnest(${filters.positionIds}::text[]) AS p (id) ON p.id = u.position_id`;
  // The groups as three JSON arrays in one row: parsed whole, far cheaper than 10,000 rows.
  const { rows } = await sql.query<{
    rebuilding: boolean;
    activities: string | number;
    ids: string[] | null;
    people: number[] | null;
    evidence: number[] | null;
  }>(
    `SELECT s.rebuilding, s.activities, g.ids, g.people, g.evidence
       FROM (SELECT EXISTS (SELECT 1 FROM learning_count_rebuilds WHERE tenant_id = $1) AS rebuilding,
                    (SELECT count(*) FROM (${registeredActivitiesSql('$1')}) x) AS activities) s
       LEFT JOIN LATERAL (
         SELECT json_agg(u.group_id) AS ids, json_agg(u.people) AS people, json_agg(u.evidence) AS evidence
           FROM (SELECT u.${group} AS group_id, sum(u.people) AS people, sum(u.evidence) AS evidence
                   FROM learning_unit_counts u ${positions} WHERE ${conditions.join(' AND ')} GROUP BY u.${group}) u
       ) g ON NOT s.rebuilding`,
    parameters.values,
  );
  const [{ rebuilding, ids, people, evidence }] = rows;
  if (rebuilding) return undefined;
  const groups = new Map<string, { people: number; completed: number }>();
  ids?.forEach((id, i) => {
    groups.set(id, { people: Number(people?.[i]), completed: Number(evidence?.[i]) });
  });
  return { activities: Number(rows[0].activities), groups };
}
