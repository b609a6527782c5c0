import { lockForTransaction } from '../../platform/database/advisory-lock.js';
import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Page } from '../../platform/database/sql-filters.js';
import { requiresSuccessSql } from '../activities/activity-success.service.js';
import { activityProgressSql } from '../completions/completion-progress.service.js';
import type { PeopleSelection, SelectionKind, AssignmentStatus } from './assignment-rules.js';

/** An assignment as stored (migration 0027), without its members. */
export interface StoredAssignment {
  id: string;
  name: string;
  activityIds: string[];
  selection: SelectionKind;
  people: PeopleSelection;
  dueAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** How many people it takes now. */
  members: number;
}

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

interface AssignmentRow {
  id: string;
  name: string;
  activity_ids: string[];
  selection: SelectionKind;
  people: PeopleSelection;
  due_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  members: string | number;
}

const toDate = (value: Date | string) => new Date(value);

const toAssignment = (row: AssignmentRow): StoredAssignment => ({
  id: row.id,
  name: row.name,
  activityIds: row.activity_ids,
  selection: row.selection,
  people: row.people,
  dueAt: row.due_at === null ? null : toDate(row.due_at),
  createdAt: toDate(row.created_at),
  updatedAt: toDate(row.updated_at),
  members: Number(row.members),
});

/** The columns of an assignment (`s`), its activities in order and its member count. */
const ASSIGNMENT_COLUMNS = `s.id, s.name, s.selection, s.people, s.due_at, s.created_at, s.updated_at,
       ARRAY(SELECT x.activity_id FROM learning_assignment_activities x
              WHERE x.tenant_id = s.tenant_id AND x.assignment_id = s.id ORDER BY x.position) AS activity_ids,
       (SELECT count(*) FROM learning_assignment_members m
         WHERE m.tenant_id = s.tenant_id AND m.assignment_id = s.id AND m.left_at IS NULL) AS members`;

/**
 * Takes the tenant's assignments lock for the rest of the transaction: the writes of assignments
 * and every refresh of their members (a people change) run one after the other, each statement
 * after the lock seeing what the one before committed. A writer of people takes its own lock
 * first (the identity lock, the organisation's), then this one; nothing takes them the other way.
 */
export async function lockAssignments(tx: SqlClient, tenantId: string): Promise<void> {
  await lockForTransaction(tx, `learnbase:assignments:${tenantId}`);
}

export async function insertAssignment(
  tx: SqlClient,
  tenantId: string,
  assignment: { name: string; selection: SelectionKind; people: PeopleSelection; dueAt: Date | null },
): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO learning_assignments (tenant_id, name, selection, people, due_at)
     VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING id`,
    [tenantId, assignment.name, assignment.selection, JSON.stringify(assignment.people), assignment.dueAt],
  );
  return rows[0]!.id;
}

/** Replaces an assignment's name, selection and due date; false when the tenant has no such assignment. */
export async function updateAssignment(
  tx: SqlClient,
  tenantId: string,
  id: string,
  assignment: { name: string; selection: SelectionKind; people: PeopleSelection; dueAt: Date | null },
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE learning_assignments SET name = $3, selection = $4, people = $5::jsonb, due_at = $6, updated_at = now()
      WHERE tenant_id = $1 AND id = $2`,
    [tenantId, id, assignment.name, assignment.selection, JSON.stringify(assignment.people), assignment.dueAt],
  );
  return rowCount > 0;
}

/**
 * Makes `activityIds` (in that order) an assignment's activities. What a former member kept of an
 * activity no longer assigned stays stored and is no longer read (the reads join the activities).
 */
export async function replaceAssignmentActivities(
  tx: SqlClient,
  tenantId: string,
  id: string,
  activityIds: readonly string[],
): Promise<void> {
  await tx.query(
    `WITH gone AS (
       DELETE FROM learning_assignment_activities x
        WHERE x.tenant_id = $1 AND x.assignment_id = $2 AND x.activity_id <> ALL($3::text[])
     )
     INSERT INTO learning_assignment_activities (tenant_id, assignment_id, activity_id, position)
     SELECT $1, $2, a.activity_id, a.position FROM unnest($3::text[]) WITH ORDINALITY AS a (activity_id, position)
     ON CONFLICT (tenant_id, assignment_id, activity_id) DO UPDATE SET position = EXCLUDED.position`,
    [tenantId, id, [...activityIds]],
  );
}

/** Deletes an assignment with its activities and members; false when the tenant has none with this id. */
export async function deleteAssignment(sql: SqlClient, tenantId: string, id: string): Promise<boolean> {
  const { rowCount } = await sql.query('DELETE FROM learning_assignments WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
  return rowCount > 0;
}

export async function findAssignment(sql: SqlClient, tenantId: string, id: string): Promise<StoredAssignment | undefined> {
  const { rows } = await sql.query<AssignmentRow>(
    `SELECT ${ASSIGNMENT_COLUMNS} FROM learning_assignments s WHERE s.tenant_id = $1 AND s.id = $2`,
    [tenantId, id],
  );
  return rows[0] && toAssignment(rows[0]);
}

/** A page of the tenant's assignments, newest first, and how many there are. */
export async function findAssignments(
  sql: SqlClient,
  tenantId: string,
  page: Page,
): Promise<{ assignments: StoredAssignment[]; total: number }> {
  const { rows } = await sql.query<AssignmentRow & { total: string | number }>(
    `SELECT counted.total, page.*
       FROM (SELECT count(*) AS total FROM learning_assignments WHERE tenant_id = $1) counted
       LEFT JOIN LATERAL (
         SELECT ${ASSIGNMENT_COLUMNS}, s.seq FROM learning_assignments s
          WHERE s.tenant_id = $1 ORDER BY s.seq DESC LIMIT $2 OFFSET $3
       ) page ON true
      ORDER BY page.seq DESC`,
    [tenantId, page.limit, page.skip],
  );
  const total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  return { assignments: rows.filter((row) => row.id !== null).map(toAssignment), total };
}

/** The tenant's dynamic assignments (criteria, organisation subtree, job): what a change of people refreshes. */
export async function findDynamicAssignments(tx: SqlClient, tenantId: string): Promise<Array<{ id: string; people: PeopleSelection }>> {
  const { rows } = await tx.query<{ id: string; people: PeopleSelection }>(
    `SELECT id, people FROM learning_assignments WHERE tenant_id = $1 AND selection <> 'actorIds' ORDER BY id`,
    [tenantId],
  );
  return rows;
}

/** What refreshMembers compares the members of some assignments with, as SQL text over its values. */
export interface Matching {
  /** CTEs the matching reads, ending with a comma (`people AS MATERIALIZED (…),`), or ''. */
  preamble: string;
  /** SQL selecting `assignment_id` (uuid) and `agent_key`: whom each assignment takes now. */
  matched: string;
  /** The placeholder of the uuid[] of the assignments looked at. */
  assignments: string;
  /** The placeholder of a text[] of agent keys: only these people are looked at (those a write changed); absent: everyone. */
  within?: string;
}

/**
 * Brings the members of some assignments up to date with `matching` (over `values`, whose $1 is
 * the tenant), in one statement:
 *
 * - a matched person who is no member joins (`joined_at` now); a former member rejoins (`left_at`
 *   cleared: their records count live again);
 * - a member not matched leaves (`left_at` now), keeping each assigned activity their records
 *   complete (passing it when it requires success), with when it was done. One who had done none
 *   keeps nothing and is no longer listed.
 *
 * Every step is linear whatever the planner's estimates (a table that grew from nothing an
 * instant ago has none worth the name): the matched and the current members meet in a FULL JOIN,
 * which PostgreSQL runs only as a hash or merge join; a leaver's activities are probed per leaver;
 * the writes are INSERT … ON CONFLICT by primary key. Nothing is deleted: a leaver's row stays
 * (and kept rows of an earlier leaving are overwritten or ignored, `left_at` telling which count).
 * Answers how many joined (or rejoined) and how many left.
 */
export async function refreshMembers(
  tx: SqlClient,
  matching: Matching,
  values: readonly unknown[],
): Promise<{ joined: number; left: number }> {
  const scope = matching.within === undefined ? '' : ` AND m.agent_key = ANY(${matching.within}::text[])`;
  const { rows } = await tx.query<{ joined: string | number; left: string | number }>(
    `WITH ${matching.preamble}
     matched AS MATERIALIZED (${matching.matched}),
     current AS MATERIALIZED (
       SELECT m.assignment_id, m.agent_key, m.left_at FROM learning_assignment_members m
        WHERE m.tenant_id = $1 AND m.assignment_id = ANY(${matching.assignments}::uuid[])${scope}
     ),
     changes AS MATERIALIZED (
       SELECT COALESCE(x.assignment_id, c.assignment_id) AS assignment_id, COALESCE(x.agent_key, c.agent_key) AS agent_key,
              x.agent_key IS NULL AS leaving
         FROM matched x FULL JOIN current c ON c.assignment_id = x.assignment_id AND c.agent_key = x.agent_key
        WHERE CASE WHEN x.agent_key IS NULL THEN c.left_at IS NULL ELSE c.agent_key IS NULL OR c.left_at IS NOT NULL END
     ),
     done AS MATERIALIZED (
       SELECT ch.assignment_id, ch.agent_key, x.activity_id, d.completed_at
         FROM changes ch
        CROSS JOIN LATERAL (
          SELECT a.activity_id, ${requiresSuccessSql('$1', 'a.activity_id')} AS requires_success
            FROM learning_assignment_activities a WHERE a.tenant_id = $1 AND a.assignment_id = ch.assignment_id
        ) x
        CROSS JOIN LATERAL (${activityProgressSql('$1', 'ch.agent_key', 'x.activity_id')}) p
        CROSS JOIN LATERAL (SELECT CASE WHEN x.requires_success THEN p.passed_at ELSE p.completed_at END AS completed_at) d
        WHERE ch.leaving AND d.completed_at IS NOT NULL
     ),
     moved AS (
       INSERT INTO learning_assignment_members AS m (tenant_id, assignment_id, agent_key, joined_at, left_at)
       SELECT $1, ch.assignment_id, ch.agent_key, now(), CASE WHEN ch.leaving THEN now() END FROM changes ch
       ON CONFLICT (tenant_id, assignment_id, agent_key) DO UPDATE
          SET joined_at = CASE WHEN EXCLUDED.left_at IS NULL THEN EXCLUDED.joined_at ELSE m.joined_at END, left_at = EXCLUDED.left_at
     ),
     kept AS (
       INSERT INTO learning_assignment_kept AS k (tenant_id, assignment_id, agent_key, activity_id, left_at, completed_at)
       SELECT $1, d.assignment_id, d.agent_key, d.activity_id, now(), d.completed_at FROM done d
       ON CONFLICT (tenant_id, assignment_id, agent_key, activity_id) DO UPDATE
          SET left_at = EXCLUDED.left_at, completed_at = EXCLUDED.completed_at
     )
     SELECT count(*) FILTER (WHERE NOT leaving) AS joined, count(*) FILTER (WHERE leaving) AS left FROM changes`,
    values,
  );
  return { joined: Number(rows[0]!.joined), left: Number(rows[0]!.left) };
}

// ---------------------------------------------------------------------------------------------
// Statuses, read from the completion records when asked

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

/** The people of one assignment counted by their status, and how many are former members. */
export async function countByStatus(
  sql: SqlClient,
  tenantId: string,
  id: string,
): Promise<{ counts: StatusCounts; formerMembers: number }> {
  const { rows } = await sql.query<{ status: AssignmentStatus; people: string | number; former: string | number }>(
    `WITH ${statusesSql('a', 'm.assignment_id = $2', 'x.assignment_id = $2')}
     SELECT status, count(*) AS people, count(*) FILTER (WHERE left_at IS NOT NULL) AS former FROM a_persons GROUP BY status`,
    [tenantId, id],
  );
  const counts: StatusCounts = { assigned: 0, inProgress: 0, completed: 0, completedLate: 0, overdue: 0 };
  let formerMembers = 0;
  for (const row of rows) {
    counts[row.status] = Number(row.people);
    formerMembers += Number(row.former);
  }
  return { counts, formerMembers };
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
 * and how many people match. Two passes in one statement: every person's status (an aggregate,
 * to filter, count and page), then the activities of the page's people alone.
 */
export async function findPeoplePage(
  sql: SqlClient,
  tenantId: string,
  id: string,
  statuses: readonly AssignmentStatus[] | undefined,
  page: Page,
): Promise<{ people: PersonState[]; total: number }> {
  const { rows } = await sql.query<StateRow & { total: string | number }>(
    `WITH ${statusesSql('a', 'm.assignment_id = $2', 'x.assignment_id = $2')},
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
    [tenantId, id, statuses === undefined ? null : [...statuses], page.limit, page.skip],
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
