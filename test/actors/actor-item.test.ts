import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { COURSE, PASSWORD, WALKER, givenWorld, type World } from './people-fixtures.js';

type Json = Record<string, any>;
type Headers = Record<string, string>;

/**
 * `GET /api/actors/item` and `PATCH /api/actors/item` (docs/actors.md, "One person"): one person,
 * deactivated or not, and an admin's deactivation and reactivation, on one world per backend
 * (people-fixtures.ts: CEO > CTO > ENG > DEV1, CTO > OPS, CEO > CFO > ACC). Each test changes
 * people no other test reads.
 */
describeEachBackend('GET|PATCH /api/actors/item: one person, deactivated and reactivated by an admin', (ctx: TestContext) => {
  const get = (url: string, headers: Headers) => ctx.app.inject({ method: 'GET', url, headers });
  const item = (query: Record<string, string>, headers: Headers) => get(`/api/actors/item?${new URLSearchParams(query)}`, headers);
  const patch = (query: Record<string, string>, payload: unknown, headers: Headers) =>
    ctx.app.inject({
      method: 'PATCH',
      url: `/api/actors/item?${new URLSearchParams(query)}`,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const audit = async (world: World, query: Record<string, string>) => {
    const res = await get(`/api/audit?${new URLSearchParams(query)}`, world.tenant.headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Json[];
  };
  const people = async (world: World, kind: string) => {
    const res = await get(`/api/actors?kind=${kind}&limit=1000`, world.tenant.headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Json[];
  };
  const found = async (world: World, email: string) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/actors/search',
      headers: world.tenant.headers,
      payload: { criteria: { field: 'attributes.email', op: 'eq', value: email } },
    });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { total: number }).total;
  };

  let shared: Promise<World> | undefined;
  const given = () => (shared ??= givenWorld(ctx));

  it('answers a person as GET /api/actors shapes them, active, named by agent or by actorId', async () => {
    const world = await given();
    const listed = (await people(world, 'people')).find((actor) => actor.name === 'Dan');
    assert.ok(listed, 'Dan is listed');
    assert.ok(listed.extensions, 'with his attributes and links');
    const byActorId = await item({ actorId: world.actorId('Dan') }, world.tenant.headers);
    assert.equal(byActorId.statusCode, 200, byActorId.body);
    assert.deepEqual(byActorId.json(), { actor: listed, active: true });
    const byAgent = await item({ agent: JSON.stringify(world.agent('Dan')) }, world.tenant.headers);
    assert.deepEqual(byAgent.json(), byActorId.json());
    // An admin's Bearer token reads the same.
    const admin = await world.admin();
    assert.deepEqual((await item({ actorId: world.actorId('Dan') }, admin.headers)).json(), byActorId.json());
    // An agent only statements named: found, without extensions.
    const walker = await item({ actorId: `mbox|${WALKER.mbox}` }, world.tenant.headers);
    assert.equal(walker.statusCode, 200, walker.body);
    assert.deepEqual(walker.json(), { actor: { objectType: 'Agent', name: WALKER.name, mbox: WALKER.mbox }, active: true });
  });

  it('answers 400 naming the problem: both agent and actorId, neither, a malformed one, an unknown parameter', async () => {
    const world = await given();
    const headers = world.tenant.headers;
    const both = await item({ agent: JSON.stringify(world.agent('Dan')), actorId: world.actorId('Dan') }, headers);
    assert.equal(both.statusCode, 400, both.body);
    assert.equal(both.json().code, 'actors.invalid_query');
    assert.equal(both.json().details.parameter, 'actorId');
    assert.match(both.json().message, /not both/);
    const neither = await item({}, headers);
    assert.equal(neither.statusCode, 400, neither.body);
    assert.equal(neither.json().code, 'actors.invalid_query');
    assert.equal(neither.json().details.parameter, 'agent');
    const malformedQueries: Record<string, string>[] = [
      { agent: '{"mbox": "ada@example.com"}' },
      { agent: '{' },
      { actorId: 'nonsense' },
      { actorId: 'account|x' },
    ];
    for (const query of malformedQueries) {
      const malformed = await item(query, headers);
      assert.equal(malformed.statusCode, 400, `${JSON.stringify(query)}: ${malformed.body}`);
      assert.equal(malformed.json().code, 'xapi.invalid_agent');
    }
    const unknown = await item({ actorId: world.actorId('Dan'), kind: 'all' }, headers);
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.equal(unknown.json().code, 'request.invalid');
    assert.match(unknown.json().message, /kind/);
  });

  it('refuses what is not an admin or API key (401, 403), and finds nobody outside the tenant or the credential’s reach (404)', async () => {
    const world = await given();
    const dan = { actorId: world.actorId('Dan') };
    const anonymous = await item(dan, { 'x-svc-tenant': world.tenant.name });
    assert.equal(anonymous.statusCode, 401, anonymous.body);
    const learner = await item(dan, await world.learner('Dan'));
    assert.equal(learner.statusCode, 403, learner.body);
    assert.equal(learner.json().code, 'auth.forbidden');
    const launched = await ctx.app.inject({
      method: 'GET',
      url: `/api/activities/launch?${new URLSearchParams({ activityId: COURSE, auth: (await world.learner('Dan')).authorization })}`,
      headers: { host: `${world.tenant.name}.${ctx.config.baseDomain}:8080` },
    });
    assert.equal(launched.statusCode, 302, launched.body);
    const token = {
      authorization: new URL(launched.headers.location as string).searchParams.get('auth')!,
      'x-svc-tenant': world.tenant.name,
    };
    assert.equal((await item(dan, token)).statusCode, 403);

    const notFound = (res: { statusCode: number; body: string; json(): Json }, what: string) => {
      assert.equal(res.statusCode, 404, `${what}: ${res.body}`);
      assert.equal(res.json().code, 'actors.not_found', what);
    };
    notFound(await item({ actorId: 'mbox|mailto:nobody@example.com' }, world.tenant.headers), 'an unknown agent');
    // The API key that stored the world's statements is their authority: an actor, not a person.
    const [authority] = await people(world, 'authorities');
    notFound(await item({ agent: JSON.stringify({ account: authority.account }) }, world.tenant.headers), 'a statement authority');
    // Another tenant's key finds nobody of this tenant, and cannot name this tenant.
    const other = await ctx.given.tenant();
    notFound(await item(dan, other.headers), 'another tenant’s principal');
    assert.equal((await item(dan, { ...other.headers, 'x-svc-tenant': world.tenant.name })).statusCode, 401);
    // Scoped to CTO's subtree: Dan (DEV1) inside, Fay (CFO) and Walker (no position) outside.
    for (const headers of [await world.scopedKey('CTO'), (await world.admin('CTO')).headers]) {
      assert.equal((await item(dan, headers)).json().active, true);
      notFound(await item({ actorId: world.actorId('Fay') }, headers), 'a person outside the subtree');
      notFound(await item({ actorId: `mbox|${WALKER.mbox}` }, headers), 'an agent without a position');
    }
  });

  it('deactivates: credential refused, out of the people and the search, listed as deactivated, audited once; then reactivates', async () => {
    const world = await given();
    const eve = { actorId: world.actorId('Eve') };
    const learner = await world.learner('Eve');
    assert.equal((await get('/api/me', learner)).statusCode, 200);
    const assignment = await ctx.app.inject({
      method: 'POST',
      url: '/api/assignments',
      headers: world.tenant.headers,
      payload: { name: 'Engineering', activityIds: [COURSE], people: { organisationId: 'ENG' } },
    });
    assert.equal(assignment.statusCode, 201, assignment.body);
    const members = async () => {
      const res = await get(`/api/assignments/item?${new URLSearchParams({ id: assignment.json().id })}`, world.tenant.headers);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().members as number;
    };
    const before = await members();
    const shown = (await item(eve, world.tenant.headers)).json();

    const deactivated = await patch(eve, { active: false }, { ...world.tenant.headers, 'svc-account-source': ' console ' });
    assert.equal(deactivated.statusCode, 200, deactivated.body);
    assert.deepEqual(deactivated.json(), { actor: shown.actor, active: false });
    assert.deepEqual((await item(eve, world.tenant.headers)).json(), { actor: shown.actor, active: false }, 'GET finds them deactivated');
    const refused = await get('/api/me', learner);
    assert.equal(refused.statusCode, 401, 'the credential is revoked at once');
    assert.match(refused.json().message, /revoked/);
    assert.equal(await found(world, 'eve@example.com'), 0, 'the search no longer finds them');
    assert.ok(!(await people(world, 'people')).some((actor) => actor.name === 'Eve'), 'no longer one of the people');
    assert.deepEqual(
      (await people(world, 'deactivated')).map((actor) => actor.name),
      ['Eve'],
    );
    assert.equal(await members(), before - 1, 'the dynamic assignment lets them go');
    const newCredential = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: world.tenant.headers,
      payload: { username: `eve-${randomBytes(4).toString('hex')}`, password: PASSWORD, data: { actor: world.agent('Eve') } },
    });
    assert.equal(newCredential.statusCode, 409, newCredential.body);
    assert.equal(newCredential.json().code, 'auth.actor_deactivated');

    const entries = await audit(world, eve);
    const written = entries.filter((entry) => entry.source === 'console');
    assert.deepEqual(
      written.map((entry) => [entry.action, entry.principal, entry.actorId]),
      [['actor.deactivated', { kind: 'api_key', id: world.tenant.key }, eve.actorId]],
      'one entry, the deactivation: no actor.updated beside it',
    );

    // Again: nothing written, nothing audited.
    const again = await patch(eve, { active: false }, world.tenant.headers);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().active, false);
    assert.equal((await audit(world, { ...eve, action: 'actor.deactivated' })).length, 1);

    // Reactivated by an admin: back among the people and the search, the credential still revoked.
    const admin = await world.admin();
    const reactivated = await patch(eve, { active: true }, admin.headers);
    assert.equal(reactivated.statusCode, 200, reactivated.body);
    assert.deepEqual(reactivated.json(), { actor: shown.actor, active: true });
    assert.equal(await found(world, 'eve@example.com'), 1);
    assert.deepEqual(await people(world, 'deactivated'), []);
    assert.equal(await members(), before, 'and rejoins the assignment');
    assert.equal((await get('/api/me', learner)).statusCode, 401, 'a revoked credential stays revoked');
    const reactivations = await audit(world, { ...eve, action: 'actor.reactivated' });
    assert.deepEqual(
      reactivations.map((entry) => [entry.principal, entry.source]),
      [[{ kind: 'admin', id: admin.adminId }, undefined]],
    );
    const twice = await patch(eve, { active: true }, admin.headers);
    assert.equal(twice.statusCode, 200, twice.body);
    assert.equal((await audit(world, { ...eve, action: 'actor.reactivated' })).length, 1, 'already active: not audited');
  });

  it('deactivates an agent only statements named, and refuses an identified group (409 actors.not_an_agent)', async () => {
    const world = await given();
    const walker = { actorId: `mbox|${WALKER.mbox}` };
    const off = await patch(walker, { active: false }, world.tenant.headers);
    assert.equal(off.statusCode, 200, off.body);
    assert.deepEqual(off.json(), { actor: { objectType: 'Agent', name: WALKER.name, mbox: WALKER.mbox }, active: false });
    assert.ok((await people(world, 'deactivated')).some((actor) => actor.mbox === WALKER.mbox));
    assert.equal((await audit(world, { ...walker, action: 'actor.deactivated' })).length, 1);
    const on = await patch(walker, { active: true }, world.tenant.headers);
    assert.equal(on.json().active, true);
    assert.ok((await people(world, 'people')).some((actor) => actor.mbox === WALKER.mbox));

    const group = { objectType: 'Group', name: 'Team', mbox: 'mailto:team@example.com', member: [{ mbox: 'mailto:member@example.com' }] };
    const stored = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: world.tenant.xapi,
      payload: { actor: group, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: COURSE } },
    });
    assert.equal(stored.statusCode, 200, stored.body);
    const shown = await item({ actorId: 'mbox|mailto:team@example.com' }, world.tenant.headers);
    assert.equal(shown.statusCode, 200, shown.body);
    assert.equal(shown.json().actor.objectType, 'Group');
    const refused = await patch({ actorId: 'mbox|mailto:team@example.com' }, { active: false }, world.tenant.headers);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().code, 'actors.not_an_agent');
  });

  it('lets a scoped credential change its subtree’s people only: outside is 404 and nothing changes', async () => {
    const world = await given();
    const key = await world.scopedKey('CTO');
    const otto = { actorId: world.actorId('Otto') };
    const off = await patch(otto, { active: false }, key);
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json().active, false);
    const [entry] = await audit(world, { ...otto, action: 'actor.deactivated' });
    assert.equal(entry?.principal.kind, 'api_key');
    assert.notEqual(entry?.principal.id, world.tenant.key, 'the scoped key did it');
    assert.equal((await patch(otto, { active: true }, key)).json().active, true);

    for (const headers of [key, (await world.admin('CTO')).headers]) {
      for (const outside of [{ actorId: world.actorId('Abe') }, { actorId: `mbox|${WALKER.mbox}` }]) {
        const res = await patch(outside, { active: false }, headers);
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().code, 'actors.not_found');
      }
    }
    assert.equal((await item({ actorId: world.actorId('Abe') }, world.tenant.headers)).json().active, true, 'Abe stays active');
    assert.deepEqual(await audit(world, { actorId: world.actorId('Abe'), action: 'actor.deactivated' }), []);
  });

  it('refuses a bad request before writing anything: credentials (401, 403), the query, the body, the source header', async () => {
    const world = await given();
    const carla = { actorId: world.actorId('Carla') };
    const refusal = async (res: { statusCode: number; body: string; json(): Json }, status: number, code: string, what: string) => {
      assert.equal(res.statusCode, status, `${what}: ${res.body}`);
      assert.equal(res.json().code, code, what);
    };
    await refusal(await patch(carla, { active: false }, { 'x-svc-tenant': world.tenant.name }), 401, 'auth.unauthorized', 'no credential');
    await refusal(await patch(carla, { active: false }, await world.learner('Carla')), 403, 'auth.forbidden', 'a learner credential');
    const other = await ctx.given.tenant();
    await refusal(await patch(carla, { active: false }, other.headers), 404, 'actors.not_found', 'another tenant’s key');
    await refusal(
      await patch({ ...carla, agent: JSON.stringify(world.agent('Carla')) }, { active: false }, world.tenant.headers),
      400,
      'actors.invalid_query',
      'both agent and actorId',
    );
    await refusal(await patch({}, { active: false }, world.tenant.headers), 400, 'actors.invalid_query', 'neither');
    await refusal(await patch({ agent: '{"mbox": 1}' }, { active: false }, world.tenant.headers), 400, 'xapi.invalid_agent', 'malformed');
    for (const body of [
      {},
      { active: 'false' },
      { active: 0 },
      { active: null },
      { active: [false] },
      { active: false, name: 'x' },
      [],
      'false',
    ]) {
      const res = await patch(carla, body, world.tenant.headers);
      await refusal(res, 400, 'request.invalid', `the body ${JSON.stringify(body)}`);
      assert.match(res.json().message, /body/, JSON.stringify(body));
    }
    const named = await patch(carla, { active: false, name: 'x' }, world.tenant.headers);
    assert.match(named.json().message, /"name"/, 'the unknown property is named');
    await refusal(await patch(carla, '{"active": fal', world.tenant.headers), 400, 'request.invalid_json', 'broken JSON');
    await refusal(
      await patch(carla, { active: false }, { ...world.tenant.headers, 'svc-account-source': 'x'.repeat(201) }),
      400,
      'audit.invalid_source',
      'a source header too long',
    );
    assert.equal((await item(carla, world.tenant.headers)).json().active, true, 'Carla was never deactivated');
    assert.deepEqual(await audit(world, { ...carla, action: 'actor.deactivated' }), []);
  });

  it('runs two changes of one person one after the other: both answer 200, one is audited', async () => {
    const world = await given();
    const dora = { actorId: world.actorId('Dora') };
    const learner = await world.learner('Dora');
    const [first, second] = await Promise.all([
      patch(dora, { active: false }, world.tenant.headers),
      patch(dora, { active: false }, (await world.admin()).headers),
    ]);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(first.json().active, false);
    assert.equal(second.json().active, false);
    assert.equal((await audit(world, { ...dora, action: 'actor.deactivated' })).length, 1);
    assert.equal((await get('/api/me', learner)).statusCode, 401);
    const list = await get(`/api/auth/basic?${new URLSearchParams(dora)}`, world.tenant.headers);
    assert.deepEqual(
      (list.json() as Json[]).map((credential) => credential.state),
      ['revoked'],
    );
    const [on, onAgain] = await Promise.all([
      patch(dora, { active: true }, world.tenant.headers),
      patch(dora, { active: true }, world.tenant.headers),
    ]);
    assert.deepEqual([on.statusCode, onAgain.statusCode], [200, 200]);
    assert.equal((await audit(world, { ...dora, action: 'actor.reactivated' })).length, 1);
  });
});
