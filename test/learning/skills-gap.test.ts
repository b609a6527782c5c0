import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { after, before, it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { basic, givenLaunch, PASSWORD, startContentServer } from '../launch/launch-fixtures.js';
import {
  activityId,
  buildSkillsWorld,
  COMPLETIONS,
  DESCRIPTIONS,
  heldBy,
  isEvidence,
  jobOf,
  ORGANISATION,
  PEOPLE,
  type SkillsWorld,
} from './skills-fixture.js';

type Headers = Record<string, string>;
type Json = Record<string, any>;

const gapUrl = (query: Record<string, string>) => `/api/skills-gap?${new URLSearchParams(query)}`;

describeEachBackend('Skills gaps', (ctx: TestContext) => {
  let world: Promise<SkillsWorld> | undefined;
  /** The fixture's tenant, built once per backend (the tests only read it). */
  const given = () => (world ??= buildSkillsWorld(ctx));

  const get = (url: string, headers: Headers) => ctx.app.inject({ method: 'GET', url, headers });
  const gap = async (query: Record<string, string>, headers?: Headers): Promise<Json> => {
    const w = await given();
    const res = await get(gapUrl(query), headers ?? w.tenant.headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const group = (body: unknown, headers?: Headers) =>
    given().then((w) =>
      ctx.app.inject({ method: 'POST', url: '/api/skills-gap/group', headers: headers ?? w.tenant.headers, payload: body as object }),
    );

  /** What the fixture says a person's gap for a job is: each competency held or not, in the job's order. */
  const expectedGap = (person: string, jobId: string) =>
    jobOf(jobId).competencies.map(({ Name }) => ({ name: Name, held: heldBy(person).has(Name) }));
  const shape = (answer: Json) => answer.competencies.map((c: Json) => ({ name: c.name, held: c.held }));

  it('measures a person against their current job: the position’s job through positionJobAttribute, evidence newest first', async () => {
    const w = await given();
    const answer = await gap({ actorId: w.actorId('ada') });
    assert.deepEqual(answer.actor, { objectType: 'Agent', name: 'ada', account: { homePage: w.homePage, name: 'ada@example.com' } });
    assert.equal(answer.target, 'current');
    assert.equal(answer.position, undefined);
    assert.deepEqual(answer.job, { id: 'J-DEV', name: 'Developer' });
    assert.deepEqual(shape(answer), expectedGap('ada', 'J-DEV'));
    assert.deepEqual(shape(answer), [
      { name: 'TypeScript', held: true },
      { name: 'SQL', held: true },
      { name: 'Testing', held: false },
    ]);
    assert.deepEqual([answer.held, answer.missing], [2, 1]);
    const [typescript, , testing] = answer.competencies;
    assert.equal(typescript.id, w.competencyId('TypeScript'));
    assert.equal(typescript.description, DESCRIPTIONS.TypeScript);
    // The launch-like run in a registration (February) first, then the one without (January, with its score).
    const ada = COMPLETIONS.filter((c) => c.person === 'ada' && c.activity === 'a1');
    assert.deepEqual(typescript.evidence, [
      { activityId: activityId('a1'), name: { en: 'TypeScript and SQL' }, registration: ada[1].registration, at: ada[1].at },
      { activityId: activityId('a1'), name: { en: 'TypeScript and SQL' }, at: ada[0].at, score: { scaled: 0.8 } },
    ]);
    // Attempted only: no evidence.
    assert.deepEqual(testing.evidence, []);
  });

  it('takes the own jobAttribute value before the position’s job, and the position’s when the own names no job', async () => {
    const w = await given();
    for (const person of PEOPLE.filter((p) => p.currentJob)) {
      const answer = await gap({ actorId: w.actorId(person.key) });
      assert.equal(answer.job.id, person.currentJob, person.key);
      assert.deepEqual(shape(answer), expectedGap(person.key, person.currentJob!), person.key);
    }
  });

  it('measures against the next position up and names it; passing is what counts where the activity requires success', async () => {
    const w = await given();
    const answer = await gap({ actorId: w.actorId('ada'), target: 'next' });
    assert.equal(answer.target, 'next');
    assert.deepEqual(answer.position, { id: 'ENG', attributes: ORGANISATION[1].attributes });
    assert.deepEqual(answer.job, { id: 'J-LEAD', name: 'Lead' });
    // Ada completed a3 but failed it; a3 requires success: Mentoring and Planning stay missing.
    assert.deepEqual(shape(answer), [
      { name: 'TypeScript', held: true },
      { name: 'Mentoring', held: false },
      { name: 'Planning', held: false },
    ]);
    assert.deepEqual([answer.held, answer.missing], [1, 2]);
    // Cid passed it: held, with its date and score.
    const cid = await gap({ actorId: w.actorId('cid'), target: 'next' });
    const mentoring = cid.competencies.find((c: Json) => c.name === 'Mentoring');
    assert.deepEqual(mentoring.evidence, [
      { activityId: activityId('a3'), name: { en: 'Leading' }, at: '2026-01-08T10:00:00.000Z', score: { scaled: 0.9 } },
    ]);
    // Bob's own job wins for current, but next is still his position's parent's.
    assert.equal((await gap({ actorId: w.actorId('bob'), target: 'next' })).job.id, 'J-LEAD');
    // Dan (no job of his own: QA names no existing job) still has a next position.
    assert.equal((await gap({ actorId: w.actorId('dan'), target: 'next' })).job.id, 'J-LEAD');
    const fay = await gap({ actorId: w.actorId('fay'), target: 'next' });
    assert.deepEqual([fay.position.id, fay.job.id], ['HQ', 'J-CEO']);
  });

  it('measures against any job named by jobId, and anyone the store has, even an agent only statements named', async () => {
    const w = await given();
    const chief = await gap({ actorId: w.actorId('ada'), jobId: 'J-CEO' });
    assert.equal(chief.target, 'job');
    assert.deepEqual(shape(chief), expectedGap('ada', 'J-CEO'));
    assert.deepEqual([chief.held, chief.missing], [0, 2]);
    // target=current gives way to jobId.
    assert.equal((await gap({ actorId: w.actorId('ada'), jobId: 'J-CEO', target: 'current' })).target, 'job');
    const empty = await gap({ actorId: w.actorId('ada'), jobId: 'J-EMPTY' });
    assert.deepEqual([empty.competencies, empty.held, empty.missing], [[], 0, 0]);
    // Hal: two completions at the same instant, in activity id order.
    const hal = await gap({ agent: JSON.stringify(w.agent('hal')), jobId: 'J-DEV' });
    assert.deepEqual(hal.actor, { objectType: 'Agent', mbox: 'mailto:hal@example.com' });
    assert.deepEqual(shape(hal), expectedGap('hal', 'J-DEV'));
    const testing = hal.competencies.find((c: Json) => c.name === 'Testing');
    assert.deepEqual(
      testing.evidence.map((e: Json) => e.activityId),
      [activityId('a2'), activityId('a4')],
    );
    assert.equal(testing.evidence[1].name, undefined, 'a4 has no definition name');
  });

  it('lists at most the ten newest pieces of evidence', async () => {
    const w = await given();
    const lou = await gap({ actorId: w.actorId('lou') });
    const [sql] = lou.competencies;
    const runs = COMPLETIONS.filter((c) => c.person === 'lou' && isEvidence(c))
      .sort((a, b) => b.at.localeCompare(a.at))
      .slice(0, 10);
    assert.deepEqual(
      sql.evidence.map((e: Json) => [e.at, e.registration]),
      runs.map((c) => [c.at, c.registration]),
    );
  });

  it('answers 409 for what the data lacks, 404 for whom and what it does not have', async () => {
    const w = await given();
    const { rows: authorities } = await ctx.db.query<{ agent_key: string }>(
      'SELECT agent_key FROM actors WHERE tenant_id = $1 AND authority_only',
      [w.tenant.id],
    );
    assert.equal(authorities.length, 1, 'the API key, authority of the fixture’s statements');
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ actorId: w.actorId('dan') }, 409, 'learning.no_current_job'],
      [{ actorId: w.actorId('fay') }, 409, 'learning.no_current_job'],
      [{ actorId: w.actorId('hal') }, 409, 'learning.no_current_job'],
      [{ actorId: w.actorId('ivy'), target: 'next' }, 409, 'learning.no_position'],
      [{ actorId: w.actorId('gus'), target: 'next' }, 409, 'learning.root_position'],
      [{ actorId: w.actorId('kim'), target: 'next' }, 409, 'learning.no_parent_job'],
      [{ actorId: 'mbox|mailto:nobody@example.com' }, 404, 'learning.person_not_found'],
      // The API key is known as the authority of the statements it sent: a credential, not a person.
      [{ actorId: authorities[0].agent_key }, 404, 'learning.person_not_found'],
      [{ actorId: w.actorId('ada'), jobId: 'J-NONE' }, 404, 'learning.job_not_found'],
    ];
    for (const [query, status, code] of cases) {
      const res = await get(gapUrl(query), w.tenant.headers);
      assert.equal(res.statusCode, status, `${JSON.stringify(query)}: ${res.body}`);
      assert.equal(res.json().code, code, res.body);
    }
    const gusNext = await get(gapUrl({ actorId: w.actorId('gus'), target: 'next' }), w.tenant.headers);
    assert.deepEqual(gusNext.json().details, { positionId: 'HQ' });
    const kimNext = await get(gapUrl({ actorId: w.actorId('kim'), target: 'next' }), w.tenant.headers);
    assert.deepEqual(kimNext.json().details, { positionId: 'OPS2', parentId: 'OPS' });
  });

  it('answers 400 naming the problem for a malformed request', async () => {
    const w = await given();
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{}, 'learning.invalid_query', /no person of its own: name the person/],
      [{ actorId: w.actorId('ada'), agent: JSON.stringify(w.agent('ada')) }, 'learning.invalid_query', /at most one of 'agent'/],
      [{ actorId: w.actorId('ada'), target: 'next', jobId: 'J-CEO' }, 'learning.invalid_query', /without target=next/],
      [{ actorId: w.actorId('ada'), target: 'previous' }, 'request.invalid', /target/],
      [{ actorId: w.actorId('ada'), jobId: '' }, 'request.invalid', /jobId/],
      [{ actorId: w.actorId('ada'), jobId: 'x'.repeat(256) }, 'request.invalid', /jobId/],
      [{ actorId: w.actorId('ada'), colour: 'blue' }, 'request.invalid', /colour/],
      [{ actorId: 'email|ada' }, 'xapi.invalid_agent', /actorId/],
      [{ agent: '{"mbox":' }, 'xapi.invalid_agent', /agent/],
    ];
    for (const [query, code, message] of cases) {
      const res = await get(gapUrl(query), w.tenant.headers);
      assert.equal(res.statusCode, 400, `${JSON.stringify(query)}: ${res.body}`);
      assert.equal(res.json().code, code, res.body);
      assert.match(JSON.stringify(res.json()), message);
    }
  });

  it('counts per competency how many of a group hold it and lack it: an organisation subtree, each person’s current job', async () => {
    const res = await group({ people: { organisationId: 'ENG' } });
    assert.equal(res.statusCode, 200, res.body);
    // ENG, DEV and QA: Ada, Bob, Cid (DEV), Dan (QA: no job), Eve (ENG).
    assert.deepEqual(res.json().selected, 5);
    assert.deepEqual(res.json().withTargetJob, 4);
    assert.equal(res.json().job, undefined);
    assert.deepEqual(
      res.json().competencies.map(({ name, required, held, missing }: Json) => ({ name, required, held, missing })),
      [
        // In catalogue order: by name, case-insensitively.
        { name: 'Mentoring', required: 1, held: 1, missing: 0 },
        { name: 'Planning', required: 1, held: 1, missing: 0 },
        { name: 'SQL', required: 3, held: 1, missing: 2 },
        { name: 'Testing', required: 2, held: 1, missing: 1 },
        { name: 'TypeScript', required: 3, held: 1, missing: 2 },
      ],
    );
  });

  /** The group gap the fixture gives for `people` (imported people only) against their current jobs or `jobId`. */
  const expectedGroup = (people: string[], jobId?: string) => {
    const targets = people.flatMap((key) => {
      const job = jobId ?? PEOPLE.find((p) => p.key === key)!.currentJob;
      return job ? [{ key, job }] : [];
    });
    const counts = new Map<string, { name: string; required: number; held: number; missing: number }>();
    for (const { key, job } of targets) {
      for (const { Name } of jobOf(job).competencies) {
        const count = counts.get(Name) ?? { name: Name, required: 0, held: 0, missing: 0 };
        count.required++;
        if (heldBy(key).has(Name)) count.held++;
        else count.missing++;
        counts.set(Name, count);
      }
    }
    const listed = jobId
      ? jobOf(jobId).competencies.map(({ Name }) => counts.get(Name) ?? { name: Name, required: 0, held: 0, missing: 0 })
      : [...counts.values()].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1));
    return { selected: people.length, withTargetJob: targets.length, competencies: listed };
  };
  const groupShape = (answer: Json) => ({
    selected: answer.selected,
    withTargetJob: answer.withTargetJob,
    competencies: answer.competencies.map(({ name, required, held, missing }: Json) => ({ name, required, held, missing })),
  });

  it('selects by job (the people the actor search finds for job.id), by criteria, everyone; one jobId for all', async () => {
    const w = await given();
    const byJob = await group({ people: { jobId: 'J-DEV' } });
    assert.equal(byJob.statusCode, 200, byJob.body);
    const developers = PEOPLE.filter((p) => p.currentJob === 'J-DEV').map((p) => p.key);
    assert.deepEqual(developers, ['ada', 'cid', 'ivy', 'kim']);
    assert.deepEqual(groupShape(byJob.json()), expectedGroup(developers));
    // Hal completed a2 and a4 but is no one's employee: not counted, though no job would count him anyway.
    const search = await ctx.app.inject({
      method: 'POST',
      url: '/api/actors/search',
      headers: w.tenant.headers,
      payload: { criteria: { field: 'job.id', op: 'eq', value: 'J-DEV' } },
    });
    assert.deepEqual(
      (search.json().actors as Json[]).map((actor) => actor.name).sort(),
      developers,
      'the search and the group select the same people',
    );

    const everyone = await group({ people: { criteria: {} } });
    assert.deepEqual(groupShape(everyone.json()), expectedGroup(PEOPLE.map((p) => p.key)));

    const devTeamAsLeads = await group({ people: { criteria: { field: 'organisation.id', op: 'in', value: ['DEV'] } }, jobId: 'J-LEAD' });
    assert.equal(devTeamAsLeads.statusCode, 200, devTeamAsLeads.body);
    assert.deepEqual(devTeamAsLeads.json().job, { id: 'J-LEAD', name: 'Lead' });
    assert.deepEqual(groupShape(devTeamAsLeads.json()), expectedGroup(['ada', 'bob', 'cid'], 'J-LEAD'));
    assert.deepEqual(groupShape(devTeamAsLeads.json()).competencies, [
      { name: 'TypeScript', required: 3, held: 1, missing: 2 },
      { name: 'Mentoring', required: 3, held: 1, missing: 2 },
      { name: 'Planning', required: 3, held: 1, missing: 2 },
    ]);

    const nobody = await group({ people: { criteria: { field: 'attributes.email', op: 'eq', value: 'nobody@example.com' } } });
    assert.deepEqual(nobody.json(), { selected: 0, withTargetJob: 0, competencies: [] });
    const nobodyAsChiefs = await group({
      people: { criteria: { field: 'attributes.email', op: 'eq', value: 'nobody@example.com' } },
      jobId: 'J-CEO',
    });
    assert.deepEqual(groupShape(nobodyAsChiefs.json()), expectedGroup([], 'J-CEO'));
    const leaf = await group({ people: { organisationId: 'OPS2' } });
    assert.deepEqual(groupShape(leaf.json()), expectedGroup(['kim']));
  });

  it('refuses a bad group body with 400 naming the part, and unknown entries and jobs with 404', async () => {
    const cases: Array<[unknown, number, string, string?]> = [
      [[], 400, 'learning.invalid_group', ''],
      [{}, 400, 'learning.invalid_group', '/people'],
      [{ people: { organisationId: 'ENG' }, colour: 1 }, 400, 'learning.invalid_group', '/colour'],
      [{ people: 'ENG' }, 400, 'learning.invalid_group', '/people'],
      [{ people: {} }, 400, 'learning.invalid_group', '/people'],
      [{ people: { organisationId: 'ENG', jobId: 'J-DEV' } }, 400, 'learning.invalid_group', '/people'],
      [{ people: { team: 'x' } }, 400, 'learning.invalid_group', '/people/team'],
      [{ people: { organisationId: 7 } }, 400, 'learning.invalid_group', '/people/organisationId'],
      [{ people: { organisationId: '' } }, 400, 'learning.invalid_group', '/people/organisationId'],
      [{ people: { jobId: 'J\u0000' } }, 400, 'learning.invalid_group', '/people/jobId'],
      [{ people: { jobId: 'J-DEV' }, jobId: 'x'.repeat(256) }, 400, 'learning.invalid_group', '/jobId'],
      [{ people: { criteria: { field: 'nope', op: 'eq', value: 'x' } } }, 400, 'actors.invalid_criteria', '/people/criteria/field'],
      [{ people: { criteria: [] } }, 400, 'actors.invalid_criteria', '/people/criteria'],
      [{ people: { organisationId: 'NOWHERE' } }, 404, 'organisation.not_found'],
      [{ people: { jobId: 'J-NONE' } }, 404, 'learning.job_not_found'],
      [{ people: { organisationId: 'ENG' }, jobId: 'J-NONE' }, 404, 'learning.job_not_found'],
    ];
    for (const [body, status, code, path] of cases) {
      const res = await group(body);
      assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
      assert.equal(res.json().code, code, res.body);
      if (path !== undefined) assert.equal(res.json().details.path, path, res.body);
    }
    // Criteria at their bounds: nine levels deep.
    let deep: unknown = { field: 'name', op: 'exists' };
    for (let i = 0; i < 8; i++) deep = { not: deep };
    const tooDeep = await group({ people: { criteria: deep } });
    assert.equal(tooDeep.statusCode, 400, tooDeep.body);
    assert.match(tooDeep.json().message, /nested deeper than 8 levels/);
  });

  let content: { server: Server; origin: string };
  before(async () => {
    content = await startContentServer();
  });
  after(() => new Promise<void>((resolve) => content.server.close(() => resolve())));

  it('lets a learner credential read its own gap only, refuses launch tokens, other tenants and no credential', async () => {
    const w = await given();
    const username = `u-${randomBytes(6).toString('hex')}`;
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: w.tenant.headers,
      payload: { username, password: PASSWORD, data: { actor: w.agent('ada') } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const learner = { authorization: basic(username, PASSWORD), 'x-svc-tenant': w.tenant.name };
    const own = await gap({}, learner);
    assert.deepEqual([own.actor.account.name, own.job.id], ['ada@example.com', 'J-DEV']);
    assert.equal((await gap({ actorId: w.actorId('ada'), target: 'next' }, learner)).job.id, 'J-LEAD');
    for (const query of [{ actorId: w.actorId('bob') }, { actorId: 'mbox|mailto:nobody@example.com' }]) {
      const res = await get(gapUrl(query), learner);
      // Bob is Ada's peer, not her report; the other is nobody: both as if there were no such person.
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().code, 'actors.not_found');
    }
    const groupByLearner = await group({ people: { organisationId: 'ENG' } }, learner);
    assert.equal(groupByLearner.statusCode, 403, groupByLearner.body);
    assert.equal(groupByLearner.json().code, 'auth.forbidden');

    const other = await ctx.given.tenant();
    for (const headers of [{ ...other.headers, 'x-svc-tenant': w.tenant.name }, { 'x-svc-tenant': w.tenant.name }]) {
      assert.equal((await get(gapUrl({ actorId: w.actorId('ada') }), headers)).statusCode, 401);
      assert.equal((await group({ people: { organisationId: 'ENG' } }, headers)).statusCode, 401);
    }
    // Another tenant's own credential sees nothing of this tenant's people.
    const elsewhere = await get(gapUrl({ actorId: w.actorId('ada') }), other.headers);
    assert.equal(elsewhere.statusCode, 404, elsewhere.body);

    const launch = await givenLaunch(ctx, content.origin);
    const launched = await ctx.app.inject({
      method: 'GET',
      url: launch.launchPath,
      headers: { host: `${launch.tenant.name}.localhost:8080` },
    });
    assert.equal(launched.statusCode, 302, launched.body);
    const token = {
      authorization: new URL(launched.headers.location as string).searchParams.get('auth')!,
      'x-svc-tenant': launch.tenant.name,
    };
    const byToken = await get(gapUrl({ jobId: 'J-DEV' }), token);
    assert.equal(byToken.statusCode, 403, byToken.body);
    assert.equal(byToken.json().code, 'learning.forbidden');
  });
});
