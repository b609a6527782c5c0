import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { issueApiKey } from '../../src/modules/auth/api-keys/api-key.service.js';
import { basic, PASSWORD } from '../launch/launch-fixtures.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import {
  ACTIVITIES,
  activityId,
  COMPLETIONS,
  buildSkillsWorld,
  heldBy,
  isCompleted,
  jobOf,
  ORGANISATION,
  PEOPLE,
  type SkillsWorld,
} from './skills-fixture.js';

type Json = Record<string, any>;
type Headers = Record<string, string>;

/**
 * Who may read whose learning data (docs/learning.md, "Scoped administration and managers"): a
 * manager's learner credential reads its reports' skills gaps, recommendations and assignments and
 * nobody else's; an API key limited to an organisation subtree reads the people placed there, and
 * its group gaps and recommendation peers count only them. Who is below whom is computed here from
 * the fixture's structure, not read back from the server.
 */

/** The entries at or below `root`, from the fixture's structure. */
function subtree(root: string): Set<string> {
  const found = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of ORGANISATION) {
      if (entry.parentId !== undefined && found.has(entry.parentId) && !found.has(entry.id)) {
        found.add(entry.id);
        grew = true;
      }
    }
  }
  return found;
}
const positionOf = (key: string) => PEOPLE.find((p) => p.key === key)!.attributes.position;
/** The people placed at or below `root`. */
const placedIn = (root: string) =>
  PEOPLE.filter((p) => p.attributes.position !== undefined && subtree(root).has(p.attributes.position)).map((p) => p.key);
/** A manager's reports: the people whose position lies strictly below the manager's. */
const reportsOf = (manager: string) => {
  const below = subtree(positionOf(manager)!);
  below.delete(positionOf(manager)!);
  return PEOPLE.filter((p) => p.attributes.position !== undefined && below.has(p.attributes.position)).map((p) => p.key);
};

/** Per activity, how many of `among` with the person's current job completed it (the recommendation's `peers`). */
function peersOf(person: string, among: readonly string[]): Map<string, number> {
  const job = PEOPLE.find((p) => p.key === person)!.currentJob;
  const peers = PEOPLE.filter((p) => p.currentJob === job && among.includes(p.key)).map((p) => p.key);
  return new Map(
    ACTIVITIES.map((activity) => [
      activityId(activity.name),
      peers.filter((key) => COMPLETIONS.some((c) => c.person === key && c.activity === activity.name && isCompleted(c))).length,
    ]),
  );
}

/** The group gap of `people` against their current jobs (the rule of docs/learning.md). */
function groupOf(people: readonly string[]) {
  const counts = new Map<string, { required: number; held: number }>();
  let withTargetJob = 0;
  for (const key of people) {
    const job = PEOPLE.find((p) => p.key === key)!.currentJob;
    if (!job) continue;
    withTargetJob++;
    for (const { Name } of jobOf(job).competencies) {
      const count = counts.get(Name) ?? { required: 0, held: 0 };
      count.required++;
      if (heldBy(key).has(Name)) count.held++;
      counts.set(Name, count);
    }
  }
  return {
    selected: people.length,
    withTargetJob,
    competencies: Object.fromEntries([...counts].map(([name, c]) => [name, { ...c, missing: c.required - c.held }])),
  };
}

describeEachBackend('learning data: managers and scoped credentials', (ctx: TestContext) => {
  let world: Promise<SkillsWorld> | undefined;
  const given = () => (world ??= buildSkillsWorld(ctx));
  const get = (path: string, query: Record<string, string>, headers: Headers) =>
    ctx.app.inject({ method: 'GET', url: `${path}?${new URLSearchParams(query)}`, headers });
  const PERSON_ROUTES = ['/api/skills-gap', '/api/recommendations', '/api/actors/assignments'];

  const learner = async (w: SkillsWorld, person: string): Promise<Headers> => {
    const username = `${person}-${randomBytes(5).toString('hex')}`;
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: w.tenant.headers,
      payload: { username, password: PASSWORD, data: { actor: w.agent(person) } },
    });
    assert.equal(res.statusCode, 201, res.body);
    return { authorization: basic(username, PASSWORD), 'x-svc-tenant': w.tenant.name };
  };
  const scopedKey = async (w: SkillsWorld, scope: string): Promise<Headers> => {
    const { key, secret } = await issueApiKey(ctx.db, { id: w.tenant.id, name: w.tenant.name, createdAt: new Date() }, scope);
    return { authorization: basic(key, secret), 'x-svc-tenant': w.tenant.name };
  };
  const notFound = async (path: string, query: Record<string, string>, headers: Headers) => {
    const res = await get(path, query, headers);
    assert.equal(res.statusCode, 404, `${path} ${JSON.stringify(query)}: ${res.body}`);
    assert.equal(res.json().code, 'actors.not_found', res.body);
  };

  it('a manager reads the gaps, recommendations and assignments of its reports, at any depth, and no one else’s', async () => {
    const w = await given();
    const eve = await learner(w, 'eve');
    assert.deepEqual(reportsOf('eve'), ['ada', 'bob', 'cid', 'dan']);
    for (const report of reportsOf('eve')) {
      for (const path of PERSON_ROUTES) {
        const query = { actorId: w.actorId(report) };
        const byManager = await get(path, query, eve);
        const byAdmin = await get(path, query, w.tenant.headers);
        assert.equal(byManager.statusCode, byAdmin.statusCode, `${path} ${report}: ${byManager.body}`);
        assert.deepEqual(byManager.json(), byAdmin.json(), `${path} ${report}`);
      }
    }
    // Dan has no current job: his gap is the admin's 4xx too, so the manager reached him.
    assert.equal((await get('/api/skills-gap', { actorId: w.actorId('ada') }, eve)).statusCode, 200);
    // Her own, naming nobody or herself.
    assert.equal((await get('/api/skills-gap', {}, eve)).json().actor.account.name, 'eve@example.com');
    assert.equal((await get('/api/skills-gap', { actorId: w.actorId('eve') }, eve)).statusCode, 200);

    // Her manager, the people outside her subtree, someone without a position, an unknown person: 404.
    const outside = PEOPLE.map((p) => p.key).filter((key) => key !== 'eve' && !reportsOf('eve').includes(key));
    assert.deepEqual(outside, ['fay', 'gus', 'ivy', 'kim', 'lou']);
    for (const person of [...outside, 'hal']) {
      for (const path of PERSON_ROUTES) await notFound(path, { actorId: w.actorId(person) }, eve);
    }
    for (const path of PERSON_ROUTES) await notFound(path, { actorId: 'mbox|mailto:nobody@example.com' }, eve);
    // A peer (the same position) is no report; nor is one's own manager.
    const ada = await learner(w, 'ada');
    for (const person of ['bob', 'cid', 'eve']) {
      for (const path of PERSON_ROUTES) await notFound(path, { actorId: w.actorId(person) }, ada);
    }
    // The head of the structure manages everyone placed below it, at any depth.
    const gus = await learner(w, 'gus');
    assert.deepEqual(reportsOf('gus'), ['ada', 'bob', 'cid', 'dan', 'eve', 'fay', 'kim']);
    for (const report of reportsOf('gus')) {
      assert.equal((await get('/api/actors/assignments', { actorId: w.actorId(report) }, gus)).statusCode, 200, report);
    }
    await notFound('/api/skills-gap', { actorId: w.actorId('ivy') }, gus);
    // A group gap stays an administrator's.
    const group = await ctx.app.inject({
      method: 'POST',
      url: '/api/skills-gap/group',
      headers: gus,
      payload: { people: { organisationId: 'ENG' } },
    });
    assert.equal(group.statusCode, 403, group.body);
    assert.equal(group.json().code, 'auth.forbidden');
  });

  it('a key limited to a subtree reads its people’s gaps and recommendations, counts only them, and is told nothing of the others', async () => {
    const w = await given();
    const eng = await scopedKey(w, 'ENG');
    const inside = placedIn('ENG');
    assert.deepEqual(inside, ['ada', 'bob', 'cid', 'dan', 'eve']);
    for (const person of inside) {
      const query = { actorId: w.actorId(person) };
      const scoped = await get('/api/skills-gap', query, eng);
      const whole = await get('/api/skills-gap', query, w.tenant.headers);
      assert.equal(scoped.statusCode, whole.statusCode, scoped.body);
      assert.deepEqual(scoped.json(), whole.json());
    }
    for (const person of ['fay', 'gus', 'ivy', 'kim', 'lou', 'hal']) {
      for (const path of PERSON_ROUTES) await notFound(path, { actorId: w.actorId(person) }, eng);
    }
    for (const path of PERSON_ROUTES) await notFound(path, { actorId: 'mbox|mailto:nobody@example.com' }, eng);
    const unnamed = await get('/api/skills-gap', {}, eng);
    assert.equal(unnamed.statusCode, 400, unnamed.body);
    assert.equal(unnamed.json().code, 'learning.invalid_query');

    // Recommendation peers: the people of Ada's job it reaches, not Kim (OPS2) nor Ivy (no position).
    const recommended = await get('/api/recommendations', { actorId: w.actorId('ada'), limit: '50' }, eng);
    assert.equal(recommended.statusCode, 200, recommended.body);
    const peers = peersOf('ada', inside);
    for (const r of recommended.json().recommendations as Json[]) assert.equal(r.peers, peers.get(r.activity.id), r.activity.id);
    // The whole tenant's key counts Ivy's a2 and a4 (she is a developer): the two answers differ.
    const wholePeers = peersOf(
      'ada',
      PEOPLE.map((p) => p.key),
    );
    const unscoped = (await get('/api/recommendations', { actorId: w.actorId('ada'), limit: '50' }, w.tenant.headers)).json();
    for (const r of unscoped.recommendations as Json[]) assert.equal(r.peers, wholePeers.get(r.activity.id), r.activity.id);
    assert.notDeepEqual([...peers.values()], [...wholePeers.values()]);

    // The group gap: everyone it reaches, a subtree inside its own, and entries outside it not found.
    const group = async (body: unknown, headers = eng) => {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/skills-gap/group', headers, payload: body as object });
      return res;
    };
    const shape = (answer: Json) => ({
      selected: answer.selected,
      withTargetJob: answer.withTargetJob,
      competencies: Object.fromEntries(
        (answer.competencies as Json[])
          .filter((c) => c.required > 0)
          .map((c) => [c.name, { required: c.required, held: c.held, missing: c.missing }]),
      ),
    });
    const everyone = await group({ people: { criteria: {} } });
    assert.equal(everyone.statusCode, 200, everyone.body);
    assert.deepEqual(shape(everyone.json()), groupOf(inside));
    const dev = await group({ people: { organisationId: 'DEV' } });
    assert.deepEqual(shape(dev.json()), groupOf(placedIn('DEV')));
    const developers = await group({ people: { jobId: 'J-DEV' } });
    assert.deepEqual(shape(developers.json()), groupOf(inside.filter((key) => PEOPLE.find((p) => p.key === key)!.currentJob === 'J-DEV')));
    for (const entry of ['HQ', 'OPS', 'OPS2', 'NOWHERE']) {
      const res = await group({ people: { organisationId: entry } });
      assert.equal(res.statusCode, 404, `${entry}: ${res.body}`);
      assert.equal(res.json().code, 'organisation.not_found');
    }
    // The whole tenant's key still reaches everyone.
    const all = await group({ people: { criteria: {} } }, w.tenant.headers);
    assert.deepEqual(shape(all.json()), groupOf(PEOPLE.map((p) => p.key)));
  });

  it('a key limited to an entry a later import dropped reaches nobody', async () => {
    const w = await given();
    const gone = await scopedKey(w, 'NO-LONGER-THERE');
    await notFound('/api/skills-gap', { actorId: w.actorId('ada') }, gone);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/skills-gap/group',
      headers: gone,
      payload: { people: { criteria: {} } },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().selected, 0);
  });
});
