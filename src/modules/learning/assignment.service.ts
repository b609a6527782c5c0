import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Page } from '../../platform/database/sql-filters.js';
import type { Principal, Tenant } from '../../kernel/principal.js';
import { findRegisteredActivities, findRegisteredOutside } from '../activities/activity-registry.service.js';
import { findActorsByKeys } from '../actors/actor-lookup.service.js';
import { getTenantSettings } from '../actors/tenant-settings.service.js';
import { existingJobIds, existingOrganisationIds } from '../organisation/organisation.service.js';
import { type AssignmentInput, readAssignmentBody, readStatusFilter } from './assignment-rules.js';
import { AssignmentErrors } from './assignment.errors.js';
import { refreshMemberships } from './assignment-membership.service.js';
import {
  deleteAssignment,
  findAssignment,
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
  findPersonActivityIds,
  findPersonAssignments,
} from './assignment-status.repository.js';
import { type PersonQuery, readablePerson } from './person-access.service.js';

/**
 * Learning assignments (docs/learning.md, "Assignments"): their writes, each one transaction under
 * the tenant's assignments lock (assignment.repository.ts `lockAssignments`), and their reads,
 * whose statuses come from the completion records at the moment they are read.
 */

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
  };
}

/** One assignment, whole, with its people counted by status now. */
async function answer(sql: SqlClient, tenantId: string, id: string) {
  const assignment = await findAssignment(sql, tenantId, id);
  if (!assignment) throw AssignmentErrors.notFound(id);
  const { counts, formerMembers } = await countByStatus(sql, tenantId, id);
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
 * its organisation entry or job. Each unknown one is named (400).
 */
async function checkReferences(tx: SqlClient, tenantId: string, input: AssignmentInput): Promise<void> {
  const registered = await findRegisteredActivities(tx, tenantId, input.activityIds);
  const unknownActivities = input.activityIds.filter((id) => !registered.has(id));
  if (unknownActivities.length > 0) throw AssignmentErrors.unknownActivities(unknownActivities);
  const people = input.people;
  if ('actorIds' in people) {
    const actors = await findActorsByKeys(tx, tenantId, people.actorIds);
    const unknown = people.actorIds.filter((key) => !actors.has(key));
    if (unknown.length > 0) throw AssignmentErrors.unknownActors(unknown);
  } else if ('organisationId' in people) {
    if (!(await existingOrganisationIds(tx, tenantId, [people.organisationId])).has(people.organisationId))
      throw AssignmentErrors.unknownOrganisation(people.organisationId);
  } else if ('jobId' in people) {
    if (!(await existingJobIds(tx, tenantId, [people.jobId])).has(people.jobId)) throw AssignmentErrors.unknownJob(people.jobId);
  }
}

/** `POST /api/assignments`: stores the assignment and takes in everyone it selects now, in one transaction. */
export async function createAssignment(sql: SqlClient, tenant: Pick<Tenant, 'id' | 'name'>, body: unknown, baseDomain: string) {
  const input = readBody(body);
  return sql.transaction(async (tx) => {
    await lockAssignments(tx, tenant.id);
    await checkReferences(tx, tenant.id, input);
    const id = await insertAssignment(tx, tenant.id, input);
    await replaceAssignmentActivities(tx, tenant.id, id, input.activityIds);
    await refreshMemberships(tx, tenant.id, [{ id, people: input.people }], await getTenantSettings(tx, tenant, baseDomain));
    return answer(tx, tenant.id, id);
  });
}

/**
 * `PUT /api/assignments/item`: replaces name, activities, people and due date, then looks at
 * everyone again: whoever the new selection takes is a member, whoever it no longer takes leaves
 * keeping what they had done (of the activities still assigned). 404 when there is no such assignment.
 */
export async function replaceAssignment(
  sql: SqlClient,
  tenant: Pick<Tenant, 'id' | 'name'>,
  id: string,
  body: unknown,
  baseDomain: string,
) {
  const input = readBody(body);
  return sql.transaction(async (tx) => {
    await lockAssignments(tx, tenant.id);
    if (!(await updateAssignment(tx, tenant.id, id, input))) throw AssignmentErrors.notFound(id);
    await checkReferences(tx, tenant.id, input);
    await replaceAssignmentActivities(tx, tenant.id, id, input.activityIds);
    await refreshMemberships(tx, tenant.id, [{ id, people: input.people }], await getTenantSettings(tx, tenant, baseDomain));
    return answer(tx, tenant.id, id);
  });
}

/** `DELETE /api/assignments/item`: the assignment and its members are gone; 404 when there is none. */
export async function removeAssignment(sql: SqlClient, tenantId: string, id: string): Promise<void> {
  await sql.transaction(async (tx) => {
    await lockAssignments(tx, tenantId);
    if (!(await deleteAssignment(tx, tenantId, id))) throw AssignmentErrors.notFound(id);
  });
}

/** `GET /api/assignments/item`. */
export const readAssignment = (sql: SqlClient, tenantId: string, id: string) => answer(sql, tenantId, id);

/** `GET /api/assignments`: a page, newest first. */
export async function listAssignments(sql: SqlClient, tenantId: string, page: Page) {
  const { assignments, total } = await findAssignments(sql, tenantId, page);
  return { assignments: assignments.map(summary), total };
}

const activityView = (state: ActivityState) => ({
  activityId: state.activityId,
  status: state.status,
  ...(state.startedAt === null ? {} : { startedAt: iso(state.startedAt) }),
  ...(state.completedAt === null ? {} : { completedAt: iso(state.completedAt) }),
});

/** `GET /api/assignments/people`: a page of one assignment's people with their statuses. */
export async function assignmentPeople(sql: SqlClient, tenantId: string, query: { id: string; status?: string }, page: Page) {
  const filter = readStatusFilter(query.status);
  if (!filter.ok) throw AssignmentErrors.invalidQuery('status', filter.message);
  if (!(await findAssignment(sql, tenantId, query.id))) throw AssignmentErrors.notFound(query.id);
  const { people, total } = await findPeoplePage(sql, tenantId, query.id, filter.statuses, page);
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
