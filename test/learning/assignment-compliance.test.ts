import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import {
  C1,
  C2,
  C3,
  type Event,
  EVENTS,
  evidence,
  givenReportTenant,
  HOME,
  type Json,
  json,
  type ModelRecord,
  modelRecords,
  ORGANISATION,
  PEOPLE,
  peopleInScope,
  report,
  scopedKey,
  selectedPeople,
  statementOf,
  subtree,
  learnerHeaders,
} from './report-fixtures.js';

/**
 * GET /api/reports/assignment-compliance (docs/learning.md, "Reports"): the (person, assignment
 * activity) pairs of the assignments' members per organisation entry, by compliance, on the
 * reports' tenant (report-fixtures.ts: statements of March 2026) with three assignments. Every
 * expected number is computed here from the fixture by the documented status rules, not read back.
 */

const COMPLIANCE = ['onTime', 'late', 'overdue', 'inProgress', 'notStarted'] as const;
type Compliance = (typeof COMPLIANCE)[number];

/** Due before most of the fixture's completions (March 2026, long past): on time, late and overdue. */
const PAST = '2026-03-04T00:00:00.000Z';
/** Far ahead: on time, in progress and not started. */
const FUTURE = '2999-01-01T00:00:00.000Z';

interface ModelAssignment {
  key: 'past' | 'future' | 'undated';
  body: Json;
  members: string[];
  activities: string[];
  due?: string;
}

/** Everyone placed under ROOT, due in the past; the engineers (J1), due ahead; E4 alone, no due date. */
const ASSIGNMENTS: ModelAssignment[] = [
  {
    key: 'past',
    body: { people: { organisationId: 'ROOT' } },
    members: selectedPeople({ organisationId: 'ROOT' }),
    activities: [C1, C2, C3],
    due: PAST,
  },
  { key: 'future', body: { people: { jobId: 'J1' } }, members: selectedPeople({ jobId: 'J1' }), activities: [C1, C3], due: FUTURE },
  { key: 'undated', body: { people: { actorIds: [`account|${HOME}|E4`] } }, members: ['E4'], activities: [C1, C3] },
];

/** A pair's compliance from the person's records of the activity, by the documented rules. */
function complianceOf(records: ModelRecord[], who: string, activity: string, due: string | undefined): Compliance {
  const mine = records.filter((r) => r.who === who && r.activity === activity);
  const done = mine.map(evidence).filter((value): value is number => value !== undefined);
  if (done.length > 0) return due === undefined || Math.min(...done) <= Date.parse(due) ? 'onTime' : 'late';
  if (due !== undefined && Date.parse(due) < Date.now()) return 'overdue';
  return mine.length > 0 ? 'inProgress' : 'notStarted';
}

interface Query {
  organisationId?: string;
  jobId?: string;
  activityId?: string;
  assignmentId?: string;
}

/** The whole answer for `query`, over `events`, for a principal limited to `scope` (undefined: the whole tenant). */
function expected(events: Event[], ids: Map<string, string>, query: Query, scope?: string) {
  const records = modelRecords(events);
  const people = selectedPeople(query).filter((id) => scope === undefined || peopleInScope(scope).has(id));
  const direct = new Map<string, Record<Compliance, number>>();
  for (const assignment of ASSIGNMENTS) {
    if (query.assignmentId !== undefined && ids.get(assignment.key) !== query.assignmentId) continue;
    for (const who of assignment.members.filter((id) => people.includes(id))) {
      const position = PEOPLE.find((p) => p.id === who)?.position ?? '';
      for (const activity of assignment.activities.filter((id) => query.activityId === undefined || id === query.activityId)) {
        const counts = direct.get(position) ?? { onTime: 0, late: 0, overdue: 0, inProgress: 0, notStarted: 0 };
        counts[complianceOf(records, who, activity, assignment.due)] += 1;
        direct.set(position, counts);
      }
    }
  }
  const figures = (units: Set<string>) => {
    const counts = { onTime: 0, late: 0, overdue: 0, inProgress: 0, notStarted: 0 };
    for (const unit of units) for (const word of COMPLIANCE) counts[word] += direct.get(unit)?.[word] ?? 0;
    const total = COMPLIANCE.reduce((sum, word) => sum + counts[word], 0);
    return { ...counts, total, complianceRate: total === 0 ? null : counts.onTime / total };
  };
  const shown = query.organisationId ?? scope;
  return {
    // Kept per (entry, job, assignment): over every activity of an assignment, so activityId recounts.
    counts: query.activityId === undefined ? 'kept' : 'recounted',
    units: ORGANISATION.filter((entry) => shown === undefined || subtree(shown).has(entry.id)).map((entry) => ({
      id: entry.id,
      parentId: entry.parentId ?? null,
      direct: figures(new Set([entry.id])),
      subtree: figures(subtree(entry.id)),
      attributes: entry.attributes,
    })),
  };
}

const compliance = (ctx: Parameters<typeof report>[0], tenant: GivenTenant, query: Query = {}, headers = tenant.headers) =>
  report(ctx, tenant, 'assignment-compliance', query as Record<string, string>, headers);

async function givenAssignments(ctx: Parameters<typeof report>[0], tenant: GivenTenant): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const assignment of ASSIGNMENTS) {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/assignments',
      headers: tenant.headers,
      payload: { name: assignment.key, activityIds: assignment.activities, dueAt: assignment.due ?? null, ...assignment.body },
    });
    ids.set(assignment.key, json(created, 201).id);
  }
  return ids;
}

describeEachBackend('GET /api/reports/assignment-compliance', (ctx) => {
  let tenant: GivenTenant;
  let ids: Map<string, string>;

  it('counts each member’s assigned pairs per entry, directly and rolled up: on time, late, overdue, in progress, not started', async () => {
    tenant = await givenReportTenant(ctx);
    ids = await givenAssignments(ctx, tenant);
    const body: Json = json(await compliance(ctx, tenant));
    assert.deepEqual({ ...body }, expected(EVENTS, ids, {}));
    // Every compliance is there somewhere.
    const root = body.units[0];
    for (const word of COMPLIANCE) assert.ok(root.subtree[word] > 0, word);
    // By hand, A1 (E1, E2) in the past assignment: C1 by E1 on 2026-03-02 (on time), C2 passed by E2 on
    // 03-03 (on time), the other four overdue (E1's C2 failed: it needs a pass; E2's C1 was voided); in
    // the future one E1 (J1): C1 on time, C3 not started. B holds E4: C1 done 03-05, after the due date (late), in the undated
    // one on time; C2 and C3 overdue, C3 not started.
    const a1 = body.units.find((u: Json) => u.id === 'A1');
    assert.deepEqual(a1.direct, { onTime: 3, late: 0, overdue: 4, inProgress: 0, notStarted: 1, total: 8, complianceRate: 3 / 8 });
    const b = body.units.find((u: Json) => u.id === 'B');
    assert.deepEqual(b.direct, { onTime: 1, late: 1, overdue: 2, inProgress: 0, notStarted: 1, total: 5, complianceRate: 1 / 5 });
    // E3 (A) only initialized C1: in progress in the future assignment, overdue in the past one.
    assert.equal(body.units.find((u: Json) => u.id === 'A').direct.inProgress, 1);
    assert.equal(body.units.find((u: Json) => u.id === 'EMPTY')?.subtree.complianceRate, null);
  });

  it('filters by organisation subtree, job, activity and assignment, alone and together', async () => {
    const queries: Query[] = [
      { organisationId: 'A' },
      { organisationId: 'B' },
      { jobId: 'J1' },
      { jobId: 'J2' },
      { activityId: C1 },
      { activityId: C2 },
      { activityId: 'https://example.com/assigned-to-no-one' },
      { assignmentId: ids.get('past') },
      { assignmentId: ids.get('future'), organisationId: 'A' },
      { assignmentId: ids.get('undated'), activityId: C3 },
      { organisationId: 'A', jobId: 'J1', activityId: C1 },
    ];
    for (const query of queries)
      assert.deepEqual(json(await compliance(ctx, tenant, query)), expected(EVENTS, ids, query), JSON.stringify(query));
    // An assignment id in upper case is the same assignment.
    const upper = { assignmentId: (ids.get('past') as string).toUpperCase() };
    assert.deepEqual(json(await compliance(ctx, tenant, upper)), expected(EVENTS, ids, { assignmentId: ids.get('past') }));
  });

  it('is right as soon as a completing statement is acknowledged', async () => {
    const own = await givenReportTenant(ctx);
    const ownIds = await givenAssignments(ctx, own);
    const before = json(await compliance(ctx, own));
    assert.deepEqual(before, expected(EVENTS, ownIds, {}));
    // E3 (A) completes C3 now: late in the past assignment, on time in the future one.
    const now = { who: 'E3', activity: C3, verb: 'completed', timestamp: new Date().toISOString() };
    json(await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: own.xapi, payload: statementOf(now) }));
    const after = json(await compliance(ctx, own));
    assert.deepEqual(after, expected([...EVENTS, now], ownIds, {}));
    const a = (body: Json) => body.units.find((u: Json) => u.id === 'A').direct;
    assert.deepEqual(
      [
        a(after).onTime - a(before).onTime,
        a(after).late - a(before).late,
        a(after).overdue - a(before).overdue,
        a(after).notStarted - a(before).notStarted,
      ],
      [1, 1, -1, -1],
    );
  });

  it('answers CSV: a row per entry, the figures flattened', async () => {
    const res = await compliance(ctx, tenant, { organisationId: 'A' }, { ...tenant.headers, accept: 'text/csv' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    const fields = [...COMPLIANCE, 'total', 'complianceRate'] as const;
    const cell = (value: number | null) => (value === null ? '' : String(value));
    const { units } = expected(EVENTS, ids, { organisationId: 'A' });
    assert.deepEqual(res.body.split('\r\n'), [
      ['id', 'parentId', ...fields.map((f) => `direct.${f}`), ...fields.map((f) => `subtree.${f}`), 'attributes.title'].join(','),
      ...units.map((u) =>
        [
          u.id,
          u.parentId,
          ...fields.map((f) => cell(u.direct[f])),
          ...fields.map((f) => cell(u.subtree[f])),
          u.id === 'A' ? `"'=HYPERLINK(""x"")"` : '"Team, one"',
        ].join(','),
      ),
      '',
    ]);
  });

  it('narrows to a scoped key’s subtree: its entries only, its people only, an entry outside 404', async () => {
    const keyA = await scopedKey(ctx, tenant, 'A');
    for (const query of [{}, { jobId: 'J1' }, { organisationId: 'A1' }, { assignmentId: ids.get('past') }, { activityId: C1 }] as Query[]) {
      assert.deepEqual(json(await compliance(ctx, tenant, query, keyA)), expected(EVENTS, ids, query, 'A'), JSON.stringify(query));
    }
    assert.deepEqual(
      json(await compliance(ctx, tenant, {}, keyA)).units.map((u: Json) => u.id),
      ['A', 'A1'],
    );
    // E4 (B) is the undated assignment's only member, and it was made for the whole tenant: A's
    // key does not see it (docs/learning.md, "Scoped credentials and assignments"), as if there were none.
    const undated = await compliance(ctx, tenant, { assignmentId: ids.get('undated') }, keyA);
    assert.equal(undated.statusCode, 404, undated.body);
    assert.equal(undated.json().code, 'reports.assignment_not_found');
    // B's key sees it through E4.
    const keyB = await scopedKey(ctx, tenant, 'B');
    const seen = await compliance(ctx, tenant, { assignmentId: ids.get('undated') }, keyB);
    assert.deepEqual(json(seen), expected(EVENTS, ids, { assignmentId: ids.get('undated') }, 'B'));
    for (const outside of ['ROOT', 'B']) {
      const res = await compliance(ctx, tenant, { organisationId: outside }, keyA);
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json().details, { organisationId: outside });
      assert.equal(res.json().code, 'reports.organisation_not_found');
    }
    const csv = await compliance(ctx, tenant, {}, { ...keyA, accept: 'text/csv' });
    assert.deepEqual(
      csv.body
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[0]),
      ['A', 'A1'],
    );
  });

  it('refuses: unknown entry, job or assignment (404), a bad query (400), no credential or another tenant’s (401), a learner (403)', async () => {
    const notFound: Array<[Query, string, Json]> = [
      [{ organisationId: 'NOPE' }, 'reports.organisation_not_found', { organisationId: 'NOPE' }],
      [{ jobId: 'J9' }, 'reports.job_not_found', { jobId: 'J9' }],
      [
        { assignmentId: '00000000-0000-4000-8000-000000000000' },
        'reports.assignment_not_found',
        { assignmentId: '00000000-0000-4000-8000-000000000000' },
      ],
    ];
    for (const [query, code, details] of notFound) {
      const res = await compliance(ctx, tenant, query);
      assert.equal(res.statusCode, 404, JSON.stringify(query));
      assert.equal(res.json().code, code);
      assert.deepEqual(res.json().details, details);
    }
    const other = await ctx.given.tenant();
    assert.equal((await compliance(ctx, other, { assignmentId: ids.get('past') })).statusCode, 404);
    assert.deepEqual(json(await compliance(ctx, other)), { counts: 'kept', units: [] });
    for (const query of [
      { assignmentId: 'not-a-uuid' },
      { colour: 'red' },
      { tag: 'mandatory' },
      { organisationId: '' },
      { activityId: '' },
    ] as Array<Record<string, string>>) {
      const res = await report(ctx, tenant, 'assignment-compliance', query);
      assert.equal(res.statusCode, 400, JSON.stringify(query));
      assert.equal(res.json().code, 'request.invalid');
    }
    assert.equal((await compliance(ctx, tenant, {}, { ...tenant.headers, accept: 'application/xml' })).statusCode, 406);

    const url = '/api/reports/assignment-compliance';
    assert.equal((await ctx.app.inject({ method: 'GET', url, headers: { 'x-svc-tenant': tenant.name } })).statusCode, 401);
    const crossed = await ctx.app.inject({ method: 'GET', url, headers: { ...other.headers, 'x-svc-tenant': tenant.name } });
    assert.equal(crossed.statusCode, 401);
    const learner = await ctx.app.inject({
      method: 'GET',
      url,
      headers: await learnerHeaders(ctx, tenant, 'E1'),
    });
    assert.equal(learner.statusCode, 403);
    assert.equal(learner.json().code, 'auth.forbidden');
  });
});
