import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import {
  actorIdOf,
  ADL,
  agentOf,
  COURSE_A,
  COURSE_B,
  COURSE_D,
  FUTURE_DUE,
  givenLearningTenant,
  type Headers,
  type Json,
  MODULE_C,
  PAST_DUE,
  requests,
  statementOf,
  user,
} from './assignment-fixtures.js';

const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
const PASSWORD = 'a learner password';

describeEachBackend('Learning assignments: who may read and write, and hostile input', (ctx) => {
  const r = requests(ctx);

  /** A learner credential of `employeeId`'s person. */
  const learnerOf = async (tenant: GivenTenant, employeeId: string): Promise<{ username: string; headers: Headers }> => {
    const username = `learner-${employeeId}-${randomUUID().slice(0, 8)}`;
    const created = await r.call('POST', '/api/auth/basic', tenant.headers, {
      username,
      password: PASSWORD,
      data: { actor: agentOf(employeeId) },
    });
    assert.equal(created.statusCode, 201, created.body);
    return { username, headers: { authorization: basic(username, PASSWORD), 'x-svc-tenant': tenant.name } };
  };

  const every = (id: string) => [
    ['POST', '/api/assignments'],
    ['GET', '/api/assignments'],
    ['GET', `/api/assignments/item?id=${id}`],
    ['PUT', `/api/assignments/item?id=${id}`],
    ['DELETE', `/api/assignments/item?id=${id}`],
    ['GET', `/api/assignments/people?id=${id}`],
  ];
  const validBody = { name: 'Valid', activityIds: [COURSE_A], people: { criteria: {} } };

  it('refuses another tenant’s credential everywhere, and finds nothing of another tenant under its own', async () => {
    const tenant = await givenLearningTenant(ctx);
    const other = await givenLearningTenant(ctx);
    await r.importUsers(tenant, [user('E1')]);
    await r.importUsers(other, [user('E1')]);
    const mine = await r.create(tenant, { name: 'Mine', activityIds: [COURSE_A], people: { actorIds: [actorIdOf('E1')] } });

    for (const [method, url] of [...every(mine.id), ['GET', `/api/actors/assignments?actorId=${encodeURIComponent(actorIdOf('E1'))}`]]) {
      // Another tenant's key naming this tenant: 401. No credential: 401.
      for (const headers of [{ ...other.headers, 'x-svc-tenant': tenant.name }, { 'x-svc-tenant': tenant.name }]) {
        const res = await r.call(method!, url!, headers, method === 'POST' || method === 'PUT' ? validBody : undefined);
        assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
      }
    }
    // Under its own name, the other tenant has no such assignment, and its E1 none of it.
    for (const [method, url] of every(mine.id).filter(([, url]) => url!.includes('?id='))) {
      const res = await r.call(method!, url!, other.headers, method === 'PUT' ? validBody : undefined);
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
    }
    assert.deepEqual((await r.call('GET', '/api/assignments', other.headers)).json(), { assignments: [], total: 0 });
    assert.deepEqual(await r.personal(other.headers, `?actorId=${encodeURIComponent(actorIdOf('E1'))}`), []);
    // And its own actors and activities are not this tenant's: an assignment there names them as unknown.
    const foreign = await r.call('POST', '/api/assignments', other.headers, {
      name: 'x',
      activityIds: ['https://example.com/only-mine'],
      people: { actorIds: [actorIdOf('E1')] },
    });
    assert.equal(foreign.json().code, 'assignments.unknown_activities');
    assert.equal((await r.item(tenant, mine.id)).members, 1, 'still there, untouched');
  });

  it('a learner credential reads its own assignments only, and none of the tenant-wide routes', async () => {
    const tenant = await givenLearningTenant(ctx);
    await r.importUsers(tenant, [user('E1'), user('E2')]);
    const made = await r.create(tenant, {
      name: 'Both',
      activityIds: [COURSE_A],
      people: { actorIds: [actorIdOf('E1'), actorIdOf('E2')] },
      dueAt: FUTURE_DUE,
    });
    const learner = await learnerOf(tenant, 'E1');
    // Completing the assigned course with its own credential shows at once.
    await r.statements(tenant, [statementOf({ person: 'E1', verb: 'completed', activity: COURSE_A, at: '2026-05-05T05:05:05Z' })], {
      ...learner.headers,
      'x-experience-api-version': '2.0.0',
    });
    for (const query of [
      '',
      `?actorId=${encodeURIComponent(actorIdOf('E1'))}`,
      `?agent=${encodeURIComponent(JSON.stringify(agentOf('E1')))}`,
    ]) {
      const own = await r.personal(learner.headers, query);
      assert.deepEqual(
        own.map((a) => [a.id, a.status, a.dueAt, a.activities]),
        [
          [
            made.id,
            'completed',
            FUTURE_DUE,
            [{ activityId: COURSE_A, status: 'completed', startedAt: '2026-05-05T05:05:05.000Z', completedAt: '2026-05-05T05:05:05.000Z' }],
          ],
        ],
        query,
      );
    }
    for (const query of [
      `?actorId=${encodeURIComponent(actorIdOf('E2'))}`,
      `?agent=${encodeURIComponent(JSON.stringify(agentOf('E2')))}`,
    ]) {
      const res = await r.call('GET', `/api/actors/assignments${query}`, learner.headers);
      // Not a report of E1's (neither holds a position): as if there were no such person.
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().code, 'actors.not_found');
    }
    for (const [method, url] of every(made.id)) {
      const res = await r.call(method!, url!, learner.headers, method === 'POST' || method === 'PUT' ? validBody : undefined);
      assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
    }
    // An API key must name the person; naming two ways at once is refused.
    const unnamed = await r.call('GET', '/api/actors/assignments', tenant.headers);
    assert.deepEqual(
      [unnamed.statusCode, unnamed.json().code, unnamed.json().details],
      [400, 'learning.invalid_query', { parameter: 'agent' }],
    );
    const both = await r.call(
      'GET',
      `/api/actors/assignments?actorId=${encodeURIComponent(actorIdOf('E1'))}&agent=${encodeURIComponent(JSON.stringify(agentOf('E1')))}`,
      tenant.headers,
    );
    assert.equal(both.statusCode, 400);
    for (const query of ['?actorId=nonsense', '?agent=%7B', '?agent=%7B%7D', '?who=E1']) {
      const res = await r.call('GET', `/api/actors/assignments${query}`, tenant.headers);
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
    }
  });

  it('a launch token reads its own person’s assignments narrowed to its activity and those below it, and its statements show at once', async () => {
    const tenant = await givenLearningTenant(ctx);
    await r.importUsers(tenant, [user('E1'), user('E2')]);
    const wide = await r.create(tenant, {
      name: 'A, its module and D',
      activityIds: [COURSE_D, MODULE_C, COURSE_A],
      people: { actorIds: [actorIdOf('E1'), actorIdOf('E2')] },
      dueAt: PAST_DUE,
    });
    await r.create(tenant, { name: 'D only', activityIds: [COURSE_D], people: { actorIds: [actorIdOf('E1')] } });
    const learner = await learnerOf(tenant, 'E1');
    const launched = await r.call(
      'GET',
      `/api/activities/launch?${new URLSearchParams({ activityId: COURSE_A, auth: basic(learner.username, PASSWORD) })}`,
      { host: `${tenant.name}.localhost:8080` },
    );
    assert.equal(launched.statusCode, 302, launched.body);
    const token = { authorization: new URL(launched.headers.location as string).searchParams.get('auth')!, 'x-svc-tenant': tenant.name };

    const seen = await r.personal(token);
    // The launch's `launched` statement is a record of A: in progress, but overdue (the due date passed).
    assert.deepEqual(
      seen.map((a) => [a.id, a.status, a.activities.map((x: Json) => [x.activityId, x.status])]),
      [
        [
          wide.id,
          'overdue',
          [
            [MODULE_C, 'overdue'],
            [COURSE_A, 'overdue'],
          ],
        ],
      ],
    );
    assert.deepEqual(await r.personal(token, `?actorId=${encodeURIComponent(actorIdOf('E1'))}`), seen);
    const another = await r.call('GET', `/api/actors/assignments?actorId=${encodeURIComponent(actorIdOf('E2'))}`, token);
    assert.equal(another.statusCode, 403);
    for (const [method, url] of every(wide.id)) {
      const res = await r.call(method!, url!, token, method === 'POST' || method === 'PUT' ? validBody : undefined);
      assert.equal(res.statusCode, 403, `${method} ${url}`);
    }

    // The content completes A through the token: completed late, in the answer right after the 200.
    await r.statements(
      tenant,
      [{ actor: agentOf('E1'), verb: { id: `${ADL}completed` }, object: { id: COURSE_A }, timestamp: '2026-02-01T00:00:00Z' }],
      { ...token, 'x-experience-api-version': '2.0.0' },
    );
    const [after] = await r.personal(token);
    assert.deepEqual(after.activities[1], {
      activityId: COURSE_A,
      status: 'completedLate',
      startedAt: after.activities[1].startedAt,
      completedAt: '2026-02-01T00:00:00.000Z',
    });
    // The API key sees all of it.
    const all = await r.personal(tenant.headers, `?actorId=${encodeURIComponent(actorIdOf('E1'))}`);
    assert.deepEqual(
      all.map((a) => [a.name, a.activities.length]),
      [
        ['D only', 1],
        ['A, its module and D', 3],
      ],
    );
  });

  it('answers hostile and malformed input with a 4xx naming the problem, storing nothing', async () => {
    const tenant = await givenLearningTenant(ctx);
    await r.importUsers(tenant, [user('E1')]);
    const post = (body: unknown) => r.call('POST', '/api/assignments', tenant.headers, body);
    const refused = async (body: unknown, code: string, path?: string) => {
      const res = await post(body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 200)}: ${res.body.slice(0, 300)}`);
      assert.equal(res.json().code, code, res.body.slice(0, 300));
      if (path !== undefined)
        assert.ok(
          res.json().details.problems.some((p: Json) => p.path === path),
          `${path} in ${res.body.slice(0, 500)}`,
        );
      return res.json();
    };
    const nest = (depth: number): Json => (depth === 1 ? { field: 'name', op: 'eq', value: 'x' } : { not: nest(depth - 1) });

    // The criteria at their bounds: 8 levels and 100 nodes pass, one more of either is refused with its pointer.
    for (const criteria of [nest(8), { or: Array.from({ length: 99 }, () => ({ field: 'attributes.x', op: 'exists' })) }]) {
      const res = await post({ ...validBody, people: { criteria } });
      assert.equal(res.statusCode, 201, res.body);
    }
    const deep = await refused({ ...validBody, people: { criteria: nest(9) } }, 'assignments.invalid');
    assert.match(deep.details.problems[0].path, /^\/people\/criteria(\/not){8}$/);
    const wide = await refused(
      { ...validBody, people: { criteria: { or: Array.from({ length: 100 }, () => ({ field: 'attributes.x', op: 'exists' })) } } },
      'assignments.invalid',
    );
    assert.equal(wide.details.problems[0].path, '/people/criteria/or/99');
    await refused(
      { ...validBody, people: { criteria: { field: 'colour', op: 'eq', value: 'x' } } },
      'assignments.invalid',
      '/people/criteria/field',
    );
    await refused(
      { ...validBody, people: { criteria: { field: 'name', op: 'regex', value: 'x' } } },
      'assignments.invalid',
      '/people/criteria/op',
    );
    await refused(
      { ...validBody, people: { criteria: { field: 'name', op: 'in', value: Array.from({ length: 1001 }, (_, i) => `n${i}`) } } },
      'assignments.invalid',
      '/people/criteria/value',
    );
    await refused(
      { ...validBody, people: { criteria: { field: 'name', op: 'eq', value: 'a\u0000b' } } },
      'assignments.invalid',
      '/people/criteria/value',
    );

    // The people: exactly one way; the actor ids: bounded, well-formed, each once, known.
    await refused({ ...validBody, people: {} }, 'assignments.invalid', '/people');
    await refused({ ...validBody, people: { criteria: {}, jobId: 'J-ENG' } }, 'assignments.invalid', '/people');
    await refused({ ...validBody, people: { team: 'red' } }, 'assignments.invalid', '/people/team');
    await refused({ name: 'x', activityIds: [COURSE_A] }, 'assignments.invalid', '/people');
    const huge = Array.from({ length: 50_001 }, (_, i) => `mbox|mailto:p${i}@example.com`);
    await refused({ ...validBody, people: { actorIds: huge } }, 'assignments.invalid', '/people/actorIds');
    await refused({ ...validBody, people: { actorIds: [] } }, 'assignments.invalid', '/people/actorIds');
    await refused({ ...validBody, people: { actorIds: ['nonsense', 42] } }, 'assignments.invalid', '/people/actorIds/1');
    await refused({ ...validBody, people: { actorIds: [actorIdOf('E1'), actorIdOf('E1')] } }, 'assignments.invalid', '/people/actorIds/1');
    const unknownActors = Array.from({ length: 2_000 }, (_, i) => `mbox|mailto:nobody${i}@example.com`);
    const actors = await refused({ ...validBody, people: { actorIds: [actorIdOf('E1'), ...unknownActors] } }, 'assignments.unknown_actors');
    assert.equal(actors.details.count, 2_000);
    assert.deepEqual(actors.details.actorIds, unknownActors.slice(0, 1000), 'named, up to 1,000');
    assert.match(actors.message, /nobody0@example\.com.*and 1997 more/);
    const organisation = await refused({ ...validBody, people: { organisationId: 'NOPE' } }, 'assignments.unknown_organisation');
    assert.equal(organisation.details.organisationId, 'NOPE');
    const job = await refused({ ...validBody, people: { jobId: 'J-NOPE' } }, 'assignments.unknown_job');
    assert.equal(job.details.jobId, 'J-NOPE');
    await refused({ ...validBody, people: { organisationId: 'x'.repeat(256) } }, 'assignments.invalid', '/people/organisationId');

    // The activities: registered, 1 to 1,000, each once.
    const activities = await refused(
      { ...validBody, activityIds: [COURSE_A, 'https://example.com/nope', 'urn:x:nope'] },
      'assignments.unknown_activities',
    );
    assert.deepEqual(activities.details.activityIds, ['https://example.com/nope', 'urn:x:nope']);
    await refused({ ...validBody, activityIds: [COURSE_A, COURSE_B, COURSE_A] }, 'assignments.invalid', '/activityIds/2');
    await refused({ ...validBody, activityIds: [] }, 'assignments.invalid', '/activityIds');
    await refused(
      { ...validBody, activityIds: Array.from({ length: 1001 }, (_, i) => `urn:x:${i}`) },
      'assignments.invalid',
      '/activityIds',
    );
    await refused({ ...validBody, activityIds: [{ id: COURSE_A }] }, 'assignments.invalid', '/activityIds/0');

    // The name and the due date.
    await refused({ ...validBody, name: '' }, 'assignments.invalid', '/name');
    await refused({ ...validBody, name: 'x'.repeat(1001) }, 'assignments.invalid', '/name');
    await refused({ ...validBody, name: '\uD800' }, 'assignments.invalid', '/name');
    for (const dueAt of ['2026-12-31', '2026-12-31T17:00:00', '2026-02-30T00:00:00Z', 'tomorrow', 17]) {
      await refused({ ...validBody, dueAt }, 'assignments.invalid', '/dueAt');
    }
    await refused({ ...validBody, colour: 'red' }, 'assignments.invalid', '/colour');
    for (const body of [[], 'text', null, 42]) {
      const res = await r.call('POST', '/api/assignments', { ...tenant.headers, 'content-type': 'application/json' }, JSON.stringify(body));
      assert.deepEqual([res.statusCode, res.json().code], [400, 'assignments.invalid'], JSON.stringify(body));
    }
    const several = await refused({ name: '', activityIds: [], people: {}, dueAt: 'x' }, 'assignments.invalid');
    assert.deepEqual(
      several.details.problems.map((p: Json) => p.path),
      ['/name', '/activityIds', '/people', '/dueAt'],
    );

    // Only the two bounded criteria above were stored.
    assert.equal((await r.call('GET', '/api/assignments', tenant.headers)).json().total, 2);

    // Queries: ids that are no UUID, unknown parameters, paging out of range, statuses not in the list.
    const made = (await r.call('GET', '/api/assignments?limit=1', tenant.headers)).json().assignments[0];
    for (const url of [
      '/api/assignments/item?id=nope',
      '/api/assignments/item',
      `/api/assignments/item?id=${made.id}&extra=1`,
      '/api/assignments?limit=0',
      '/api/assignments?limit=1001',
      '/api/assignments?skip=-1',
      `/api/assignments/people?id=${made.id}&status=late`,
      `/api/assignments/people?id=${made.id}&status=completed,`,
      `/api/assignments/people?id=${made.id}&limit=abc`,
      '/api/assignments/people',
    ]) {
      const res = await r.call('GET', url, tenant.headers);
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    }
    const status = await r.call('GET', `/api/assignments/people?id=${made.id}&status=late`, tenant.headers);
    assert.equal(status.json().code, 'assignments.invalid_query');
    assert.match(status.json().message, /"late"/);
    for (const url of [`/api/assignments/item?id=nope`, `/api/assignments/item?id=${made.id}&x=1`]) {
      const res = await r.call('PUT', url, tenant.headers, validBody);
      assert.equal(res.statusCode, 400, `PUT ${url}: ${res.body}`);
      assert.equal(res.json().code, 'request.invalid');
    }
    const unknownId = await r.call('GET', `/api/assignments/item?id=${randomUUID()}`, tenant.headers);
    assert.equal(unknownId.statusCode, 404);
    const notJson = await r.call('POST', '/api/assignments', { ...tenant.headers, 'content-type': 'application/json' }, '{"name":');
    assert.equal(notJson.statusCode, 400);
    const text = await r.call('POST', '/api/assignments', { ...tenant.headers, 'content-type': 'application/xml' }, '<x/>');
    assert.equal(text.statusCode, 415);
  });
});
