import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import {
  existingJobIds,
  existingOrganisationIds,
  findJobs,
  findOrganisationLinks,
  readOrganisation,
  replaceOrganisation,
} from '../../src/modules/organisation/organisation.service.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { hostileBody, hostileJson, hostileText, toJson } from '../fuzz/hostile-values.js';

interface TreeNode {
  id: string;
  parentId: string | null;
  attributes: Record<string, string>;
  children: TreeNode[];
}

interface Problem {
  index: number;
  id?: string;
  problem: string;
}

const positions = [
  { id: 'CEO', attributes: { title: 'Chief Executive' } },
  { id: 'CFO', parentId: 'CEO', attributes: { title: 'Chief Financial Officer' } },
  { id: 'ACC-1', parentId: 'CFO', attributes: { title: 'Accountant', grade: '3' } },
  { id: 'CTO', parentId: 'CEO' },
  { id: 'DEV-1', parentId: 'CTO', attributes: { title: 'Developer' } },
];

const locations = [
  { id: 'Leeds', attributes: { state: 'West Yorkshire', country: 'UK' } },
  { id: 'Lyon', attributes: { state: 'Auvergne-Rhône-Alpes', country: 'France' } },
];

const jobs = [
  {
    id: 'J-ACC',
    name: 'Accountant',
    competencies: [
      { Name: 'Bookkeeping', Description: 'Keeps the ledgers' },
      { Name: 'Tax', Description: 'Files returns' },
    ],
    attributes: { family: 'Finance' },
  },
  { id: 'J-DEV', name: 'Developer' },
];

function harness(ctx: TestContext) {
  const put = (tenant: GivenTenant, what: 'organisation' | 'jobs', body: unknown, headers: Record<string, string> = tenant.headers) =>
    ctx.app.inject({
      method: 'PUT',
      url: `/api/import/${what}`,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = (tenant: GivenTenant, url: string) => ctx.app.inject({ method: 'GET', url, headers: tenant.headers });
  const flat = async (tenant: GivenTenant) => {
    const res = await get(tenant, '/api/organisation?format=flat');
    assert.equal(res.statusCode, 200);
    return res.json() as { id: string; parentId: string | null; attributes: Record<string, string> }[];
  };
  const storedJobs = async (tenant: GivenTenant) => {
    const res = await get(tenant, '/api/jobs');
    assert.equal(res.statusCode, 200);
    return res.json() as typeof jobs;
  };
  const refusal = (res: { statusCode: number; json(): unknown }, code: string): Problem[] => {
    assert.equal(res.statusCode, 400);
    const body = res.json() as { code: string; message: string; details: { problems: Problem[] } };
    assert.equal(body.code, code);
    assert.equal(typeof body.message, 'string');
    return body.details.problems;
  };
  return { put, get, flat, storedJobs, refusal };
}

describeEachBackend('PUT /api/import/organisation, GET /api/organisation', (ctx) => {
  const { put, get, flat, refusal } = harness(ctx);

  it('imports a position hierarchy and reads it back as a tree, a flat list and a subtree', async () => {
    const tenant = await ctx.given.tenant();
    const res = await put(tenant, 'organisation', positions);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');

    const tree = await get(tenant, '/api/organisation');
    assert.equal(tree.statusCode, 200);
    assert.match(String(tree.headers['content-type']), /^application\/json/);
    assert.deepEqual(tree.json(), [
      {
        id: 'CEO',
        parentId: null,
        attributes: { title: 'Chief Executive' },
        children: [
          {
            id: 'CFO',
            parentId: 'CEO',
            attributes: { title: 'Chief Financial Officer' },
            children: [{ id: 'ACC-1', parentId: 'CFO', attributes: { title: 'Accountant', grade: '3' }, children: [] }],
          },
          {
            id: 'CTO',
            parentId: 'CEO',
            attributes: {},
            children: [{ id: 'DEV-1', parentId: 'CTO', attributes: { title: 'Developer' }, children: [] }],
          },
        ],
      },
    ]);
    assert.deepEqual(
      (await flat(tenant)).map((entry) => [entry.id, entry.parentId]),
      [
        ['CEO', null],
        ['CFO', 'CEO'],
        ['ACC-1', 'CFO'],
        ['CTO', 'CEO'],
        ['DEV-1', 'CTO'],
      ],
    );

    const subtree = await get(tenant, '/api/organisation?id=CFO');
    assert.equal(subtree.statusCode, 200);
    assert.deepEqual(subtree.json(), [
      {
        id: 'CFO',
        parentId: 'CEO',
        attributes: { title: 'Chief Financial Officer' },
        children: [{ id: 'ACC-1', parentId: 'CFO', attributes: { title: 'Accountant', grade: '3' }, children: [] }],
      },
    ]);
    const leaf = await get(tenant, '/api/organisation?id=DEV-1&format=flat');
    assert.deepEqual(leaf.json(), [{ id: 'DEV-1', parentId: 'CTO', attributes: { title: 'Developer' } }]);

    const missing = await get(tenant, '/api/organisation?id=NOPE');
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'organisation.not_found');
    assert.match(missing.json().message, /"NOPE"/);
    assert.equal((await get(tenant, '/api/organisation?format=nested')).statusCode, 400);
  });

  it('imports flat location data (no parentId), children listed before parents too, and null parents', async () => {
    const tenant = await ctx.given.tenant();
    assert.equal((await put(tenant, 'organisation', locations)).statusCode, 204);
    const tree = (await get(tenant, '/api/organisation')).json() as TreeNode[];
    assert.deepEqual(
      tree.map((node) => [node.id, node.attributes.country, node.children.length]),
      [
        ['Leeds', 'UK', 0],
        ['Lyon', 'France', 0],
      ],
    );

    const reversed = [
      { id: 'child', parentId: 'root' },
      { id: 'root', parentId: null },
    ];
    assert.equal((await put(tenant, 'organisation', reversed)).statusCode, 204);
    const again = (await get(tenant, '/api/organisation')).json() as TreeNode[];
    assert.deepEqual(
      again.map((node) => [node.id, node.children.map((child) => child.id)]),
      [['root', ['child']]],
    );
  });

  it('replaces the whole set on each import; an empty array clears it; each import is in the history', async () => {
    const tenant = await ctx.given.tenant();
    assert.equal((await put(tenant, 'organisation', positions)).statusCode, 204);
    assert.equal((await put(tenant, 'organisation', locations)).statusCode, 204);
    assert.deepEqual(
      (await flat(tenant)).map((entry) => entry.id),
      ['Leeds', 'Lyon'],
    );
    assert.equal((await put(tenant, 'organisation', [])).statusCode, 204);
    assert.deepEqual(await flat(tenant), []);
    assert.deepEqual((await get(tenant, '/api/organisation')).json(), []);

    const history = (await get(tenant, '/api/import/history')).json() as {
      kind: string;
      verify: boolean;
      summary: unknown;
      principal: unknown;
    }[];
    assert.deepEqual(
      history.map((run) => [run.kind, run.verify, run.summary]),
      [
        ['organisation', false, { entries: 0 }],
        ['organisation', false, { entries: 2 }],
        ['organisation', false, { entries: 5 }],
      ],
    );
    assert.deepEqual(history[0].principal, { kind: 'api_key', id: tenant.key });
  });

  it('refuses a bad import naming every offending entry, and keeps the data stored before', async () => {
    const tenant = await ctx.given.tenant();
    assert.equal((await put(tenant, 'organisation', positions)).statusCode, 204);
    const before = await flat(tenant);
    const problems = refusal(
      await put(tenant, 'organisation', [
        { id: 'ok-root' },
        'not an object',
        { parentId: 'ok-root' },
        { id: '' },
        { id: 42 },
        { id: 'x'.repeat(256) },
        { id: 'dup' },
        { id: 'dup' },
        { id: 'orphan', parentId: 'nowhere' },
        { id: 'self', parentId: 'self' },
        { id: 'loop-a', parentId: 'loop-b' },
        { id: 'loop-b', parentId: 'loop-a' },
        { id: 'bad-attrs', attributes: { level: 3 } },
        { id: 'array-attrs', attributes: ['a'] },
        { id: 'extra', name: 'unknown field' },
        { id: 'bad-parent', parentId: 7 },
      ]),
      'imports.invalid_organisation',
    );
    assert.deepEqual([...new Set(problems.map((problem) => problem.index))], [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    const about = (index: number) => problems.filter((problem) => problem.index === index);
    assert.equal(about(7)[0].id, 'dup');
    assert.match(about(7)[0].problem, /index 6/);
    assert.match(about(8)[0].problem, /"nowhere" names no entry/);
    assert.match(about(9)[0].problem, /own parent/);
    assert.match(about(10)[0].problem, /cycle/);
    assert.match(about(14)[0].problem, /unknown field "name"/);
    assert.deepEqual(await flat(tenant), before);
    const history = (await get(tenant, '/api/import/history')).json() as unknown[];
    assert.equal(history.length, 1, 'a refused import is not recorded');
  });

  it('refuses a body that is not an array, or not JSON, with nothing stored', async () => {
    const tenant = await ctx.given.tenant();
    assert.equal((await put(tenant, 'organisation', locations)).statusCode, 204);
    const object = await put(tenant, 'organisation', { entries: locations });
    assert.equal(object.statusCode, 400);
    assert.equal(object.json().code, 'imports.invalid_organisation');
    const notJson = await put(tenant, 'organisation', '[{"id": ');
    assert.equal(notJson.statusCode, 400);
    assert.equal(notJson.json().code, 'request.invalid_json');
    const xml = await ctx.app.inject({
      method: 'PUT',
      url: '/api/import/organisation',
      headers: { ...tenant.headers, 'content-type': 'application/xml' },
      payload: '<entries/>',
    });
    assert.equal(xml.statusCode, 415);
    assert.deepEqual(
      (await flat(tenant)).map((entry) => entry.id),
      ['Leeds', 'Lyon'],
    );
  });

  it('answers 400 naming the entry, not 500, for U+0000 and lone surrogates anywhere in an entry', async () => {
    const tenant = await ctx.given.tenant();
    const bodies = [
      '[{"id":"ok"},{"id":"a\\u0000b"}]',
      '[{"id":"ok"},{"id":"a\\ud800"}]',
      '[{"id":"ok"},{"id":"c","parentId":"ok\\u0000"}]',
      '[{"id":"ok"},{"id":"d","attributes":{"k\\u0000":"v"}}]',
      '[{"id":"ok"},{"id":"e","attributes":{"k":"\\udc00x"}}]',
    ];
    for (const body of bodies) {
      const problems = refusal(await put(tenant, 'organisation', body), 'imports.invalid_organisation');
      assert.deepEqual(
        problems.map((problem) => problem.index),
        [1],
        body,
      );
    }
    assert.deepEqual(await flat(tenant), []);
  });

  it('keeps each tenant’s structure to itself and refuses other tenants’ and missing credentials', async () => {
    const mine = await ctx.given.tenant();
    const other = await ctx.given.tenant();
    assert.equal((await put(mine, 'organisation', positions)).statusCode, 204);
    assert.equal((await put(other, 'organisation', locations)).statusCode, 204);
    assert.deepEqual(
      (await flat(mine)).map((entry) => entry.id),
      ['CEO', 'CFO', 'ACC-1', 'CTO', 'DEV-1'],
    );
    assert.deepEqual(
      (await flat(other)).map((entry) => entry.id),
      ['Leeds', 'Lyon'],
    );
    assert.equal((await get(other, '/api/organisation?id=CEO')).statusCode, 404);

    const crossed = await put(mine, 'organisation', [], { ...other.headers, 'x-svc-tenant': mine.name });
    assert.equal(crossed.statusCode, 401);
    const crossedRead = await ctx.app.inject({
      method: 'GET',
      url: '/api/organisation',
      headers: { ...other.headers, 'x-svc-tenant': mine.name },
    });
    assert.equal(crossedRead.statusCode, 401);
    const anonymous = await put(mine, 'organisation', [], { 'x-svc-tenant': mine.name });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: '/api/organisation', headers: { 'x-svc-tenant': mine.name } })).statusCode,
      401,
    );
    assert.equal((await flat(mine)).length, 5);
  });

  it('stores and reads back a chain of 10,000 positions (no recursion on the way)', async () => {
    const tenant = await ctx.given.tenant();
    const chain = Array.from({ length: 10_000 }, (_, index) =>
      index === 0
        ? { id: 'p0', attributes: { level: '0' } }
        : { id: `p${index}`, parentId: `p${index - 1}`, attributes: { level: String(index) } },
    );
    assert.equal((await put(tenant, 'organisation', chain)).statusCode, 204);
    const tree = await get(tenant, '/api/organisation');
    assert.equal(tree.statusCode, 200);
    // Walk the nesting iteratively: each level has exactly one child.
    let node = (tree.json() as TreeNode[])[0];
    let depth = 1;
    while (node.children.length === 1) {
      node = node.children[0];
      depth += 1;
    }
    assert.equal(depth, 10_000);
    assert.equal(node.id, 'p9999');
    const subtree = (await get(tenant, '/api/organisation?id=p9990&format=flat')).json() as { id: string }[];
    assert.deepEqual(
      subtree.map((entry) => entry.id),
      ['p9990', 'p9991', 'p9992', 'p9993', 'p9994', 'p9995', 'p9996', 'p9997', 'p9998', 'p9999'],
    );

    const links = await findOrganisationLinks(ctx.db, tenant.id, ['p9999', 'p2', 'absent']);
    assert.equal(links.get('p9999')?.ancestors.length, 9_999);
    assert.deepEqual(
      links.get('p2')?.ancestors.map((entry) => entry.id),
      ['p1', 'p0'],
    );
    assert.equal(links.has('absent'), false);
  });

  it('two imports at once store one of the two sets, never a mix', async () => {
    const tenant = await ctx.given.tenant();
    const set = (prefix: string) =>
      Array.from({ length: 300 }, (_, index) => (index === 0 ? { id: `${prefix}0` } : { id: `${prefix}${index}`, parentId: `${prefix}0` }));
    for (let round = 0; round < 3; round++) {
      const [first, second] = await Promise.all([put(tenant, 'organisation', set('a')), put(tenant, 'organisation', set('b'))]);
      assert.equal(first.statusCode, 204);
      assert.equal(second.statusCode, 204);
      const ids = (await flat(tenant)).map((entry) => entry.id);
      assert.equal(ids.length, 300);
      const prefixes = new Set(ids.map((id) => id[0]));
      assert.equal(prefixes.size, 1, `round ${round}: a mix of both imports`);
    }
  });

  it('reads from its copy of the structure until a replacement, committed here or by another process, sets a new version', async () => {
    const tenant = await ctx.given.tenant();
    assert.equal((await put(tenant, 'organisation', positions)).statusCode, 204);
    assert.deepEqual(
      (await flat(tenant)).map((entry) => entry.id),
      positions.map((entry) => entry.id),
    );
    // A replacement rolled back, after reading its own structure in its transaction: never seen.
    await assert.rejects(
      ctx.db.transaction(async (tx) => {
        await replaceOrganisation(tx, tenant.id, [{ id: 'ROLLED-BACK', attributes: {} }]);
        assert.deepEqual(
          (await readOrganisation(tx, tenant.id)).map((entry) => entry.id),
          ['ROLLED-BACK'],
        );
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.deepEqual(
      (await flat(tenant)).map((entry) => entry.id),
      positions.map((entry) => entry.id),
    );
    assert.equal((await get(tenant, '/api/organisation?id=ROLLED-BACK')).statusCode, 404);
    // Rows changed without a new version (no writer does this) are not read again: the copy serves.
    await ctx.db.query(`UPDATE organisation_entries SET attributes = '{"title":"Changed"}' WHERE tenant_id = $1 AND id = 'CEO'`, [
      tenant.id,
    ]);
    assert.equal((await flat(tenant))[0]?.attributes.title, 'Chief Executive');
    // Another process's replacement: its rows and a new version, committed together.
    await ctx.db.transaction(async (tx) => {
      await tx.query(`DELETE FROM organisation_entries WHERE tenant_id = $1 AND id IN ('ACC-1', 'DEV-1')`, [tenant.id]);
      await tx.query('UPDATE organisation_versions SET version = gen_random_uuid() WHERE tenant_id = $1', [tenant.id]);
    });
    const now = await flat(tenant);
    assert.deepEqual(
      now.map((entry) => entry.id),
      ['CEO', 'CFO', 'CTO'],
    );
    assert.equal(now[0]?.attributes.title, 'Changed');
    const subtree = await get(tenant, '/api/organisation?id=CFO&format=flat');
    assert.deepEqual(
      (subtree.json() as { id: string }[]).map((entry) => entry.id),
      ['CFO'],
    );
  });

  it('gives the actor enrichment the entries with their ancestors, and which ids exist', async () => {
    const tenant = await ctx.given.tenant();
    const other = await ctx.given.tenant();
    assert.equal((await put(tenant, 'organisation', positions)).statusCode, 204);
    assert.equal((await put(other, 'organisation', [{ id: 'CEO', attributes: { title: 'Other tenant' } }])).statusCode, 204);
    const links = await findOrganisationLinks(ctx.db, tenant.id, ['ACC-1', 'CEO', 'ACC-1', 'missing']);
    assert.deepEqual([...links.keys()].sort(), ['ACC-1', 'CEO']);
    assert.deepEqual(links.get('ACC-1'), {
      entry: { id: 'ACC-1', parentId: 'CFO', attributes: { title: 'Accountant', grade: '3' } },
      ancestors: [
        { id: 'CFO', parentId: 'CEO', attributes: { title: 'Chief Financial Officer' } },
        { id: 'CEO', attributes: { title: 'Chief Executive' } },
      ],
    });
    assert.deepEqual(links.get('CEO')?.ancestors, []);
    assert.deepEqual([...(await existingOrganisationIds(ctx.db, tenant.id, ['CTO', 'nope', 'CTO']))], ['CTO']);
    assert.equal((await findOrganisationLinks(ctx.db, tenant.id, [])).size, 0);
  });
});

describeEachBackend('PUT /api/import/jobs, GET /api/jobs', (ctx) => {
  const { put, get, storedJobs, refusal } = harness(ctx);

  it('imports jobs with competencies and reads them back in import order', async () => {
    const tenant = await ctx.given.tenant();
    const res = await put(tenant, 'jobs', [...jobs, { id: 'J-OPS', name: 'Operator', competencies: [{ Name: 'Safety' }] }]);
    assert.equal(res.statusCode, 204);
    assert.deepEqual(await storedJobs(tenant), [
      jobs[0],
      { id: 'J-DEV', name: 'Developer', competencies: [], attributes: {} },
      { id: 'J-OPS', name: 'Operator', competencies: [{ Name: 'Safety', Description: '' }], attributes: {} },
    ]);
    const found = await findJobs(ctx.db, tenant.id, ['J-ACC', 'J-NONE']);
    assert.deepEqual([...found.keys()], ['J-ACC']);
    assert.deepEqual(found.get('J-ACC'), jobs[0]);
    assert.deepEqual([...(await existingJobIds(ctx.db, tenant.id, ['J-DEV', 'J-NONE']))], ['J-DEV']);
  });

  it('replaces the whole job architecture, records each import, and an empty array clears it', async () => {
    const tenant = await ctx.given.tenant();
    assert.equal((await put(tenant, 'jobs', jobs)).statusCode, 204);
    assert.equal((await put(tenant, 'jobs', [{ id: 'J-NEW', name: 'New' }])).statusCode, 204);
    assert.deepEqual(
      (await storedJobs(tenant)).map((job) => job.id),
      ['J-NEW'],
    );
    assert.equal((await put(tenant, 'jobs', [])).statusCode, 204);
    assert.deepEqual(await storedJobs(tenant), []);
    const history = (await get(tenant, '/api/import/history')).json() as { kind: string; summary: unknown }[];
    assert.deepEqual(
      history.map((run) => [run.kind, run.summary]),
      [
        ['jobs', { entries: 0 }],
        ['jobs', { entries: 1 }],
        ['jobs', { entries: 2 }],
      ],
    );
  });

  it('refuses duplicates and malformed jobs naming each, with nothing stored', async () => {
    const tenant = await ctx.given.tenant();
    assert.equal((await put(tenant, 'jobs', jobs)).statusCode, 204);
    const problems = refusal(
      await put(tenant, 'jobs', [
        { id: 'J1', name: 'Fine' },
        { id: 'J1', name: 'Duplicate' },
        { name: 'No id' },
        { id: 'J2' },
        { id: 'J3', name: '' },
        { id: 'J4', name: 'x', competencies: 'all of them' },
        { id: 'J5', name: 'x', competencies: [{ name: 'lowercase', description: 'wrong' }] },
        { id: 'J6', name: 'x', competencies: [{ Name: 'ok', Description: 'ok', Level: 3 }] },
        { id: 'J7', name: 'x', attributes: { grade: 4 } },
        { id: 'J8', name: 'x', title: 'unknown' },
        [],
        { id: 'J9', name: 'a\ud800' },
      ]),
      'imports.invalid_jobs',
    );
    assert.deepEqual([...new Set(problems.map((problem) => problem.index))], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    assert.match(problems.find((problem) => problem.index === 1)?.problem ?? '', /index 0/);
    assert.ok(problems.some((problem) => problem.index === 6 && /capitalised: `Name`/.test(problem.problem)));
    assert.deepEqual(await storedJobs(tenant), [jobs[0], { ...jobs[1], competencies: [], attributes: {} }]);
    const notArray = await put(tenant, 'jobs', { jobs });
    assert.equal(notArray.statusCode, 400);
    assert.equal(notArray.json().code, 'imports.invalid_jobs');
  });

  it('keeps each tenant’s jobs to itself; refuses other tenants’ and missing credentials', async () => {
    const mine = await ctx.given.tenant();
    const other = await ctx.given.tenant();
    assert.equal((await put(mine, 'jobs', jobs)).statusCode, 204);
    assert.equal((await put(other, 'jobs', [{ id: 'J-ACC', name: 'Other' }])).statusCode, 204);
    assert.deepEqual(
      (await storedJobs(mine)).map((job) => job.name),
      ['Accountant', 'Developer'],
    );
    assert.deepEqual(
      (await storedJobs(other)).map((job) => job.name),
      ['Other'],
    );
    assert.equal((await put(mine, 'jobs', [], { ...other.headers, 'x-svc-tenant': mine.name })).statusCode, 401);
    assert.equal((await put(mine, 'jobs', [], { 'x-svc-tenant': mine.name })).statusCode, 401);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/jobs', headers: { 'x-svc-tenant': mine.name } })).statusCode, 401);
    assert.equal((await storedJobs(mine)).length, 2);
  });

  it('two imports at once store one of the two sets, never a mix', async () => {
    const tenant = await ctx.given.tenant();
    const set = (prefix: string) => Array.from({ length: 200 }, (_, index) => ({ id: `${prefix}${index}`, name: `Job ${index}` }));
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all([put(tenant, 'jobs', set('a')), put(tenant, 'jobs', set('b'))]);
      assert.deepEqual(
        results.map((res) => res.statusCode),
        [204, 204],
      );
      const ids = (await storedJobs(tenant)).map((job) => job.id);
      assert.equal(ids.length, 200);
      assert.equal(new Set(ids.map((id) => id[0])).size, 1, `round ${round}: a mix of both imports`);
    }
  });
});

describeEachBackend('organisation and jobs imports fed hostile bodies', (ctx) => {
  const { put, flat, storedJobs } = harness(ctx);
  const idish = fc.oneof(fc.constantFrom('A', 'B', 'C', ''), hostileText, hostileJson);
  const entry = fc.record(
    {
      id: idish,
      parentId: idish,
      name: fc.oneof(fc.constant('Job'), hostileText, hostileJson),
      attributes: hostileJson,
      competencies: hostileJson,
    },
    { requiredKeys: [] },
  );
  const bodies = fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.oneof(entry, hostileJson), { maxLength: 6 }).map(toJson) },
    { weight: 1, arbitrary: hostileBody },
  );

  it('never answers 5xx, and stores only what it answers 204 to', async () => {
    const tenant = await ctx.given.tenant();
    for (const what of ['organisation', 'jobs'] as const) {
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          const res = await put(tenant, what, body);
          assert.ok([204, 400].includes(res.statusCode), `${res.statusCode} ${res.body}`);
          if (res.statusCode === 400) assert.equal(typeof res.json().code, 'string');
        }),
        { numRuns: 150, seed: 20_261_123 },
      );
    }
    // Whatever was stored last reads back.
    assert.ok(Array.isArray(await flat(tenant)));
    assert.ok(Array.isArray(await storedJobs(tenant)));
  });
});

describeEachBackend(
  'organisation and jobs imports past the import limit',
  (ctx) => {
    const { put, flat, storedJobs } = harness(ctx);

    it('answers 413 past LEARNBASE_IMPORT_LIMIT_BYTES and stores nothing; under it, imports', async () => {
      const tenant = await ctx.given.tenant();
      const big = Array.from({ length: 200 }, (_, index) => ({ id: `position-${index}`, attributes: { padding: 'x'.repeat(20) } }));
      assert.ok(JSON.stringify(big).length > 4096);
      for (const what of ['organisation', 'jobs'] as const) {
        const body = what === 'jobs' ? big.map((entry) => ({ id: entry.id, name: entry.attributes.padding })) : big;
        const res = await put(tenant, what, body);
        assert.equal(res.statusCode, 413, what);
        assert.equal(res.json().code, 'request.too_large');
      }
      assert.deepEqual(await flat(tenant), []);
      assert.deepEqual(await storedJobs(tenant), []);
      assert.equal((await put(tenant, 'organisation', locations)).statusCode, 204);
      assert.equal((await put(tenant, 'jobs', jobs)).statusCode, 204);
    });
  },
  { importLimitBytes: 4096 },
);
