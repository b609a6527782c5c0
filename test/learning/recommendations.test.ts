import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { basic, PASSWORD } from '../launch/launch-fixtures.js';
import {
  ACTIVITIES,
  activityId,
  buildSkillsWorld,
  COMPLETIONS,
  heldBy,
  isCompleted,
  jobOf,
  PEOPLE,
  type SkillsWorld,
} from './skills-fixture.js';

type Headers = Record<string, string>;
type Json = Record<string, any>;

const url = (query: Record<string, string>) => `/api/recommendations?${new URLSearchParams(query)}`;
/** Byte order, as PostgreSQL's "C" collation compares activity ids. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The recommendations the fixture gives, computed from it by the rule of docs/learning.md: the
 * registered activities developing a missing competency of `jobId`, not completed by the person,
 * ranked by missing competencies covered, then by the people of the person's current job who
 * completed it, then by id.
 */
function expected(person: string, jobId: string) {
  const held = heldBy(person);
  const missing = jobOf(jobId)
    .competencies.map((c) => c.Name)
    .filter((name) => !held.has(name));
  const completedBy = (key: string) => new Set(COMPLETIONS.filter((c) => c.person === key && isCompleted(c)).map((c) => c.activity));
  const currentJob = PEOPLE.find((p) => p.key === person)?.currentJob;
  const peers = currentJob ? PEOPLE.filter((p) => p.currentJob === currentJob).map((p) => p.key) : [];
  return ACTIVITIES.filter((activity) => !completedBy(person).has(activity.name))
    .map((activity) => ({
      id: activityId(activity.name),
      covers: missing.filter((name) => activity.competencies.includes(name)),
      peers: peers.filter((key) => completedBy(key).has(activity.name)).length,
    }))
    .filter((candidate) => candidate.covers.length > 0)
    .sort((a, b) => b.covers.length - a.covers.length || b.peers - a.peers || byteOrder(a.id, b.id));
}

describeEachBackend('GET /api/recommendations', (ctx: TestContext) => {
  let world: Promise<SkillsWorld> | undefined;
  const given = () => (world ??= buildSkillsWorld(ctx));
  const get = (query: Record<string, string>, headers: Headers) => ctx.app.inject({ method: 'GET', url: url(query), headers });
  const recommend = async (query: Record<string, string>, headers?: Headers): Promise<Json> => {
    const w = await given();
    const res = await get(query, headers ?? w.tenant.headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const shape = (answer: Json) =>
    answer.recommendations.map((r: Json) => ({ id: r.activity.id, covers: r.covers.map((c: Json) => c.name), peers: r.peers }));

  it('ranks the activities closing the current job’s gap by people of the same job who completed them', async () => {
    const w = await given();
    const answer = await recommend({ actorId: w.actorId('ada') });
    assert.deepEqual([answer.target, answer.job], ['current', { id: 'J-DEV', name: 'Developer' }]);
    assert.deepEqual(answer.missing, [{ id: w.competencyId('Testing'), name: 'Testing' }]);
    assert.deepEqual(shape(answer), expected('ada', 'J-DEV'));
    // a4: Cid and Ivy (Hal completed it too, but is nobody's colleague); a2: Ivy. Ada only attempted a4.
    assert.deepEqual(shape(answer), [
      { id: activityId('a4'), covers: ['Testing'], peers: 2 },
      { id: activityId('a2'), covers: ['Testing'], peers: 1 },
    ]);
    assert.deepEqual(answer.recommendations[1].activity, { id: activityId('a2'), name: { en: 'Pairing' } });
    assert.deepEqual(answer.recommendations[0].activity, { id: activityId('a4') }, 'no name in its definition');
    assert.deepEqual(answer.recommendations[0].covers, [{ id: w.competencyId('Testing'), name: 'Testing' }]);
  });

  it('for the next position: most competencies covered first, what the person completed left out, ties by id in byte order', async () => {
    const w = await given();
    const answer = await recommend({ actorId: w.actorId('ada'), target: 'next' });
    assert.deepEqual([answer.target, answer.position.id, answer.job.id], ['next', 'ENG', 'J-LEAD']);
    assert.deepEqual(shape(answer), expected('ada', 'J-LEAD'));
    // a3 develops both missing ones, but Ada completed it (failed): left out. Peers stay Ada's current job's.
    assert.deepEqual(shape(answer), [
      { id: activityId('a7'), covers: ['Mentoring', 'Planning'], peers: 0 },
      { id: activityId('a2'), covers: ['Mentoring'], peers: 1 },
      { id: activityId('Z8'), covers: ['Planning'], peers: 0 },
      { id: activityId('a5'), covers: ['Planning'], peers: 0 },
    ]);
    assert.deepEqual(answer.recommendations[3].activity, {
      id: activityId('a5'),
      name: { en: 'Strategy' },
      launchUrl: 'https://content.example.com/a5/',
    });
    const two = await recommend({ actorId: w.actorId('ada'), target: 'next', limit: '2' });
    assert.deepEqual(shape(two), shape(answer).slice(0, 2));
    // The same data, the same order.
    assert.deepEqual(await recommend({ actorId: w.actorId('ada'), target: 'next' }), answer);
  });

  it('gives every person the fixture’s order, whatever the target; a person without a current job has no peers', async () => {
    const w = await given();
    for (const person of PEOPLE) {
      for (const jobId of ['J-DEV', 'J-LEAD', 'J-CEO', 'J-OTHER']) {
        const answer = await recommend({ actorId: w.actorId(person.key), jobId });
        assert.deepEqual(shape(answer), expected(person.key, jobId), `${person.key} for ${jobId}`);
      }
    }
    // Dan (no current job) towards the next position: peers 0 everywhere, so covers then id decide.
    const dan = await recommend({ actorId: w.actorId('dan'), target: 'next' });
    assert.deepEqual(
      shape(dan).map((r: Json) => [r.id.split('/').pop(), r.covers.length, r.peers]),
      [
        ['a2', 2, 0],
        ['a3', 2, 0],
        ['a7', 2, 0],
        ['Z8', 1, 0],
        ['a1', 1, 0],
        ['a5', 1, 0],
      ],
    );
    // Nothing missing, nothing to recommend.
    const cid = await recommend({ actorId: w.actorId('cid'), jobId: 'J-EMPTY' });
    assert.deepEqual([cid.missing, cid.recommendations], [[], []]);
  });

  it('answers the gap’s errors, 400 for a limit out of range, and lets a learner read only their own', async () => {
    const w = await given();
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ actorId: w.actorId('dan') }, 409, 'learning.no_current_job'],
      [{ actorId: w.actorId('gus'), target: 'next' }, 409, 'learning.root_position'],
      [{ actorId: w.actorId('ada'), jobId: 'J-NONE' }, 404, 'learning.job_not_found'],
      [{ actorId: 'mbox|mailto:nobody@example.com' }, 404, 'learning.person_not_found'],
      [{ actorId: w.actorId('ada'), jobId: 'J-DEV', target: 'next' }, 400, 'learning.invalid_query'],
      [{ actorId: w.actorId('ada'), limit: '0' }, 400, 'request.invalid'],
      [{ actorId: w.actorId('ada'), limit: '101' }, 400, 'request.invalid'],
      [{ actorId: w.actorId('ada'), limit: 'ten' }, 400, 'request.invalid'],
      [{}, 400, 'learning.invalid_query'],
    ];
    for (const [query, status, code] of cases) {
      const res = await get(query, w.tenant.headers);
      assert.equal(res.statusCode, status, `${JSON.stringify(query)}: ${res.body}`);
      assert.equal(res.json().code, code, res.body);
    }
    const username = `u-${randomBytes(6).toString('hex')}`;
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: w.tenant.headers,
      payload: { username, password: PASSWORD, data: { actor: w.agent('ivy') } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const learner = { authorization: basic(username, PASSWORD), 'x-svc-tenant': w.tenant.name };
    assert.deepEqual(shape(await recommend({}, learner)), expected('ivy', 'J-DEV'));
    const theirs = await get({ actorId: w.actorId('ada') }, learner);
    // Ivy holds no position: she manages no one (docs/learning.md, "Managers").
    assert.equal(theirs.statusCode, 404, theirs.body);
    assert.equal(theirs.json().code, 'actors.not_found');
    const other = await ctx.given.tenant();
    assert.equal((await get({ actorId: w.actorId('ada') }, { ...other.headers, 'x-svc-tenant': w.tenant.name })).statusCode, 401);
    assert.equal((await get({ actorId: w.actorId('ada') }, { 'x-svc-tenant': w.tenant.name })).statusCode, 401);
  });
});
