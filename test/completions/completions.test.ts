import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { after, before, it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { basic, givenLaunch, PASSWORD, startContentServer } from '../launch/launch-fixtures.js';

type Headers = Record<string, string>;
type Json = Record<string, any>;

const ADL = 'http://adlnet.gov/expapi/verbs/';
const PROGRESS = 'https://w3id.org/xapi/cmi5/result/extensions/progress';
const COURSE = 'http://example.com/course';

const newAgent = () => ({ mbox: `mailto:l-${randomBytes(4).toString('hex')}@example.com` });
const actorIdOf = (agent: { mbox: string }) => `mbox|${agent.mbox}`;

const post = async (ctx: TestContext, tenant: GivenTenant, statements: unknown) => {
  const res = await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: statements as object });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as string[];
};
const statement = (agent: unknown, verb: string, extra: Json = {}) => ({
  actor: agent,
  verb: { id: verb.includes(':') ? verb : `${ADL}${verb}` },
  object: { id: COURSE },
  ...extra,
});
const completions = (ctx: TestContext, headers: Headers, query: Record<string, string>) =>
  ctx.app.inject({ method: 'GET', url: `/api/actors/completions?${new URLSearchParams(query)}`, headers });
const records = async (ctx: TestContext, headers: Headers, query: Record<string, string>) => {
  const res = await completions(ctx, headers, query);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Json[];
};

describeEachBackend('GET /api/actors/completions', (ctx) => {
  it('derives the status from statements: launched, progressed with progress, completed, passed; no downgrade; score and timestamps', async () => {
    const tenant = await ctx.given.tenant();
    const agent = newAgent();
    const query = { actorId: actorIdOf(agent) };
    const [launched] = await post(ctx, tenant, statement(agent, 'launched', { timestamp: '2026-01-01T10:00:00Z' }));
    let [record] = await records(ctx, tenant.headers, query);
    assert.deepEqual(record, {
      actor: agent,
      activityId: COURSE,
      status: 'in-progress',
      firstAt: '2026-01-01T10:00:00.000Z',
      lastAt: '2026-01-01T10:00:00.000Z',
      statementIds: [launched],
    });

    await post(
      ctx,
      tenant,
      statement(agent, 'progressed', { timestamp: '2026-01-01T10:05:00Z', result: { extensions: { [PROGRESS]: 50 } } }),
    );
    [record] = await records(ctx, tenant.headers, query);
    assert.equal(record.status, 'in-progress');
    assert.equal(record.progress, 50);

    await post(ctx, tenant, statement(agent, 'completed', { timestamp: '2026-01-01T10:10:00Z' }));
    assert.equal((await records(ctx, tenant.headers, query))[0].status, 'completed');

    await post(ctx, tenant, statement(agent, 'failed', { timestamp: '2026-01-01T10:20:00Z', result: { score: { raw: 30, max: 100 } } }));
    [record] = await records(ctx, tenant.headers, query);
    assert.equal(record.status, 'failed');
    assert.deepEqual(record.score, { raw: 30, max: 100 });

    const [passed] = await post(
      ctx,
      tenant,
      statement(agent, 'passed', { timestamp: '2026-01-01T10:30:00Z', result: { score: { raw: 90, max: 100 } } }),
    );
    // Later statements of a worse status (and an earlier timestamp) change neither status nor score.
    await post(ctx, tenant, [
      statement(agent, 'failed', { timestamp: '2026-01-01T09:00:00Z', result: { score: { raw: 1 } } }),
      statement(agent, 'initialized', { timestamp: '2026-01-01T11:00:00Z' }),
      statement(agent, 'http://example.com/verbs/experienced', { timestamp: '2026-01-01T12:00:00Z' }),
    ]);
    [record] = await records(ctx, tenant.headers, query);
    assert.equal(record.status, 'passed');
    assert.deepEqual(record.score, { raw: 90, max: 100 });
    assert.equal(record.firstAt, '2026-01-01T09:00:00.000Z');
    assert.equal(record.lastAt, '2026-01-01T11:00:00.000Z');
    assert.equal(record.statementIds.length, 7);
    assert.ok(record.statementIds.includes(passed));

    // result.completion and result.success count under any verb; the registration keeps its own record.
    const registration = randomUUID();
    await post(
      ctx,
      tenant,
      statement(agent, 'http://example.com/verbs/answered', { context: { registration }, result: { completion: true } }),
    );
    const both = await records(ctx, tenant.headers, { agent: JSON.stringify(agent) });
    assert.deepEqual(
      both.map((r) => [r.registration, r.status]),
      [
        [undefined, 'passed'],
        [registration, 'completed'],
      ],
    );
  });

  it('voiding a statement recomputes the record from the others, and removes a record left with none', async () => {
    const tenant = await ctx.given.tenant();
    const agent = newAgent();
    const [launched, passed] = await post(ctx, tenant, [
      statement(agent, 'launched', { timestamp: '2026-01-01T10:00:00Z' }),
      statement(agent, 'passed', { timestamp: '2026-01-01T10:30:00Z', result: { score: { scaled: 0.9 } } }),
    ]);
    const voiding = (id: string) => ({ actor: agent, verb: { id: `${ADL}voided` }, object: { objectType: 'StatementRef', id } });
    await post(ctx, tenant, voiding(passed));
    const [record] = await records(ctx, tenant.headers, { actorId: actorIdOf(agent) });
    assert.equal(record.status, 'in-progress');
    assert.equal(record.score, undefined);
    assert.equal(record.lastAt, '2026-01-01T10:00:00.000Z');
    assert.deepEqual(record.statementIds, [launched]);
    await post(ctx, tenant, voiding(launched));
    assert.deepEqual(await records(ctx, tenant.headers, { actorId: actorIdOf(agent) }), []);

    // A statement stored after its voiding statement counts for nothing.
    const late = randomUUID();
    await post(ctx, tenant, voiding(late));
    await post(ctx, tenant, { ...statement(agent, 'completed'), id: late });
    assert.deepEqual(await records(ctx, tenant.headers, { actorId: actorIdOf(agent) }), []);
  });

  it('completedAt and passedAt: the earliest completing and passing statements, whatever order they arrive in; absent while in progress', async () => {
    const tenant = await ctx.given.tenant();
    const agent = newAgent();
    const query = { actorId: actorIdOf(agent) };
    const times = async () => {
      const [record] = await records(ctx, tenant.headers, query);
      return [record.status, record.completedAt, record.passedAt];
    };
    await post(ctx, tenant, statement(agent, 'launched', { timestamp: '2026-01-01T10:00:00Z' }));
    const [inProgress] = await records(ctx, tenant.headers, query);
    assert.equal('completedAt' in inProgress, false);
    assert.equal('passedAt' in inProgress, false);

    await post(ctx, tenant, statement(agent, 'completed', { timestamp: '2026-01-01T10:30:00Z' }));
    assert.deepEqual(await times(), ['completed', '2026-01-01T10:30:00.000Z', undefined]);
    // Completed again later: the first stays.
    await post(ctx, tenant, statement(agent, 'completed', { timestamp: '2026-01-01T11:00:00Z' }));
    assert.deepEqual(await times(), ['completed', '2026-01-01T10:30:00.000Z', undefined]);
    // Arriving later with an older timestamp: it moves earlier. result.completion under any verb.
    await post(
      ctx,
      tenant,
      statement(agent, 'http://example.com/verbs/answered', { timestamp: '2026-01-01T12:15:00+02:00', result: { completion: true } }),
    );
    assert.deepEqual(await times(), ['completed', '2026-01-01T10:15:00.000Z', undefined]);
    // Completed and failed: the status is failed, and it completes.
    await post(
      ctx,
      tenant,
      statement(agent, 'completed', { timestamp: '2026-01-01T10:05:00Z', result: { completion: true, success: false } }),
    );
    assert.deepEqual(await times(), ['failed', '2026-01-01T10:05:00.000Z', undefined]);
    // A failed without completion completes nothing, however early.
    await post(ctx, tenant, statement(agent, 'failed', { timestamp: '2026-01-01T09:00:00Z' }));
    assert.deepEqual(await times(), ['failed', '2026-01-01T10:05:00.000Z', undefined]);

    // result.success true passes (and completes), under any verb; then a passed with an older timestamp.
    await post(
      ctx,
      tenant,
      statement(agent, 'http://example.com/verbs/answered', { timestamp: '2026-01-01T10:40:00Z', result: { success: true } }),
    );
    assert.deepEqual(await times(), ['passed', '2026-01-01T10:05:00.000Z', '2026-01-01T10:40:00.000Z']);
    await post(ctx, tenant, statement(agent, 'passed', { timestamp: '2026-01-01T10:20:00Z' }));
    assert.deepEqual(await times(), ['passed', '2026-01-01T10:05:00.000Z', '2026-01-01T10:20:00.000Z']);
    await post(ctx, tenant, statement(agent, 'passed', { timestamp: '2026-01-01T13:00:00Z' }));
    assert.deepEqual(await times(), ['passed', '2026-01-01T10:05:00.000Z', '2026-01-01T10:20:00.000Z']);
    // A passed statement alone gives both.
    const other = newAgent();
    await post(ctx, tenant, statement(other, 'passed', { timestamp: '2026-01-02T08:00:00Z' }));
    const [passed] = await records(ctx, tenant.headers, { actorId: actorIdOf(other) });
    assert.deepEqual([passed.completedAt, passed.passedAt], ['2026-01-02T08:00:00.000Z', '2026-01-02T08:00:00.000Z']);
  });

  it('a batch in one POST gives the same completedAt and passedAt as one statement a POST, onto a new or a stored record', async () => {
    const tenant = await ctx.given.tenant();
    const sent = (agent: unknown) => [
      statement(agent, 'launched', { timestamp: '2026-01-01T09:00:00Z' }),
      statement(agent, 'completed', { timestamp: '2026-01-01T11:00:00Z' }),
      statement(agent, 'passed', { timestamp: '2026-01-01T12:00:00Z' }),
      statement(agent, 'completed', { timestamp: '2026-01-01T10:00:00Z', result: { success: false } }),
      statement(agent, 'http://example.com/verbs/answered', { timestamp: '2026-01-01T11:30:00Z', result: { success: true } }),
      statement(agent, 'failed', { timestamp: '2026-01-01T09:30:00Z' }),
    ];
    const [single, batch, merged] = [newAgent(), newAgent(), newAgent()];
    for (const one of sent(single)) await post(ctx, tenant, one);
    await post(ctx, tenant, sent(batch));
    // The first statement alone, then the rest merged into the stored record in one POST.
    const [first, ...rest] = sent(merged);
    await post(ctx, tenant, first);
    await post(ctx, tenant, rest);
    const summary = async (agent: { mbox: string }) => {
      const [record] = await records(ctx, tenant.headers, { actorId: actorIdOf(agent) });
      return [record.status, record.firstAt, record.lastAt, record.completedAt, record.passedAt, record.statementIds.length];
    };
    const expected = [
      'passed',
      '2026-01-01T09:00:00.000Z',
      '2026-01-01T12:00:00.000Z',
      '2026-01-01T10:00:00.000Z',
      '2026-01-01T11:30:00.000Z',
      6,
    ];
    assert.deepEqual(await summary(single), expected);
    assert.deepEqual(await summary(batch), expected);
    assert.deepEqual(await summary(merged), expected);
  });

  it('voiding the statement that set completedAt or passedAt refolds them from the statements left, down to none', async () => {
    const tenant = await ctx.given.tenant();
    const agent = newAgent();
    const query = { actorId: actorIdOf(agent) };
    const [, early, passed, late] = await post(ctx, tenant, [
      statement(agent, 'launched', { timestamp: '2026-01-01T09:00:00Z' }),
      statement(agent, 'completed', { timestamp: '2026-01-01T10:10:00Z' }),
      statement(agent, 'passed', { timestamp: '2026-01-01T10:30:00Z' }),
      statement(agent, 'completed', { timestamp: '2026-01-01T10:50:00Z' }),
    ]);
    const voiding = (id: string) => ({ actor: agent, verb: { id: `${ADL}voided` }, object: { objectType: 'StatementRef', id } });
    const times = async () => {
      const [record] = await records(ctx, tenant.headers, query);
      return [record.status, record.completedAt, record.passedAt];
    };
    assert.deepEqual(await times(), ['passed', '2026-01-01T10:10:00.000Z', '2026-01-01T10:30:00.000Z']);
    await post(ctx, tenant, voiding(early));
    assert.deepEqual(await times(), ['passed', '2026-01-01T10:30:00.000Z', '2026-01-01T10:30:00.000Z']);
    await post(ctx, tenant, voiding(passed));
    assert.deepEqual(await times(), ['completed', '2026-01-01T10:50:00.000Z', undefined]);
    // A voiding and a new completing statement in one POST: the refold and the new statement together.
    const [, passedAgain] = await post(ctx, tenant, [voiding(late), statement(agent, 'passed', { timestamp: '2026-01-01T11:00:00Z' })]);
    assert.deepEqual(await times(), ['passed', '2026-01-01T11:00:00.000Z', '2026-01-01T11:00:00.000Z']);
    const [, again] = await post(ctx, tenant, [
      statement(agent, 'initialized', { timestamp: '2026-01-01T08:00:00Z' }),
      statement(agent, 'completed', { timestamp: '2026-01-01T08:30:00Z' }),
    ]);
    assert.deepEqual(await times(), ['passed', '2026-01-01T08:30:00.000Z', '2026-01-01T11:00:00.000Z']);
    await post(ctx, tenant, [voiding(again), voiding(passedAgain)]);
    const [left] = await records(ctx, tenant.headers, query);
    assert.equal(left.status, 'in-progress');
    assert.equal('completedAt' in left, false);
    assert.equal('passedAt' in left, false);
  });

  it('filters by activityId and status', async () => {
    const tenant = await ctx.given.tenant();
    const agent = newAgent();
    await post(ctx, tenant, [
      statement(agent, 'launched', { object: { id: 'http://example.com/a' } }),
      statement(agent, 'completed', { object: { id: 'http://example.com/b' } }),
      statement(agent, 'passed', { object: { id: 'http://example.com/c' } }),
      statement(newAgent(), 'passed', { object: { id: 'http://example.com/a' } }),
    ]);
    const ids = async (query: Record<string, string>) =>
      (await records(ctx, tenant.headers, { actorId: actorIdOf(agent), ...query })).map((r) => r.activityId);
    assert.deepEqual(await ids({}), ['http://example.com/a', 'http://example.com/b', 'http://example.com/c']);
    assert.deepEqual(await ids({ activityId: 'http://example.com/b' }), ['http://example.com/b']);
    assert.deepEqual(await ids({ status: 'in-progress,passed' }), ['http://example.com/a', 'http://example.com/c']);
    assert.deepEqual(await ids({ status: 'failed' }), []);
  });

  it('expand=hierarchy adds children from the registry parentId and from contextActivities.parent, recursively', async () => {
    const tenant = await ctx.given.tenant();
    const agent = newAgent();
    const registered = await ctx.app.inject({
      method: 'PUT',
      url: '/api/activities',
      headers: tenant.headers,
      payload: [
        { id: COURSE, definition: { name: { en: 'Course' } } },
        { id: `${COURSE}/m1`, definition: {}, parentId: COURSE },
      ],
    });
    assert.ok(registered.statusCode < 300, registered.body);
    await post(ctx, tenant, [
      statement(agent, 'launched'),
      statement(agent, 'completed', { object: { id: `${COURSE}/m1` } }),
      statement(agent, 'passed', {
        object: { id: `${COURSE}/m1/q1` },
        context: { contextActivities: { parent: [{ id: `${COURSE}/m1` }] } },
      }),
      statement(agent, 'launched', { object: { id: `${COURSE}/m2` }, context: { contextActivities: { parent: { id: COURSE } } } }),
    ]);
    const tree = await records(ctx, tenant.headers, { actorId: actorIdOf(agent), activityId: COURSE, expand: 'hierarchy' });
    const shape = (r: Json): unknown => [r.activityId, r.status, (r.children ?? []).map(shape)];
    assert.deepEqual(tree.map(shape), [
      [
        COURSE,
        'in-progress',
        [
          [`${COURSE}/m1`, 'completed', [[`${COURSE}/m1/q1`, 'passed', []]]],
          [`${COURSE}/m2`, 'in-progress', []],
        ],
      ],
    ]);
    // Children carry their completedAt and passedAt too.
    const [module] = tree[0].children as Json[];
    assert.deepEqual([module.completedAt, module.passedAt], [module.firstAt, undefined]);
    assert.deepEqual(
      [module.children[0].completedAt, module.children[0].passedAt],
      [module.children[0].firstAt, module.children[0].firstAt],
    );
    assert.ok(module.completedAt);
    // Without expand, no children.
    const flat = await records(ctx, tenant.headers, { actorId: actorIdOf(agent), activityId: COURSE });
    assert.equal(flat.length, 1);
    assert.equal(flat[0].children, undefined);
  });

  it('Accept-Version: missing and 2.0.0 answer, another version is 400 naming the supported ones; 400s for bad queries', async () => {
    const tenant = await ctx.given.tenant();
    const agent = newAgent();
    await post(ctx, tenant, statement(agent, 'completed'));
    const query = { actorId: actorIdOf(agent) };
    assert.equal((await records(ctx, tenant.headers, query)).length, 1);
    assert.equal((await records(ctx, { ...tenant.headers, 'accept-version': '2.0.0' }, query)).length, 1);
    const old = await completions(ctx, { ...tenant.headers, 'accept-version': '1.0.0' }, query);
    assert.equal(old.statusCode, 400, old.body);
    assert.equal(old.json().code, 'completions.unsupported_version');
    assert.match(old.json().message, /supported: 2\.0\.0/);

    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{}, 'completions.invalid_query', /An API key or an admin has no actor of its own: name the actor with 'agent'.*or 'actorId'/],
      [{ status: 'completed' }, 'completions.invalid_query', /no actor of its own/],
      [{ actorId: actorIdOf(agent), agent: JSON.stringify(agent) }, 'completions.invalid_query', /at most one of 'agent'.*not both/],
      [{ actorId: actorIdOf(agent), status: 'done' }, 'completions.invalid_query', /"done"/],
      [{ actorId: actorIdOf(agent), expand: 'all' }, 'completions.invalid_query', /hierarchy/],
      [{ actorId: 'email|x' }, 'xapi.invalid_agent', /actorId/],
      [{ agent: '{not json' }, 'xapi.invalid_agent', /agent/],
    ];
    for (const [q, code, message] of cases) {
      const res = await completions(ctx, tenant.headers, q);
      assert.equal(res.statusCode, 400, `${JSON.stringify(q)}: ${res.body}`);
      assert.equal(res.json().code, code, res.body);
      assert.match(res.json().message, message);
    }
    const unknown = await completions(ctx, tenant.headers, { ...query, other: '1' });
    assert.equal(unknown.statusCode, 400, unknown.body);

    // /openapi.json documents the header.
    const document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const parameters = document.paths['/api/actors/completions'].get.parameters as Json[];
    assert.ok(
      parameters.some((p) => p.in === 'header' && p.name === 'accept-version'),
      JSON.stringify(parameters),
    );
  });

  it('401 without a credential and with another tenant’s; a learner credential sees only its own records (403 for another)', async () => {
    const tenant = await ctx.given.tenant();
    const other = await ctx.given.tenant();
    const email = `ada-${randomBytes(3).toString('hex')}@example.com`;
    const imported = await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: tenant.headers,
      payload: { users: [{ name: 'Ada', attributes: { email } }] },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const agent = { account: { homePage: `http://${tenant.name}.localhost`, name: email } };
    const username = `u-${randomBytes(8).toString('hex')}`;
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: tenant.headers,
      payload: { username, password: PASSWORD, data: { actor: agent } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const stranger = newAgent();
    await post(ctx, tenant, [statement(agent, 'completed'), statement(stranger, 'passed')]);

    const mine = `account|${agent.account.homePage}|${email}`;
    const none = await completions(ctx, { 'x-svc-tenant': tenant.name }, { actorId: mine });
    assert.equal(none.statusCode, 401, none.body);
    const foreign = await completions(ctx, { ...other.headers, 'x-svc-tenant': tenant.name }, { actorId: mine });
    assert.equal(foreign.statusCode, 401, foreign.body);

    const learner = { authorization: basic(username, PASSWORD), 'x-svc-tenant': tenant.name };
    const own = await records(ctx, learner, { agent: JSON.stringify(agent) });
    assert.deepEqual(
      own.map((r) => [r.activityId, r.status]),
      [[COURSE, 'completed']],
    );
    // Someone else, not a report (neither has a position): as if there were no such actor.
    const theirs = await completions(ctx, learner, { actorId: actorIdOf(stranger) });
    assert.equal(theirs.statusCode, 404, theirs.body);
    assert.equal(theirs.json().code, 'actors.not_found');
    // The API key sees anyone.
    assert.equal((await records(ctx, tenant.headers, { actorId: actorIdOf(stranger) }))[0].status, 'passed');
  });

  it('interface 4.2, "returns completion records for the current actor": a learner credential without agent or actorId gets its own, filters applied', async () => {
    const tenant = await ctx.given.tenant();
    const agent = newAgent();
    const upserted = await ctx.app.inject({ method: 'PUT', url: '/api/actors/agents', headers: tenant.headers, payload: agent });
    assert.equal(upserted.statusCode, 201, upserted.body);
    const username = `u-${randomBytes(8).toString('hex')}`;
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: tenant.headers,
      payload: { username, password: PASSWORD, data: { actor: agent } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const stranger = newAgent();
    const other = 'https://example.com/courses/other';
    await post(ctx, tenant, [
      statement(agent, 'completed'),
      statement(agent, 'launched', { object: { id: other } }),
      statement(stranger, 'passed'),
    ]);

    const learner = { authorization: basic(username, PASSWORD), 'x-svc-tenant': tenant.name };
    const own = await records(ctx, learner, {});
    assert.deepEqual(
      own.map((r) => [r.actor, r.activityId, r.status]).sort(),
      [
        [agent, COURSE, 'completed'],
        [agent, other, 'in-progress'],
      ].sort(),
    );
    assert.deepEqual(
      (await records(ctx, learner, { status: 'completed' })).map((r) => r.activityId),
      [COURSE],
    );
    assert.deepEqual(
      (await records(ctx, learner, { activityId: other })).map((r) => r.status),
      ['in-progress'],
    );
    // Naming itself still works; both parameters at once is still a 400.
    assert.equal((await records(ctx, learner, { actorId: actorIdOf(agent) })).length, 2);
    const both = await completions(ctx, learner, { actorId: actorIdOf(agent), agent: JSON.stringify(agent) });
    assert.equal(both.statusCode, 400, both.body);
    assert.equal(both.json().code, 'completions.invalid_query');
  });

  let content: { server: Server; origin: string };
  before(async () => {
    content = await startContentServer();
  });
  after(() => new Promise<void>((resolve) => content.server.close(() => resolve())));

  it('a launch shows the activity in-progress, in the launch’s registration; the launch token reads its own records', async () => {
    const fixture = await givenLaunch(ctx, content.origin);
    const res = await ctx.app.inject({
      method: 'GET',
      url: fixture.launchPath,
      headers: { host: `${fixture.tenant.name}.localhost:8080` },
    });
    assert.equal(res.statusCode, 302, res.body);
    const location = new URL(res.headers.location as string);
    const registration = location.searchParams.get('registration');
    const account = fixture.agent.account as { homePage: string; name: string };
    const query = { actorId: `account|${account.homePage}|${account.name}` };
    const [record] = await records(ctx, fixture.tenant.headers, query);
    assert.equal(record.activityId, fixture.activityId);
    assert.equal(record.status, 'in-progress');
    assert.equal(record.registration, registration);
    const token = { authorization: location.searchParams.get('auth') as string, 'x-svc-tenant': fixture.tenant.name };
    assert.equal((await records(ctx, token, query)).length, 1);
    // Interface 4.2, "for the current actor": the launch token needs not name its learner.
    assert.deepEqual(
      (await records(ctx, token, {})).map((r) => [r.activityId, r.registration]),
      [[fixture.activityId, registration]],
    );
    assert.equal((await completions(ctx, token, { actorId: 'mbox|mailto:someone@example.com' })).statusCode, 404);

    // The launched content's own statements (no registration sent: the launch's) complete it.
    const sent = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: { ...token, 'x-experience-api-version': '2.0.0' },
      payload: {
        actor: fixture.agent,
        verb: { id: `${ADL}completed` },
        object: { id: fixture.activityId },
        result: { extensions: { [PROGRESS]: 100 } },
      },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const [done] = await records(ctx, token, query);
    assert.deepEqual([done.status, done.progress, done.registration, done.statementIds.length], ['completed', 100, registration, 2]);
  });
});
