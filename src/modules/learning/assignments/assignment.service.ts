import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ANALYZE_AFTER_ROWS, refreshStatistics } from '../../../platform/database/statistics.js';
import type { Page } from '../../../platform/database/sql-filters.js';
import { outOfScope, type Principal } from '../../../kernel/principal.js';
import { findRegisteredActivities, findRegisteredOutside } from '../../activities/index.js';
import {
  findActorsByKeys,
  PersonAccessErrors,
  readableAgentKeyCondition,
  readableAmong,
  readsEveryone,
  scopeEntryCondition,
  scopeEntryIds,
  getTenantSettings,
} from '../../actors/index.js';
import { existingJobIds, existingOrganisationIds } from '../../organisation/index.js';
import { type AssignmentInput, readAssignmentBody, readStatusFilter } from './assignment-rules.js';
import { AssignmentErrors } from './assignment.errors.js';
import { refreshMemberships } from './assignment-membership.service.js';
import { keepAssignmentProgress } from './assignment-progress.repository.js';
import {
  type AssignmentReach,
  deleteAssignment,
  findAssignment,
  findAssignmentAccess,
  findAssignments,
  insertAssignment,
  lockAssignments,
  replaceAssignmentActivities,
  type StoredAssignment,
  updateAssignment,
} from './assignment.repository.js';
import {
  type ActivityState,
  countByStatus,
  findPeoplePage,
  statusSource,
  type StatusSource,
  findPersonActivityIds,
  findPersonAssignments,
} from './assignment-status.repository.js';
import { type PersonQuery, readablePerson } from '../person-query.service.js';

/**
 * Learning assignments (docs/learning.md, "Assignments"): their writes, each one transaction under
 * the tenant's assignments lock (assignment.repository.ts `lockAssignments`), and their reads,
 * whose statuses come from the completion records at the moment they are read.
 *
 * A scoped admin or API key (docs/learning.md, "Scoped credentials and assignments") makes
 * assignments limited to its entry, sees those limited to its subtree or holding someone it
 * reaches, counted over the people it reaches only, and changes only those limited to its subtree.
 */

/**
 * What a scoped principal reaches, as the SQL conditions of the rule of who may read whom
 * (actors' person-access.service.ts); undefined for one that reads everyone (nothing added).
 */
function reachOf(principal: Principal): AssignmentReach | undefined {
  if (readsEveryone(principal)) return undefined;
  return {
    people: (column, bind) => readableAgentKeyCondition(principal, column, '$1', bind) ?? 'true',
    entries: (column, bind) => scopeEntryCondition(principal, column, '$1', bind) ?? 'false',
  };
}

const iso = (date: Date) => date.toISOString();

function summary(assignment: StoredAssignment) {
  return {
    id: assignment.id,
    name: assignment.name,
    activityIds: assignment.activityIds,
    selection: assignment.selection,
    dynamic: assignment.selection !== 'actorIds',
    ...(assignment.dueAt === null ? {} : { dueAt: iso(assignment.dueAt) }),
    createdAt: iso(assignment.createdAt),
    updatedAt: iso(assignment.updatedAt),
    members: assignment.members,
    ...(assignment.scope === null ? {} : { scope: { organisationId: assignment.scope } }),
  };
}

/**
 * One assignment, whole, with its people counted by status now; for a scoped principal, one it
 * sees (404 otherwise), narrowed to the people it reaches.
 */
async function answer(sql: SqlClient, principal: Principal, id: string, source?: StatusSource) {
  const reach = reachOf(principal);
  const tenantId = principal.tenant.id;
  const assignment = await findAssignment(sql, tenantId, id, reach);
  if (!assignment) throw AssignmentErrors.notFound(id);
  const { counts, formerMembers } = await countByStatus(sql, tenantId, id, reach, source ?? (await statusSource(sql, tenantId)));
  return { ...summary(assignment), people: assignment.people, formerMembers, counts };
}

export type AssignmentAnswer = Awaited<ReturnType<typeof answer>>;

function readBody(body: unknown): AssignmentInput {
  const reading = readAssignmentBody(body);
  if (!reading.ok) throw AssignmentErrors.invalid(reading.problems);
  return reading.input;
}

/**
 * What the body names that the database must have: registered activities, the tenant's actors,
 * its organisation entry or job. Each unknown one is named (400). For a scoped principal, what it
 * may name: actors it reaches only (anyone else, stored or not, is 404 `actors.not_found`, as
 * everywhere: the answer never tells an outsider from a stranger), an organisation entry of its
 * subtree only (403 `auth.out_of_scope`: the structure is open to it). A job or criteria reach
 * the people of its subtree only, as the assignment's scope narrows them.
 */
async function checkReferences(tx: SqlClient, principal: Principal, input: AssignmentInput): Promise<void> {
  const tenantId = principal.tenant.id;
  const registered = await findRegisteredActivities(tx, tenantId, input.activityIds);
  const unknownActivities = input.activityIds.filter((id) => !registered.has(id));
  if (unknownActivities.length > 0) throw AssignmentErrors.unknownActivities(unknownActivities);
  const people = input.people;
  if ('actorIds' in people) {
    if (!readsEveryone(principal)) {
      const readable = await readableAmong(tx, principal, people.actorIds);
      const outside = people.actorIds.find((key) => !readable.has(key));
      if (outside !== undefined) throw PersonAccessErrors.notFound(outside);
    }
    const actors = await findActorsByKeys(tx, tenantId, people.actorIds);
    const unknown = people.actorIds.filter((key) => !actors.has(key));
    if (unknown.length > 0) throw AssignmentErrors.unknownActors(unknown);
  } else if ('organisationId' in people) {
    if (!(await existingOrganisationIds(tx, tenantId, [people.organisationId])).has(people.organisationId))
      throw AssignmentErrors.unknownOrganisation(people.organisationId);
    const entries = await scopeEntryIds(tx, principal);
    if (entries !== undefined && !entries.has(people.organisationId)) {
      throw outOfScope(
        `This credential is limited to the organisation entry "${principal.scope?.organisationId}" and the entries below it; "${people.organisationId}" is not one of them.`,
      );
    }
  } else if ('jobId' in people) {
    if (!(await existingJobIds(tx, tenantId, [people.jobId])).has(people.jobId)) throw AssignmentErrors.unknownJob(people.jobId);
  }
}

/**
 * For a scoped principal, what PUT and DELETE need before they change anything: 404 for an
 * assignment it does not see (the not-found of an assignment that does not exist), 403
 * `auth.out_of_scope` for one it sees that is not limited to its subtree (a whole-tenant one).
 */
async function requireChangeable(tx: SqlClient, principal: Principal, reach: AssignmentReach, id: string): Promise<void> {
  const access = await findAssignmentAccess(tx, principal.tenant.id, id, reach);
  if (!access) throw AssignmentErrors.notFound(id);
  if (!access.within) {
    throw outOfScope(
      'This credential is limited to an organisation subtree; it changes only the assignments limited to an entry of its subtree.',
    );
  }
}

/**
 * `POST /api/assignments`: stores the assignment and takes in everyone it selects now, in one
 * transaction. A scoped principal's is limited to its entry: it takes the people of its subtree only.
 */
export async function createAssignment(sql: SqlClient, principal: Principal, body: unknown, baseDomain: string) {
  const input = readBody(body);
  const tenant = principal.tenant;
  const scope = principal.scope?.organisationId ?? null;
  const answered = await sql.transaction(async (tx) => {
    await lockAssignments(tx, tenant.id);
    await checkReferences(tx, principal, input);
    const id = await insertAssignment(tx, tenant.id, { ...input, scope });
    await replaceAssignmentActivities(tx, tenant.id, id, input.activityIds);
    await refreshMemberships(tx, tenant.id, [{ id, people: input.people, scope }], await getTenantSettings(tx, tenant, baseDomain));
    // Its activities came before its members: the triggers counted each member with their number.
    await keepAssignmentProgress(tx, tenant.id, id, { activitiesReplaced: false });
    return answer(tx, principal, id);
  });
  await refreshStatisticsAfter(sql, answered);
  return answered;
}

/**
 * After an assignment took in many people, the planner's statistics of the members, as after a
 * bulk import (statistics.ts): planned on the table as it was (one member where there were
 * 109,000), the compliance report and the assignment's counts ran nested loops for seconds.
 */
async function refreshStatisticsAfter(sql: SqlClient, answered: AssignmentAnswer): Promise<void> {
  const members = Object.values(answered.counts).reduce((sum, count) => sum + count, 0);
  if (members >= ANALYZE_AFTER_ROWS) {
    await refreshStatistics(sql, ['learning_assignment_members', 'learning_assignment_classes', 'learning_compliance_counts']);
  }
}

/**
 * `PUT /api/assignments/item`: replaces name, activities, people and due date, then looks at
 * everyone again: whoever the new selection takes is a member, whoever it no longer takes leaves
 * keeping what they had done (of the activities still assigned). 404 when there is no such
 * assignment. A scoped principal changes only one limited to its subtree (requireChangeable); the
 * assignment keeps the scope it was made with, whoever replaces it.
 */
export async function replaceAssignment(sql: SqlClient, principal: Principal, id: string, body: unknown, baseDomain: string) {
  const input = readBody(body);
  const tenant = principal.tenant;
  const reach = reachOf(principal);
  const answered = await sql.transaction(async (tx) => {
    await lockAssignments(tx, tenant.id);
    if (reach) await requireChangeable(tx, principal, reach, id);
    const updated = await updateAssignment(tx, tenant.id, id, input);
    if (!updated) throw AssignmentErrors.notFound(id);
    await checkReferences(tx, principal, input);
    await replaceAssignmentActivities(tx, tenant.id, id, input.activityIds);
    const settings = await getTenantSettings(tx, tenant, baseDomain);
    await refreshMemberships(tx, tenant.id, [{ id, people: input.people, scope: updated.scope }], settings);
    await keepAssignmentProgress(tx, tenant.id, id, { activitiesReplaced: true });
    return answer(tx, principal, id);
  });
  await refreshStatisticsAfter(sql, answered);
  return answered;
}

/**
 * `DELETE /api/assignments/item`: the assignment and its members are gone; 404 when there is none.
 * A scoped principal deletes only one limited to its subtree (requireChangeable).
 */
export async function removeAssignment(sql: SqlClient, principal: Principal, id: string): Promise<void> {
  const reach = reachOf(principal);
  await sql.transaction(async (tx) => {
    await lockAssignments(tx, principal.tenant.id);
    if (reach) await requireChangeable(tx, principal, reach, id);
    if (!(await deleteAssignment(tx, principal.tenant.id, id))) throw AssignmentErrors.notFound(id);
  });
}

/** Whether the assignment `id` is one `principal` sees (of its tenant; for a scoped one, one it sees: "Scoped credentials and assignments"). */
export async function assignmentSeen(sql: SqlClient, principal: Principal, id: string): Promise<boolean> {
  return (await findAssignment(sql, principal.tenant.id, id, reachOf(principal))) !== undefined;
}

/** `GET /api/assignments/item`. */
/** `GET /api/assignments/item`; `source`: how the route already found the statuses are read (statusSource). */
export const readAssignment = (sql: SqlClient, principal: Principal, id: string, source: StatusSource) =>
  answer(sql, principal, id, source);

/** `GET /api/assignments`: a page, newest first; for a scoped principal, those it sees, `total` counting them only. */
export async function listAssignments(sql: SqlClient, principal: Principal, page: Page) {
  const { assignments, total } = await findAssignments(sql, principal.tenant.id, page, reachOf(principal));
  return { assignments: assignments.map(summary), total };
}

const activityView = (state: ActivityState) => ({
  activityId: state.activityId,
  status: state.status,
  ...(state.startedAt === null ? {} : { startedAt: iso(state.startedAt) }),
  ...(state.completedAt === null ? {} : { completedAt: iso(state.completedAt) }),
});

/**
 * `GET /api/assignments/people`: a page of one assignment's people with their statuses; for a
 * scoped principal, of one it sees (404 otherwise), the people it reaches only.
 */
export async function assignmentPeople(
  sql: SqlClient,
  principal: Principal,
  query: { id: string; status?: string },
  page: Page,
  /** How the route already found the statuses are read (statusSource). */
  source: StatusSource,
) {
  const filter = readStatusFilter(query.status);
  if (!filter.ok) throw AssignmentErrors.invalidQuery('status', filter.message);
  const tenantId = principal.tenant.id;
  const reach = reachOf(principal);
  if (!(await findAssignment(sql, tenantId, query.id, reach))) throw AssignmentErrors.notFound(query.id);
  const { people, total } = await findPeoplePage(sql, tenantId, query.id, filter.statuses, page, reach, source);
  const actors = await findActorsByKeys(
    sql,
    tenantId,
    people.map((person) => person.agentKey),
  );
  return {
    people: people.map((person) => ({
      actorId: person.agentKey,
      actor: actors.get(person.agentKey)?.agent ?? {},
      status: person.status,
      joinedAt: iso(person.joinedAt),
      ...(person.leftAt === null ? {} : { leftAt: iso(person.leftAt) }),
      activities: person.activities.map(activityView),
    })),
    total,
  };
}

/**
 * `GET /api/actors/assignments`: every assignment of the person the principal may read
 * (person-access.service.ts), with their statuses. A launch token sees only its launch's activity
 * and the registry's activities below it, and only the assignments holding one of them.
 */
export async function personAssignments(sql: SqlClient, principal: Principal, query: PersonQuery) {
  const person = await readablePerson(sql, principal, query);
  const tenantId = principal.tenant.id;
  let activityIds: string[] | undefined;
  if (person.activityId !== undefined) {
    const assigned = await findPersonActivityIds(sql, tenantId, person.agentKey);
    const outside = new Set(await findRegisteredOutside(sql, tenantId, assigned, person.activityId));
    activityIds = assigned.filter((id) => !outside.has(id));
    if (activityIds.length === 0) return { assignments: [] };
  }
  const states = await findPersonAssignments(sql, tenantId, person.agentKey, activityIds);
  return {
    assignments: states.map((state) => ({
      id: state.assignmentId,
      name: state.assignment?.name ?? '',
      ...(state.assignment?.dueAt ? { dueAt: iso(state.assignment.dueAt) } : {}),
      status: state.status,
      joinedAt: iso(state.joinedAt),
      ...(state.leftAt === null ? {} : { leftAt: iso(state.leftAt) }),
      activities: state.activities.map(activityView),
    })),
  };
}
