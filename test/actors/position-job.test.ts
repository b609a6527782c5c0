import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Actor = Record<string, any>;

/**
 * A person's current job (docs/imports.md, "Model and settings"): their own jobAttribute value
 * when it names a job, else their position's job through positionJobAttribute. The enrichment of
 * GET /api/actors and the search's job.* conditions follow the one rule.
 */
const ORGANISATION = [
  { id: 'HQ', attributes: { job: 'J-CEO' } },
  { id: 'ENG', parentId: 'HQ', attributes: { job: 'J-LEAD' } },
  { id: 'DEV', parentId: 'ENG', attributes: { job: 'J-DEV' } },
  { id: 'QA', parentId: 'ENG', attributes: { job: 'J-GONE' } },
  { id: 'OPS', parentId: 'HQ', attributes: {} },
];
const JOBS = [
  { id: 'J-DEV', name: 'Developer', competencies: [{ Name: 'TypeScript' }], attributes: { family: 'Technology' } },
  { id: 'J-LEAD', name: 'Lead', competencies: [{ Name: 'Mentoring' }] },
  { id: 'J-CEO', name: 'Chief' },
  { id: 'J-OTHER', name: 'Analyst' },
];
/** Each person, and the job the rule gives them (by hand) with every link setting, and without positionJobAttribute. */
const PEOPLE = [
  { name: 'Ada', attributes: { position: 'DEV' }, job: 'J-DEV', ownOnly: undefined },
  { name: 'Bob', attributes: { position: 'DEV', jobCode: 'J-OTHER' }, job: 'J-OTHER', ownOnly: 'J-OTHER' },
  { name: 'Cid', attributes: { position: 'DEV', jobCode: 'J-NONE' }, job: 'J-DEV', ownOnly: undefined },
  { name: 'Dan', attributes: { position: 'QA' }, job: undefined, ownOnly: undefined },
  { name: 'Eve', attributes: { position: 'ENG', jobCode: '' }, job: 'J-LEAD', ownOnly: undefined },
  { name: 'Fay', attributes: { position: 'OPS' }, job: undefined, ownOnly: undefined },
  { name: 'Ivy', attributes: { jobCode: 'J-DEV' }, job: 'J-DEV', ownOnly: 'J-DEV' },
  { name: 'Jon', attributes: { position: 'NOWHERE' }, job: undefined, ownOnly: undefined },
];

describeEachBackend('A person’s job through their position (positionJobAttribute)', (ctx: TestContext) => {
  const send = async (tenant: GivenTenant, method: 'PUT' | 'POST', url: string, payload: unknown) => {
    const res = await ctx.app.inject({ method, url, headers: tenant.headers, payload: payload as object });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.body}`);
    return res;
  };
  const settings = { organisationAttribute: 'position', jobAttribute: 'jobCode', positionJobAttribute: 'job' };
  const givenTenant = async () => {
    const tenant = await ctx.given.tenant();
    await send(tenant, 'PUT', '/api/settings', settings);
    await send(tenant, 'PUT', '/api/import/organisation', ORGANISATION);
    await send(tenant, 'PUT', '/api/import/jobs', JOBS);
    const users = PEOPLE.map(({ name, attributes }) => ({
      name,
      attributes: { email: `${name.toLowerCase()}@example.com`, ...attributes },
    }));
    const imported = await send(tenant, 'POST', '/api/import/users', { users });
    assert.equal(imported.json().new, PEOPLE.length, imported.body);
    // An agent only statements named: no attributes, no job.
    const statement = {
      actor: { mbox: 'mailto:hal@example.com', name: 'Hal' },
      verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' },
      object: { id: 'http://example.com/a' },
    };
    const stored = await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: statement });
    assert.equal(stored.statusCode, 200, stored.body);
    return tenant;
  };
  const jobKey = () => `http://${ctx.config.serviceDomain ?? ctx.config.baseDomain}/api/ext/agent/job`;
  const jobsShown = async (tenant: GivenTenant) => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/actors?limit=1000', headers: tenant.headers });
    assert.equal(res.statusCode, 200, res.body);
    return new Map((res.json() as Actor[]).map((actor) => [actor.name as string, actor.extensions?.[jobKey()]?.id as string | undefined]));
  };
  const found = async (tenant: GivenTenant, criteria: unknown) => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/actors/search', headers: tenant.headers, payload: { criteria } });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json().actors as Actor[]).map((actor) => actor.name as string).sort();
  };
  const having = (pick: (person: (typeof PEOPLE)[number]) => string | undefined, jobs: string[]) =>
    PEOPLE.filter((person) => jobs.includes(pick(person) ?? ''))
      .map((person) => person.name)
      .sort();

  it('shows each person the job of the rule in GET /api/actors: own value first, else the position’s', async () => {
    const tenant = await givenTenant();
    const shown = await jobsShown(tenant);
    for (const person of PEOPLE) assert.equal(shown.get(person.name), person.job, person.name);
    assert.equal(shown.get('Hal'), undefined);
    const res = await ctx.app.inject({ method: 'GET', url: '/api/actors?limit=1000', headers: tenant.headers });
    const ada = (res.json() as Actor[]).find((actor) => actor.name === 'Ada');
    assert.deepEqual(ada?.extensions[jobKey()], {
      id: 'J-DEV',
      name: 'Developer',
      competencies: [{ Name: 'TypeScript', Description: '' }],
      attributes: { family: 'Technology' },
    });
  });

  it('finds by job.* whom the enrichment shows with that job, through the index path (id eq, in) and the others', async () => {
    const tenant = await givenTenant();
    const shown = await jobsShown(tenant);
    for (const job of [...JOBS.map((j) => j.id), 'J-GONE', 'J-NONE']) {
      const expected = PEOPLE.filter((person) => shown.get(person.name) === job)
        .map((person) => person.name)
        .sort();
      assert.deepEqual(
        expected,
        having((person) => person.job, [job]),
        job,
      );
      assert.deepEqual(await found(tenant, { field: 'job.id', op: 'eq', value: job }), expected, `job.id eq ${job}`);
      assert.deepEqual(await found(tenant, { field: 'job.id', op: 'startsWith', value: job }), expected, `job.id startsWith ${job}`);
    }
    assert.deepEqual(await found(tenant, { field: 'job.id', op: 'in', value: ['J-DEV', 'J-LEAD'] }), ['Ada', 'Cid', 'Eve', 'Ivy']);
    // Past 20 values, in compares text: the same people.
    const many = [...Array.from({ length: 25 }, (_, i) => `J-X${i}`), 'J-DEV'];
    assert.deepEqual(await found(tenant, { field: 'job.id', op: 'in', value: many }), ['Ada', 'Cid', 'Ivy']);
    assert.deepEqual(await found(tenant, { field: 'job.name', op: 'eq', value: 'Developer' }), ['Ada', 'Cid', 'Ivy']);
    assert.deepEqual(await found(tenant, { field: 'job.competencies.Name', op: 'eq', value: 'Mentoring' }), ['Eve']);
    assert.deepEqual(await found(tenant, { field: 'job.attributes.family', op: 'eq', value: 'Technology' }), ['Ada', 'Cid', 'Ivy']);
    assert.deepEqual(await found(tenant, { field: 'job.id', op: 'ne', value: 'J-DEV' }), ['Bob', 'Eve']);
    assert.deepEqual(await found(tenant, { field: 'job.id', op: 'exists', value: false }), ['Dan', 'Fay', 'Hal', 'Jon']);
    assert.deepEqual(await found(tenant, { not: { field: 'job.id', op: 'eq', value: 'J-DEV' } }), [
      'Bob',
      'Dan',
      'Eve',
      'Fay',
      'Hal',
      'Jon',
    ]);
    assert.deepEqual(
      await found(tenant, {
        and: [
          { field: 'job.id', op: 'eq', value: 'J-DEV' },
          { field: 'organisation.id', op: 'eq', value: 'DEV' },
        ],
      }),
      ['Ada', 'Cid'],
    );
  });

  it('reads jobAttribute alone without positionJobAttribute, the position alone without jobAttribute', async () => {
    const tenant = await givenTenant();
    await send(tenant, 'PUT', '/api/settings', { ...settings, positionJobAttribute: null });
    let shown = await jobsShown(tenant);
    for (const person of PEOPLE) assert.equal(shown.get(person.name), person.ownOnly, person.name);
    assert.deepEqual(await found(tenant, { field: 'job.id', op: 'eq', value: 'J-DEV' }), ['Ivy']);
    assert.deepEqual(await found(tenant, { field: 'job.name', op: 'eq', value: 'Developer' }), ['Ivy']);

    await send(tenant, 'PUT', '/api/settings', { ...settings, jobAttribute: null });
    shown = await jobsShown(tenant);
    assert.equal(shown.get('Bob'), 'J-DEV', 'his own value is no setting now: his position’s job');
    assert.equal(shown.get('Ivy'), undefined);
    assert.deepEqual(await found(tenant, { field: 'job.id', op: 'eq', value: 'J-DEV' }), ['Ada', 'Bob', 'Cid']);
    assert.deepEqual(await found(tenant, { field: 'job.name', op: 'eq', value: 'Developer' }), ['Ada', 'Bob', 'Cid']);

    await send(tenant, 'PUT', '/api/settings', { ...settings, organisationAttribute: null });
    assert.deepEqual(
      await found(tenant, { field: 'job.id', op: 'eq', value: 'J-DEV' }),
      ['Ivy'],
      'no position without organisationAttribute',
    );
  });

  it('places people by the organisationAttribute in force: a change of it moves them, and the users written after it', async () => {
    const tenant = await givenTenant();
    const inDev = { field: 'organisation.id', op: 'eq', value: 'DEV' };
    const underEng = { field: 'organisation.ancestors.id', op: 'in', value: ['ENG'] };
    assert.deepEqual(await found(tenant, inDev), ['Ada', 'Bob', 'Cid']);
    assert.deepEqual(await found(tenant, underEng), ['Ada', 'Bob', 'Cid', 'Dan']);

    // Another attribute holds the positions now: Ivy's "desk" is DEV, Ada's QA; nobody else has one.
    const desks = { Ada: 'QA', Ivy: 'DEV' };
    const users = PEOPLE.map(({ name, attributes }) => ({
      name,
      attributes: {
        email: `${name.toLowerCase()}@example.com`,
        ...attributes,
        ...(name in desks ? { desk: desks[name as keyof typeof desks] } : {}),
      },
    }));
    await send(tenant, 'POST', '/api/import/users', { users });
    assert.deepEqual(await found(tenant, inDev), ['Ada', 'Bob', 'Cid'], 'the setting is still "position"');
    await send(tenant, 'PUT', '/api/settings', { ...settings, organisationAttribute: 'desk' });
    assert.deepEqual(await found(tenant, inDev), ['Ivy']);
    assert.deepEqual(await found(tenant, underEng), ['Ada', 'Ivy']);
    assert.deepEqual(await found(tenant, { field: 'job.id', op: 'eq', value: 'J-DEV' }), ['Ivy'], 'her own job and her desk’s agree');

    // A user written under the new setting takes it; PUT /api/actors/agents likewise.
    await send(tenant, 'POST', '/api/import/users', {
      users: [{ name: 'Kim', attributes: { email: 'kim@example.com', position: 'OPS', desk: 'DEV' } }],
    });
    const attributesKey = `http://${ctx.config.serviceDomain ?? ctx.config.baseDomain}/api/ext/agent/attributes`;
    const agent = { mbox: 'mailto:lee@example.com', name: 'Lee', extensions: { [attributesKey]: { desk: 'QA', position: 'DEV' } } };
    await send(tenant, 'PUT', '/api/actors/agents', agent);
    assert.deepEqual(await found(tenant, inDev), ['Ivy', 'Kim']);
    assert.deepEqual(await found(tenant, underEng), ['Ada', 'Ivy', 'Kim', 'Lee']);

    await send(tenant, 'PUT', '/api/settings', { ...settings, organisationAttribute: null });
    assert.deepEqual(await found(tenant, underEng), [], 'no position without organisationAttribute');
    await send(tenant, 'PUT', '/api/settings', settings);
    assert.deepEqual(await found(tenant, inDev), ['Ada', 'Bob', 'Cid', 'Lee']);
  });

  it('follows a re-imported organisation at once: the users need no re-import', async () => {
    const tenant = await givenTenant();
    await send(
      tenant,
      'PUT',
      '/api/import/organisation',
      ORGANISATION.map((entry) => (entry.id === 'DEV' ? { ...entry, attributes: { job: 'J-LEAD' } } : entry)),
    );
    const shown = await jobsShown(tenant);
    assert.deepEqual([shown.get('Ada'), shown.get('Bob'), shown.get('Cid')], ['J-LEAD', 'J-OTHER', 'J-LEAD']);
    assert.deepEqual(await found(tenant, { field: 'job.id', op: 'eq', value: 'J-LEAD' }), ['Ada', 'Cid', 'Eve']);
  });
});
