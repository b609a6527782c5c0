import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { COURSE, PEOPLE, givenWorld, named, peopleIn, type World } from './people-fixtures.js';

type Json = Record<string, any>;
type Headers = Record<string, string>;

const names = (actors: Json[]) => actors.map((actor) => actor.name as string).sort();
const sorted = (list: string[]) => [...list].sort();

/**
 * The reports of `name`, from the fixture: the people whose position lies strictly below theirs
 * (ORGANISATION), at any depth. A peer (the same position) is none of them.
 */
const reportsOf = (name: string) => {
  const position = named(name).attributes.position;
  return position === undefined ? [] : sorted(peopleIn(position, false).map((someone) => someone.name));
};

describeEachBackend('Managers: a learner credential reads its reports, the holders of the positions below its own', (ctx: TestContext) => {
  const get = (url: string, headers: Headers) => ctx.app.inject({ method: 'GET', url, headers });
  let shared: Promise<World> | undefined;
  const given = () => (shared ??= givenWorld(ctx));
  const completions = async (world: World, headers: Headers, name: string) =>
    get(`/api/actors/completions?${new URLSearchParams({ actorId: world.actorId(name) })}`, headers);

  it('reads a report’s completion records, two levels down and more (GET /api/actors/completions)', async () => {
    const world = await given();
    const tom = await world.learner('Tom');
    assert.ok(reportsOf('Tom').includes('Dan'), 'Dan is two levels below Tom (CTO > ENG > DEV1)');
    for (const report of ['Eve', 'Dan', 'Dora', 'Otto', 'Op07']) {
      const res = await completions(world, tom, report);
      assert.equal(res.statusCode, 200, `${report}: ${res.body}`);
      assert.deepEqual(
        (res.json() as Json[]).map((record) => [record.actor.account.name, record.activityId, record.status]),
        [[named(report).attributes.email, COURSE, 'completed']],
      );
    }
    // Its own, without naming itself.
    const own = await get('/api/actors/completions', tom);
    assert.equal(own.json()[0].actor.account.name, 'tom@example.com');
  });

  it('is refused (404) a peer, its own manager, someone in another branch, and anyone without a position', async () => {
    const world = await given();
    const cases: Array<[string, string[]]> = [
      // Tom (CTO): Tim holds CTO too (a peer), Carla is his manager, Fay, Abe another branch, Nell and Zed no position of the structure.
      ['Tom', ['Tim', 'Carla', 'Fay', 'Abe', 'Acc1', 'Nell', 'Zed']],
      // Eve (ENG): Otto's OPS is beside ENG, Tom above her.
      ['Eve', ['Otto', 'Tom', 'Carla', 'Op01']],
      // Dan (DEV1): Dora is his peer; he manages no one.
      ['Dan', ['Dora', 'Eve', 'Tom']],
      // Nell has no position: she reads herself only.
      ['Nell', ['Dan', 'Zed']],
    ];
    for (const [manager, others] of cases) {
      const headers = await world.learner(manager);
      for (const other of others) {
        assert.ok(!reportsOf(manager).includes(other), `${other} is no report of ${manager} in the fixture`);
        const res = await completions(world, headers, other);
        assert.equal(res.statusCode, 404, `${manager} reading ${other}: ${res.body}`);
        assert.equal(res.json().code, 'actors.not_found');
      }
      assert.equal((await completions(world, headers, manager)).statusCode, 200);
    }
    // An agent only statements named, and one the tenant does not have.
    const tom = await world.learner('Tom');
    for (const actorId of ['mbox|mailto:walker@example.com', 'mbox|mailto:nobody@example.com']) {
      assert.equal((await get(`/api/actors/completions?${new URLSearchParams({ actorId })}`, tom)).statusCode, 404);
    }
  });

  it('lists a manager’s reports, paged and shaped as GET /api/actors (GET /api/actors/reports)', async () => {
    const world = await given();
    const tom = await world.learner('Tom');
    const all = await get('/api/actors/reports?limit=1000', tom);
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(names(all.json()), reportsOf('Tom'));
    assert.equal(all.headers['x-total-count'], String(reportsOf('Tom').length));
    // Shaped as the actor list: the same actor, extensions and all.
    const listed = (await get('/api/actors?limit=1000', world.tenant.headers)).json() as Json[];
    const eve = (all.json() as Json[]).find((actor) => actor.name === 'Eve');
    assert.deepEqual(
      eve,
      listed.find((actor) => actor.name === 'Eve'),
    );
    assert.equal(eve?.extensions['http://localhost/api/ext/agent/organisation'].id, 'ENG');
    // A page, and the link to the next one.
    const page = await get('/api/actors/reports?limit=3&skip=3', tom);
    assert.deepEqual(
      (page.json() as Json[]).map((actor) => actor.name),
      (all.json() as Json[]).slice(3, 6).map((actor) => actor.name),
    );
    assert.match(String(page.headers.link), /^<http:\/\/[^>]+\/api\/actors\/reports\?limit=3&skip=6>; rel="next"$/);
    // A report's reports (a part of his own); his peer's: 404.
    const eves = await get(`/api/actors/reports?${new URLSearchParams({ actorId: world.actorId('Eve') })}`, tom);
    assert.deepEqual(names(eves.json()), reportsOf('Eve'));
    assert.equal((await get(`/api/actors/reports?${new URLSearchParams({ actorId: world.actorId('Tim') })}`, tom)).statusCode, 404);
    // Someone who manages no one.
    const dan = await get('/api/actors/reports', await world.learner('Dan'));
    assert.deepEqual(dan.json(), []);
    assert.equal(dan.headers['x-total-count'], '0');
  });

  it('answers a tenant-wide principal for the person it names, within its own reach', async () => {
    const world = await given();
    const key = world.tenant.headers;
    for (const name of ['Carla', 'Tom', 'Eve', 'Fay', 'Nell']) {
      const res = await get(`/api/actors/reports?limit=1000&${new URLSearchParams({ agent: JSON.stringify(world.agent(name)) })}`, key);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(names(res.json()), reportsOf(name), name);
    }
    assert.equal(
      reportsOf('Carla').length,
      PEOPLE.filter(
        (someone) => someone.attributes.position && someone.attributes.position !== 'CEO' && someone.attributes.position !== 'GHOST',
      ).length,
    );
    // Naming no one: 400; someone the tenant does not have: 404.
    const nobody = await get('/api/actors/reports', key);
    assert.equal(nobody.statusCode, 400, nobody.body);
    assert.equal(nobody.json().code, 'actors.invalid_query');
    const both = await get(
      `/api/actors/reports?${new URLSearchParams({ actorId: world.actorId('Tom'), agent: JSON.stringify(world.agent('Tom')) })}`,
      key,
    );
    assert.equal(both.statusCode, 400, both.body);
    assert.equal((await get('/api/actors/reports?actorId=mbox|mailto:nobody@example.com', key)).statusCode, 404);
    assert.equal((await get('/api/actors/reports?actorId=nonsense', key)).json().code, 'xapi.invalid_agent');
    // A key limited to ENG: Tom is outside it (404), Eve's reports are inside it.
    const eng = await world.scopedKey('ENG');
    assert.equal((await get(`/api/actors/reports?${new URLSearchParams({ actorId: world.actorId('Tom') })}`, eng)).statusCode, 404);
    const eves = await get(`/api/actors/reports?${new URLSearchParams({ actorId: world.actorId('Eve') })}`, eng);
    assert.deepEqual(names(eves.json()), reportsOf('Eve'));
  });

  it('refuses a launch token the reports, and another person’s records even when its learner manages them', async () => {
    const world = await given();
    const tom = await world.learner('Tom');
    const launched = await ctx.app.inject({
      method: 'GET',
      url: `/api/activities/launch?${new URLSearchParams({ activityId: COURSE, auth: tom.authorization })}`,
      headers: { host: `${world.tenant.name}.${ctx.config.baseDomain}:8080` },
    });
    assert.equal(launched.statusCode, 302, launched.body);
    const token = {
      authorization: new URL(launched.headers.location as string).searchParams.get('auth')!,
      'x-svc-tenant': world.tenant.name,
    };
    const reports = await get('/api/actors/reports', token);
    assert.equal(reports.statusCode, 403, reports.body);
    assert.equal(reports.json().code, 'auth.forbidden');
    assert.equal((await completions(world, token, 'Dan')).statusCode, 404);
    assert.equal((await completions(world, token, 'Tom')).statusCode, 200);
  });

  it('leaves the other people routes to their owners: a manager reads its own notifications only, and no actor list', async () => {
    const world = await given();
    const tom = await world.learner('Tom');
    const notifications = await get(`/api/notifications?${new URLSearchParams({ actorId: world.actorId('Dan') })}`, tom);
    assert.equal(notifications.statusCode, 403, notifications.body);
    const own = await get('/api/notifications', tom);
    assert.deepEqual(
      (own.json() as Json[]).map((notification) => notification.object.n),
      ['Tom'],
    );
    for (const url of ['/api/actors', '/api/audit', '/api/actors/attributes']) assert.equal((await get(url, tom)).statusCode, 403, url);
  });

  it('refuses another tenant’s learner credential (401), and no credential at all', async () => {
    const world = await given();
    const other = await givenWorld(ctx);
    const foreign = { ...(await other.learner('Tom')), 'x-svc-tenant': world.tenant.name };
    assert.equal((await get('/api/actors/reports', foreign)).statusCode, 401);
    assert.equal((await completions(world, foreign, 'Dan')).statusCode, 401);
    assert.equal((await get('/api/actors/reports', { 'x-svc-tenant': world.tenant.name })).statusCode, 401);
  });
});
