import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { issueApiKey } from '../../src/modules/auth/api-keys/api-key.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { basic, PASSWORD } from '../launch/launch-fixtures.js';
import type { TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

export type Json = Record<string, any>;

/**
 * The reports' tenant (docs/learning.md, "Reports"), built through the API: an organisation
 * structure, jobs, people, a registry and statements; and the documented rules over it (the
 * model), from which the tests compute every expected number instead of reading it back.
 */

export const ADL = 'http://adlnet.gov/expapi/verbs/';
export const HOME = 'https://hr.example.com';
export const C1 = 'https://example.com/c1';
export const C2 = 'https://example.com/c2'; // requiresSuccess
export const C3 = 'https://example.com/c3';
export const UNREGISTERED = 'https://example.com/unregistered';
export const REGISTRY = [
  { id: C1, definition: { name: { en: 'Course one' } }, tags: ['mandatory'] },
  { id: C2, definition: { name: { en: 'Course two' } }, tags: ['mandatory'], requiresSuccess: true },
  { id: C3, definition: {}, tags: [] },
];
export const REQUIRES_SUCCESS = new Set([C2]);

/** ROOT > A > A1, ROOT > B > EMPTY. */
export const ORGANISATION = [
  { id: 'ROOT', attributes: { title: 'Root' } },
  { id: 'A', parentId: 'ROOT', attributes: { title: '=HYPERLINK("x")' } },
  { id: 'A1', parentId: 'A', attributes: { title: 'Team, one' } },
  { id: 'B', parentId: 'ROOT', attributes: {} },
  { id: 'EMPTY', parentId: 'B', attributes: {} },
];
export const JOBS = [
  { id: 'J1', name: 'Engineer' },
  { id: 'J2', name: 'Accountant' },
  { id: 'J3', name: 'Idle' },
];

/** The people: employeeId, position, job. E6 has neither; E7's position names no entry. */
export const PEOPLE: Array<{ id: string; position?: string; job?: string }> = [
  { id: 'E1', position: 'A1', job: 'J1' },
  { id: 'E2', position: 'A1', job: 'J2' },
  { id: 'E3', position: 'A', job: 'J1' },
  { id: 'E4', position: 'B', job: 'J2' },
  { id: 'E5', position: 'ROOT', job: 'J1' },
  { id: 'E6' },
  { id: 'E7', position: 'GHOST', job: 'J1' },
];
export const agentOf = (who: string) =>
  who === 'stranger' ? { mbox: 'mailto:stranger@example.com' } : { objectType: 'Agent', account: { homePage: HOME, name: who } };

export interface Event {
  who: string;
  activity: string;
  verb: string;
  timestamp: string;
  result?: Json;
  registration?: string;
  voided?: boolean;
}
export const R1 = '11111111-1111-4111-8111-111111111111';
export const R2 = '22222222-2222-4222-8222-222222222222';

/** What was done; `stranger` is an agent statements name, no person. */
export const EVENTS: Event[] = [
  { who: 'E1', activity: C1, verb: 'initialized', timestamp: '2026-03-02T08:00:00Z' },
  { who: 'E1', activity: C1, verb: 'completed', timestamp: '2026-03-02T09:00:00Z', result: { score: { scaled: 0.8 } } },
  // Completed and failed: C2 needs a pass.
  { who: 'E1', activity: C2, verb: 'completed', timestamp: '2026-03-03T10:00:00Z', result: { success: false, score: { scaled: -0.25 } } },
  { who: 'E2', activity: C2, verb: 'initialized', timestamp: '2026-03-03T11:30:00Z' },
  { who: 'E2', activity: C2, verb: 'passed', timestamp: '2026-03-03T12:00:00Z', result: { success: true, score: { scaled: 0.5 } } },
  // 00:30 at +01:00 is 23:30 UTC the day before.
  { who: 'E3', activity: C1, verb: 'initialized', timestamp: '2026-03-04T00:30:00+01:00' },
  // Two registrations, two completions: one completed pair.
  { who: 'E4', activity: C1, verb: 'initialized', timestamp: '2026-03-05T09:00:00Z', registration: R1 },
  { who: 'E4', activity: C1, verb: 'completed', timestamp: '2026-03-05T10:00:00Z', registration: R1, result: { score: { scaled: 0.6 } } },
  { who: 'E4', activity: C1, verb: 'initialized', timestamp: '2026-03-09T09:59:00Z', registration: R2 },
  { who: 'E4', activity: C1, verb: 'completed', timestamp: '2026-03-09T10:00:00Z', registration: R2, result: { score: { scaled: 0.9 } } },
  { who: 'E5', activity: C3, verb: 'launched', timestamp: '2026-03-10T09:00:00Z' },
  { who: 'E5', activity: C3, verb: 'completed', timestamp: '2026-03-10T10:00:00Z' },
  { who: 'E7', activity: C1, verb: 'completed', timestamp: '2026-03-02T15:00:00Z' },
  { who: 'stranger', activity: C1, verb: 'completed', timestamp: '2026-03-02T16:00:00Z', result: { score: { scaled: 0.1 } } },
  { who: 'E1', activity: UNREGISTERED, verb: 'completed', timestamp: '2026-03-06T10:00:00Z' },
  // Voided by the fixture: counts nowhere.
  { who: 'E2', activity: C1, verb: 'completed', timestamp: '2026-03-04T10:00:00Z', voided: true },
];

// ---------------------------------------------------------------------------------------------
// The model: the documented rules, over the fixture

export const completes = (event: Event) =>
  event.verb === 'completed' || event.verb === 'passed' || event.result?.completion === true || event.result?.success === true;
export const passes = (event: Event) => event.verb === 'passed' || event.result?.success === true;
export const at = (event: Event) => Date.parse(event.timestamp);

export interface ModelRecord {
  who: string;
  activity: string;
  firstAt: number;
  completedAt?: number;
  passedAt?: number;
  scaled?: number;
}

export function modelRecords(events: Event[]): ModelRecord[] {
  const byKey = new Map<string, Event[]>();
  for (const event of events.filter((e) => !e.voided)) {
    const key = [event.who, event.activity, event.registration ?? ''].join(' ');
    byKey.set(key, [...(byKey.get(key) ?? []), event]);
  }
  return [...byKey.values()].map((list) => {
    const completing = list.filter(completes).map(at);
    const passing = list.filter(passes).map(at);
    const scored = list.filter((e) => e.result?.score?.scaled !== undefined).sort((a, b) => at(b) - at(a));
    return {
      who: list[0].who,
      activity: list[0].activity,
      firstAt: Math.min(...list.map(at)),
      completedAt: completing.length ? Math.min(...completing) : undefined,
      passedAt: passing.length ? Math.min(...passing) : undefined,
      scaled: scored[0]?.result?.score.scaled,
    };
  });
}
export const evidence = (record: ModelRecord) => (REQUIRES_SUCCESS.has(record.activity) ? record.passedAt : record.completedAt);

/** The entries at or below `root`. */
export function subtree(root: string): Set<string> {
  const below = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of ORGANISATION) {
      if (entry.parentId !== undefined && below.has(entry.parentId) && !below.has(entry.id)) {
        below.add(entry.id);
        grew = true;
      }
    }
  }
  return below;
}

export function selectedPeople(filters: { organisationId?: string; jobId?: string }): string[] {
  const inTree = filters.organisationId === undefined ? undefined : subtree(filters.organisationId);
  return PEOPLE.filter(
    (p) =>
      (inTree === undefined || (p.position !== undefined && inTree.has(p.position))) &&
      (filters.jobId === undefined || p.job === filters.jobId),
  ).map((p) => p.id);
}

export function completedPairs(people: string[], activities: string[], records: ModelRecord[]): Set<string> {
  return new Set(
    records
      .filter((r) => people.includes(r.who) && activities.includes(r.activity) && evidence(r) !== undefined)
      .map((r) => `${r.who} ${r.activity}`),
  );
}

export const rate = (completed: number, people: number, activities: number) =>
  people * activities === 0 ? null : completed / (people * activities);

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return (sorted[Math.floor(middle)] + sorted[Math.ceil(middle)]) / 2;
}

// ---------------------------------------------------------------------------------------------
// Building the tenant

export const json = (res: { statusCode: number; body: string; json(): unknown }, status = 200) => {
  assert.equal(res.statusCode, status, res.body);
  return res.json() as Json;
};

export function statementOf(event: Event, id = randomUUID()): Json {
  return {
    id,
    actor: agentOf(event.who),
    verb: { id: `${ADL}${event.verb}` },
    object: { id: event.activity },
    timestamp: event.timestamp,
    ...(event.result ? { result: event.result } : {}),
    ...(event.registration ? { context: { registration: event.registration } } : {}),
  };
}

export async function givenReportTenant(ctx: TestContext): Promise<GivenTenant> {
  const tenant = await ctx.given.tenant();
  const send = (method: 'PUT' | 'POST', url: string, payload: unknown) =>
    ctx.app.inject({ method, url, headers: tenant.headers, payload: payload as object });
  json(
    await send('PUT', '/api/settings', {
      uniqueAttributes: ['employeeId'],
      accountHomePage: HOME,
      organisationAttribute: 'positionNumber',
      jobAttribute: 'jobCode',
    }),
  );
  assert.equal((await send('PUT', '/api/import/organisation', ORGANISATION)).statusCode, 204);
  assert.equal(
    (
      await send(
        'PUT',
        '/api/import/jobs',
        JOBS.map((job) => ({ ...job, competencies: [] })),
      )
    ).statusCode,
    204,
  );
  const imported = json(
    await send('POST', '/api/import/users', {
      users: PEOPLE.map((p) => ({
        name: `Person ${p.id}`,
        attributes: { employeeId: p.id, ...(p.position ? { positionNumber: p.position } : {}), ...(p.job ? { jobCode: p.job } : {}) },
      })),
    }),
  );
  assert.equal(imported.new, PEOPLE.length);
  json(await send('PUT', '/api/activities', REGISTRY));
  const ids = EVENTS.map(() => randomUUID());
  const stored = await ctx.app.inject({
    method: 'POST',
    url: '/xapi/statements',
    headers: tenant.xapi,
    payload: EVENTS.map((event, index) => statementOf(event, ids[index])),
  });
  json(stored);
  const voiding = EVENTS.flatMap((event, index) =>
    event.voided
      ? [{ actor: agentOf('stranger'), verb: { id: `${ADL}voided` }, object: { objectType: 'StatementRef', id: ids[index] } }]
      : [],
  );
  json(await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: voiding }));
  return tenant;
}

export const report = async (
  ctx: TestContext,
  tenant: GivenTenant,
  path: string,
  query: Record<string, string> = {},
  headers = tenant.headers,
) => ctx.app.inject({ method: 'GET', url: `/api/reports/${path}?${new URLSearchParams(query)}`, headers });

/** Headers of an API key of `tenant` limited to the organisation entry `scope` (docs/learning.md, "Scoped credentials"). */
export async function scopedKey(ctx: TestContext, tenant: GivenTenant, scope: string): Promise<Record<string, string>> {
  const record = (await new TenancyService(ctx.db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
  const { key, secret } = await issueApiKey(ctx.db, record, scope);
  return { authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`, 'x-svc-tenant': tenant.name };
}

/** Whom a principal limited to `scope` reaches: the people placed in it or below it. */
export const peopleInScope = (scope: string): Set<string> => new Set(selectedPeople({ organisationId: scope }));

/** A learner credential of `who` in `tenant` (POST /api/auth/basic), as the headers that send it. */
export async function learnerHeaders(ctx: TestContext, tenant: GivenTenant, who: string): Promise<Record<string, string>> {
  const username = `u-${randomBytes(6).toString('hex')}`;
  json(
    await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: tenant.headers,
      payload: { username, password: PASSWORD, data: { actor: agentOf(who) } },
    }),
    201,
  );
  return { authorization: basic(username, PASSWORD), 'x-svc-tenant': tenant.name };
}

/** How a completion report by unit or by job reads its figures for `query`: the kept counts, unless a filter needs a recount (docs/learning.md, "Counts kept as the writes happen"). */
export const countsRead = (query: Record<string, string | undefined>) =>
  query.tag !== undefined || query.activityId !== undefined ? 'recounted' : 'kept';
