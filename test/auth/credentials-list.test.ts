import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { PASSWORD, WALKER, givenWorld, type World } from '../actors/people-fixtures.js';

type Json = Record<string, any>;
type Headers = Record<string, string>;

/** `GET /api/auth/basic` (docs/provisioning.md, "A person's credentials"): a person's learner credentials, newest first. */
describeEachBackend('GET /api/auth/basic: a person’s learner credentials', (ctx: TestContext) => {
  const get = (url: string, headers: Headers) => ctx.app.inject({ method: 'GET', url, headers });
  const list = (query: Record<string, string>, headers: Headers) => get(`/api/auth/basic?${new URLSearchParams(query)}`, headers);
  const create = async (world: World, name: string) => {
    const username = `${name.toLowerCase()}-${randomBytes(6).toString('hex')}`;
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: world.tenant.headers,
      payload: { username, password: PASSWORD, data: { actor: world.agent(name) } },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { username: string; expiresAt: string };
  };

  let shared: Promise<World> | undefined;
  const given = () => (shared ??= givenWorld(ctx));

  it('lists them newest first with their state, never a password or hash; state=active and limit narrow it', async () => {
    const world = await given();
    const first = await create(world, 'Tom');
    const second = await create(world, 'Tom');
    const third = await create(world, 'Tom');
    const fourth = await create(world, 'Tom');
    const revoked = await ctx.app.inject({ method: 'DELETE', url: `/api/auth/basic/${second.username}`, headers: world.tenant.headers });
    assert.equal(revoked.statusCode, 204, revoked.body);
    // Expired: made to have run out an hour ago (the lifetime is the server's, 30 days by default).
    await ctx.db.query(`UPDATE actor_credentials SET expires_at = now() - interval '1 hour' WHERE tenant_id = $1 AND username = $2`, [
      world.tenant.id,
      third.username,
    ]);

    const tom = { actorId: world.actorId('Tom') };
    const all = await list(tom, world.tenant.headers);
    assert.equal(all.statusCode, 200, all.body);
    const listed = all.json() as Json[];
    assert.deepEqual(
      listed.map((credential) => [credential.username, credential.state]),
      [
        [fourth.username, 'active'],
        [third.username, 'expired'],
        [second.username, 'revoked'],
        [first.username, 'active'],
      ],
    );
    for (const credential of listed) {
      const expected =
        credential.state === 'revoked'
          ? ['createdAt', 'expiresAt', 'revokedAt', 'state', 'username']
          : ['createdAt', 'expiresAt', 'state', 'username'];
      assert.deepEqual(Object.keys(credential).sort(), expected, 'no password, no hash');
      assert.ok(!Number.isNaN(Date.parse(credential.createdAt)) && !Number.isNaN(Date.parse(credential.expiresAt)));
    }
    assert.equal(listed[0].expiresAt, fourth.expiresAt, 'the expiry POST answered');
    assert.ok(Date.parse(listed[2].revokedAt) >= Date.parse(listed[2].createdAt));
    assert.ok(Date.parse(listed[1].expiresAt) < Date.now(), 'the expired one ran out');

    const active = await list({ ...tom, state: 'active' }, world.tenant.headers);
    assert.deepEqual(
      (active.json() as Json[]).map((credential) => credential.username),
      [fourth.username, first.username],
    );
    const newest = await list({ agent: JSON.stringify(world.agent('Tom')), limit: '1' }, world.tenant.headers);
    assert.deepEqual(
      (newest.json() as Json[]).map((credential) => credential.username),
      [fourth.username],
    );
    assert.deepEqual((await list({ actorId: `mbox|${WALKER.mbox}` }, world.tenant.headers)).json(), [], 'someone without any: []');
  });

  it('shows a deactivated person’s credentials revoked, and still lists them', async () => {
    const world = await given();
    const made = await create(world, 'Otto');
    const otto = { actorId: world.actorId('Otto') };
    const off = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/actors/item?${new URLSearchParams(otto)}`,
      headers: world.tenant.headers,
      payload: { active: false },
    });
    assert.equal(off.statusCode, 200, off.body);
    assert.deepEqual(
      (await list(otto, world.tenant.headers)).json().map((credential: Json) => [credential.username, credential.state]),
      [[made.username, 'revoked']],
    );
    assert.deepEqual((await list({ ...otto, state: 'active' }, world.tenant.headers)).json(), []);
  });

  it('answers 400 naming the problem: both or neither of agent and actorId, a malformed one, a bad state or limit', async () => {
    const world = await given();
    const headers = world.tenant.headers;
    const tom = world.actorId('Tom');
    const refusal = async (query: Record<string, string>, code: string, parameter?: string) => {
      const res = await list(query, headers);
      assert.equal(res.statusCode, 400, `${JSON.stringify(query)}: ${res.body}`);
      assert.equal(res.json().code, code, JSON.stringify(query));
      if (parameter !== undefined) assert.match(res.json().message, new RegExp(parameter), JSON.stringify(query));
    };
    await refusal({ actorId: tom, agent: JSON.stringify(world.agent('Tom')) }, 'actors.invalid_query', 'not both');
    await refusal({}, 'actors.invalid_query', 'agent');
    await refusal({ agent: '[]' }, 'xapi.invalid_agent');
    await refusal({ actorId: 'mbox|ada' }, 'xapi.invalid_agent');
    await refusal({ actorId: tom, state: 'revoked' }, 'request.invalid', 'state');
    await refusal({ actorId: tom, limit: '0' }, 'request.invalid', 'limit');
    await refusal({ actorId: tom, limit: '1001' }, 'request.invalid', 'limit');
    await refusal({ actorId: tom, skip: '1' }, 'request.invalid', 'skip');
  });

  it('is for admins and API keys of the tenant, narrowed to a scoped credential’s subtree (401, 403, 404)', async () => {
    const world = await given();
    await create(world, 'Dan');
    const dan = { actorId: world.actorId('Dan') };
    assert.equal((await list(dan, { 'x-svc-tenant': world.tenant.name })).statusCode, 401);
    const learner = await list(dan, await world.learner('Dan'));
    assert.equal(learner.statusCode, 403, learner.body);
    assert.equal(learner.json().code, 'auth.forbidden');
    const admin = await list(dan, (await world.admin()).headers);
    assert.equal(admin.statusCode, 200, admin.body);
    assert.ok((admin.json() as Json[]).length >= 1);

    const notFound = async (query: Record<string, string>, headers: Headers, what: string) => {
      const res = await list(query, headers);
      assert.equal(res.statusCode, 404, `${what}: ${res.body}`);
      assert.equal(res.json().code, 'actors.not_found', what);
    };
    await notFound({ actorId: 'mbox|mailto:nobody@example.com' }, world.tenant.headers, 'an unknown person');
    const other = await ctx.given.tenant();
    await notFound(dan, other.headers, 'another tenant’s principal');
    for (const headers of [await world.scopedKey('CTO'), (await world.admin('CTO')).headers]) {
      const inside = await list(dan, headers);
      assert.equal(inside.statusCode, 200, inside.body);
      await notFound({ actorId: world.actorId('Fay') }, headers, 'a person outside the subtree');
    }
  });
});
