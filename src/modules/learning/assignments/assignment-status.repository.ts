import { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Page } from '../../../platform/database/sql-filters.js';
import { requiresSuccessSql } from '../../activities/index.js';
import { activityProgressSql } from '../../completions/index.js';
import type { AssignmentStatus } from './assignment-rules.js';
import type { Bind } from '../../actors/index.js';
import { type AssignmentReach, toDate } from './assignment.repository.js';
import { type ClassCounts, keptStatusSql, readClasses } from './assignment-progress.repository.js';
import { rebuildRequested } from '../reports/kept-counts.repository.js';

/**
 * The reads of assignment statuses (docs/learning.md, "Status"): never stored, computed from the
 * completion records and the registry when asked, over the members assignment.repository.ts keeps.
 */

/** What the people of an assignment are, by status: each person counted once (docs/learning.md, "Status"). */
export type StatusCounts = Record<AssignmentStatus, number>;

/** One activity of one person's assignment, its status and dates. */
export interface ActivityState {
  activityId: string;
  status: AssignmentStatus;
  /** The earliest timestamp of the person's records of it (absent for a former member's kept activity). */
  startedAt: Date | null;
  /** When it counted as completed: completedAt, or passedAt when the activity requires success. */
  completedAt: Date | null;
}

/** One person of one assignment: their status over its activities. */
export interface PersonState {
  assignmentId: string;
  agentKey: string;
  status: AssignmentStatus;
  joinedAt: Date;
  /** When they stopped matching; null for a member now. */
  leftAt: Date | null;
  activities: ActivityState[];
  /** The assignment's name and due date, when read with the person's assignments. */
  assignment?: { name: string; dueAt: Date | null };
}

/**
 * The CTEs giving every (person, activity) row of the assignments and people `members` selects
 * (a condition over `m`, learning_assignment_members) and of the activities `activities` selects
 * (a condition over `x`, learning_assignment_activities; 'true' for all), with its status:
 *
 * - completed: done (the earliest completedAt of the person's records of it, any registration;
 *   passedAt when the registry entry requires success) with no due date or at or before it;
 * - completedLate: done after the due date;
 * - overdue: not done and the due date has passed;
 * - inProgress: not done, not overdue, and the person has a record of it;
 * - assigned: none of these.
 *
 * A member now has every activity; a former member only those kept at their last leaving, with
 * the time stored then (and is not there at all when they kept none). `<name>_statuses` has the
 * columns assignment_id, agent_key, joined_at, left_at, activity_id, position, started_at,
 * completed_at, status; `<name>_persons` one row per person and assignment with the person's
 * status (personStatusSql), joined_at and left_at. `name` keeps two uses in one statement apart.
 */
function statusesSql(name: string, members: string, activities = 'true'): string {
  return `${name}_x AS MATERIALIZED (
       SELECT x.assignment_id, x.activity_id, x.position, s.due_at, ${requiresSuccessSql('$1', 'x.activity_id')} AS requires_success
         FROM learning_assignment_activities x
         JOIN learning_assignments s ON s.tenant_id = x.tenant_id AND s.id = x.assignment_id
        WHERE x.tenant_id = $1 AND ${activities}
     ),
     ${name}_statuses AS (
       SELECT r.assignment_id, r.agent_key, r.joined_at, r.left_at, r.activity_id, r.position,
              CASE WHEN r.left_at IS NULL THEN r.first_at END AS started_at, r.completed_at,
              CASE WHEN r.completed_at IS NOT NULL AND (r.due_at IS NULL OR r.completed_at <= r.due_at) THEN 'completed'
                   WHEN r.completed_at IS NOT NULL THEN 'completedLate'
                   WHEN r.due_at < now() THEN 'overdue'
                   WHEN r.records > 0 THEN 'inProgress'
                   ELSE 'assigned' END AS status
         FROM (
           SELECT m.assignment_id, m.agent_key, m.joined_at, m.left_at, x.activity_id, x.position, x.due_at, p.records, p.first_at,
                  CASE WHEN m.left_at IS NOT NULL THEN k.completed_at
                       WHEN x.requires_success THEN p.passed_at ELSE p.completed_at END AS completed_at
             FROM learning_assignment_members m
             JOIN ${name}_x x ON x.assignment_id = m.assignment_id
             LEFT JOIN learning_assignment_kept k
               ON k.tenant_id = $1 AND k.assignment_id = m.assignment_id AND k.agent_key = m.agent_key
              AND k.activity_id = x.activity_id AND k.left_at = m.left_at
            CROSS JOIN LATERAL (${activityProgressSql('$1', 'm.agent_key', 'x.activity_id')}) p
            WHERE m.tenant_id = $1 AND ${members} AND (m.left_at IS NULL OR k.activity_id IS NOT NULL)
         ) r
     ),
     ${name}_persons AS (
       SELECT st.assignment_id, st.agent_key, min(st.joined_at) AS joined_at, min(st.left_at) AS left_at,
              ${personStatusSql('st.status')} AS status
         FROM ${name}_statuses st GROUP BY st.assignment_id, st.agent_key
     )`;
}

/**
 * A person's status from their activities' (an aggregate over `status`): overdue when any
 * activity is; else completedLate when every one is done and one late, completed when every one
 * is done in time; else inProgress when any is started or done; else assigned.
 */
const personStatusSql = (status: string) =>
  `CASE WHEN bool_or(${status} = 'overdue') THEN 'overdue'
        WHEN bool_and(${status} IN ('completed', 'completedLate'))
          THEN CASE WHEN bool_or(${status} = 'completedLate') THEN 'completedLate' ELSE 'completed' END
        WHEN bool_or(${status} <> 'assigned') THEN 'inProgress'
        ELSE 'assigned' END`;

/** The condition on the members `m` of one assignment (`$2`): those a scoped reader reaches, when `reach` is given. */
function membersOf(reach: AssignmentReach | undefined, bind: Bind): string {
  if (reach === undefined) return 'm.assignment_id = $2';
  return `m.assignment_id = $2 AND ${reach.people('m.agent_key', bind)}`;
}

/**
 * The CTE `<name>_persons` of one assignment (`$2`) read from the progress its member rows keep
 * (assignment-progress.repository.ts): one row per person listed, with the columns statusesSql's
 * `<name>_persons` has (assignment_id, agent_key, joined_at, left_at, status). `members`: a
 * condition over `m`, the assignment's rows (membersOf).
 */
function keptPersonsSql(name: string, members: string): string {
  return `${name}_persons AS (
       SELECT m.assignment_id, m.agent_key, m.joined_at, m.left_at, ${keptStatusSql('m', 'n.n', 's')} AS status
         FROM learning_assignment_members m
         JOIN learning_assignments s ON s.tenant_id = $1 AND s.id = $2
        CROSS JOIN (SELECT count(*)::int AS n FROM learning_assignment_activities x WHERE x.tenant_id = $1 AND x.assignment_id = $2) n
        WHERE m.tenant_id = $1 AND ${members} AND (m.left_at IS NULL OR m.done > 0)
     )`;
}

/**
 * How an assignment's statuses are read: from the progress its member rows keep, or, while the
 * tenant's kept counts are being rebuilt (kept-counts.repository.ts), from the records.
 */
export type StatusSource = 'kept' | 'recounted';

/** Whether the tenant's statuses are read from the kept progress now, or recounted while it is rebuilt. */
export async function statusSource(sql: SqlClient, tenantId: string): Promise<StatusSource> {
  return (await rebuildRequested(sql, tenantId)) === undefined ? 'kept' : 'recounted';
}

/** The CTE `a_persons` of one assignment, read as `source` says. */
const personsOf = (source: StatusSource, members: string) =>
  source === 'kept' ? keptPersonsSql('a', members) : statusesSql('a', members, 'x.assignment_id = $2');

/**
 * The people of one assignment counted by their status, and how many are former members; for a
 * scoped reader (`reach`), the people it reaches only.
 */
export async function countByStatus(
  sql: SqlClient,
  tenantId: string,
  id: string,
  reach: AssignmentReach | undefined,
  source: StatusSource,
): Promise<{ counts: StatusCounts; formerMembers: number }> {
  if (source === 'kept' && reach === undefined) return keptCountsOf(sql, tenantId, id);
  const parameters = new SqlValues([tenantId, id]);
  const bind: Bind = (value) => parameters.bind(value);
  const { rows } = await sql.query<{ status: AssignmentStatus; people: string | number; former: string | number }>(
    `WITH ${personsOf(source, membersOf(reach, bind))}
     SELECT status, count(*) AS people, count(*) FILTER (WHERE left_at IS NOT NULL) AS former FROM a_persons GROUP BY status`,
    parameters.values,
  );
  const counts: StatusCounts = { assigned: 0, inProgress: 0, completed: 0, completedLate: 0, overdue: 0 };
  let formerMembers = 0;
  for (const row of rows) {
    counts[row.status] = Number(row.people);
    formerMembers += Number(row.former);
  }
  return { counts, formerMembers };
}

/**
 * One assignment's counts by status from its kept classes (migration 0047): a read of a few rows
 * whatever its size. The members now with an activity not done are overdue once the due date has
 * passed, else in progress (started) or assigned (idle).
 */
async function keptCountsOf(sql: SqlClient, tenantId: string, id: string): Promise<{ counts: StatusCounts; formerMembers: number }> {
  const { classes, past } = await readClasses(sql, tenantId, id);
  return { counts: countsOfClasses(classes, past), formerMembers: classes.former_completed + classes.former_late };
}

/** The counts by status of an assignment's classes, `past` whether its due date has passed. */
function countsOfClasses(classes: ClassCounts, past: boolean): StatusCounts {
  return {
    assigned: past ? 0 : classes.open_idle,
    inProgress: past ? 0 : classes.open_started,
    completed: classes.completed + classes.former_completed,
    completedLate: classes.completed_late + classes.former_late,
    overdue: past ? classes.open_idle + classes.open_started : 0,
  };
}

interface StateRow {
  assignment_id: string;
  agent_key: string;
  person_status: AssignmentStatus;
  joined_at: Date | string;
  left_at: Date | string | null;
  activity_id: string;
  status: AssignmentStatus;
  started_at: Date | string | null;
  completed_at: Date | string | null;
  assignment_name?: string;
  due_at?: Date | string | null;
}

/** Rows of (person, activity), in the order read, folded into one PersonState a person and assignment. */
function toPersons(rows: readonly StateRow[]): PersonState[] {
  const persons: PersonState[] = [];
  for (const row of rows) {
    let person = persons.at(-1);
    if (!person || person.agentKey !== row.agent_key || person.assignmentId !== row.assignment_id) {
      person = {
        assignmentId: row.assignment_id,
        agentKey: row.agent_key,
        status: row.person_status,
        joinedAt: toDate(row.joined_at),
        leftAt: row.left_at === null ? null : toDate(row.left_at),
        activities: [],
      };
      if (row.assignment_name !== undefined) {
        person.assignment = {
          name: row.assignment_name,
          dueAt: row.due_at === null || row.due_at === undefined ? null : toDate(row.due_at),
        };
      }
      persons.push(person);
    }
    person.activities.push({
      activityId: row.activity_id,
      status: row.status,
      startedAt: row.started_at === null ? null : toDate(row.started_at),
      completedAt: row.completed_at === null ? null : toDate(row.completed_at),
    });
  }
  return persons;
}

/**
 * A page of one assignment's people (members and former members), in agent-key order (bytes, the
 * same on every server), those of `statuses` only when given, each with every activity's status;
 * and how many people match; for a scoped reader (`reach`), the people it reaches only. Two passes
 * in one statement: every person's status (an aggregate, to filter, count and page), then the
 * activities of the page's people alone.
 */
export async function findPeoplePage(
  sql: SqlClient,
  tenantId: string,
  id: string,
  statuses: readonly AssignmentStatus[] | undefined,
  page: Page,
  reach: AssignmentReach | undefined,
  source: StatusSource,
): Promise<{ people: PersonState[]; total: number }> {
  if (source === 'kept' && reach === undefined) {
    // The kept classes say how many there are: a page past them (none overdue before the due
    // date, say) is answered without reading a member row.
    const { counts } = await keptCountsOf(sql, tenantId, id);
    const total = [...new Set(statuses ?? (Object.keys(counts) as AssignmentStatus[]))].reduce((sum, status) => sum + counts[status], 0);
    if (page.skip >= total) return { people: [], total };
  }
  const parameters = new SqlValues([tenantId, id, statuses === undefined ? null : [...statuses], page.limit, page.skip]);
  const bind: Bind = (value) => parameters.bind(value);
  const { rows } = await sql.query<StateRow & { total: string | number }>(
    `WITH ${personsOf(source, membersOf(reach, bind))},
     filtered AS MATERIALIZED (
       SELECT p.agent_key, p.status FROM a_persons p WHERE $3::text[] IS NULL OR p.status = ANY($3::text[])
     ),
     page AS MATERIALIZED (SELECT f.agent_key, f.status FROM filtered f ORDER BY f.agent_key COLLATE "C" LIMIT $4 OFFSET $5),
     ${statusesSql('b', 'm.assignment_id = $2 AND m.agent_key IN (SELECT agent_key FROM page)', 'x.assignment_id = $2')}
     SELECT counted.total, st.assignment_id, st.agent_key, page.status AS person_status, st.joined_at, st.left_at,
            st.activity_id, st.status, st.started_at, st.completed_at
       FROM (SELECT count(*) AS total FROM filtered) counted
       LEFT JOIN (page JOIN b_statuses st ON st.agent_key = page.agent_key) ON true
      ORDER BY st.agent_key COLLATE "C", st.position`,
    parameters.values,
  );
  const total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  return { people: toPersons(rows.filter((row) => row.agent_key !== null)), total };
}

/**
 * Every assignment of one person (as a member now, or a former member keeping something), by
 * assignment creation, each with the person's status and their activities' (of `activityIds`
 * only, when given: a launch token's subtree).
 */
export async function findPersonAssignments(
  sql: SqlClient,
  tenantId: string,
  agentKey: string,
  activityIds?: readonly string[],
): Promise<PersonState[]> {
  const { rows } = await sql.query<StateRow>(
    `WITH ${statusesSql(
      'a',
      'm.agent_key = $2',
      `x.assignment_id IN (SELECT a.assignment_id FROM learning_assignment_members a WHERE a.tenant_id = $1 AND a.agent_key = $2)
         AND ($3::text[] IS NULL OR x.activity_id = ANY($3::text[]))`,
    )}
     SELECT st.assignment_id, st.agent_key, p.status AS person_status, st.joined_at, st.left_at,
            st.activity_id, st.status, st.started_at, st.completed_at, s.name AS assignment_name, s.due_at
       FROM a_statuses st
       JOIN a_persons p ON p.assignment_id = st.assignment_id AND p.agent_key = st.agent_key
       JOIN learning_assignments s ON s.tenant_id = $1 AND s.id = st.assignment_id
      ORDER BY s.seq DESC, st.position`,
    [tenantId, agentKey, activityIds === undefined ? null : [...activityIds]],
  );
  return toPersons(rows);
}

/** The activity ids of every assignment of one person (for narrowing them to a launch token's subtree). */
export async function findPersonActivityIds(sql: SqlClient, tenantId: string, agentKey: string): Promise<string[]> {
  const { rows } = await sql.query<{ activity_id: string }>(
    `SELECT DISTINCT x.activity_id
       FROM learning_assignment_members m
       JOIN learning_assignment_activities x ON x.tenant_id = m.tenant_id AND x.assignment_id = m.assignment_id
      WHERE m.tenant_id = $1 AND m.agent_key = $2`,
    [tenantId, agentKey],
  );
  return rows.map((row) => row.activity_id);
}

/**
 * For a report embedding the statuses in its own statement (report.repository.ts, assignment
 * compliance): the CTEs of statusesSql (`<name>_statuses`: a row per person and activity of the
 * assignments, with its status) for members now only, those `members` selects (a condition over
 * `m`, learning_assignment_members) of the activities `activities` selects (over `x`,
 * learning_assignment_activities). `$1` is the tenant id; the same rules as every status read.
 */
export function currentMemberStatusesSql(name: string, members: string, activities = 'true'): string {
  return statusesSql(name, `m.left_at IS NULL AND ${members}`, activities);
}
