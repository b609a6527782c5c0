import assert from 'node:assert/strict';
import type { TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

/**
 * The fixture of the assignment tests (assignments.test.ts, assignments-access.test.ts): a tenant
 * whose people are linked to positions and jobs, a few registered activities, statements with fixed
 * timestamps, and the statuses those statements must give, computed here from the fixture alone
 * (docs/learning.md, "Status"), never read back from the server.
 */

export type Json = Record<string, any>;
export type Headers = Record<string, string>;

export const HR = 'https://hr.example.com';
export const ADL = 'http://adlnet.gov/expapi/verbs/';
export const COURSE_A = 'https://example.com/courses/a';
/** Counts only when passed (`requiresSuccess`). */
export const COURSE_B = 'https://example.com/courses/b';
/** Below A in the registry. */
export const MODULE_C = 'https://example.com/courses/a/module-c';
export const COURSE_D = 'https://example.com/courses/d';
export const LAUNCH_URL = 'https://content.example.com/a/index.html';

/** A due date already passed (the tests run after it) and one far ahead. */
export const PAST_DUE = '2026-01-01T00:00:00.000Z';
export const FUTURE_DUE = '2999-01-01T00:00:00.000Z';

export const agentOf = (employeeId: string) => ({ account: { homePage: HR, name: employeeId } });
export const actorIdOf = (employeeId: string) => `account|${HR}|${employeeId}`;
export const user = (employeeId: string, attributes: Record<string, string> = {}) => ({
  name: `Person ${employeeId}`,
  attributes: { employeeId, ...attributes },
});

export function requests(ctx: TestContext) {
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    ctx.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const ok = async (method: string, url: string, headers: Headers, payload: unknown, status: number) => {
    const res = await call(method, url, headers, payload);
    assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
    return res;
  };
  return {
    call,
    importUsers: (tenant: GivenTenant, users: unknown[]) => ok('POST', '/api/import/users', tenant.headers, { users }, 200),
    importOrganisation: (tenant: GivenTenant, entries: unknown[]) => ok('PUT', '/api/import/organisation', tenant.headers, entries, 204),
    importJobs: (tenant: GivenTenant, jobs: unknown[]) => ok('PUT', '/api/import/jobs', tenant.headers, jobs, 204),
    putSettings: (tenant: GivenTenant, settings: Json) => ok('PUT', '/api/settings', tenant.headers, settings, 200),
    upsertAgent: (tenant: GivenTenant, agent: Json) => call('PUT', '/api/actors/agents', tenant.headers, agent),
    statements: (tenant: GivenTenant, statements: unknown[], headers: Headers = tenant.xapi) =>
      ok('POST', '/xapi/statements', headers, statements, 200),
    create: async (tenant: GivenTenant, body: Json): Promise<Json> =>
      (await ok('POST', '/api/assignments', tenant.headers, body, 201)).json(),
    item: async (tenant: GivenTenant, id: string): Promise<Json> =>
      (await ok('GET', `/api/assignments/item?id=${id}`, tenant.headers, undefined, 200)).json(),
    people: async (tenant: GivenTenant, id: string, query = ''): Promise<Json> =>
      (await ok('GET', `/api/assignments/people?id=${id}${query}`, tenant.headers, undefined, 200)).json(),
    personal: async (headers: Headers, query = ''): Promise<Json[]> =>
      (await ok('GET', `/api/actors/assignments${query}`, headers, undefined, 200)).json().assignments,
  };
}

export const ORGANISATION = [
  { id: 'CEO', attributes: { title: 'Chief Executive' } },
  { id: 'CTO', parentId: 'CEO' },
  { id: 'CFO', parentId: 'CEO' },
  { id: 'DEV1', parentId: 'CTO' },
];
export const JOBS = [
  { id: 'J-ENG', name: 'Engineer' },
  { id: 'J-ACC', name: 'Accountant' },
];
export const SETTINGS = {
  uniqueAttributes: ['employeeId'],
  accountHomePage: HR,
  organisationAttribute: 'positionNumber',
  jobAttribute: 'jobCode',
};

/** A tenant with the settings, positions, jobs and activities of the assignment tests. */
export async function givenLearningTenant(ctx: TestContext): Promise<GivenTenant> {
  const tenant = await ctx.given.tenant();
  const r = requests(ctx);
  await r.putSettings(tenant, SETTINGS);
  await r.importOrganisation(tenant, ORGANISATION);
  await r.importJobs(tenant, JOBS);
  const registered = await r.call('PUT', '/api/activities', tenant.headers, [
    { id: COURSE_A, definition: { name: { en: 'A' } }, launchUrl: LAUNCH_URL },
    { id: COURSE_B, definition: { name: { en: 'B' } }, requiresSuccess: true },
    { id: MODULE_C, definition: {}, parentId: COURSE_A },
    { id: COURSE_D, definition: {} },
  ]);
  assert.equal(registered.statusCode, 200, registered.body);
  return tenant;
}

/** One statement of the fixture: who did what to which activity, when. */
export interface Fact {
  person: string;
  verb: 'attempted' | 'completed' | 'passed' | 'failed';
  activity: string;
  at: string;
}

export const statementOf = (fact: Fact) => ({
  actor: agentOf(fact.person),
  verb: { id: `${ADL}${fact.verb}` },
  object: { id: fact.activity },
  timestamp: fact.at,
});

export type Status = 'assigned' | 'inProgress' | 'completed' | 'completedLate' | 'overdue';

/**
 * The status of one assigned activity from the fixture's statements, by the rule of the docs: done
 * is the earliest completing statement (completed or passed), or the earliest pass when the
 * activity requires success; then on time or late against the due date; else overdue once the due
 * date has passed; else in progress when any statement counted; else assigned.
 */
export function expectedActivity(
  facts: readonly Fact[],
  person: string,
  activity: string,
  requiresSuccess: boolean,
  dueAt: string | null,
): { status: Status; completedAt?: string } {
  const mine = facts.filter((fact) => fact.person === person && fact.activity === activity);
  const done = mine
    .filter((fact) => (requiresSuccess ? fact.verb === 'passed' : fact.verb === 'completed' || fact.verb === 'passed'))
    .map((fact) => new Date(fact.at).toISOString())
    .sort()[0];
  if (done !== undefined) return { status: dueAt === null || done <= dueAt ? 'completed' : 'completedLate', completedAt: done };
  if (dueAt !== null && dueAt < new Date().toISOString()) return { status: 'overdue' };
  return { status: mine.length > 0 ? 'inProgress' : 'assigned' };
}

/** A person's status from their activities': overdue, else all done (late when one is), else started, else assigned. */
export function expectedPerson(statuses: readonly Status[]): Status {
  if (statuses.includes('overdue')) return 'overdue';
  if (statuses.every((status) => status === 'completed' || status === 'completedLate'))
    return statuses.includes('completedLate') ? 'completedLate' : 'completed';
  if (statuses.some((status) => status !== 'assigned')) return 'inProgress';
  return 'assigned';
}

export const NO_COUNTS = { assigned: 0, inProgress: 0, completed: 0, completedLate: 0, overdue: 0 };

/** The counts of `statuses` (one a person). */
export function countOf(statuses: readonly Status[]): Record<Status, number> {
  const counts = { ...NO_COUNTS };
  for (const status of statuses) counts[status] += 1;
  return counts;
}
