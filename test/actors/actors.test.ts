import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { PASSWORD } from '../launch/launch-fixtures.js';

type Headers = Record<string, string>;

const importUsers = (ctx: TestContext, headers: Headers, users: unknown[]) =>
  ctx.app.inject({ method: 'POST', url: '/api/import/users', headers, payload: { users } });
const listActors = async (ctx: TestContext, headers: Headers, query = '') => {
  const res = await ctx.app.inject({ method: 'GET', url: `/api/actors${query}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Array<Record<string, any>>;
};
/** The target of a Link header's rel="next", if it has one. */
const nextLink = (header: unknown) => /<([^>]+)>; rel="next"/.exec(String(header ?? ''))?.[1];
const put = (ctx: TestContext, tenant: GivenTenant, url: string, payload: unknown) =>
  ctx.app.inject({ method: 'PUT', url, headers: tenant.headers, payload: payload as object });

describeEachBackend('GET /api/actors', (ctx) => {
  const ext = (name: string) => `http://${ctx.config.baseDomain}/api/ext/agent/${name}`;
  const home = (tenant: GivenTenant) => `http://${tenant.name}.${ctx.config.baseDomain}`;

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
      payload: {
        actor: { mbox: 'mailto:learner@x', name: 'Learner' },
        verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
        object: { id: 'http://example.com/a' },
      },
    });
    assert.equal(statement.statusCode, 200, statement.body);
    const actors = await listActors(ctx, tenant.headers);
    assert.deepEqual(actors, [
      {
        objectType: 'Agent',
        name: 'Ada',
        account: { homePage: home(tenant), name: 'ada@x' },
        extensions: { [ext('attributes')]: { email: 'ada@x' } },
      },
      {
        objectType: 'Agent',
        name: 'Bea',
        account: { homePage: home(tenant), name: 'bea@x' },
        extensions: { [ext('attributes')]: { email: 'bea@x', city: 'Oslo' } },
      },
      { objectType: 'Agent', name: 'Learner', mbox: 'mailto:learner@x' },
    ]);
    assert.deepEqual(await listActors(ctx, tenant.headers, '?limit=2&skip=1'), actors.slice(1, 3));
    assert.deepEqual(await listActors(ctx, tenant.headers, '?skip=3'), []);
  });

  it('interface 4.2, "lists all actors": people by default, the statements\' authorities only when asked (kind)', async () => {
    const tenant = await ctx.given.tenant();
    await importUsers(ctx, tenant.headers, [{ name: 'Ada', attributes: { email: 'ada@x' } }]);
    const statements = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: tenant.xapi,
      payload: [
        {
          actor: { mbox: 'mailto:learner@x' },
          verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
          object: { id: 'http://example.com/a' },
          context: { instructor: { mbox: 'mailto:teacher@x' } },
        },
      ],
    });
    assert.equal(statements.statusCode, 200, statements.body);
    // A learner credential's statement: its username is its authority, never a person.
    const learner = { account: { homePage: home(tenant), name: 'ada@x' } };
    const username = `u-${tenant.name}`;
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: tenant.headers,
      payload: { username, password: PASSWORD, data: { actor: learner } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const own = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: {
        authorization: `Basic ${Buffer.from(`${username}:${PASSWORD}`).toString('base64')}`,
        'x-svc-tenant': tenant.name,
        'x-experience-api-version': '2.0.0',
      },
      payload: { actor: learner, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: 'http://example.com/a' } },
    });
    assert.equal(own.statusCode, 200, own.body);

    const identity = (actor: Record<string, any>) => actor.mbox ?? actor.account.name;
    const people = await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: tenant.headers });
    assert.deepEqual((people.json() as Array<Record<string, any>>).map(identity), ['ada@x', 'mailto:learner@x', 'mailto:teacher@x']);
    assert.equal(people.headers['x-total-count'], '3');
    assert.equal(nextLink(people.headers.link), undefined, 'no next page');
    assert.deepEqual(await listActors(ctx, tenant.headers, '?kind=people'), people.json());
    const authorities = await ctx.app.inject({ method: 'GET', url: '/api/actors?kind=authorities', headers: tenant.headers });
    // The API key's authority, an account at the server's address (inject's Host: localhost:80). A
    // learner credential's statements record only the learner's own agent: its username is not
    // recorded at all.
    assert.deepEqual(
      (authorities.json() as Array<Record<string, any>>).map((actor) => actor.account),
      [{ homePage: 'http://localhost:80', name: tenant.key }],
    );
    assert.equal(authorities.headers['x-total-count'], '1');
    assert.equal((await listActors(ctx, tenant.headers, '?kind=all')).length, 4);

    // An authority a statement then names as a person (here as its actor) is a person from then on.
    const named = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: tenant.xapi,
      payload: {
        actor: { account: { homePage: 'http://localhost:80', name: tenant.key } },
        verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
        object: { id: 'http://example.com/a' },
      },
    });
    assert.equal(named.statusCode, 200, named.body);
    assert.deepEqual(
      (await listActors(ctx, tenant.headers)).map(identity).sort(),
      ['ada@x', tenant.key, 'mailto:learner@x', 'mailto:teacher@x'].sort(),
    );
    assert.deepEqual(await listActors(ctx, tenant.headers, '?kind=authorities'), []);

    const bad = await ctx.app.inject({ method: 'GET', url: '/api/actors?kind=groups', headers: tenant.headers });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().message, /kind/);
  });

  it('interface 4.2, "lists all actors. No parameters": past one page, a total and a Link rel="next" a client follows to the end', async () => {
    const tenant = await ctx.given.tenant();
    const users = Array.from({ length: 132 }, (_, index) => ({
      name: `User ${index}`,
      attributes: { email: `u${String(index).padStart(3, '0')}@x` },
    }));
    const imported = await importUsers(ctx, tenant.headers, users);
    assert.equal(imported.statusCode, 200, imported.body);
    const seen: string[] = [];
    let url: string | undefined = '/api/actors';
    let pages = 0;
    while (url !== undefined) {
      const res: Awaited<ReturnType<typeof ctx.app.inject>> = await ctx.app.inject({
        method: 'GET',
        url,
        headers: { ...tenant.headers, host: '127.0.0.1:8080' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['x-total-count'], '132');
      seen.push(...(res.json() as Array<Record<string, any>>).map((actor) => actor.account.name));
      pages++;
      const next = nextLink(res.headers.link);
      if (next === undefined) break;
      // The API key's own link (rel="deprecation") stays beside it.
      assert.match(String(res.headers.link), /rel="next", <[^>]+>; rel="deprecation"/);
      const target = new URL(next);
      assert.equal(target.origin, 'http://127.0.0.1:8080');
      url = `${target.pathname}${target.search}`;
    }
    assert.equal(pages, 2);
    assert.deepEqual(
      seen,
      users.map((user) => user.attributes.email),
    );

    const small = await ctx.app.inject({
      method: 'GET',
      url: '/api/actors?limit=50&skip=100',
      headers: { ...tenant.headers, host: '127.0.0.1:8080' },
    });
    assert.equal(small.json().length, 32);
    assert.equal(nextLink(small.headers.link), undefined);
    const first = await ctx.app.inject({
      method: 'GET',
      url: '/api/actors?limit=50&kind=all',
      headers: { ...tenant.headers, host: '127.0.0.1:8080' },
    });
    assert.equal(nextLink(first.headers.link), 'http://127.0.0.1:8080/api/actors?kind=all&limit=50&skip=50');
    const past = await ctx.app.inject({ method: 'GET', url: '/api/actors?skip=500', headers: tenant.headers });
    assert.deepEqual([past.json(), past.headers['x-total-count'], nextLink(past.headers.link)], [[], '132', undefined]);
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
    const actors = await listActors(ctx, tenant.headers);
    assert.equal(actors.length, 1);
    assert.equal(actors[0].name, 'Ada Lovelace');
    assert.deepEqual(actors[0].account, agent.account);
    // The name the statement gave is still the Person's.
    const person = await ctx.app.inject({
      method: 'GET',
      url: `/xapi/agents?agent=${encodeURIComponent(JSON.stringify({ account: agent.account }))}`,
      headers: tenant.xapi,
    });
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
    const jobs = [
      { id: 'J1', name: 'Engineer', competencies: [{ Name: 'TypeScript', Description: 'Writes it' }], attributes: { grade: '5' } },
    ];
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
    assert.deepEqual(dev.extensions[ext('job')], {
      id: 'J1',
      name: 'Engineer',
      competencies: [{ Name: 'TypeScript', Description: 'Writes it' }],
      attributes: { grade: '5' },
    });
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
    const team = {
      objectType: 'Group',
      name: 'Team A',
      mbox: 'mailto:team-a@x',
      member: [{ name: 'Ann', mbox: 'mailto:ann@x' }, { account: { homePage: 'http://hr.x', name: 'B1' } }],
    };
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

    const byKey = new Map(
      (await listActors(ctx, tenant.headers)).map((actor) => [actor.mbox ?? actor.openid ?? actor.account.name, actor]),
    );
    assert.deepEqual([...byKey.keys()].sort(), [
      'B1',
      'http://x/faculty',
      'mailto:ann@x',
      'mailto:cy@x',
      'mailto:team-a@x',
      'mailto:team-b@x',
    ]);
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
    const person = await ctx.app.inject({
      method: 'GET',
      url: `/xapi/agents?agent=${encodeURIComponent('{"mbox":"mailto:ann@x"}')}`,
      headers: tenant.xapi,
    });
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
