import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { after, before, it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { basic, givenLaunch, PASSWORD, startContentServer } from '../launch/launch-fixtures.js';

type Json = Record<string, any>;

describeEachBackend('Notifications', (ctx: TestContext) => {
  const ada = { name: 'Ada Lovelace', mbox: 'mailto:ada@example.com' };
  const bob = { name: 'Bob Stone', account: { homePage: 'http://example.com', name: 'bob-01' } };
  const ADA = 'mbox|mailto:ada@example.com';
  const BOB = 'account|http://example.com|bob-01';
  const A = 'http://example.com/courses/a';
  const B = 'http://example.com/courses/b';
  const C = 'http://example.com/courses/c';
  const registry = [
    {
      id: A,
      definition: { name: { 'en-US': 'Course A' }, type: 'http://adlnet.gov/expapi/activities/course' },
      tags: ['mandatory', 'safety'],
      attributes: { owner: 'HS', level: '1' },
    },
    { id: B, definition: { name: { 'en-US': 'Course B' } }, tags: ['mandatory'], attributes: { owner: 'HS', level: '2' } },
    { id: C, definition: { name: { 'en-US': 'Course C' } }, attributes: { owner: 'IT' } },
  ];

  const inject = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, payload?: unknown) =>
    ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  const putActor = async (tenant: GivenTenant, agent: Json) => {
    const res = await inject('PUT', '/api/actors/agents', tenant.headers, agent);
    assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
  };

  const post = (tenant: GivenTenant, body: unknown, headers: Record<string, string> = tenant.headers) =>
    inject('POST', '/api/notifications', headers, body);

  const get = (tenant: GivenTenant, query: Record<string, string> = {}, headers: Record<string, string> = tenant.headers) =>
    inject('GET', `/api/notifications?${new URLSearchParams(query).toString()}`, headers);

  /** The `n` labels of the answer, in its order. */
  const labels = async (tenant: GivenTenant, query: Record<string, string> = {}, headers: Record<string, string> = tenant.headers) => {
    const res = await get(tenant, query, headers);
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as Json[]).map((notification) => notification.object.n);
  };

  const stored = async (tenant: GivenTenant) =>
    Number(
      (await ctx.db.query<{ count: string }>('SELECT count(*) AS count FROM notifications WHERE tenant_id = $1', [tenant.id])).rows[0]
        .count,
    );

  const note = (actor: Json, activityId: string, channel: string, n: string) => ({
    actor,
    activity: { id: activityId },
    channel,
    object: { n },
  });

  /**
   * n1 … n5, oldest first, each its own POST a few milliseconds apart (distinct timestamps):
   * every filter below keeps a different subset.
   */
  async function fixture() {
    const tenant = await ctx.given.tenant();
    await putActor(tenant, ada);
    await putActor(tenant, bob);
    const reg = await inject('PUT', '/api/activities', tenant.headers, registry);
    assert.equal(reg.statusCode, 200, reg.body);
    const made: Json[] = [];
    for (const [actor, activity, channel, n] of [
      [{ mbox: ada.mbox }, A, 'email', 'n1'],
      [{ account: bob.account }, A, 'sms', 'n2'],
      [{ mbox: ada.mbox }, B, 'sms', 'n3'],
      [{ account: bob.account }, C, 'email', 'n4'],
      [{ mbox: ada.mbox }, C, 'push', 'n5'],
    ] as const) {
      const res = await post(tenant, note(actor, activity, channel, n));
      assert.equal(res.statusCode, 201, res.body);
      made.push(res.json());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { tenant, made };
  }

  it('POST stores one notification, answers it with the store’s actor and the registry’s definition; GET answers it', async () => {
    const { tenant, made } = await fixture();
    const first = made[0];
    assert.match(first.id, /^[0-9a-f-]{36}$/);
    assert.ok(Math.abs(Date.parse(first.timestamp) - Date.now()) < 60_000, first.timestamp);
    assert.deepEqual(first.actor, { objectType: 'Agent', name: 'Ada Lovelace', mbox: ada.mbox });
    assert.deepEqual(first.activity, { objectType: 'Activity', id: A, definition: registry[0].definition });
    assert.equal(first.channel, 'email');
    assert.deepEqual(first.object, { n: 'n1' });
    assert.equal('tiimestamp' in first, false);
    const all = await get(tenant);
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(all.json().at(-1), first);
    assert.deepEqual(
      (all.json() as Json[]).map((n) => n.object.n),
      ['n5', 'n4', 'n3', 'n2', 'n1'],
    );
  });

  it('each filter alone changes the answer', async () => {
    const { tenant, made } = await fixture();
    assert.deepEqual(await labels(tenant, { actorId: ADA }), ['n5', 'n3', 'n1']);
    assert.deepEqual(await labels(tenant, { actorId: BOB }), ['n4', 'n2']);
    assert.deepEqual(await labels(tenant, { activityId: A }), ['n2', 'n1']);
    assert.deepEqual(await labels(tenant, { 'activityId!': A }), ['n5', 'n4', 'n3']);
    assert.deepEqual(await labels(tenant, { channel: 'sms' }), ['n3', 'n2']);
    assert.deepEqual(await labels(tenant, { 'activity:tags': 'mandatory' }), ['n3', 'n2', 'n1']);
    assert.deepEqual(await labels(tenant, { 'activity:tags': ' mandatory , safety' }), ['n2', 'n1']);
    assert.deepEqual(await labels(tenant, { 'activity:attribute:owner': 'HS' }), ['n3', 'n2', 'n1']);
    assert.deepEqual(await labels(tenant, { 'activity:attribute:owner': 'HS', 'activity:attribute:level': '2' }), ['n3']);
    assert.deepEqual(await labels(tenant, { 'activity:attribute:owner': 'hs' }), []);
    assert.deepEqual(await labels(tenant, { 'activity:attribute:__proto__': 'x' }), [], 'an attribute no activity has');
    assert.deepEqual(await labels(tenant, { 'activity:attribute:owner': 'HS', 'activity:attribute:constructor': 'x' }), []);
    assert.deepEqual(await labels(tenant, { query: '^Ada' }), ['n5', 'n3', 'n1']);
    assert.deepEqual(await labels(tenant, { query: 'bob-0' }), ['n4', 'n2'], 'the account name');
    assert.deepEqual(await labels(tenant, { query: '(?i)ADA@EXAMPLE' }), ['n5', 'n3', 'n1'], 'the mbox');
    assert.deepEqual(await labels(tenant, { query: 'o' }), ['n5', 'n4', 'n3', 'n2', 'n1']);
    assert.deepEqual(await labels(tenant, { query: 'nobody' }), []);
    assert.deepEqual(await labels(tenant, { since: made[2].timestamp }), ['n5', 'n4'], 'since equal to n3’s timestamp leaves n3 out');
    assert.deepEqual(await labels(tenant, { since: new Date(Date.parse(made[2].timestamp) - 1).toISOString() }), ['n5', 'n4', 'n3']);
    assert.deepEqual(await labels(tenant, { until: made[2].timestamp }), ['n3', 'n2', 'n1'], 'until equal to n3’s timestamp keeps n3');
    assert.deepEqual(await labels(tenant, { until: new Date(Date.parse(made[2].timestamp) - 1).toISOString() }), ['n2', 'n1']);
    assert.deepEqual(await labels(tenant, { since: made[0].timestamp, until: made[3].timestamp }), ['n4', 'n3', 'n2']);
    assert.deepEqual(await labels(tenant, { since: made[2].timestamp, until: made[2].timestamp }), [], 'an empty window');
    assert.deepEqual(await labels(tenant, { limit: '2' }), ['n5', 'n4']);
    assert.deepEqual(await labels(tenant, { skip: '3' }), ['n2', 'n1']);
    assert.deepEqual(await labels(tenant, { limit: '2', skip: '1' }), ['n4', 'n3']);
    assert.deepEqual(await labels(tenant, { skip: '5' }), [], 'skip past the end');
    assert.deepEqual(await labels(tenant, { skip: '1000' }), []);
  });

  it('filters combine: a notification must satisfy each one given', async () => {
    const { tenant, made } = await fixture();
    assert.deepEqual(await labels(tenant, { actorId: ADA, channel: 'sms' }), ['n3']);
    assert.deepEqual(await labels(tenant, { 'activity:tags': 'mandatory', channel: 'sms', query: 'Bob' }), ['n2']);
    assert.deepEqual(await labels(tenant, { 'activityId!': C, since: made[0].timestamp, query: 'Ada' }), ['n3']);
    assert.deepEqual(await labels(tenant, { actorId: BOB, 'activity:attribute:owner': 'IT' }), ['n4']);
    assert.deepEqual(await labels(tenant, { actorId: BOB, query: 'Ada' }), []);
    assert.deepEqual(await labels(tenant, { activityId: A, 'activityId!': A }), []);
    assert.deepEqual(await labels(tenant, { 'activity:tags': 'mandatory', 'activity:attribute:level': '1', actorId: BOB }), ['n2']);
    assert.deepEqual(await labels(tenant, { channel: 'email', limit: '1', skip: '1' }), ['n1']);
  });

  it('says how many match (X-Total-Count) and links the next page with the same parameters', async () => {
    const { tenant } = await fixture();
    const first = await get(tenant, { 'activity:attribute:owner': 'HS', 'activityId!': B, limit: '1' });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers['x-total-count'], '2');
    assert.deepEqual(
      (first.json() as Json[]).map((n) => n.object.n),
      ['n2'],
    );
    const next = /^<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1];
    assert.ok(next, `a next link: ${first.headers.link}`);
    const url = new URL(next);
    assert.equal(url.pathname, '/api/notifications');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      'activity:attribute:owner': 'HS',
      'activityId!': B,
      limit: '1',
      skip: '1',
    });
    const second = await inject('GET', `/api/notifications${url.search}`, tenant.headers);
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.headers['x-total-count'], '2');
    assert.deepEqual(
      (second.json() as Json[]).map((n) => n.object.n),
      ['n1'],
    );
    assert.doesNotMatch(String(second.headers.link ?? ''), /rel="next"/, 'no next link on the last page');
    const all = await get(tenant);
    assert.equal(all.headers['x-total-count'], '5');
    assert.doesNotMatch(String(all.headers.link ?? ''), /rel="next"/);
    const past = await get(tenant, { skip: '10' });
    assert.deepEqual(past.json(), []);
    assert.equal(past.headers['x-total-count'], '5', 'past the end, the total still');
    for (const query of [{ query: 'nobody' }, { 'activity:tags': 'nothing-tagged-so' }] as Record<string, string>[]) {
      const none = await get(tenant, query);
      assert.equal(none.statusCode, 200, none.body);
      assert.equal(none.headers['x-total-count'], '0', JSON.stringify(query));
    }
  });

  it('registry filters read the registry now; the answered definition is the one of when it was made', async () => {
    const { tenant } = await fixture();
    const changed = { ...registry[2], definition: { name: { 'en-US': 'Course C, renamed' } }, tags: ['mandatory'] };
    assert.equal((await inject('PUT', '/api/activities', tenant.headers, [changed])).statusCode, 200);
    const res = await get(tenant, { 'activity:tags': 'mandatory' });
    assert.deepEqual(
      (res.json() as Json[]).map((n) => n.object.n),
      ['n5', 'n4', 'n3', 'n2', 'n1'],
    );
    assert.deepEqual(res.json()[0].activity.definition, registry[2].definition);
  });

  it('limit: default 100, at most 1000 (1001: 400); one POST makes at most 1000', async () => {
    const tenant = await ctx.given.tenant();
    await putActor(tenant, ada);
    assert.equal((await inject('PUT', '/api/activities', tenant.headers, registry)).statusCode, 200);
    const batch = Array.from({ length: 1000 }, (_, i) => note({ mbox: ada.mbox }, A, 'email', `b${i}`));
    const many = await post(tenant, batch);
    assert.equal(many.statusCode, 201, many.body);
    assert.deepEqual(
      (many.json() as Json[]).map((n) => n.object.n),
      batch.map((n) => n.object.n),
      'answered in the array’s order',
    );
    assert.equal((await post(tenant, note({ mbox: ada.mbox }, B, 'email', 'last'))).statusCode, 201);
    assert.equal((await labels(tenant)).length, 100);
    const max = await labels(tenant, { limit: '1000' });
    assert.equal(max.length, 1000);
    // One POST: one timestamp, later array elements first.
    assert.deepEqual(max.slice(0, 3), ['last', 'b999', 'b998']);
    assert.deepEqual(await labels(tenant, { limit: '1000', skip: '1000' }), ['b0']);
    for (const limit of ['1001', '0', '-1', '1e2']) assert.equal((await get(tenant, { limit })).statusCode, 400, limit);
    const tooMany = await post(tenant, [...batch, batch[0]]);
    assert.equal(tooMany.statusCode, 400, tooMany.body);
    assert.equal(tooMany.json().code, 'notifications.too_many');
    assert.equal(await stored(tenant), 1001);
  });

  it('a catastrophic-backtracking pattern against long names answers promptly', async () => {
    const tenant = await ctx.given.tenant();
    assert.equal((await inject('PUT', '/api/activities', tenant.headers, registry)).statusCode, 200);
    const notes = [];
    for (let i = 0; i < 20; i++) {
      const agent = { name: `${'a'.repeat(3000)}!`, mbox: `mailto:${'a'.repeat(60)}${i}@example.com` };
      await putActor(tenant, agent);
      notes.push(note({ mbox: agent.mbox }, A, 'email', `a${i}`));
    }
    assert.equal((await post(tenant, notes)).statusCode, 201);
    for (const query of ['(a+)+$', '(a|aa)+b', '(a*)*z$', '^(a+)+!$']) {
      const started = Date.now();
      const res = await get(tenant, { query });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(Date.now() - started < 2_000, `${query} took ${Date.now() - started} ms`);
      assert.equal(res.json().length, query === '^(a+)+!$' ? 20 : 0, query);
    }
  });

  it('refuses bad query parameters with 400', async () => {
    const tenant = await ctx.given.tenant();
    const cases: [Record<string, string> | string, string][] = [
      [{ query: '(' }, 'notifications.invalid_query'],
      [{ query: '(a)\\1' }, 'notifications.invalid_query'],
      [{ query: '(?=a)b' }, 'notifications.invalid_query'],
      [{ query: '(?<!a)b' }, 'notifications.invalid_query'],
      [{ query: 'a'.repeat(257) }, 'notifications.invalid_query'],
      [{ since: 'yesterday' }, 'notifications.invalid_query'],
      [{ since: '2026-01-01T00:00:00' }, 'notifications.invalid_query'],
      [{ until: 'tomorrow' }, 'notifications.invalid_query'],
      [{ until: '2026-01-01T00:00:00' }, 'notifications.invalid_query'],
      [{ since: '2026-02-01T00:00:00Z', until: '2026-01-31T23:59:59Z' }, 'notifications.invalid_query'],
      [{ 'activity:tags': ' , ' }, 'notifications.invalid_query'],
      [{ actorId: 'nobody' }, 'xapi.invalid_agent'],
      [{ unknown: 'x' }, 'request.invalid'],
      [{ 'activity:attribute:': 'x' }, 'request.invalid'],
      [{ 'activity:attributes:x': 'x' }, 'request.invalid'],
      ['channel=a&channel=b', 'request.invalid'],
      ['activity:attribute:x=1&activity:attribute:x=2', 'request.invalid'],
    ];
    for (const [query, code] of cases) {
      const res = typeof query === 'string' ? await inject('GET', `/api/notifications?${query}`, tenant.headers) : await get(tenant, query);
      assert.equal(res.statusCode, 400, `${JSON.stringify(query)}: ${res.body}`);
      assert.equal(res.json().code, code, JSON.stringify(query));
      if (typeof query !== 'string' && 'until' in query) {
        assert.equal(res.json().details.parameter, 'until', JSON.stringify(query));
        assert.match(res.json().message, /'until'/);
      }
    }
    assert.equal((await get(tenant, { query: 'a'.repeat(256) })).statusCode, 200);
  });

  it('POST refuses malformed notifications, unknown actors and activities with 400 naming them, storing nothing', async () => {
    const tenant = await ctx.given.tenant();
    await putActor(tenant, ada);
    assert.equal((await inject('PUT', '/api/activities', tenant.headers, registry)).statusCode, 200);
    const good = note({ mbox: ada.mbox }, A, 'email', 'ok');
    const problemsOf = async (body: unknown) => {
      const res = await post(tenant, body);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'notifications.invalid');
      return res.json().details.problems as { index: number; field: string; message: string }[];
    };
    const unknownActor = await problemsOf([good, note({ mbox: 'mailto:nobody@example.com' }, A, 'email', 'x')]);
    assert.deepEqual(unknownActor, [{ index: 1, field: 'actor', message: 'no actor mbox|mailto:nobody@example.com in the actor store' }]);
    const unknownActivity = await problemsOf([good, good, note({ mbox: ada.mbox }, 'http://example.com/none', 'email', 'x')]);
    assert.deepEqual(unknownActivity, [{ index: 2, field: 'activity', message: 'no activity http://example.com/none in the registry' }]);
    const malformed: [unknown, string][] = [
      [{ ...good, actor: { name: 'no identifier' } }, 'actor'],
      [{ ...good, actor: 'ada' }, 'actor'],
      [{ ...good, activity: 'http://example.com/courses/a' }, 'activity'],
      [{ ...good, activity: { id: A, definition: {} } }, 'activity'],
      [{ ...good, activity: { id: A, objectType: 'Agent' } }, 'activity'],
      [{ ...good, channel: '' }, 'channel'],
      [{ ...good, channel: 'c'.repeat(201) }, 'channel'],
      [{ ...good, channel: 'a\u0000b' }, 'channel'],
      [{ ...good, channel: 7 }, 'channel'],
      [{ ...good, object: [1] }, 'object'],
      [{ ...good, object: 'text' }, 'object'],
      [{ ...good, object: { a: 'x\u0000' } }, 'object'],
      [{ ...good, object: JSON.parse(`${'{"a":'.repeat(80)}1${'}'.repeat(80)}`) }, 'object'],
      [{ ...good, timestamp: '2026-01-01T00:00:00Z' }, 'timestamp'],
      [{ ...good, extra: 1 }, 'extra'],
      [{ actor: good.actor, activity: good.activity, channel: 'x' }, 'object'],
      [null, ''],
      [[], ''],
    ];
    for (const [body, field] of malformed) {
      const problems = await problemsOf(Array.isArray(body) ? body : [good, body]);
      assert.equal(problems[0].field, field, JSON.stringify(body).slice(0, 100));
      assert.equal(problems[0].index, Array.isArray(body) ? 0 : 1);
    }
    for (const text of ['not json', '"a string"', '42']) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/notifications',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        payload: text,
      });
      assert.equal(res.statusCode, 400, res.body);
    }
    assert.equal(await stored(tenant), 0, 'nothing stored from any refused request');
    const one = await post(tenant, { ...good, activity: { id: A, objectType: 'Activity' } });
    assert.equal(one.statusCode, 201, one.body);
    assert.equal(Array.isArray(one.json()), false, 'one notification in, one out');
    assert.equal(await stored(tenant), 1);
  });

  it('401 without a credential and with another tenant’s; another tenant sees none of them', async () => {
    const { tenant } = await fixture();
    const other = await ctx.given.tenant();
    assert.equal((await get(tenant, {}, { 'x-svc-tenant': tenant.name })).statusCode, 401);
    assert.equal((await get(tenant, { until: new Date().toISOString() }, { 'x-svc-tenant': tenant.name })).statusCode, 401);
    assert.equal((await get(tenant, {}, { ...other.headers, 'x-svc-tenant': tenant.name })).statusCode, 401);
    assert.equal(
      (await post(tenant, note({ mbox: ada.mbox }, A, 'email', 'x'), { ...other.headers, 'x-svc-tenant': tenant.name })).statusCode,
      401,
    );
    assert.deepEqual(await labels(other), []);
    assert.equal((await get(other)).headers['x-total-count'], '0', 'the other tenant counts none of them');
    assert.deepEqual(await labels(other, { actorId: ADA }), []);
    // The other tenant has no such actor nor activity: its POST is refused.
    assert.equal((await post(other, note({ mbox: ada.mbox }, A, 'email', 'x'))).statusCode, 400);
    assert.equal(await stored(other), 0);
  });

  it('an actor credential reads only its own actor’s notifications and may not make any (403)', async () => {
    const { tenant } = await fixture();
    const username = `u-${randomBytes(8).toString('hex')}`;
    const created = await inject('POST', '/api/auth/basic', tenant.headers, {
      username,
      password: PASSWORD,
      data: { actor: { mbox: ada.mbox } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const learner = { authorization: basic(username, PASSWORD), 'x-svc-tenant': tenant.name };
    assert.deepEqual(await labels(tenant, {}, learner), ['n5', 'n3', 'n1']);
    assert.equal((await get(tenant, {}, learner)).headers['x-total-count'], '3', 'its own, counted');
    assert.deepEqual(await labels(tenant, { actorId: ADA, channel: 'sms' }, learner), ['n3']);
    assert.deepEqual(await labels(tenant, { query: 'Bob' }, learner), []);
    const theirs = await get(tenant, { actorId: BOB }, learner);
    assert.equal(theirs.statusCode, 403, theirs.body);
    assert.equal(theirs.json().code, 'notifications.forbidden');
    const write = await post(tenant, note({ mbox: ada.mbox }, A, 'email', 'x'), learner);
    assert.equal(write.statusCode, 403, write.body);
    assert.equal(write.json().code, 'auth.forbidden');
    assert.equal(await stored(tenant), 5);
  });

  let content: { server: Server; origin: string };
  before(async () => {
    content = await startContentServer();
  });
  after(() => new Promise<void>((resolve) => content.server.close(() => resolve())));

  it('a launch token reads only its own actor’s notifications and may not make any (403)', async () => {
    const fixture = await givenLaunch(ctx, content.origin);
    const { tenant, agent, activityId } = fixture;
    await putActor(tenant, ada);
    assert.equal(
      (await post(tenant, [note(agent, activityId, 'email', 'mine'), note({ mbox: ada.mbox }, activityId, 'email', 'ada')])).statusCode,
      201,
    );
    const res = await ctx.app.inject({ method: 'GET', url: fixture.launchPath, headers: { host: `${tenant.name}.localhost:8080` } });
    assert.equal(res.statusCode, 302, res.body);
    const token = {
      authorization: new URL(res.headers.location as string).searchParams.get('auth') as string,
      'x-svc-tenant': tenant.name,
    };
    assert.deepEqual(await labels(tenant, {}, token), ['mine']);
    assert.equal((await get(tenant, { actorId: ADA }, token)).statusCode, 403);
    assert.equal((await post(tenant, note(agent, activityId, 'email', 'x'), token)).statusCode, 403);
    assert.deepEqual(await labels(tenant), ['ada', 'mine']);
  });

  it('/openapi.json describes both routes', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
    const path = res.json().paths['/api/notifications'];
    assert.ok(path.get && path.post, Object.keys(path ?? {}).join());
    const names = (path.get.parameters as { name: string }[]).map((parameter) => parameter.name);
    for (const name of ['actorId', 'activityId', 'activityId!', 'activity:tags', 'channel', 'query', 'since', 'limit', 'skip'])
      assert.ok(names.includes(name), name);
    assert.ok(path.post.requestBody, 'the body');
    assert.ok(path.post.responses['201'] && path.get.responses['200']);
  });
});
