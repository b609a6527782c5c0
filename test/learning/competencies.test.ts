import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { agentOf, learnerHeaders, scopedKey } from './report-fixtures.js';

type Competency = { id: string; name: string; description: string; jobs: number; activities: number };

/** A small CASE framework (CFPackage): a domain, a competency named like a job's, a skill with a code, an item without a type. */
const FRAMEWORK = {
  CFDocument: { identifier: randomUUID(), uri: 'https://case.example.com/uri/doc', title: 'Workplace skills', creator: 'Example' },
  CFItems: [
    { identifier: randomUUID(), fullStatement: 'Working with others', abbreviatedStatement: 'Collaboration', CFItemType: 'Domain' },
    {
      identifier: randomUUID(),
      fullStatement: 'Conveys ideas clearly in speech and writing',
      abbreviatedStatement: 'Communication',
      CFItemType: 'Competency',
    },
    {
      identifier: randomUUID(),
      fullStatement: 'Writes clear status reports',
      humanCodingScheme: 'COM.2',
      CFItemType: 'Skill',
      notes: null,
    },
    {
      identifier: randomUUID(),
      fullStatement: 'Listens actively',
      humanCodingScheme: 'COM.3',
      abbreviatedStatement: 'Listening',
      CFItemType: null,
    },
  ],
  CFAssociations: [{ identifier: randomUUID(), associationType: 'isChildOf' }],
};

describeEachBackend('The competency catalogue', (ctx: TestContext) => {
  const request = (tenant: GivenTenant, method: 'GET' | 'PUT', url: string, payload?: unknown, headers = tenant.headers) =>
    ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  const importJobs = async (tenant: GivenTenant, jobs: unknown[]) => {
    const res = await request(tenant, 'PUT', '/api/import/jobs', jobs);
    assert.equal(res.statusCode, 204, res.body);
  };

  const catalogue = async (tenant: GivenTenant, query = ''): Promise<{ competencies: Competency[]; total: number }> => {
    const res = await request(tenant, 'GET', `/api/competencies${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  const names = (list: { competencies: Competency[] }) => list.competencies.map((c) => c.name);

  it('takes in the competencies of a job import once each, matched case-insensitively, with stable ids', async () => {
    const tenant = await ctx.given.tenant();
    await importJobs(tenant, [
      {
        id: 'J1',
        name: 'Engineer',
        competencies: [
          { Name: 'TypeScript', Description: 'Writes it' },
          { Name: 'Ärger', Description: '' },
        ],
      },
      { id: 'J2', name: 'Lead', competencies: [{ Name: 'typescript' }, { Name: 'Mentoring', Description: 'Grows people' }] },
    ]);
    const first = await catalogue(tenant);
    // The last spelling in import order, the last non-empty description.
    assert.deepEqual(
      first.competencies.map(({ name, description, jobs, activities }) => ({ name, description, jobs, activities })),
      [
        // In code-point order of the lower-cased names.
        { name: 'Mentoring', description: 'Grows people', jobs: 1, activities: 0 },
        { name: 'typescript', description: 'Writes it', jobs: 2, activities: 0 },
        { name: 'Ärger', description: '', jobs: 1, activities: 0 },
      ],
    );
    assert.equal(first.total, 3);
    const idOf = (list: { competencies: Competency[] }, name: string) => list.competencies.find((c) => c.name.toLowerCase() === name)?.id;

    // Re-imported: spelling and description updated in place, ids kept, a dropped one stays with no job.
    await importJobs(tenant, [
      { id: 'J1', name: 'Engineer', competencies: [{ Name: 'TypeScript', Description: 'Writes it well' }, { Name: 'äRGER' }] },
    ]);
    const second = await catalogue(tenant);
    assert.deepEqual(
      second.competencies.map(({ name, description, jobs }) => ({ name, description, jobs })),
      [
        { name: 'Mentoring', description: 'Grows people', jobs: 0 },
        { name: 'TypeScript', description: 'Writes it well', jobs: 1 },
        { name: 'äRGER', description: '', jobs: 1 },
      ],
    );
    for (const name of ['ärger', 'mentoring', 'typescript']) assert.equal(idOf(second, name), idOf(first, name), name);

    // Jobs read back as imported: the catalogue does not change what GET /api/jobs answers.
    const jobs = await request(tenant, 'GET', '/api/jobs');
    assert.deepEqual(jobs.json()[0].competencies, [
      { Name: 'TypeScript', Description: 'Writes it well' },
      { Name: 'äRGER', Description: '' },
    ]);
  });

  it('pages, filters by a part of the name and tells the total', async () => {
    const tenant = await ctx.given.tenant();
    await importJobs(tenant, [
      { id: 'J1', name: 'Engineer', competencies: ['Alpha', 'Beta', 'Gamma', 'Alphabet'].map((Name) => ({ Name })) },
    ]);
    const page = await request(tenant, 'GET', '/api/competencies?limit=2&skip=1');
    assert.equal(page.statusCode, 200);
    assert.deepEqual(names(page.json()), ['Alphabet', 'Beta']);
    assert.equal(page.json().total, 4);
    assert.equal(page.headers['x-total-count'], '4');
    assert.match(String(page.headers.link), /skip=3/);
    assert.deepEqual(names(await catalogue(tenant, '?q=ALPH')), ['Alpha', 'Alphabet']);
    assert.deepEqual(await catalogue(tenant, '?q=ALPH&skip=5'), { competencies: [], total: 2 });
    assert.deepEqual(await catalogue(tenant, '?q=zeta'), { competencies: [], total: 0 });
    for (const query of ['?limit=0', '?limit=1001', '?skip=-1', '?q=', '?sort=name']) {
      const res = await request(tenant, 'GET', `/api/competencies${query}`);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().code, 'request.invalid');
    }
  });

  it('adds and updates competencies with PUT /api/competencies, all or nothing', async () => {
    const tenant = await ctx.given.tenant();
    await importJobs(tenant, [{ id: 'J1', name: 'Engineer', competencies: [{ Name: 'TypeScript', Description: 'Writes it' }] }]);
    const res = await request(tenant, 'PUT', '/api/competencies', [
      { name: 'Fire safety', description: 'Prevents fires' },
      { name: 'TYPESCRIPT' },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const [fire, ts] = res.json().competencies;
    assert.deepEqual({ ...fire, id: undefined }, { id: undefined, name: 'Fire safety', description: 'Prevents fires', created: true });
    // A known name keeps its id and, sent without one, its description; the spelling is the new one.
    assert.deepEqual({ ...ts, id: undefined }, { id: undefined, name: 'TYPESCRIPT', description: 'Writes it', created: false });
    assert.deepEqual(names(await catalogue(tenant)), ['Fire safety', 'TYPESCRIPT']);

    const again = await request(tenant, 'PUT', '/api/competencies', [{ name: 'fire SAFETY', description: '' }]);
    assert.equal(again.json().competencies[0].id, fire.id);
    assert.equal(again.json().competencies[0].description, '', 'a description sent replaces the stored one, even empty');

    const refused = await request(tenant, 'PUT', '/api/competencies', [
      { name: 'New one' },
      { name: '   ' },
      { name: 'new ONE' },
      { name: 'x'.repeat(1001) },
      { name: 'ok', description: 'nul \u0000 here' },
    ]);
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.json().code, 'competencies.invalid');
    assert.deepEqual(
      refused.json().details.problems.map((p: { index: number; field: string }) => [p.index, p.field]),
      [
        [1, 'name'],
        [2, 'name'],
        [3, 'name'],
        [4, 'description'],
      ],
    );
    assert.match(refused.json().details.problems[1].message, /entry at index 0/);
    assert.deepEqual(names(await catalogue(tenant)), ['fire SAFETY', 'TYPESCRIPT'], 'nothing was stored');

    for (const body of [{ name: 'x' }, [{ name: 'x', level: 3 }], [{ description: 'no name' }], [{ name: { text: 'x' } }]]) {
      const bad = await request(tenant, 'PUT', '/api/competencies', body);
      assert.equal(bad.statusCode, 400, JSON.stringify(body));
    }
  });

  it('answers one competency with the jobs requiring it and the activities developing it', async () => {
    const tenant = await ctx.given.tenant();
    await importJobs(tenant, [
      { id: 'J1', name: 'Engineer', competencies: [{ Name: 'TypeScript' }] },
      { id: 'J2', name: 'Lead', competencies: [{ Name: 'TypeScript' }] },
    ]);
    const stored = await request(tenant, 'PUT', '/api/activities', [
      { id: 'https://example.com/ts-101', definition: { name: { en: 'TS 101' } }, competencies: ['typescript'] },
      { id: 'https://example.com/ts-201', definition: {}, competencies: ['TypeScript'], requiresSuccess: true },
      { id: 'https://example.com/other', definition: {} },
    ]);
    assert.equal(stored.statusCode, 200, stored.body);
    const [ts] = (await catalogue(tenant)).competencies;
    assert.equal(ts.activities, 2);
    const item = await request(tenant, 'GET', `/api/competencies/item?id=${ts.id}`);
    assert.equal(item.statusCode, 200, item.body);
    assert.deepEqual(item.json(), {
      id: ts.id,
      name: 'TypeScript',
      description: '',
      jobs: [
        { id: 'J1', name: 'Engineer' },
        { id: 'J2', name: 'Lead' },
      ],
      activities: [{ id: 'https://example.com/ts-101', name: { en: 'TS 101' } }, { id: 'https://example.com/ts-201' }],
    });

    // The entry reads back as sent, with requiresSuccess.
    const entry = await request(tenant, 'GET', '/api/activities/item?activityId=https%3A%2F%2Fexample.com%2Fts-201');
    assert.equal(entry.json().requiresSuccess, true);
    assert.deepEqual(entry.json().competencies, ['TypeScript']);

    // Rewritten without competencies: no longer developing it.
    await request(tenant, 'PUT', '/api/activities', [{ id: 'https://example.com/ts-201', definition: {} }]);
    assert.equal((await catalogue(tenant)).competencies[0].activities, 1);

    const unknown = await request(tenant, 'GET', `/api/competencies/item?id=${randomUUID()}`);
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().code, 'competencies.not_found');
    const malformed = await request(tenant, 'GET', '/api/competencies/item?id=not-a-uuid');
    assert.equal(malformed.statusCode, 400);
  });

  it('refuses an activity naming a competency the catalogue lacks, naming each one, and stores nothing', async () => {
    const tenant = await ctx.given.tenant();
    await importJobs(tenant, [{ id: 'J1', name: 'Engineer', competencies: [{ Name: 'TypeScript' }] }]);
    const res = await request(tenant, 'PUT', '/api/activities', [
      { id: 'https://example.com/a', definition: {}, competencies: ['TypeScript', 'Rust', 'Go'] },
      { id: 'https://example.com/b', definition: {}, competencies: ['typescript'], requiresSuccess: 'yes' },
    ]);
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, 'activities.invalid');
    assert.deepEqual(
      res
        .json()
        .details.problems.map((p: { index: number; field: string; message: string }) => [p.index, p.field, /catalogue/.test(p.message)]),
      [
        [0, 'competencies[1]', true],
        [0, 'competencies[2]', true],
        [1, 'requiresSuccess', false],
      ],
    );
    const list = await request(tenant, 'GET', '/api/activities');
    assert.deepEqual(list.json(), []);
  });

  it('keeps each tenant’s catalogue to itself and answers only tenant-wide principals', async () => {
    const tenant = await ctx.given.tenant();
    const other = await ctx.given.tenant();
    await importJobs(tenant, [{ id: 'J1', name: 'Engineer', competencies: [{ Name: 'TypeScript' }] }]);
    const [ts] = (await catalogue(tenant)).competencies;
    assert.deepEqual(await catalogue(other), { competencies: [], total: 0 });
    assert.equal((await request(other, 'GET', `/api/competencies/item?id=${ts.id}`)).statusCode, 404);
    // Another tenant's catalogue does not satisfy this tenant's activities.
    const refused = await request(other, 'PUT', '/api/activities', [
      { id: 'https://example.com/a', definition: {}, competencies: ['TypeScript'] },
    ]);
    assert.equal(refused.statusCode, 400);

    // No credential; a credential of another tenant named against this one.
    for (const [method, url] of [
      ['GET', '/api/competencies'],
      ['GET', `/api/competencies/item?id=${ts.id}`],
      ['PUT', '/api/competencies'],
      ['PUT', '/api/competencies/case'],
    ] as const) {
      const anonymous = await ctx.app.inject({
        method,
        url,
        headers: { 'x-svc-tenant': tenant.name },
        payload: method === 'PUT' ? (url.endsWith('case') ? FRAMEWORK : []) : undefined,
      });
      assert.equal(anonymous.statusCode, 401, `${method} ${url}`);
      const crossed = await ctx.app.inject({
        method,
        url,
        headers: { ...other.headers, 'x-svc-tenant': tenant.name },
        payload: method === 'PUT' ? (url.endsWith('case') ? FRAMEWORK : []) : undefined,
      });
      assert.equal(crossed.statusCode, 401, `${method} ${url}`);
    }
  });
  it('imports a CASE framework: one competency per CFItem, named by code and short statement, matched as PUT does', async () => {
    const tenant = await ctx.given.tenant();
    // A job import named one of them already: the framework's item updates it in place.
    await importJobs(tenant, [{ id: 'J1', name: 'Engineer', competencies: [{ Name: 'communication', Description: 'old' }] }]);
    const [existing] = (await catalogue(tenant)).competencies;
    const res = await request(tenant, 'PUT', '/api/competencies/case', FRAMEWORK);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.framework, { identifier: FRAMEWORK.CFDocument.identifier, title: 'Workplace skills' });
    assert.equal(body.skipped, 0);
    // Expected from the fixture by the rule: code + (abbreviatedStatement or fullStatement); description fullStatement.
    const expected = FRAMEWORK.CFItems.map((item) => ({
      name: [item.humanCodingScheme, item.abbreviatedStatement ?? item.fullStatement].filter((part) => part).join(' '),
      description: item.fullStatement,
      caseIdentifier: item.identifier,
    }));
    assert.deepEqual(
      body.competencies.map(({ name, description, caseIdentifier }: Record<string, string>) => ({ name, description, caseIdentifier })),
      expected,
    );
    assert.deepEqual(
      body.competencies.map((c: { created: boolean }) => c.created),
      [true, false, true, true],
    );
    assert.equal(body.competencies[1].id, existing.id, 'matched by name: the job’s competency keeps its id');
    const stored = await catalogue(tenant);
    assert.deepEqual(names(stored).sort(), [...expected.map((e) => e.name)].sort());
    assert.equal(stored.competencies.find((c) => c.id === existing.id)?.jobs, 1);

    // Imported again: nothing new, the same ids.
    const again = (await request(tenant, 'PUT', '/api/competencies/case', FRAMEWORK)).json();
    assert.deepEqual(
      again.competencies.map((c: { id: string; created: boolean }) => [c.id, c.created]),
      body.competencies.map((c: { id: string }) => [c.id, false]),
    );

    // itemTypes: only the items of those types (case-insensitively); one without a type is left out.
    const other = await ctx.given.tenant();
    const typed = await request(other, 'PUT', '/api/competencies/case?itemTypes=competency,%20SKILL', FRAMEWORK);
    assert.equal(typed.statusCode, 200, typed.body);
    assert.deepEqual(
      typed.json().competencies.map((c: { name: string }) => c.name),
      [expected[1].name, expected[2].name],
    );
    assert.equal(typed.json().skipped, 2);
    assert.equal((await catalogue(other)).total, 2);
  });

  it('refuses a CASE package with bad items, naming each by its place among the CFItems, and stores nothing', async () => {
    const tenant = await ctx.given.tenant();
    const items = [
      { identifier: randomUUID(), fullStatement: 'Speaks clearly', abbreviatedStatement: 'Speaking' },
      { identifier: randomUUID(), fullStatement: '   ' },
      { identifier: randomUUID(), fullStatement: 'Speaks well', abbreviatedStatement: 'SPEAKING' },
      { identifier: randomUUID(), fullStatement: 'x'.repeat(10_001), abbreviatedStatement: 'Long' },
      { identifier: randomUUID(), fullStatement: 'y'.repeat(1_001) },
    ];
    const res = await request(tenant, 'PUT', '/api/competencies/case', { CFItems: items });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, 'competencies.invalid');
    assert.deepEqual(
      res.json().details.problems.map(({ index, field }: { index: number; field: string }) => [index, field]),
      [
        [1, 'fullStatement'],
        [2, 'abbreviatedStatement'],
        [3, 'fullStatement'],
        [4, 'fullStatement'],
      ],
    );
    assert.match(res.json().details.problems[1].message, /the CFItem at index 0/);
    assert.equal((await catalogue(tenant)).total, 0, 'nothing stored');

    // Not a CASE package: the schema's 400, naming what is wrong.
    for (const [payload, why] of [
      [[], 'an array'],
      [{}, 'no CFItems'],
      [{ CFItems: [] }, 'no item'],
      [{ CFItems: [{ abbreviatedStatement: 'x' }] }, 'no fullStatement'],
      [{ CFItems: [{ fullStatement: 7 }] }, 'a number'],
      [{ CFItems: [{ fullStatement: 'a', humanCodingScheme: ['x'] }] }, 'an array code'],
      [{ CFItems: Array.from({ length: 10_001 }, (_, i) => ({ fullStatement: `s${i}` })) }, 'too many'],
    ] as const) {
      const refused = await request(tenant, 'PUT', '/api/competencies/case', payload);
      assert.equal(refused.statusCode, 400, `${why}: ${refused.body}`);
      assert.equal(refused.json().code, 'request.invalid', why);
    }
    for (const query of ['itemTypes=', 'other=1', `itemTypes=${'a'.repeat(2001)}`]) {
      const refused = await request(tenant, 'PUT', `/api/competencies/case?${query}`, FRAMEWORK);
      assert.equal(refused.statusCode, 400, `${query}: ${refused.body}`);
    }
    assert.equal((await catalogue(tenant)).total, 0, 'nothing stored');
    // Neither a learner's credential nor a key limited to a subtree writes the catalogue.
    assert.equal((await request(tenant, 'PUT', '/api/actors/agents', agentOf('E1'))).statusCode < 300, true);
    for (const headers of [await learnerHeaders(ctx, tenant, 'E1'), await scopedKey(ctx, tenant, 'ROOT')]) {
      const forbidden = await request(tenant, 'PUT', '/api/competencies/case', FRAMEWORK, headers);
      assert.equal(forbidden.statusCode, 403, forbidden.body);
    }
    assert.equal((await catalogue(tenant)).total, 0, 'nothing stored');
  });
});
