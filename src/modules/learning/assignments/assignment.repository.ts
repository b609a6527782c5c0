import { SqlValues } from '../../../platform/database/sql-filters.js';
import { lockForTransaction, lockSharedForTransaction } from '../../../platform/database/advisory-lock.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Page } from '../../../platform/database/sql-filters.js';
import { requiresSuccessSql } from '../../activities/index.js';
import { activityProgressSql } from '../../completions/index.js';
import type { Bind } from '../../actors/index.js';
import type { PeopleSelection, SelectionKind } from './assignment-rules.js';

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
  /** How many people it takes now (those the reader reaches, for a scoped one). */
  members: number;
  /** The organisation entry it is limited to (migration 0030); null: the whole tenant. */
  scope: string | null;
}

/**
 * What a scoped reader reaches (docs/learning.md, "Scoped credentials and assignments"), as SQL the
 * service builds from the rule of who may read whom (actors' person-access.service.ts). Absent for
 * a principal that reads everyone: the statements stay as they were.
 */
export interface AssignmentReach {
  /** A condition on an agent-key column: the people the reader reaches. */
  people(column: string, bind: Bind): string;
  /** A condition on an organisation-entry column: the entry lies in the reader's subtree (NULL never does). */
  entries(column: string, bind: Bind): string;
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
  scope_organisation_id: string | null;
}

export const toDate = (value: Date | string) => new Date(value);

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
  scope: row.scope_organisation_id,
});

/**
 * The columns of an assignment (`s`), its activities in order and its member count; for a scoped
 * reader (`reach`), the members it reaches only, and of explicit actor ids (`people.actorIds`) those
 * it reaches only, in their order.
 */
function assignmentColumns(reach?: AssignmentReach, bind?: Bind): string {
  const reached = (column: string) => (reach && bind ? ` AND ${reach.people(column, bind)}` : '');
  const people =
    reach && bind
      ? `CASE WHEN s.selection = 'actorIds' THEN jsonb_build_object('actorIds', COALESCE(
           (SELECT jsonb_agg(k.agent_key ORDER BY k.ord)
              FROM jsonb_array_elements_text(s.people -> 'actorIds') WITH ORDINALITY AS k (agent_key, ord)
             WHERE true${reached('k.agent_key')}), '[]'::jsonb)) ELSE s.people END AS people`
      : 's.people';
  return `s.id, s.name, s.selection, ${people}, s.due_at, s.created_at, s.updated_at, s.scope_organisation_id,
       ARRAY(SELECT x.activity_id FROM learning_assignment_activities x
              WHERE x.tenant_id = s.tenant_id AND x.assignment_id = s.id ORDER BY x.position) AS activity_ids,
       ${reach && bind ? membersReachedSql(reached('m.agent_key')) : MEMBERS_KEPT} AS members`;
}

/** SQL: the members now of the assignment `s` that the condition `reached` (over `m`) holds for, counted. */
const membersReachedSql = (reached: string) => `(SELECT count(*) FROM learning_assignment_members m
         WHERE m.tenant_id = s.tenant_id AND m.assignment_id = s.id AND m.left_at IS NULL${reached})`;

/**
 * SQL: every member now of the assignment `s`, from its kept classes (migration 0047): each member
 * now is of exactly one of the four classes of members now, whatever their progress, so the sum
 * is their number even while the progress is being rebuilt. A few rows instead of 50,000.
 */
const MEMBERS_KEPT = `(SELECT COALESCE(sum(c.completed + c.completed_late + c.open_started + c.open_idle), 0)
         FROM learning_assignment_classes c WHERE c.tenant_id = s.tenant_id AND c.assignment_id = s.id)`;

/**
 * SQL: a scoped reader sees the assignment `s`: it is limited to an entry of the reader's subtree,
 * or one of its people (a member now, or a former member keeping an activity still assigned: whom
 * its people list shows) is someone the reader reaches. Per assignment, its members are probed by
 * key until one is reached; the reached people and the subtree are read once per statement.
 */
function seenSql(reach: AssignmentReach, bind: Bind): string {
  return `(${reach.entries('s.scope_organisation_id', bind)} OR EXISTS (
       SELECT 1 FROM learning_assignment_members v
        WHERE v.tenant_id = s.tenant_id AND v.assignment_id = s.id AND ${reach.people('v.agent_key', bind)}
          AND (v.left_at IS NULL OR EXISTS (
            SELECT 1 FROM learning_assignment_kept k
              JOIN learning_assignment_activities x
                ON x.tenant_id = k.tenant_id AND x.assignment_id = k.assignment_id AND x.activity_id = k.activity_id
             WHERE k.tenant_id = v.tenant_id AND k.assignment_id = v.assignment_id AND k.agent_key = v.agent_key
               AND k.left_at = v.left_at))))`;
}

/**
 * Takes the tenant's assignments lock for the rest of the transaction: the writes of assignments
 * and the refreshes of everyone run one after the other (and after the refreshes for some people,
 * which share it: lockAssignmentsShared), each statement after the lock seeing what the one before
 * committed. A writer of people takes its own lock
 * first (the identity lock, the organisation's), then this one; nothing takes them the other way.
 */
export async function lockAssignments(tx: SqlClient, tenantId: string): Promise<void> {
  await lockForTransaction(tx, `learnbase:assignments:${tenantId}`);
}

/**
 * The same lock shared: refreshes of the members of assignments for some people (each refresh
 * writes the member rows of its own people) run side by side, never beside a write of an
 * assignment or a refresh of everyone, which take it alone.
 */
export async function lockAssignmentsShared(tx: SqlClient, tenantId: string): Promise<void> {
  await lockSharedForTransaction(tx, `learnbase:assignments:${tenantId}`);
}

export async function insertAssignment(
  tx: SqlClient,
  tenantId: string,
  assignment: { name: string; selection: SelectionKind; people: PeopleSelection; dueAt: Date | null; scope: string | null },
): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO learning_assignments (tenant_id, name, selection, people, due_at, scope_organisation_id)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6) RETURNING id`,
    [tenantId, assignment.name, assignment.selection, JSON.stringify(assignment.people), assignment.dueAt, assignment.scope],
  );
  return rows[0]!.id;
}

/**
 * Replaces an assignment's name, selection and due date; its scope stays the one it was made with.
 * Answers that scope (null: the whole tenant), or undefined when the tenant has no such assignment.
 */
export async function updateAssignment(
  tx: SqlClient,
  tenantId: string,
  id: string,
  assignment: { name: string; selection: SelectionKind; people: PeopleSelection; dueAt: Date | null },
): Promise<{ scope: string | null } | undefined> {
  const { rows } = await tx.query<{ scope_organisation_id: string | null }>(
    `UPDATE learning_assignments
        SET name = $3, selection = $4, people = $5::jsonb, due_at = $6, updated_at = now()
      WHERE tenant_id = $1 AND id = $2 RETURNING scope_organisation_id`,
    [tenantId, id, assignment.name, assignment.selection, JSON.stringify(assignment.people), assignment.dueAt],
  );
  return rows[0] && { scope: rows[0].scope_organisation_id };
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

/** One assignment; for a scoped reader (`reach`), one it sees, narrowed to the people it reaches. */
export async function findAssignment(
  sql: SqlClient,
  tenantId: string,
  id: string,
  reach?: AssignmentReach,
): Promise<StoredAssignment | undefined> {
  const parameters = new SqlValues([tenantId, id]);
  const bind: Bind = (value) => parameters.bind(value);
  const seen = reach ? ` AND ${seenSql(reach, bind)}` : '';
  const { rows } = await sql.query<AssignmentRow>(
    `SELECT ${assignmentColumns(reach, bind)} FROM learning_assignments s WHERE s.tenant_id = $1 AND s.id = $2${seen}`,
    parameters.values,
  );
  return rows[0] && toAssignment(rows[0]);
}

/**
 * Whether a scoped reader (`reach`) may change the assignment: undefined when it does not see it
 * (or there is none), `within` true when its scope lies in the reader's subtree.
 */
export async function findAssignmentAccess(
  sql: SqlClient,
  tenantId: string,
  id: string,
  reach: AssignmentReach,
): Promise<{ within: boolean } | undefined> {
  const parameters = new SqlValues([tenantId, id]);
  const bind: Bind = (value) => parameters.bind(value);
  const { rows } = await sql.query<{ within: boolean }>(
    `SELECT ${reach.entries('s.scope_organisation_id', bind)} AS within
       FROM learning_assignments s WHERE s.tenant_id = $1 AND s.id = $2 AND ${seenSql(reach, bind)}`,
    parameters.values,
  );
  return rows[0] && { within: rows[0].within === true };
}

/**
 * A page of the tenant's assignments, newest first, and how many there are; for a scoped reader
 * (`reach`), those it sees, narrowed to the people it reaches.
 */
export async function findAssignments(
  sql: SqlClient,
  tenantId: string,
  page: Page,
  reach?: AssignmentReach,
): Promise<{ assignments: StoredAssignment[]; total: number }> {
  const parameters = new SqlValues([tenantId, page.limit, page.skip]);
  const bind: Bind = (value) => parameters.bind(value);
  // The count and the page each embed the condition: each its own placeholders, one statement.
  const seen = () => (reach ? ` AND ${seenSql(reach, bind)}` : '');
  const { rows } = await sql.query<AssignmentRow & { total: string | number }>(
    `SELECT counted.total, page.*
       FROM (SELECT count(*) AS total FROM learning_assignments s WHERE s.tenant_id = $1${seen()}) counted
       LEFT JOIN LATERAL (
         SELECT ${assignmentColumns(reach, bind)}, s.seq FROM learning_assignments s
          WHERE s.tenant_id = $1${seen()} ORDER BY s.seq DESC LIMIT $2 OFFSET $3
       ) page ON true
      ORDER BY page.seq DESC`,
    parameters.values,
  );
  const total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  return { assignments: rows.filter((row) => row.id !== null).map(toAssignment), total };
}

/**
 * The tenant's assignments, each with its selection and its scope (null: the whole tenant): what a
 * change of people refreshes.
 */
export async function findAssignmentSelections(
  tx: SqlClient,
  tenantId: string,
): Promise<Array<{ id: string; people: PeopleSelection; scope: string | null }>> {
  const { rows } = await tx.query<{ id: string; people: PeopleSelection; scope: string | null }>(
    `SELECT id, people, scope_organisation_id AS scope FROM learning_assignments
      WHERE tenant_id = $1 ORDER BY id`,
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
