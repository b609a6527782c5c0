import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Headers = Record<string, string>;

const importUsers = (ctx: TestContext, headers: Headers, users: unknown[]) =>
  ctx.app.inject({ method: 'POST', url: '/api/import/users', headers, payload: { users } });
const listActors = async (ctx: TestContext, headers: Headers, query = '') => {
  const res = await ctx.app.inject({ method: 'GET', url: `/api/actors${query}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Array<Record<string, any>>;
};
const put = (ctx: TestContext, tenant: GivenTenant, url: string, payload: unknown) =>
  ctx.app.inject({ method: 'PUT', url, headers: tenant.headers, payload: payload as object });

describeEachBackend('GET /api/actors', (ctx) => {
  const ext = (name: string) => `http://${ctx.config.baseDomain}/api/ext/agent/${name}`;
  const home = (tenant: GivenTenant) => `http://${tenant.name}.${ctx.config.baseDomain}`;
  /** A statement's authority (the API key's agent) is an agent statements name, so an actor too. */
  const isAuthority = (tenant: GivenTenant) => (actor: Record<string, any>) => actor.account?.name === tenant.key;

  it('lists imported users as Agents with their attributes, and actors statements named, in a stable order', async () => {
    const tenant = await ctx.given.tenant();
    await importUsers(ctx, tenant.headers, [
      { name: 'Bea', attributes: { email: 'bea@x', city: 'Oslo' } },
      { name: 'Ada', attributes: { email: 'ada@x' } },
    ]);
    const statement = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: tenant.xapi,
      payload: { actor: { mbox: 'mailto:learner@x', name: 'Learner' }, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: 'http://example.com/a' } },
    });
    assert.equal(statement.statusCode, 200, statement.body);
    const all = await listActors(ctx, tenant.headers);
    assert.equal(all.filter(isAuthority(tenant)).length, 1);
    const actors = all.filter((actor) => !isAuthority(tenant)(actor));
    assert.deepEqual(actors, [
      { objectType: 'Agent', name: 'Ada', account: { homePage: home(tenant), name: 'ada@x' }, extensions: { [ext('attributes')]: { email: 'ada@x' } } },
      {
        objectType: 'Agent',
        name: 'Bea',
        account: { homePage: home(tenant), name: 'bea@x' },
        extensions: { [ext('attributes')]: { email: 'bea@x', city: 'Oslo' } },
      },
      { objectType: 'Agent', name: 'Learner', mbox: 'mailto:learner@x' },
    ]);
    assert.deepEqual(await listActors(ctx, tenant.headers, '?limit=2&skip=1'), all.slice(1, 3));
    assert.deepEqual(await listActors(ctx, tenant.headers, '?skip=4'), []);
  });

  it('shows an actor a statement named and the same person imported as one actor', async () => {
    const tenant = await ctx.given.tenant();
    const agent = { account: { homePage: home(tenant), name: 'ada@x' }, name: 'Ada (from the course)' };
    const statement = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: tenant.xapi,
      payload: { actor: agent, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: 'http://example.com/a' } },
    });
    assert.equal(statement.statusCode, 200, statement.body);
    const res = await importUsers(ctx, tenant.headers, [{ name: 'Ada Lovelace', attributes: { email: 'ada@x' } }]);
    assert.equal(res.json().new, 1);
    const actors = (await listActors(ctx, tenant.headers)).filter((actor) => !isAuthority(tenant)(actor));
    assert.equal(actors.length, 1);
    assert.equal(actors[0].name, 'Ada Lovelace');
    assert.deepEqual(actors[0].account, agent.account);
    // The name the statement gave is still the Person's.
    const person = await ctx.app.inject({ method: 'GET', url: `/xapi/agents?agent=${encodeURIComponent(JSON.stringify({ account: agent.account }))}`, headers: tenant.xapi });
    assert.deepEqual(person.json().name, ['Ada (from the course)']);
    const again = await importUsers(ctx, tenant.headers, [{ name: 'Ada King', attributes: { email: 'ada@x' } }]);
    assert.deepEqual([again.json().new, again.json().existing], [0, 1]);
  });

  it('enriches linked users with the organisation entry, its ancestors and the job, read at query time', async () => {
    const tenant = await ctx.given.tenant();
    assert.equal((await put(ctx, tenant, '/api/settings', { organisationAttribute: 'position', jobAttribute: 'jobCode' })).statusCode, 200);
    const organisation = [
      { id: 'CEO', attributes: { title: 'Chief' } },
      { id: 'CTO', parentId: 'CEO', attributes: { title: 'Technology' } },
      { id: 'DEV1', parentId: 'CTO', attributes: { title: 'Developer', site: 'Oslo' } },
    ];
    assert.equal((await put(ctx, tenant, '/api/import/organisation', organisation)).statusCode, 204);
    const jobs = [{ id: 'J1', name: 'Engineer', competencies: [{ Name: 'TypeScript', Description: 'Writes it' }], attributes: { grade: '5' } }];
    assert.equal((await put(ctx, tenant, '/api/import/jobs', jobs)).statusCode, 204);
    await importUsers(ctx, tenant.headers, [
      { name: 'Dev', attributes: { email: 'dev@x', position: 'DEV1', jobCode: 'J1' } },
      { name: 'Loose', attributes: { email: 'loose@x', position: 'NOPE' } },
    ]);
    const [dev, loose] = await listActors(ctx, tenant.headers);
    assert.deepEqual(dev.extensions[ext('organisation')], {
      id: 'DEV1',
      parentId: 'CTO',
      attributes: { title: 'Developer', site: 'Oslo' },
      ancestors: [
        { id: 'CTO', parentId: 'CEO', attributes: { title: 'Technology' } },
        { id: 'CEO', attributes: { title: 'Chief' } },
      ],
    });
    assert.deepEqual(dev.extensions[ext('job')], { id: 'J1', name: 'Engineer', competencies: [{ Name: 'TypeScript', Description: 'Writes it' }], attributes: { grade: '5' } });
    assert.deepEqual(Object.keys(loose.extensions), [ext('attributes')]);

    // Re-importing the organisation and the jobs changes what the user shows, no user re-import.
    await put(ctx, tenant, '/api/import/organisation', [{ id: 'DEV1', attributes: { title: 'Senior developer' } }]);
    await put(ctx, tenant, '/api/import/jobs', [{ id: 'J1', name: 'Staff engineer', competencies: [] }]);
    const [after] = await listActors(ctx, tenant.headers);
    assert.deepEqual(after.extensions[ext('organisation')], { id: 'DEV1', attributes: { title: 'Senior developer' }, ancestors: [] });
    assert.equal(after.extensions[ext('job')].name, 'Staff engineer');
    await put(ctx, tenant, '/api/import/jobs', []);
    const [gone] = await listActors(ctx, tenant.headers);
    assert.equal(gone.extensions[ext('job')], undefined);
  });

  it('lists the identified groups statements name as Groups with their members, and the members as Agents', async () => {
    const tenant = await ctx.given.tenant();
    const send = async (statement: Record<string, unknown>) => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers: tenant.xapi,
        payload: { verb: { id: 'http://adlnet.gov/expapi/verbs/attended' }, object: { id: 'http://example.com/meeting' }, ...statement },
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const team = { objectType: 'Group', name: 'Team A', mbox: 'mailto:team-a@x', member: [{ name: 'Ann', mbox: 'mailto:ann@x' }, { account: { homePage: 'http://hr.x', name: 'B1' } }] };
    await send({ actor: team });
    // As object, instructor and team; an anonymous group is no actor, its members are.
    await send({
      actor: { mbox: 'mailto:ann@x' },
      verb: { id: 'http://adlnet.gov/expapi/verbs/mentored' },
      object: { objectType: 'Group', mbox: 'mailto:team-b@x', member: [] },
      context: {
        instructor: { objectType: 'Group', openid: 'http://x/faculty', name: 'Faculty' },
        team: { objectType: 'Group', member: [{ mbox: 'mailto:cy@x', name: 'Cy' }] },
      },
    });
    // Named again without members, then as an Agent: still the group with its members.
    await send({ actor: { objectType: 'Group', mbox: 'mailto:team-a@x' } });
    await send({ actor: { objectType: 'Agent', mbox: 'mailto:team-a@x' } });

    const byKey = new Map((await listActors(ctx, tenant.headers)).filter((actor) => !isAuthority(tenant)(actor)).map((actor) => [actor.mbox ?? actor.openid ?? actor.account.name, actor]));
    assert.deepEqual([...byKey.keys()].sort(), ['B1', 'http://x/faculty', 'mailto:ann@x', 'mailto:cy@x', 'mailto:team-a@x', 'mailto:team-b@x']);
    assert.deepEqual(byKey.get('mailto:team-a@x'), {
      objectType: 'Group',
      name: 'Team A',
      mbox: 'mailto:team-a@x',
      member: [
        { objectType: 'Agent', name: 'Ann', mbox: 'mailto:ann@x' },
        { objectType: 'Agent', account: { homePage: 'http://hr.x', name: 'B1' } },
      ],
    });
    assert.deepEqual(byKey.get('mailto:team-b@x'), { objectType: 'Group', mbox: 'mailto:team-b@x', member: [] });
    assert.deepEqual(byKey.get('http://x/faculty'), { objectType: 'Group', name: 'Faculty', openid: 'http://x/faculty' });
    assert.deepEqual(byKey.get('mailto:cy@x'), { objectType: 'Agent', name: 'Cy', mbox: 'mailto:cy@x' });
    assert.deepEqual(byKey.get('B1'), { objectType: 'Agent', account: { homePage: 'http://hr.x', name: 'B1' } });

    // The Agents resource still answers for a member.
    const person = await ctx.app.inject({ method: 'GET', url: `/xapi/agents?agent=${encodeURIComponent('{"mbox":"mailto:ann@x"}')}`, headers: tenant.xapi });
    assert.deepEqual(person.json(), { objectType: 'Person', name: ['Ann'], mbox: ['mailto:ann@x'] });

    // A group sent with other members: they replace the stored ones.
    await send({ actor: { ...team, member: [{ mbox: 'mailto:dee@x' }] } });
    const [again] = (await listActors(ctx, tenant.headers, '?limit=1000')).filter((actor) => actor.mbox === 'mailto:team-a@x');
    assert.deepEqual(again.member, [{ objectType: 'Agent', mbox: 'mailto:dee@x' }]);
  });

  it('shows no other tenant’s actors, refuses a bad page and a missing credential', async () => {
    const mine = await ctx.given.tenant();
    const other = await ctx.given.tenant();
    await importUsers(ctx, other.headers, [{ name: 'Theirs', attributes: { email: 't@x' } }]);
    assert.deepEqual(await listActors(ctx, mine.headers), []);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: { 'x-svc-tenant': mine.name } })).statusCode, 401);
    const crossed = await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: { ...other.headers, 'x-svc-tenant': mine.name } });
    assert.equal(crossed.statusCode, 401, "another tenant's key is refused");
    for (const query of ['limit=0', 'limit=1001', 'skip=-1', 'limit=abc']) {
      assert.equal((await ctx.app.inject({ method: 'GET', url: `/api/actors?${query}`, headers: mine.headers })).statusCode, 400, query);
    }
  });
});
