import assert from 'node:assert/strict';
import { it } from 'node:test';
import { issueApiKey } from '../../src/modules/auth/api-keys/api-key.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

/** `PUT /api/import/organisation?verify=true` and `PUT /api/import/jobs?verify=true` (docs/imports.md, "Checking a replacement first"). */

const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

const STRUCTURE = [
  { id: 'CEO', attributes: { title: 'Chief Executive' } },
  { id: 'CTO', parentId: 'CEO', attributes: { title: 'Chief Technology Officer' } },
  { id: 'CFO', parentId: 'CEO' },
  { id: 'DEV1', parentId: 'CTO' },
  { id: 'ACC1', parentId: 'CFO' },
];

/** Drops ACC1 and CFO, moves DEV1 under the CEO, retitles the CTO, adds OPS and OPS1. */
const NEXT = [
  { id: 'OPS', parentId: 'CEO' },
  { id: 'CEO', attributes: { title: 'Chief Executive' } },
  { id: 'CTO', parentId: 'CEO', attributes: { title: 'Technology' } },
  { id: 'DEV1', parentId: 'CEO' },
  { id: 'OPS1', parentId: 'OPS' },
];

const JOBS = [
  { id: 'J-ENG', name: 'Engineer', competencies: [{ Name: 'TypeScript', Description: 'Writes it' }] },
  { id: 'J-ACC', name: 'Accountant', competencies: [{ Name: 'Bookkeeping' }] },
  { id: 'J-CEO', name: 'Chief' },
];

/** Drops J-ACC, renames J-ENG, keeps J-CEO, adds J-OPS with a competency new to the catalogue (and one known, in another case). */
const NEXT_JOBS = [
  { id: 'J-ENG', name: 'Software Engineer', competencies: [{ Name: 'TypeScript', Description: 'Writes it' }] },
  { id: 'J-CEO', name: 'Chief' },
  { id: 'J-OPS', name: 'Operator', competencies: [{ Name: 'typescript' }, { Name: 'Logistics' }, { Name: 'LOGISTICS' }] },
];

const PEOPLE = [
  { name: 'Ada', attributes: { email: 'ada@example.com', position: 'DEV1', job: 'J-ENG' } },
  { name: 'Bob', attributes: { email: 'bob@example.com', position: 'ACC1', job: 'J-ACC' } },
  { name: 'Cy', attributes: { email: 'cy@example.com', position: 'CFO' } },
  { name: 'Di', attributes: { email: 'di@example.com', position: 'CEO', job: 'J-CEO' } },
  // Names no entry now nor then, and no job: in neither count.
  { name: 'Ed', attributes: { email: 'ed@example.com', position: 'NOWHERE', job: 'J-NONE' } },
  // Names an entry the new structure adds: linked, never unlinked.
  { name: 'Flo', attributes: { email: 'flo@example.com', position: 'OPS1', job: 'J-OPS' } },
];

function harness(ctx: TestContext) {
  const put = (tenant: GivenTenant, what: 'organisation' | 'jobs', body: unknown, query = '?verify=true', headers = tenant.headers) =>
    ctx.app.inject({
      method: 'PUT',
      url: `/api/import/${what}${query}`,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = async (tenant: GivenTenant, url: string) => {
    const res = await ctx.app.inject({ method: 'GET', url, headers: tenant.headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as unknown;
  };
  const send = async (tenant: GivenTenant, method: 'PUT' | 'POST', url: string, payload: unknown) => {
    const res = await ctx.app.inject({ method, url, headers: tenant.headers, payload: payload as object });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  };
  /** A tenant whose people are linked by `position` and `job`, with STRUCTURE and JOBS imported. */
  const world = async (settings: Record<string, string> = { organisationAttribute: 'position', jobAttribute: 'job' }) => {
    const tenant = await ctx.given.tenant();
    await send(tenant, 'PUT', '/api/settings', settings);
    await send(tenant, 'PUT', '/api/import/organisation', STRUCTURE);
    await send(tenant, 'PUT', '/api/import/jobs', JOBS);
    await send(tenant, 'POST', '/api/import/users', { users: PEOPLE });
    return tenant;
  };
  const key = (tenant: GivenTenant, email: string) => `account|http://${tenant.name}.${ctx.config.baseDomain}|${email}`;
  return { put, get, send, world, key };
}

describeEachBackend('PUT /api/import/organisation?verify=true', (ctx) => {
  const { put, get, send, world, key } = harness(ctx);

  it('answers what the replacement would add, remove and change, and whom it would unlink', async () => {
    const tenant = await world();
    const res = await put(tenant, 'organisation', NEXT);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      verify: true,
      entries: 5,
      added: 2,
      removed: 2,
      changed: 2,
      unchanged: 1,
      people: { linked: 3, unlinked: 2 },
      examples: {
        added: ['OPS', 'OPS1'],
        removed: ['CFO', 'ACC1'],
        changed: ['CTO', 'DEV1'],
        unlinked: [
          { agentKey: key(tenant, 'bob@example.com'), name: 'Bob' },
          { agentKey: key(tenant, 'cy@example.com'), name: 'Cy' },
        ],
      },
    });
  });

  it('stores nothing but its line in the history; the same array imported after changes what it said', async () => {
    const tenant = await world();
    const before = await get(tenant, '/api/organisation');
    assert.equal((await put(tenant, 'organisation', NEXT)).statusCode, 200);
    assert.deepEqual(await get(tenant, '/api/organisation'), before);
    const history = (await get(tenant, '/api/import/history?limit=2')) as { kind: string; verify: boolean; summary: unknown }[];
    assert.deepEqual(history[0], {
      ...history[0],
      kind: 'organisation',
      verify: true,
      summary: { entries: 5, added: 2, removed: 2, changed: 2, unchanged: 1, people: { linked: 3, unlinked: 2 } },
    });
    assert.equal(history[1]!.kind, 'users');

    // ?verify=false is the import itself.
    assert.equal((await put(tenant, 'organisation', NEXT, '?verify=false')).statusCode, 204);
    const again = await put(tenant, 'organisation', NEXT);
    assert.deepEqual(
      { ...(again.json() as object), examples: undefined },
      { verify: true, entries: 5, added: 0, removed: 0, changed: 0, unchanged: 5, people: { linked: 3, unlinked: 0 }, examples: undefined },
    );
  });

  it('counts no one without an organisationAttribute, nor a deactivated person; an empty array removes everything', async () => {
    const unlinked = await world({ jobAttribute: 'job' });
    const none = (await put(unlinked, 'organisation', [])).json() as Record<string, unknown>;
    assert.deepEqual([none.entries, none.removed, none.people], [0, 5, { linked: 0, unlinked: 0 }]);

    const tenant = await world();
    await ctx.db.query(`UPDATE actors SET deactivated_at = now() WHERE tenant_id = $1 AND name = 'Bob'`, [tenant.id]);
    const people = ((await put(tenant, 'organisation', [])).json() as { people: unknown }).people;
    // Ada, Cy and Di lose their position; Bob is no longer one of the people, Ed names no entry, Flo one not stored.
    assert.deepEqual(people, { linked: 0, unlinked: 3 });
  });

  it('refuses an invalid array with every problem, as the import does, and records nothing', async () => {
    const tenant = await world();
    const bad = [{ id: 'A', parentId: 'B' }, { id: 'A' }, { id: 'C', colour: 'red' }];
    const checked = await put(tenant, 'organisation', bad);
    const imported = await put(tenant, 'organisation', bad, '');
    assert.equal(checked.statusCode, 400);
    assert.deepEqual(checked.json(), imported.json());
    assert.equal((checked.json() as { code: string }).code, 'imports.invalid_organisation');
    assert.equal((checked.json() as { details: { problems: unknown[] } }).details.problems.length, 3);
    const notArray = await put(tenant, 'organisation', { entries: [] });
    assert.equal((notArray.json() as { code: string }).code, 'imports.invalid_organisation');
    const history = (await get(tenant, '/api/import/history?limit=1')) as { kind: string }[];
    assert.equal(history[0]!.kind, 'users', 'a refused check is no run');
  });

  it('answers 400 naming verify for any other value, and refuses missing, learner and scoped credentials', async () => {
    const tenant = await world();
    for (const query of ['?verify=yes', '?verify=TRUE', '?verify=', '?verify=true&verify=false']) {
      const res = await put(tenant, 'organisation', NEXT, query);
      assert.equal(res.statusCode, 400, query);
      assert.deepEqual((res.json() as { code: string; details: unknown }).details, { field: 'verify' });
      assert.equal((res.json() as { code: string }).code, 'imports.invalid_body');
    }
    assert.equal((await put(tenant, 'organisation', NEXT, '?verify=true', { 'x-svc-tenant': tenant.name })).statusCode, 401);

    await send(tenant, 'POST', '/api/auth/basic', {
      username: 'ada-learner',
      password: 'a learner password',
      data: { actor: { account: { homePage: `http://${tenant.name}.${ctx.config.baseDomain}`, name: 'ada@example.com' } } },
    });
    const learner = { authorization: basic('ada-learner', 'a learner password'), 'x-svc-tenant': tenant.name };
    const asLearner = await put(tenant, 'organisation', NEXT, '?verify=true', learner);
    assert.equal(asLearner.statusCode, 403, asLearner.body);
    assert.equal((asLearner.json() as { code: string }).code, 'auth.forbidden');

    // As the import itself: a credential limited to a subtree may not replace (nor check) the whole structure.
    const record = (await new TenancyService(ctx.db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
    const scoped = await issueApiKey(ctx.db, record, 'CTO');
    const asScoped = await put(tenant, 'organisation', NEXT, '?verify=true', {
      authorization: basic(scoped.key, scoped.secret),
      'x-svc-tenant': tenant.name,
    });
    assert.equal(asScoped.statusCode, 403, asScoped.body);
    assert.equal((asScoped.json() as { code: string }).code, 'auth.out_of_scope');
  });

  it('compares with the principal’s own tenant only', async () => {
    const mine = await world();
    const other = await ctx.given.tenant();
    const res = await put(other, 'organisation', NEXT);
    assert.deepEqual(res.json(), {
      verify: true,
      entries: 5,
      added: 5,
      removed: 0,
      changed: 0,
      unchanged: 0,
      people: { linked: 0, unlinked: 0 },
      examples: { added: ['OPS', 'CEO', 'CTO', 'DEV1', 'OPS1'], removed: [], changed: [], unlinked: [] },
    });
    const crossed = await put(mine, 'organisation', NEXT, '?verify=true', { ...other.headers, 'x-svc-tenant': mine.name });
    assert.equal(crossed.statusCode, 401);
    assert.equal(((await get(other, '/api/import/history')) as unknown[]).length, 1);
    assert.equal(((await get(mine, '/api/import/history')) as { verify: boolean }[]).filter((run) => run.verify).length, 0);
  });

  it('counts 10,000 entries against 2,000 people in a few statements', async () => {
    const tenant = await ctx.given.tenant();
    await send(tenant, 'PUT', '/api/settings', { organisationAttribute: 'position' });
    const entries = Array.from({ length: 10_000 }, (_, i) => ({ id: `P${i}`, ...(i > 0 ? { parentId: `P${Math.floor(i / 2)}` } : {}) }));
    await send(tenant, 'PUT', '/api/import/organisation', entries);
    await send(tenant, 'POST', '/api/import/users', {
      users: Array.from({ length: 2_000 }, (_, i) => ({
        name: `N${i}`,
        attributes: { email: `n${i}@example.com`, position: `P${i * 5}` },
      })),
    });
    // Keep the first half of the positions.
    const started = Date.now();
    const res = await put(tenant, 'organisation', entries.slice(0, 5_000));
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as {
      removed: number;
      unchanged: number;
      people: { linked: number; unlinked: number };
      examples: { removed: string[] };
    };
    assert.deepEqual([body.removed, body.unchanged, body.people], [5_000, 5_000, { linked: 1_000, unlinked: 1_000 }]);
    assert.equal(body.examples.removed.length, 10);
    assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
  });
});

describeEachBackend('PUT /api/import/jobs?verify=true', (ctx) => {
  const { put, get, world, key } = harness(ctx);

  it('answers what would change, whose job would go, and the competencies new to the catalogue', async () => {
    const tenant = await world();
    const before = await get(tenant, '/api/jobs');
    const res = await put(tenant, 'jobs', NEXT_JOBS);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      verify: true,
      entries: 3,
      added: 1,
      removed: 1,
      changed: 1,
      unchanged: 1,
      people: { linked: 3, unlinked: 1 },
      competencies: { added: 1 },
      examples: {
        added: ['J-OPS'],
        removed: ['J-ACC'],
        changed: ['J-ENG'],
        unlinked: [{ agentKey: key(tenant, 'bob@example.com'), name: 'Bob' }],
        competencies: ['Logistics'],
      },
    });
    assert.deepEqual(await get(tenant, '/api/jobs'), before);
    const catalogue = (await get(tenant, '/api/competencies')) as { competencies: { name: string }[] };
    assert.ok(!catalogue.competencies.some((competency) => competency.name === 'Logistics'));
    const [run] = (await get(tenant, '/api/import/history?limit=1')) as { kind: string; verify: boolean; summary: unknown }[];
    assert.deepEqual(
      [run!.kind, run!.verify, run!.summary],
      [
        'jobs',
        true,
        { entries: 3, added: 1, removed: 1, changed: 1, unchanged: 1, people: { linked: 3, unlinked: 1 }, competencies: { added: 1 } },
      ],
    );
  });

  it('counts a job held through the position (positionJobAttribute) when the own one names none', async () => {
    const tenant = await ctx.given.tenant();
    const { send } = harness(ctx);
    await send(tenant, 'PUT', '/api/settings', { organisationAttribute: 'position', jobAttribute: 'job', positionJobAttribute: 'jobCode' });
    await send(tenant, 'PUT', '/api/import/organisation', [
      { id: 'P1', attributes: { jobCode: 'J-A' } },
      { id: 'P2', attributes: { jobCode: 'J-B' } },
    ]);
    await send(tenant, 'PUT', '/api/import/jobs', [
      { id: 'J-A', name: 'A' },
      { id: 'J-B', name: 'B' },
      { id: 'J-C', name: 'C' },
    ]);
    await send(tenant, 'POST', '/api/import/users', {
      users: [
        // Own job J-C goes, position's J-A stays: keeps a job.
        { name: 'Own', attributes: { email: 'own@example.com', position: 'P1', job: 'J-C' } },
        // Only the position's job, J-B, which goes.
        { name: 'Pos', attributes: { email: 'pos@example.com', position: 'P2' } },
        { name: 'Kept', attributes: { email: 'kept@example.com', position: 'P1' } },
      ],
    });
    const res = await put(tenant, 'jobs', [{ id: 'J-A', name: 'A' }]);
    assert.deepEqual((res.json() as { people: unknown }).people, { linked: 2, unlinked: 1 });
    assert.deepEqual((res.json() as { examples: { unlinked: unknown } }).examples.unlinked, [
      { agentKey: key(tenant, 'pos@example.com'), name: 'Pos' },
    ]);
  });

  it('refuses an invalid array as the import does; a bad verify is 400; missing credentials 401', async () => {
    const tenant = await world();
    const bad = [{ id: 'J1' }, { id: 'J1', name: 'x', competencies: [{ name: 'lower' }] }];
    const checked = await put(tenant, 'jobs', bad);
    assert.equal(checked.statusCode, 400);
    assert.deepEqual(checked.json(), (await put(tenant, 'jobs', bad, '')).json());
    assert.equal((checked.json() as { code: string }).code, 'imports.invalid_jobs');
    assert.equal((await put(tenant, 'jobs', NEXT_JOBS, '?verify=1')).statusCode, 400);
    assert.equal((await put(tenant, 'jobs', NEXT_JOBS, '?verify=true', { 'x-svc-tenant': tenant.name })).statusCode, 401);
    const [run] = (await get(tenant, '/api/import/history?limit=1')) as { kind: string }[];
    assert.equal(run!.kind, 'users');
  });
});
