import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import {
  actorIdOf,
  ADL,
  agentOf,
  COURSE_A,
  COURSE_B,
  COURSE_D,
  countOf,
  expectedActivity,
  expectedPerson,
  type Fact,
  FUTURE_DUE,
  givenLearningTenant,
  HR,
  type Json,
  ORGANISATION,
  PAST_DUE,
  requests,
  SETTINGS,
  type Status,
  statementOf,
  user,
  JOBS,
} from './assignment-fixtures.js';

describeEachBackend('Learning assignments', (ctx) => {
  const r = requests(ctx);

  /** `{actorId: [activity statuses…]}` of a people page, for comparing with the expected ones. */
  const byPerson = (page: Json) =>
    Object.fromEntries(
      (page.people as Json[]).map((person) => [
        person.actorId,
        { status: person.status, activities: person.activities.map((a: Json) => [a.activityId, a.status, a.completedAt]) },
      ]),
    );

  it('statuses come from the completion records: on time, late, overdue, in progress, assigned, requiresSuccess; counts and the filtered people list', async () => {
    const tenant = await givenLearningTenant(ctx);
    const people = ['E1', 'E2', 'E3', 'E4', 'E5', 'E6'];
    await r.importUsers(
      tenant,
      people.map((id) => user(id)),
    );
    // Fixed timestamps: the due date of the first assignment lies between some of them.
    const facts: Fact[] = [
      { person: 'E1', verb: 'completed', activity: COURSE_A, at: '2025-12-01T10:00:00Z' },
      { person: 'E1', verb: 'passed', activity: COURSE_B, at: '2025-12-02T10:00:00Z' },
      { person: 'E2', verb: 'completed', activity: COURSE_A, at: '2026-02-01T10:00:00Z' },
      { person: 'E2', verb: 'passed', activity: COURSE_B, at: '2025-11-01T10:00:00+02:00' },
      // B requires success: completing it without passing is not done.
      { person: 'E3', verb: 'completed', activity: COURSE_B, at: '2025-12-01T10:00:00Z' },
      { person: 'E4', verb: 'attempted', activity: COURSE_A, at: '2025-12-01T10:00:00Z' },
      { person: 'E6', verb: 'failed', activity: COURSE_B, at: '2025-12-03T10:00:00Z' },
      { person: 'E6', verb: 'passed', activity: COURSE_B, at: '2026-03-01T10:00:00Z' },
      { person: 'E6', verb: 'completed', activity: COURSE_A, at: '2025-12-05T10:00:00Z' },
      { person: 'E6', verb: 'completed', activity: COURSE_A, at: '2025-12-04T10:00:00Z' },
    ];
    await r.statements(tenant, facts.map(statementOf));

    const expected = (dueAt: string | null, among = people) =>
      Object.fromEntries(
        among.map((person) => {
          const activities = [
            { id: COURSE_A, ...expectedActivity(facts, person, COURSE_A, false, dueAt) },
            { id: COURSE_B, ...expectedActivity(facts, person, COURSE_B, true, dueAt) },
          ];
          return [
            actorIdOf(person),
            {
              status: expectedPerson(activities.map((a) => a.status)),
              activities: activities.map((a) => [a.id, a.status, a.completedAt]),
            },
          ];
        }),
      );

    for (const dueAt of [PAST_DUE, FUTURE_DUE, null]) {
      const created = await r.create(tenant, {
        name: `Due ${dueAt}`,
        activityIds: [COURSE_A, COURSE_B],
        people: { actorIds: people.map(actorIdOf) },
        ...(dueAt === null ? {} : { dueAt }),
      });
      const want = expected(dueAt);
      const wantCounts = countOf(Object.values(want).map((p) => p.status as Status));
      assert.equal(created.members, 6);
      assert.equal(created.dynamic, false);
      assert.equal(created.selection, 'actorIds');
      assert.deepEqual(created.counts, wantCounts, `counts with due date ${dueAt}`);
      assert.equal(created.dueAt, dueAt ?? undefined);
      const page = await r.people(tenant, created.id);
      assert.equal(page.total, 6);
      assert.deepEqual(byPerson(page), want, `statuses with due date ${dueAt}`);
      assert.deepEqual(
        page.people.map((p: Json) => p.actorId),
        people.map(actorIdOf).sort(),
        'in actorId order',
      );
    }

    // With the due date passed: the counts, and the people list filtered by status, paged.
    const [pastDue] = (await r.call('GET', '/api/assignments?limit=1&skip=2', tenant.headers)).json().assignments;
    assert.equal(pastDue.dueAt, PAST_DUE, 'newest first: the first one made is the last');
    const want = expected(PAST_DUE);
    const overdue = Object.entries(want)
      .filter(([, p]) => p.status === 'overdue')
      .map(([actorId]) => actorId)
      .sort();
    assert.ok(overdue.length >= 2, 'the fixture has several overdue people');
    const first = await r.call('GET', `/api/assignments/people?id=${pastDue.id}&status=overdue&limit=2`, tenant.headers);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers['x-total-count'], String(overdue.length));
    assert.deepEqual(
      first.json().people.map((p: Json) => p.actorId),
      overdue.slice(0, 2),
    );
    if (overdue.length > 2) assert.match(String(first.headers.link), /status=overdue&limit=2&skip=2/);
    const late = Object.entries(want).filter(([, p]) => p.status === 'completedLate' || p.status === 'completed');
    const lateOrDone = await r.people(tenant, pastDue.id, '&status=completedLate,completed');
    assert.equal(lateOrDone.total, late.length);
    assert.deepEqual(byPerson(lateOrDone), Object.fromEntries(late));

    // A statement completes E5's activities: the status is right in the answer right after the 200.
    await r.statements(tenant, [
      statementOf({ person: 'E5', verb: 'completed', activity: COURSE_A, at: '2025-12-10T00:00:00Z' }),
      statementOf({ person: 'E5', verb: 'passed', activity: COURSE_B, at: '2026-01-01T00:00:00Z' }),
    ]);
    const e5 = await r.personal(tenant.headers, `?actorId=${encodeURIComponent(actorIdOf('E5'))}`);
    const e5PastDue = e5.find((a) => a.id === pastDue.id)!;
    // Passed exactly at the due date: on time.
    assert.deepEqual(
      [e5PastDue.status, e5PastDue.activities.map((a: Json) => [a.status, a.completedAt])],
      [
        'completed',
        [
          ['completed', '2025-12-10T00:00:00.000Z'],
          ['completed', '2026-01-01T00:00:00.000Z'],
        ],
      ],
    );
    assert.equal(e5.length, 3);
  });

  it('a dynamic assignment takes in people imported or written later who match, and lets go of those who stop matching, keeping what they did', async () => {
    const tenant = await givenLearningTenant(ctx);
    await r.importUsers(tenant, [user('E1', { team: 'red' }), user('E2', { team: 'red' }), user('E3', { team: 'blue' })]);
    // An agent only a statement named is no person an assignment by criteria takes.
    await r.statements(tenant, [
      { actor: { mbox: 'mailto:visitor@example.com' }, verb: { id: `${ADL}attempted` }, object: { id: COURSE_A } },
    ]);
    const red = await r.create(tenant, {
      name: 'Red team',
      activityIds: [COURSE_A, COURSE_B],
      people: { criteria: { field: 'attributes.team', op: 'eq', value: 'red' } },
    });
    assert.deepEqual([red.members, red.dynamic, red.selection], [2, true, 'criteria']);
    const everyone = await r.create(tenant, { name: 'Everyone', activityIds: [COURSE_D], people: { criteria: {} } });
    assert.equal(everyone.members, 3, 'the imported people, not the visitor');

    const members = async (id: string) => (await r.people(tenant, id)).people.map((p: Json) => p.actorId);
    // Imported later (API import), and written later (PUT /api/actors/agents): they join at once.
    await r.importUsers(tenant, [user('E4', { team: 'red' })]);
    const upserted = await r.upsertAgent(tenant, {
      account: { homePage: HR, name: 'E5' },
      extensions: { 'http://localhost/api/ext/agent/attributes': { employeeId: 'E5', team: 'red' } },
    });
    assert.equal(upserted.statusCode, 201, upserted.body);
    assert.deepEqual(await members(red.id), ['E1', 'E2', 'E4', 'E5'].map(actorIdOf));
    assert.equal((await r.item(tenant, everyone.id)).members, 5);

    // E1 completes A, then moves to the blue team: E1 keeps A as completed and loses B. E2 did
    // nothing and moves too: E2 is no longer listed at all.
    await r.statements(tenant, [statementOf({ person: 'E1', verb: 'completed', activity: COURSE_A, at: '2026-02-02T09:00:00Z' })]);
    await r.importUsers(tenant, [user('E1', { team: 'blue' }), user('E2', { team: 'blue' })]);
    const afterMove = await r.people(tenant, red.id);
    assert.deepEqual(
      afterMove.people.map((p: Json) => [
        p.actorId,
        p.status,
        p.leftAt !== undefined,
        p.activities.map((a: Json) => [a.activityId, a.status]),
      ]),
      [
        [actorIdOf('E1'), 'completed', true, [[COURSE_A, 'completed']]],
        [
          actorIdOf('E4'),
          'assigned',
          false,
          [
            [COURSE_A, 'assigned'],
            [COURSE_B, 'assigned'],
          ],
        ],
        [
          actorIdOf('E5'),
          'assigned',
          false,
          [
            [COURSE_A, 'assigned'],
            [COURSE_B, 'assigned'],
          ],
        ],
      ],
    );
    const item = await r.item(tenant, red.id);
    assert.deepEqual([item.members, item.formerMembers], [2, 1]);
    assert.deepEqual(item.counts, { ...countOf(['completed', 'assigned', 'assigned']) });
    const e1 = await r.personal(tenant.headers, `?agent=${encodeURIComponent(JSON.stringify(agentOf('E1')))}`);
    assert.deepEqual(
      e1.map((a) => [a.name, a.status, a.leftAt !== undefined, a.activities.length]),
      [
        ['Everyone', 'assigned', false, 1],
        ['Red team', 'completed', true, 1],
      ],
    );

    // Back to red: E1 rejoins and every activity counts live again.
    await r.importUsers(tenant, [user('E1', { team: 'red' })]);
    const back = (await r.people(tenant, red.id)).people.find((p: Json) => p.actorId === actorIdOf('E1'));
    assert.equal(back.leftAt, undefined);
    assert.deepEqual([back.status, back.activities.map((a: Json) => a.status)], ['inProgress', ['completed', 'assigned']]);
    // An attribute change by PUT /api/actors/agents counts the same: E5 leaves, having done nothing.
    const moved = await r.upsertAgent(tenant, {
      account: { homePage: HR, name: 'E5' },
      extensions: { 'http://localhost/api/ext/agent/attributes': { employeeId: 'E5', team: 'green' } },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.deepEqual(await members(red.id), ['E1', 'E4'].map(actorIdOf));
  });

  it('a former member keeps what was done at their last leaving, of the activities still assigned', async () => {
    const tenant = await givenLearningTenant(ctx);
    await r.importUsers(tenant, [user('E1', { team: 'red' }), user('E2', { team: 'red' })]);
    const red = await r.create(tenant, {
      name: 'Red',
      activityIds: [COURSE_A, COURSE_D],
      people: { criteria: { field: 'attributes.team', op: 'eq', value: 'red' } },
    });
    const [completedA] = (
      await r.statements(tenant, [
        statementOf({ person: 'E1', verb: 'completed', activity: COURSE_A, at: '2026-04-01T00:00:00Z' }),
        statementOf({ person: 'E1', verb: 'completed', activity: COURSE_D, at: '2026-04-02T00:00:00Z' }),
      ])
    ).json() as string[];
    const e1 = async () => (await r.people(tenant, red.id)).people.find((p: Json) => p.actorId === actorIdOf('E1'));
    const shown = (person: Json | undefined) =>
      person && [person.status, person.leftAt !== undefined, person.activities.map((a: Json) => [a.activityId, a.status, a.completedAt])];

    await r.importUsers(tenant, [user('E1', { team: 'blue' })]);
    assert.deepEqual(shown(await e1()), [
      'completed',
      true,
      [
        [COURSE_A, 'completed', '2026-04-01T00:00:00.000Z'],
        [COURSE_D, 'completed', '2026-04-02T00:00:00.000Z'],
      ],
    ]);
    // D is no longer assigned: E1 keeps A only, and B, new, is not E1's to do.
    const replaced = await r.call('PUT', `/api/assignments/item?id=${red.id}`, tenant.headers, {
      name: 'Red',
      activityIds: [COURSE_A, COURSE_B],
      people: { criteria: { field: 'attributes.team', op: 'eq', value: 'red' } },
    });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.deepEqual([replaced.json().members, replaced.json().formerMembers], [1, 1]);
    assert.deepEqual(shown(await e1()), ['completed', true, [[COURSE_A, 'completed', '2026-04-01T00:00:00.000Z']]]);

    // Back, A voided, gone again: nothing was done at this leaving, so nothing is kept.
    await r.importUsers(tenant, [user('E1', { team: 'red' })]);
    assert.deepEqual(shown(await e1()), [
      'inProgress',
      false,
      [
        [COURSE_A, 'completed', '2026-04-01T00:00:00.000Z'],
        [COURSE_B, 'assigned', undefined],
      ],
    ]);
    await r.statements(tenant, [
      { actor: agentOf('E2'), verb: { id: `${ADL}voided` }, object: { objectType: 'StatementRef', id: completedA } },
    ]);
    await r.importUsers(tenant, [user('E1', { team: 'blue' })]);
    assert.equal(await e1(), undefined);
    const item = await r.item(tenant, red.id);
    assert.deepEqual([item.members, item.formerMembers, item.counts], [1, 0, { ...countOf(['assigned']) }]);
    await r.importUsers(tenant, [user('E1', { team: 'red' })]);
    assert.deepEqual(shown(await e1()), [
      'assigned',
      false,
      [
        [COURSE_A, 'assigned', undefined],
        [COURSE_B, 'assigned', undefined],
      ],
    ]);
  });

  it('an organisation subtree and a job follow re-imports of the organisation and the jobs, and the settings', async () => {
    const tenant = await givenLearningTenant(ctx);
    await r.importUsers(tenant, [
      user('E1', { positionNumber: 'DEV1', jobCode: 'J-ENG' }),
      user('E2', { positionNumber: 'CTO', jobCode: 'J-ENG' }),
      user('E3', { positionNumber: 'CFO', jobCode: 'J-ACC' }),
      user('E4', { positionNumber: 'CEO' }),
    ]);
    const cto = await r.create(tenant, { name: 'Under the CTO', activityIds: [COURSE_A], people: { organisationId: 'CTO' } });
    const engineers = await r.create(tenant, { name: 'Engineers', activityIds: [COURSE_A], people: { jobId: 'J-ENG' } });
    assert.deepEqual(cto.people, { organisationId: 'CTO' });
    const members = async (id: string) => (await r.people(tenant, id)).people.map((p: Json) => [p.actorId, p.leftAt !== undefined]);
    assert.deepEqual(await members(cto.id), [
      [actorIdOf('E1'), false],
      [actorIdOf('E2'), false],
    ]);
    assert.deepEqual(await members(engineers.id), [
      [actorIdOf('E1'), false],
      [actorIdOf('E2'), false],
    ]);
    await r.statements(tenant, [statementOf({ person: 'E2', verb: 'completed', activity: COURSE_A, at: '2026-03-03T00:00:00Z' })]);

    // The CFO moves under the CTO (and DEV1 under the CFO, still below the CTO): E3 joins.
    const moved = ORGANISATION.map((entry) =>
      entry.id === 'DEV1' ? { ...entry, parentId: 'CFO' } : entry.id === 'CFO' ? { ...entry, parentId: 'CTO' } : entry,
    );
    await r.importOrganisation(tenant, moved);
    assert.deepEqual(await members(cto.id), [
      [actorIdOf('E1'), false],
      [actorIdOf('E2'), false],
      [actorIdOf('E3'), false],
    ]);
    // The CFO back under the CEO, DEV1 still under it: E1 and E3 leave, having done nothing.
    await r.importOrganisation(
      tenant,
      ORGANISATION.map((entry) => (entry.id === 'DEV1' ? { ...entry, parentId: 'CFO' } : entry)),
    );
    assert.deepEqual(await members(cto.id), [[actorIdOf('E2'), false]]);
    await r.importOrganisation(tenant, ORGANISATION);
    assert.deepEqual(await members(cto.id), [
      [actorIdOf('E1'), false],
      [actorIdOf('E2'), false],
    ]);

    // The jobs lose J-ENG: both engineers leave, E2 keeping the course done; J-ENG back, both return.
    await r.importJobs(
      tenant,
      JOBS.filter((job) => job.id !== 'J-ENG'),
    );
    assert.deepEqual(await members(engineers.id), [[actorIdOf('E2'), true]]);
    await r.importJobs(tenant, JOBS);
    assert.deepEqual(await members(engineers.id), [
      [actorIdOf('E1'), false],
      [actorIdOf('E2'), false],
    ]);

    // The settings: without jobAttribute nobody is linked to a job; with it again, they are.
    await r.putSettings(tenant, { ...SETTINGS, jobAttribute: null });
    assert.deepEqual(await members(engineers.id), [[actorIdOf('E2'), true]]);
    assert.equal((await r.item(tenant, cto.id)).members, 2, 'the organisation link stays');
    await r.putSettings(tenant, SETTINGS);
    assert.equal((await r.item(tenant, engineers.id)).members, 2);
  });

  it('replaces an assignment (members looked at again, leavers keeping what they did of the activities still assigned) and deletes one', async () => {
    const tenant = await givenLearningTenant(ctx);
    await r.importUsers(tenant, [user('E1', { positionNumber: 'DEV1' }), user('E2', { positionNumber: 'CFO' }), user('E3')]);
    await r.statements(tenant, [
      statementOf({ person: 'E1', verb: 'completed', activity: COURSE_A, at: '2026-01-05T00:00:00Z' }),
      statementOf({ person: 'E1', verb: 'passed', activity: COURSE_B, at: '2026-01-06T00:00:00Z' }),
      statementOf({ person: 'E2', verb: 'completed', activity: COURSE_D, at: '2026-01-07T00:00:00Z' }),
    ]);
    const created = await r.create(tenant, {
      name: 'Static',
      activityIds: [COURSE_A, COURSE_B],
      people: { actorIds: [actorIdOf('E1'), actorIdOf('E3')] },
      dueAt: '2026-01-05T00:00:00Z',
    });
    assert.deepEqual(created.counts, { ...countOf(['completedLate', 'overdue']) });

    const replaced = await r.call('PUT', `/api/assignments/item?id=${created.id}`, tenant.headers, {
      name: 'By organisation',
      activityIds: [COURSE_B, COURSE_D],
      people: { organisationId: 'CFO' },
    });
    assert.equal(replaced.statusCode, 200, replaced.body);
    const body = replaced.json();
    assert.deepEqual(
      [body.name, body.activityIds, body.people, body.dueAt, body.dynamic, body.members, body.formerMembers],
      ['By organisation', [COURSE_B, COURSE_D], { organisationId: 'CFO' }, undefined, true, 1, 1],
    );
    // E1 left keeping B (still assigned, passed; A is no longer); E3 had done nothing: gone; E2 joined.
    const page = await r.people(tenant, created.id);
    assert.deepEqual(
      page.people.map((p: Json) => [p.actorId, p.status, p.leftAt !== undefined, p.activities.map((a: Json) => [a.activityId, a.status])]),
      [
        [actorIdOf('E1'), 'completed', true, [[COURSE_B, 'completed']]],
        [
          actorIdOf('E2'),
          'inProgress',
          false,
          [
            [COURSE_B, 'assigned'],
            [COURSE_D, 'completed'],
          ],
        ],
      ],
    );
    assert.deepEqual(body.counts, { ...countOf(['completed', 'inProgress']) });

    const deleted = await r.call('DELETE', `/api/assignments/item?id=${created.id}`, tenant.headers);
    assert.equal(deleted.statusCode, 204, deleted.body);
    for (const [method, url] of [
      ['GET', `/api/assignments/item?id=${created.id}`],
      ['DELETE', `/api/assignments/item?id=${created.id}`],
      ['GET', `/api/assignments/people?id=${created.id}`],
    ]) {
      const res = await r.call(method!, url!, tenant.headers);
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.equal(res.json().code, 'assignments.not_found');
    }
    assert.deepEqual(await r.personal(tenant.headers, `?actorId=${encodeURIComponent(actorIdOf('E1'))}`), []);
    const gone = await r.call('PUT', `/api/assignments/item?id=${created.id}`, tenant.headers, {
      name: 'x',
      activityIds: [COURSE_A],
      people: { jobId: 'J-ENG' },
    });
    assert.equal(gone.statusCode, 404);
    const listed = await r.call('GET', '/api/assignments', tenant.headers);
    assert.deepEqual([listed.json(), listed.headers['x-total-count']], [{ assignments: [], total: 0 }, '0']);
  });
});
