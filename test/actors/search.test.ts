import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Headers = Record<string, string>;
type Actor = Record<string, any>;

const search = (ctx: TestContext, headers: Headers, body: unknown, query = '') =>
  ctx.app.inject({ method: 'POST', url: `/api/actors/search${query}`, headers, payload: body as object });

/** What identifies a found actor in these tests: its name, else its account name (the API key's authority). */
const label = (actor: Actor) => actor.name ?? `account:${actor.account?.name}`;

const ORGANISATION = [
  { id: 'ROOT', attributes: { region: 'EMEA' } },
  { id: 'SALES', parentId: 'ROOT', attributes: { kind: 'department' } },
  { id: 'S1', parentId: 'SALES', attributes: { site: 'Oslo' } },
  { id: 'TECH', parentId: 'ROOT', attributes: { kind: 'department' } },
  { id: 'T1', parentId: 'TECH', attributes: { site: 'Bergen' } },
];
const JOBS = [
  {
    id: 'J1',
    name: 'Engineer',
    competencies: [
      { Name: 'TypeScript', Description: '' },
      { Name: 'SQL', Description: '' },
    ],
    attributes: { grade: '5' },
  },
  { id: 'J2', name: 'Seller', competencies: [{ Name: 'Negotiation', Description: '' }], attributes: { grade: '3' } },
];
const USERS = [
  {
    name: 'Ada',
    attributes: {
      email: 'ada@x.org',
      department: 'Tech',
      country: 'NO',
      hired: '2020-01-15',
      score: '12.5',
      position: 'T1',
      jobCode: 'J1',
      note: '100%_done',
    },
  },
  {
    name: 'Bea',
    attributes: {
      email: 'bea@x.org',
      department: 'Sales',
      country: 'SE',
      hired: '2021-06-01T09:00:00+02:00',
      score: '7',
      position: 'S1',
      jobCode: 'J2',
      note: '100 percent',
    },
  },
  {
    name: 'Cid',
    attributes: {
      email: 'cid@x.org',
      department: 'Sales',
      country: 'DK',
      hired: 'not a date',
      score: 'n/a',
      position: 'SALES',
      note: 'a\\b',
    },
  },
  {
    name: 'Dan',
    attributes: { email: 'dan@x.org', department: 'tech', hired: '2024-02-30', score: '1e999999', position: 'NOPE', note: 'axb' },
  },
];
const verb = { id: 'http://adlnet.gov/expapi/verbs/experienced' };
const object = { id: 'http://example.com/a' };
const STATEMENT_ACTORS = [
  { name: 'Eve', mbox: 'mailto:eve@x.org' },
  { name: 'Fay', mbox_sha1sum: 'a'.repeat(40) },
  { name: 'Gus', openid: 'http://openid.example.com/gus' },
  { objectType: 'Group', name: 'Team', mbox: 'mailto:team@x.org', member: [{ mbox: 'mailto:eve@x.org' }] },
];

describeEachBackend('POST /api/actors/search', (ctx) => {
  const home = (tenant: GivenTenant) => `http://${tenant.name}.${ctx.config.baseDomain}`;
  let world: Promise<GivenTenant> | undefined;
  /** One tenant with the organisation, jobs, users and statement actors above, built once per backend. */
  const given = () =>
    (world ??= (async () => {
      const tenant = await ctx.given.tenant();
      const put = (url: string, payload: unknown) =>
        ctx.app.inject({ method: 'PUT', url, headers: tenant.headers, payload: payload as object });
      assert.equal((await put('/api/settings', { organisationAttribute: 'position', jobAttribute: 'jobCode' })).statusCode, 200);
      assert.equal((await put('/api/import/organisation', ORGANISATION)).statusCode, 204);
      assert.equal((await put('/api/import/jobs', JOBS)).statusCode, 204);
      const imported = await ctx.app.inject({
        method: 'POST',
        url: '/api/import/users',
        headers: tenant.headers,
        payload: { users: USERS },
      });
      assert.equal(imported.statusCode, 200, imported.body);
      const statements = STATEMENT_ACTORS.map((actor) => ({ actor, verb, object }));
      const stored = await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: statements });
      assert.equal(stored.statusCode, 200, stored.body);
      return tenant;
    })());
  const found = async (criteria: unknown, query = '') => {
    const tenant = await given();
    const res = await search(ctx, tenant.headers, { criteria }, query);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { actors: Actor[]; total: number };
  };
  const labels = async (criteria: unknown) => {
    const { actors, total } = await found(criteria);
    assert.equal(total, actors.length);
    return actors.map(label).sort();
  };
  const cond = (field: string, op: string, value?: unknown) => (value === undefined ? { field, op } : { field, op, value });

  it('finds by the actor’s own fields: objectType, name, identifiers, account', async () => {
    const tenant = await given();
    assert.deepEqual(await labels(cond('objectType', 'eq', 'Group')), ['Team']);
    assert.deepEqual((await labels(cond('objectType', 'ne', 'Group'))).length, 7);
    assert.deepEqual(await labels(cond('objectType', 'in', ['Group', 'Nothing'])), ['Team']);
    assert.deepEqual(await labels(cond('name', 'eq', 'Ada')), ['Ada']);
    assert.deepEqual(await labels(cond('name', 'in', ['Eve', 'Gus', 'Zed'])), ['Eve', 'Gus']);
    assert.deepEqual(await labels(cond('name', 'startsWith', 'T')), ['Team']);
    // The people only: the API key, the statements' authority, is searched only when asked for.
    assert.deepEqual(await labels(cond('name', 'exists', false)), []);
    const authorities = await search(ctx, tenant.headers, { criteria: cond('name', 'exists', false) }, '?kind=authorities');
    assert.deepEqual((authorities.json().actors as Actor[]).map(label), [`account:${tenant.key}`]);
    assert.equal((await search(ctx, tenant.headers, { criteria: {} }, '?kind=all')).json().total, 9);
    const bad = await search(ctx, tenant.headers, { criteria: {} }, '?kind=credentials');
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(bad.json().details.problems, [
      { location: 'querystring', path: '/kind', message: 'must be one of people, authorities, deactivated, all' },
    ]);
    assert.deepEqual(await labels(cond('mbox', 'eq', 'mailto:eve@x.org')), ['Eve']);
    assert.deepEqual(await labels(cond('mbox', 'contains', '@x.org')), ['Eve', 'Team']);
    assert.deepEqual(await labels(cond('mbox_sha1sum', 'exists')), ['Fay']);
    assert.deepEqual(await labels(cond('openid', 'startsWith', 'http://openid.')), ['Gus']);
    assert.deepEqual(await labels(cond('account.homePage', 'eq', home(tenant))), ['Ada', 'Bea', 'Cid', 'Dan']);
    assert.deepEqual(await labels(cond('account.name', 'eq', 'bea@x.org')), ['Bea']);
    // Agents and groups alike unless objectType says otherwise; the group shows as GET /api/actors shows it.
    const { actors } = await found(cond('mbox', 'exists', true));
    const team = actors.find((actor) => actor.name === 'Team');
    assert.equal(team?.objectType, 'Group');
    assert.deepEqual(team?.mbox, 'mailto:team@x.org');
  });

  it('answers each actor as GET /api/actors does, enrichment included', async () => {
    const tenant = await given();
    const listed = await ctx.app.inject({ method: 'GET', url: '/api/actors?limit=1000', headers: tenant.headers });
    const { actors } = await found(cond('attributes.email', 'eq', 'ada@x.org'));
    assert.equal(actors.length, 1);
    assert.deepEqual(
      actors[0],
      (listed.json() as Actor[]).find((actor) => actor.name === 'Ada'),
    );
    const ext = Object.keys(actors[0].extensions);
    assert.equal(ext.length, 3, 'attributes, organisation and job extensions');
  });

  it('applies every operator to attributes, an absent attribute matching none but exists false', async () => {
    assert.deepEqual(await labels(cond('attributes.department', 'eq', 'Sales')), ['Bea', 'Cid']);
    assert.deepEqual(await labels(cond('attributes.department', 'eq', 'tech')), ['Dan']);
    assert.deepEqual(await labels(cond('attributes.country', 'ne', 'NO')), ['Bea', 'Cid']);
    assert.deepEqual(await labels(cond('attributes.country', 'in', ['NO', 'DK'])), ['Ada', 'Cid']);
    // Past 20 values an in compares text instead of using the index: the same answer.
    const many = Array.from({ length: 30 }, (_, i) => `C${i}`);
    assert.deepEqual(await labels(cond('attributes.country', 'in', [...many, 'SE'])), ['Bea']);
    assert.deepEqual(await labels(cond('attributes.country', 'in', ['SE', 'SE'])), ['Bea']);
    assert.deepEqual(await labels(cond('attributes.country', 'exists')), ['Ada', 'Bea', 'Cid']);
    assert.deepEqual(await labels(cond('attributes.country', 'exists', true)), ['Ada', 'Bea', 'Cid']);
    assert.deepEqual((await labels(cond('attributes.country', 'exists', false))).includes('Dan'), true);
    assert.deepEqual(await labels(cond('attributes.email', 'contains', 'ea@x')), ['Bea']);
    assert.deepEqual(await labels(cond('attributes.department', 'contains', 'ech')), ['Ada', 'Dan']);
    assert.deepEqual(await labels(cond('attributes.department', 'startsWith', 'T')), ['Ada']);
    assert.deepEqual(await labels(cond('attributes.nothing', 'eq', 'x')), []);
    // Attribute names are bound, not spliced: odd ones are just names no one has.
    assert.deepEqual(await labels(cond("attributes.x') OR true --", 'exists')), []);
    assert.deepEqual(await labels(cond('attributes.a.b', 'eq', "'; DROP TABLE actors; --")), []);
  });

  it('takes %, _ and \\ literally in contains and startsWith, and is case-sensitive', async () => {
    assert.deepEqual(await labels(cond('attributes.note', 'contains', '100%')), ['Ada']);
    assert.deepEqual(await labels(cond('attributes.note', 'startsWith', '100%_')), ['Ada']);
    assert.deepEqual(await labels(cond('attributes.note', 'contains', '_')), ['Ada']);
    assert.deepEqual(await labels(cond('attributes.note', 'contains', '%')), ['Ada']);
    assert.deepEqual(await labels(cond('attributes.note', 'contains', 'a\\b')), ['Cid']);
    assert.deepEqual(await labels(cond('attributes.note', 'startsWith', 'a_b')), []);
    assert.deepEqual(await labels(cond('attributes.note', 'contains', 'PERCENT')), []);
    // Values an array literal would have to quote (backslash, quotes, braces, commas) stay intact in an in.
    assert.deepEqual(await labels(cond('attributes.note', 'in', ['a\\b', '{x,"y"}', 'NULL', ''])), ['Cid']);
    assert.deepEqual(await labels(cond('attributes.note', 'in', ['100%_done', 'a\\b'])), ['Ada', 'Cid']);
  });

  it('compares numbers numerically and never matches, nor fails on, values that are not numbers', async () => {
    assert.deepEqual(await labels(cond('attributes.score', 'gt', 10)), ['Ada']);
    assert.deepEqual(await labels(cond('attributes.score', 'gte', 7)), ['Ada', 'Bea']);
    assert.deepEqual(await labels(cond('attributes.score', 'lt', 12.5)), ['Bea']);
    assert.deepEqual(await labels(cond('attributes.score', 'lte', 12.5)), ['Ada', 'Bea']);
    // "n/a" and "1e999999" (beyond numeric's range) are not numbers; names and emails neither.
    assert.deepEqual(await labels(cond('attributes.score', 'gt', -1e300)), ['Ada', 'Bea']);
    assert.deepEqual(await labels(cond('attributes.email', 'gt', 0)), []);
    assert.deepEqual(await labels(cond('name', 'lt', 1e308)), []);
    assert.deepEqual(await labels(cond('job.attributes.grade', 'gt', 4)), ['Ada']);
  });

  it('compares dates and date-times as instants, a date standing for midnight UTC, and skips what is no date', async () => {
    assert.deepEqual(await labels(cond('attributes.hired', 'gte', '2021-01-01')), ['Bea']);
    assert.deepEqual(await labels(cond('attributes.hired', 'lt', '2020-01-15T00:00:01Z')), ['Ada']);
    assert.deepEqual(await labels(cond('attributes.hired', 'lte', '2020-01-15')), ['Ada']);
    assert.deepEqual(await labels(cond('attributes.hired', 'lt', '2020-01-15')), []);
    // 2021-06-01T09:00+02:00 is 07:00Z.
    assert.deepEqual(await labels(cond('attributes.hired', 'gt', '2021-06-01T07:00:00Z')), []);
    assert.deepEqual(await labels(cond('attributes.hired', 'gte', '2021-06-01T07:00:00Z')), ['Bea']);
    // "not a date" and 2024-02-30 (no such day) never match, in either direction.
    assert.deepEqual(await labels(cond('attributes.hired', 'gt', '0001-01-01')), ['Ada', 'Bea']);
    assert.deepEqual(await labels(cond('attributes.hired', 'lt', '9999-12-31T23:59:59Z')), ['Ada', 'Bea']);
    assert.deepEqual(await labels(cond('attributes.score', 'lt', '9999-12-31')), []);
  });

  it('matches the organisation entry, its attributes and any ancestor', async () => {
    assert.deepEqual(await labels(cond('organisation.id', 'eq', 'S1')), ['Bea']);
    assert.deepEqual(await labels(cond('organisation.id', 'in', ['S1', 'SALES'])), ['Bea', 'Cid']);
    assert.deepEqual(await labels(cond('organisation.id', 'exists')), ['Ada', 'Bea', 'Cid']);
    assert.deepEqual(await labels(cond('organisation.id', 'startsWith', 'S')), ['Bea', 'Cid']);
    assert.deepEqual(await labels(cond('organisation.attributes.site', 'eq', 'Oslo')), ['Bea']);
    assert.deepEqual(await labels(cond('organisation.attributes.kind', 'exists')), ['Cid']);
    assert.deepEqual(await labels(cond('organisation.ancestors.id', 'eq', 'ROOT')), ['Ada', 'Bea', 'Cid']);
    assert.deepEqual(await labels(cond('organisation.ancestors.id', 'eq', 'SALES')), ['Bea']);
    assert.deepEqual(await labels(cond('organisation.ancestors.id', 'in', ['TECH', 'S1'])), ['Ada']);
    assert.deepEqual(await labels(cond('organisation.ancestors.attributes.region', 'eq', 'EMEA')), ['Ada', 'Bea', 'Cid']);
    assert.deepEqual(await labels(cond('organisation.ancestors.attributes.kind', 'contains', 'depart')), ['Ada', 'Bea']);
    assert.deepEqual(await labels(cond('organisation.ancestors.id', 'exists')), ['Ada', 'Bea', 'Cid']);
    const noAncestor = await labels(cond('organisation.ancestors.id', 'exists', false));
    assert.equal(noAncestor.includes('Dan') && !noAncestor.includes('Cid'), true);
  });

  it('matches the job, its name, attributes and any competency', async () => {
    assert.deepEqual(await labels(cond('job.id', 'eq', 'J1')), ['Ada']);
    assert.deepEqual(await labels(cond('job.id', 'exists')), ['Ada', 'Bea']);
    assert.deepEqual(await labels(cond('job.name', 'startsWith', 'Sell')), ['Bea']);
    assert.deepEqual(await labels(cond('job.attributes.grade', 'eq', '3')), ['Bea']);
    assert.deepEqual(await labels(cond('job.attributes.grade', 'ne', '3')), ['Ada']);
    assert.deepEqual(await labels(cond('job.competencies.Name', 'eq', 'SQL')), ['Ada']);
    assert.deepEqual(await labels(cond('job.competencies.Name', 'in', ['Negotiation', 'Cooking'])), ['Bea']);
    assert.deepEqual(await labels(cond('job.competencies.Name', 'contains', 'Script')), ['Ada']);
  });

  it('nests and, or and not; not counts an absent value as not matching', async () => {
    assert.deepEqual(
      await labels({
        and: [
          cond('attributes.department', 'eq', 'Sales'),
          cond('attributes.country', 'in', ['SE', 'NO']),
          cond('organisation.ancestors.id', 'eq', 'ROOT'),
        ],
      }),
      ['Bea'],
    );
    assert.deepEqual(await labels({ or: [cond('name', 'eq', 'Ada'), cond('mbox', 'eq', 'mailto:eve@x.org')] }), ['Ada', 'Eve']);
    assert.deepEqual(await labels({ and: [cond('attributes.email', 'exists'), { not: cond('attributes.country', 'eq', 'NO') }] }), [
      'Bea',
      'Cid',
      'Dan',
    ]);
    assert.deepEqual(
      await labels({ and: [cond('attributes.email', 'exists'), { not: { not: cond('attributes.country', 'eq', 'NO') } }] }),
      ['Ada'],
    );
    assert.deepEqual(
      await labels({
        or: [
          { and: [cond('job.id', 'eq', 'J2'), { not: cond('organisation.id', 'eq', 'S1') }] },
          { and: [{ not: cond('attributes.email', 'exists') }, cond('objectType', 'eq', 'Group')] },
        ],
      }),
      ['Team'],
    );
  });

  it('matches every actor with {} and pages them in a stable order with the total', async () => {
    const tenant = await given();
    const all = await found({});
    assert.equal(all.total, 8);
    const listed = await ctx.app.inject({ method: 'GET', url: '/api/actors?limit=1000', headers: tenant.headers });
    assert.deepEqual(all.actors, listed.json());
    const page = await found({}, '?limit=3&skip=2');
    assert.deepEqual(page, { actors: all.actors.slice(2, 5), total: 8 });
    assert.deepEqual(await found({}, '?skip=50'), { actors: [], total: 8 });
    assert.deepEqual(await found(cond('name', 'eq', 'Nobody'), '?skip=5'), { actors: [], total: 0 });
    assert.deepEqual((await found({}, '?limit=1000')).actors.length, 8);
  });

  it('makes organisation and job conditions match nothing while the tenant links neither', async () => {
    const tenant = await ctx.given.tenant();
    await ctx.app.inject({ method: 'PUT', url: '/api/import/organisation', headers: tenant.headers, payload: ORGANISATION });
    await ctx.app.inject({ method: 'POST', url: '/api/import/users', headers: tenant.headers, payload: { users: USERS.slice(0, 2) } });
    const run = async (criteria: unknown) => (await search(ctx, tenant.headers, { criteria })).json().total;
    assert.equal(await run(cond('organisation.id', 'exists')), 0);
    assert.equal(await run(cond('organisation.ancestors.id', 'eq', 'ROOT')), 0);
    assert.equal(await run(cond('job.competencies.Name', 'exists')), 0);
    assert.equal(await run({ not: cond('organisation.id', 'exists') }), 2);
  });

  it('names the bad node of invalid criteria by its JSON pointer', async () => {
    const tenant = await given();
    const refused = async (body: unknown, path: string, query = '') => {
      const res = await search(ctx, tenant.headers, body, query);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      const error = res.json();
      assert.equal(error.code, 'actors.invalid_criteria', res.body);
      assert.equal(error.details.path, path, res.body);
      assert.match(error.message, /./);
    };
    const ok = cond('name', 'eq', 'x');
    await refused({ criteria: { and: [ok, { field: 'shoeSize', op: 'eq', value: '9' }] } }, '/criteria/and/1/field');
    await refused({ criteria: { and: [ok, { field: 'name', op: 'like', value: 'x' }] } }, '/criteria/and/1/op');
    await refused({ criteria: { or: [ok, { not: { field: 'name', value: 'x' } }] } }, '/criteria/or/1/not/op');
    await refused({ criteria: { field: 'attributes.', op: 'eq', value: 'x' } }, '/criteria/field');
    await refused({ criteria: { field: 'organisation.ancestors.name', op: 'eq', value: 'x' } }, '/criteria/field');
    await refused({ criteria: { field: 42, op: 'eq', value: 'x' } }, '/criteria/field');
    await refused({ criteria: cond('name', 'eq', 5) }, '/criteria/value');
    await refused({ criteria: cond('name', 'eq') }, '/criteria/value');
    await refused({ criteria: cond('name', 'in', []) }, '/criteria/value');
    await refused({ criteria: cond('name', 'in', 'Ada') }, '/criteria/value');
    await refused({ criteria: cond('name', 'in', ['Ada', 7]) }, '/criteria/value/1');
    await refused(
      {
        criteria: cond(
          'name',
          'in',
          Array.from({ length: 1001 }, (_, i) => `n${i}`),
        ),
      },
      '/criteria/value',
    );
    await refused({ criteria: cond('name', 'exists', 'yes') }, '/criteria/value');
    await refused({ criteria: cond('attributes.score', 'gt', 'abc') }, '/criteria/value');
    await refused({ criteria: cond('attributes.hired', 'gt', '2024-02-30') }, '/criteria/value');
    await refused({ criteria: cond('attributes.hired', 'gt', '2024-01-01T10:00:00') }, '/criteria/value');
    await refused({ criteria: cond('name', 'eq', 'a\u0000b') }, '/criteria/value');
    await refused({ criteria: cond('name', 'eq', 'x\uD800') }, '/criteria/value');
    await refused({ criteria: cond('name', 'eq', 'x'.repeat(1001)) }, '/criteria/value');
    await refused({ criteria: { ...ok, extra: 1 } }, '/criteria/extra');
    await refused({ criteria: { and: [ok], or: [ok] } }, '/criteria/or');
    await refused({ criteria: { and: [] } }, '/criteria/and');
    await refused({ criteria: { or: ok } }, '/criteria/or');
    await refused({ criteria: { and: [ok, null] } }, '/criteria/and/1');
    await refused({ criteria: [ok] }, '/criteria');
    await refused({ criteria: 'name = x' }, '/criteria');
    await refused({}, '/criteria');
    await refused({ criteria: ok, sort: 'name' }, '/sort');
    await refused({ criteria: ok, 'a/b~c': 1 }, '/a~1b~0c');
    await refused([ok], '');
  });

  it('bounds the depth (8 levels) and the size (100 nodes) of criteria', async () => {
    const tenant = await given();
    const nest = (levels: number): unknown => (levels === 1 ? cond('name', 'eq', 'Ada') : { not: nest(levels - 1) });
    const eight = await search(ctx, tenant.headers, { criteria: nest(8) });
    assert.equal(eight.statusCode, 200, eight.body);
    const nine = await search(ctx, tenant.headers, { criteria: nest(9) });
    assert.equal(nine.statusCode, 400);
    assert.equal(nine.json().details.path, `/criteria${'/not'.repeat(8)}`);
    // Thousands deep answers as fast, at the same node.
    const deep = await search(ctx, tenant.headers, { criteria: nest(3000) });
    assert.equal(deep.json().details.path, `/criteria${'/not'.repeat(8)}`);
    const hundred = await search(ctx, tenant.headers, { criteria: { or: Array.from({ length: 99 }, () => cond('name', 'eq', 'Ada')) } });
    assert.equal(hundred.statusCode, 200, hundred.body);
    assert.equal(hundred.json().total, 1);
    const more = await search(ctx, tenant.headers, { criteria: { or: Array.from({ length: 100 }, () => cond('name', 'eq', 'Ada')) } });
    assert.equal(more.statusCode, 400);
    assert.deepEqual([more.json().code, more.json().details.path], ['actors.invalid_criteria', '/criteria/or/99']);
  });

  it('refuses a bad page, a body that is not JSON, and searches no other tenant', async () => {
    const tenant = await given();
    for (const query of ['?limit=0', '?limit=1001', '?skip=-1', '?limit=1.5', '?limit=abc']) {
      const res = await search(ctx, tenant.headers, { criteria: {} }, query);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().code, 'request.invalid', res.body);
    }
    const text = await ctx.app.inject({
      method: 'POST',
      url: '/api/actors/search',
      headers: { ...tenant.headers, 'content-type': 'text/plain' },
      payload: 'criteria',
    });
    // A text body is a string, not {criteria}.
    assert.deepEqual([text.statusCode, text.json().code, text.json().details.path], [400, 'actors.invalid_criteria', '']);
    const broken = await ctx.app.inject({
      method: 'POST',
      url: '/api/actors/search',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: '{"criteria":',
    });
    assert.equal(broken.statusCode, 400);

    const other = await ctx.given.tenant();
    await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: other.headers,
      payload: { users: [{ name: 'Theirs', attributes: { email: 'ada@x.org', department: 'Sales' } }] },
    });
    assert.deepEqual(await labels(cond('name', 'eq', 'Theirs')), []);
    assert.deepEqual(await labels(cond('attributes.email', 'eq', 'ada@x.org')), ['Ada']);
    const theirs = await search(ctx, other.headers, { criteria: cond('attributes.department', 'eq', 'Sales') });
    assert.deepEqual(theirs.json().actors.map(label), ['Theirs']);
    // Their key on our tenant, and no key at all: 401.
    const crossed = await search(ctx, { ...other.headers, 'x-svc-tenant': tenant.name }, { criteria: {} });
    assert.equal(crossed.statusCode, 401);
    assert.equal(typeof crossed.json().code, 'string');
    const anonymous = await search(ctx, { 'x-svc-tenant': tenant.name }, { criteria: {} });
    assert.equal(anonymous.statusCode, 401);
  });

  it('describes the criteria in /openapi.json as a recursive schema', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const document = res.json();
    const body = document.paths['/api/actors/search'].post.requestBody.content['application/json'].schema;
    const reference: string = body.properties.criteria.$ref;
    const criteria = document.components.schemas[reference.split('/').pop() as string];
    assert.equal(criteria.title, 'ActorCriteria');
    const [condition, and, , not] = criteria.anyOf;
    assert.ok(condition.properties.op.anyOf.some((op: { enum: string[] }) => op.enum.includes('startsWith')));
    assert.match(condition.properties.field.description, /organisation\.ancestors\.id/);
    // The nesting refers back to the criteria themselves.
    assert.equal(and.properties.and.items.$ref, reference);
    assert.equal(not.properties.not.$ref, reference);
    assert.ok(document.paths['/api/actors/attributes'].get);
  });
});
