import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { findRegisteredActivity } from '../../src/modules/activities/activity-registry.service.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Entry = Record<string, unknown>;
type Problem = { index: number; id?: string; field: string; message: string };

describeEachBackend('The activities registry', (ctx: TestContext) => {
  /** Ids unique to one test, so the order of `GET /api/activities` is the order of the suffixes. */
  const iri = (name: string) => `http://example.com/${name}`;

  /** A tenant whose competency catalogue has what the fixtures name (docs/learning.md). */
  const newTenant = async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({
      method: 'PUT',
      url: '/api/competencies',
      headers: tenant.headers,
      payload: [{ name: 'Fire safety' }],
    });
    assert.equal(res.statusCode, 200, res.body);
    return tenant;
  };

  const put = (tenant: GivenTenant, body: unknown, headers: Record<string, string> = tenant.headers) =>
    ctx.app.inject({ method: 'PUT', url: '/api/activities', headers, payload: body as object });

  const list = async (tenant: GivenTenant, query = '') => {
    const res = await ctx.app.inject({ method: 'GET', url: `/api/activities${query}`, headers: tenant.headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Entry[];
  };

  const item = (tenant: GivenTenant, activityId: string, headers: Record<string, string> = tenant.headers) =>
    ctx.app.inject({ method: 'GET', url: '/api/activities/item', query: { activityId }, headers });

  const problemsOf = (res: { statusCode: number; body: string; json(): any }): Problem[] => {
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, 'activities.invalid');
    return res.json().details.problems;
  };

  const course = {
    id: iri('courses/fire-safety'),
    definition: {
      name: { 'en-US': 'Fire safety', fr: 'Sécurité incendie' },
      description: { 'en-US': 'The yearly course.' },
      type: 'http://adlnet.gov/expapi/activities/course',
      extensions: { 'http://example.com/ext/duration': 'PT45M' },
    },
    attributes: { owner: 'Health & Safety' },
    tags: ['mandatory', 'safety'],
    launchUrl: 'https://content.example.com/fire-safety/index.html',
    competencies: ['Fire safety'],
    requiresSuccess: true,
  };
  const module1 = {
    id: iri('courses/fire-safety/m1'),
    definition: { name: { 'en-US': 'Extinguishers' } },
    parentId: course.id,
    tags: ['safety'],
  };
  const module2 = { id: iri('courses/fire-safety/m2'), definition: { name: { 'en-US': 'Evacuation' } }, parentId: course.id };

  it('stores entries (children before their parent) and reads them back, the one and the list', async () => {
    const tenant = await newTenant();
    const before = Date.now();
    const res = await put(tenant, [module2, course, module1]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { stored: 3 });

    const one = await item(tenant, course.id);
    assert.equal(one.statusCode, 200, one.body);
    const { updated, ...stored } = one.json();
    assert.deepEqual(stored, course);
    assert.ok(Date.parse(updated) >= before - 1000 && Date.parse(updated) <= Date.now() + 1000, updated);

    const entries = await list(tenant);
    assert.deepEqual(
      entries.map((entry) => entry.id),
      [course.id, module1.id, module2.id],
    );
    const { updated: _, ...second } = entries[2];
    assert.deepEqual(second, { ...module2, attributes: {}, tags: [], competencies: [], requiresSuccess: false });

    // What findRegisteredActivity (the launch's entry point) answers.
    const found = await findRegisteredActivity(ctx.db, tenant.id, module1.id);
    assert.equal(found?.parentId, course.id);
    assert.equal(found?.launchUrl, undefined);
    assert.equal(await findRegisteredActivity(ctx.db, tenant.id, iri('nothing')), undefined);
  });

  it('upserts: an entry replaces the stored one whole, the others stay', async () => {
    const tenant = await newTenant();
    assert.equal((await put(tenant, [course, module1, module2])).statusCode, 200);
    const replaced = { id: module1.id, definition: { name: { de: 'Feuerlöscher' } }, launchUrl: 'http://content.example.com/m1' };
    const res = await put(tenant, [replaced]);
    assert.deepEqual(res.json(), { stored: 1 });
    const { updated: _, ...now } = (await item(tenant, module1.id)).json();
    assert.deepEqual(
      now,
      { ...replaced, attributes: {}, tags: [], competencies: [], requiresSuccess: false },
      'parentId, tags and requiresSuccess left out are cleared',
    );
    assert.equal((await list(tenant)).length, 3);
    const { updated: __, ...kept } = (await item(tenant, course.id)).json();
    assert.deepEqual(kept, course);
    assert.deepEqual((await put(tenant, [])).json(), { stored: 0 });
  });

  it('filters by tag and by parent and pages in id order', async () => {
    const tenant = await newTenant();
    const children = Array.from({ length: 5 }, (_, index) => ({
      id: iri(`p/child-${index}`),
      definition: {},
      parentId: iri('p'),
      tags: index % 2 === 0 ? ['even'] : ['odd'],
    }));
    assert.equal((await put(tenant, [{ id: iri('p'), definition: {}, tags: ['root'] }, ...children.reverse()])).statusCode, 200);
    const ids = async (query: string) => (await list(tenant, query)).map((entry) => entry.id);
    assert.deepEqual(await ids('?tag=even'), [iri('p/child-0'), iri('p/child-2'), iri('p/child-4')]);
    assert.deepEqual(await ids('?tag=root'), [iri('p')]);
    assert.deepEqual(await ids('?tag=none'), []);
    assert.deepEqual(await ids(`?parentId=${encodeURIComponent(iri('p'))}`), children.map((child) => child.id).sort());
    assert.deepEqual(await ids(`?parentId=${encodeURIComponent(iri('p'))}&tag=odd`), [iri('p/child-1'), iri('p/child-3')]);
    assert.deepEqual(await ids(`?parentId=${encodeURIComponent(iri('p/child-0'))}`), []);
    assert.deepEqual(await ids('?limit=2'), [iri('p'), iri('p/child-0')]);
    assert.deepEqual(await ids('?limit=2&skip=2'), [iri('p/child-1'), iri('p/child-2')]);
    assert.deepEqual(await ids('?skip=6'), []);
    for (const query of ['?limit=0', '?limit=1001', '?skip=-1', '?colour=red', '?tag=']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/activities${query}`, headers: tenant.headers });
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
      assert.equal(res.json().code, 'request.invalid');
    }
  });

  it('searches the id, names and descriptions with q, case-insensitively, with the other filters; says how many match', async () => {
    const tenant = await newTenant();
    const entries = [
      course,
      module1,
      module2,
      { id: iri('courses/first-aid'), definition: { name: { 'en-US': 'First aid' }, description: { de: 'Erste Hilfe bei ÄRGER' } } },
      { id: iri('courses/percent'), definition: { name: { 'en-US': '100% safe_ty' } }, tags: ['safety'] },
      { id: iri('courses/EXTRA'), definition: {} },
    ];
    assert.equal((await put(tenant, entries)).statusCode, 200);
    const search = async (query: Record<string, string>) => {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/activities?${new URLSearchParams(query)}`, headers: tenant.headers });
      assert.equal(res.statusCode, 200, res.body);
      return { ids: (res.json() as Entry[]).map((entry) => entry.id), total: res.headers['x-total-count'], link: res.headers.link };
    };
    const ids = async (query: Record<string, string>) => (await search(query)).ids;
    assert.deepEqual(await ids({ q: 'FIRE' }), [course.id, module1.id, module2.id], 'the id (and the course’s name)');
    assert.deepEqual(await ids({ q: 'sécurité' }), [course.id], 'a name in another language, its accents folded');
    assert.deepEqual(await ids({ q: 'SÉCURITÉ INC' }), [course.id]);
    assert.deepEqual(await ids({ q: 'yearly' }), [course.id], 'a description');
    assert.deepEqual(await ids({ q: 'ärger' }), [iri('courses/first-aid')], 'a description in another language, any case');
    assert.deepEqual(await ids({ q: 'extinguish' }), [module1.id]);
    assert.deepEqual(await ids({ q: 'extra' }), [iri('courses/EXTRA')], 'the id, case-insensitively');
    assert.deepEqual(await ids({ q: '%' }), [iri('courses/percent')], '% is text, not a wildcard');
    assert.deepEqual(await ids({ q: 'y_' }), [], '_ is text, not a wildcard');
    assert.deepEqual(await ids({ q: 'safe_ty' }), [iri('courses/percent')]);
    assert.deepEqual(await ids({ q: 'nothing like it' }), []);
    assert.deepEqual(await ids({ q: 'fire', tag: 'safety' }), [course.id, module1.id], 'with a tag');
    assert.deepEqual(await ids({ q: 'evac', parentId: course.id }), [module2.id], 'with a parent');
    assert.deepEqual(await ids({ q: 'first', parentId: course.id }), []);

    const first = await search({ q: 'fire', limit: '2' });
    assert.deepEqual(first.ids, [course.id, module1.id]);
    assert.equal(first.total, '3');
    const next = /^<([^>]+)>; rel="next"/.exec(String(first.link))?.[1];
    assert.ok(next, `a next link: ${first.link}`);
    assert.deepEqual(Object.fromEntries(new URL(next).searchParams), { q: 'fire', limit: '2', skip: '2' });
    const second = await search(Object.fromEntries(new URL(next).searchParams));
    assert.deepEqual(second.ids, [module2.id]);
    assert.equal(second.total, '3');
    assert.doesNotMatch(String(second.link ?? ''), /rel="next"/);
    assert.equal((await search({})).total, String(entries.length));

    for (const q of ['', 'x'.repeat(1001)]) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/activities?q=${q}`, headers: tenant.headers });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'request.invalid');
      assert.match(res.json().message, /q/);
    }
    const twice = await ctx.app.inject({ method: 'GET', url: '/api/activities?q=a&q=b', headers: tenant.headers });
    assert.equal(twice.statusCode, 400, twice.body);

    const other = await newTenant();
    assert.deepEqual((await ctx.app.inject({ method: 'GET', url: '/api/activities?q=fire', headers: other.headers })).json(), []);
    for (const headers of [{ ...other.headers, 'x-svc-tenant': tenant.name }, { 'x-svc-tenant': tenant.name }]) {
      const refused = await ctx.app.inject({ method: 'GET', url: '/api/activities?q=fire', headers });
      assert.equal(refused.statusCode, 401, refused.body);
    }
  });

  it('answers 404 activities.not_found for an unknown id, 400 without activityId', async () => {
    const tenant = await newTenant();
    const res = await item(tenant, iri('nothing'));
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'activities.not_found');
    assert.equal(res.json().details.activityId, iri('nothing'));
    const missing = await ctx.app.inject({ method: 'GET', url: '/api/activities/item', headers: tenant.headers });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().message, /activityId/);
  });

  it('refuses a bad body naming every offending entry, and stores nothing', async () => {
    const tenant = await newTenant();
    const problems = problemsOf(
      await put(tenant, [
        { id: iri('good'), definition: {} },
        'not an entry',
        { id: 'no scheme', definition: {} },
        { id: iri('a'), definition: { name: 'Fire', type: 'course', extensions: { short: 1 } } },
        { id: iri('b'), definition: {}, launchUrl: 'ftp://files.example.com/x' },
        { id: iri('c'), definition: {}, launchUrl: 'content/index.html' },
        { id: iri('good'), definition: {} },
        { id: iri('d'), definition: {}, parentId: iri('unknown') },
        { id: iri('e'), definition: {}, colour: 'red' },
        { id: iri('f'), definition: {}, tags: ['', 7], competencies: 'x', attributes: { level: 1 } },
        { id: iri('g') },
        { id: iri('h'), definition: {}, parentId: iri('h') },
      ]),
    );
    const byIndex = (index: number) => problems.filter((problem) => problem.index === index).map((problem) => problem.field);
    assert.deepEqual(byIndex(0), []);
    assert.deepEqual(byIndex(1), ['']);
    assert.deepEqual(byIndex(2), ['id']);
    assert.deepEqual(byIndex(3).sort(), ['definition.extensions', 'definition.name', 'definition.type']);
    assert.deepEqual(byIndex(4), ['launchUrl']);
    assert.deepEqual(byIndex(5), ['launchUrl']);
    assert.deepEqual(byIndex(6), ['id']);
    assert.deepEqual(byIndex(7), ['parentId']);
    assert.deepEqual(byIndex(8), ['colour']);
    assert.deepEqual(byIndex(9).sort(), ['attributes.level', 'competencies', 'tags[0]', 'tags[1]']);
    assert.deepEqual(byIndex(10), ['definition']);
    assert.deepEqual(byIndex(11), ['parentId']);
    const at = (index: number) => problems.find((problem) => problem.index === index) as Problem;
    assert.equal(at(3).id, iri('a'));
    assert.equal(at(2).id, undefined);
    assert.match(at(4).message, /http or https/);
    assert.match(at(6).message, /index 0/);
    assert.match(at(7).message, /names neither/);
    assert.match(at(8).message, /not a field/);
    assert.match(at(11).message, /itself/);
    assert.deepEqual(await list(tenant), []);
  });

  it('refuses a body that is not an array, text PostgreSQL cannot store, and a body over the import limit', async () => {
    const tenant = await newTenant();
    const notArray = await put(tenant, { id: iri('x'), definition: {} });
    assert.equal(notArray.statusCode, 400);
    assert.equal(notArray.json().code, 'activities.invalid');
    assert.match(notArray.json().message, /JSON array/);

    const bad = problemsOf(
      await put(tenant, [
        { id: iri('nul'), definition: { name: { en: 'a\u0000b' } } },
        { id: iri('surrogate'), definition: {}, attributes: { '\ud800': 'x' } },
        { id: iri('deep'), definition: { extensions: { 'http://x.example/e': JSON.parse('['.repeat(80) + ']'.repeat(80)) } } },
      ]),
    );
    assert.deepEqual(
      bad.map((problem) => [problem.index, problem.field]),
      [
        [0, 'definition.name.en'],
        [1, 'attributes["\\ud800"]'],
        [2, bad[2].field],
      ],
    );
    assert.match(bad[0].message, /U\+0000/);
    assert.match(bad[1].message, /surrogate/);
    assert.match(bad[2].message, /deeper/);

    const malformed = await ctx.app.inject({
      method: 'PUT',
      url: '/api/activities',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: '[{"id":',
    });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().code, 'request.invalid_json');

    const huge = JSON.stringify([{ id: iri('big'), definition: { description: { en: 'x'.repeat(ctx.config.importLimitBytes) } } }]);
    const tooLarge = await ctx.app.inject({
      method: 'PUT',
      url: '/api/activities',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: huge,
    });
    assert.equal(tooLarge.statusCode, 413);
    assert.deepEqual(await list(tenant), []);
  });

  it('refuses a cycle within one request and one through stored parents', async () => {
    const tenant = await newTenant();
    const [a, b, c] = [iri('a'), iri('b'), iri('c')];
    const within = problemsOf(
      await put(tenant, [
        { id: a, definition: {}, parentId: c },
        { id: b, definition: {}, parentId: a },
        { id: c, definition: {}, parentId: b },
      ]),
    );
    assert.deepEqual(
      within.map((problem) => [problem.index, problem.field]),
      [
        [0, 'parentId'],
        [1, 'parentId'],
        [2, 'parentId'],
      ],
    );
    assert.match(within[0].message, /cycle of parents \(3 activities/);

    // Stored: c → b → a. Making a a child of c closes the loop through two stored links.
    assert.equal(
      (
        await put(tenant, [
          { id: a, definition: {} },
          { id: b, definition: {}, parentId: a },
          { id: c, definition: {}, parentId: b },
        ])
      ).statusCode,
      200,
    );
    const through = problemsOf(
      await put(tenant, [
        { id: iri('ok'), definition: {} },
        { id: a, definition: {}, parentId: c },
      ]),
    );
    assert.deepEqual(
      through.map((problem) => [problem.index, problem.id, problem.field]),
      [[1, a, 'parentId']],
    );
    assert.match(through[0].message, /cycle/);
    assert.equal((await item(tenant, a)).json().parentId, undefined, 'nothing stored');
    assert.equal((await item(tenant, iri('ok'))).statusCode, 404);

    // The same move is fine when the request also moves b to the root.
    assert.equal(
      (
        await put(tenant, [
          { id: a, definition: {}, parentId: c },
          { id: b, definition: {} },
        ])
      ).statusCode,
      200,
    );
    assert.equal((await item(tenant, a)).json().parentId, c);
    // And an entry may name a parent stored earlier.
    assert.equal((await put(tenant, [{ id: iri('d'), definition: {}, parentId: b }])).statusCode, 200);
  });

  it('two PUTs at once that together make a cycle: exactly one succeeds', async () => {
    const tenant = await newTenant();
    for (let round = 0; round < 5; round++) {
      const [x, y] = [iri(`x${round}`), iri(`y${round}`)];
      assert.equal(
        (
          await put(tenant, [
            { id: x, definition: {} },
            { id: y, definition: {} },
          ])
        ).statusCode,
        200,
      );
      const results = await Promise.all([
        put(tenant, [{ id: x, definition: {}, parentId: y }]),
        put(tenant, [{ id: y, definition: {}, parentId: x }]),
      ]);
      assert.deepEqual(results.map((res) => res.statusCode).sort(), [200, 400], results.map((res) => res.body).join('\n'));
      const refused = results.find((res) => res.statusCode === 400);
      assert.match(refused?.json().details.problems[0].message, /cycle/);
      const parents = [(await item(tenant, x)).json().parentId, (await item(tenant, y)).json().parentId];
      assert.equal(parents.filter((parent) => parent !== undefined).length, 1, JSON.stringify(parents));
    }
  });

  it('keeps each tenant’s registry to itself; refuses other tenants’ and missing credentials', async () => {
    const mine = await newTenant();
    const other = await newTenant();
    assert.equal((await put(mine, [course])).statusCode, 200);
    assert.deepEqual(await list(other), []);
    assert.equal((await item(other, course.id)).statusCode, 404);
    // The other tenant cannot name my entry as a parent either.
    assert.deepEqual(
      problemsOf(await put(other, [module1])).map((problem) => problem.field),
      ['parentId'],
    );
    assert.equal((await put(other, [{ ...course, tags: ['theirs'] }])).statusCode, 200);
    assert.deepEqual((await item(mine, course.id)).json().tags, course.tags);

    const crossed = { ...other.headers, 'x-svc-tenant': mine.name };
    const anonymous = { 'x-svc-tenant': mine.name };
    for (const headers of [crossed, anonymous]) {
      assert.equal((await put(mine, [{ id: iri('sneaky'), definition: {} }], headers)).statusCode, 401);
      assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/activities', headers })).statusCode, 401);
      assert.equal((await item(mine, course.id, headers)).statusCode, 401);
    }
    assert.deepEqual(
      (await list(mine)).map((entry) => entry.id),
      [course.id],
    );
  });

  const xapi = (tenant: GivenTenant) => ({ ...tenant.xapi });
  const activity = (tenant: GivenTenant, activityId: string) =>
    ctx.app.inject({ method: 'GET', url: '/xapi/activities', query: { activityId }, headers: xapi(tenant) });
  const statement = (object: Entry) => ({
    id: randomUUID(),
    actor: { mbox: 'mailto:ada@example.com' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
    object,
  });

  it('GET /xapi/activities: the registry’s definition wins field by field over statements, languages merged', async () => {
    const tenant = await newTenant();
    const id = iri(`merge/${randomUUID()}`);
    const stored = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: xapi(tenant),
      payload: statement({
        objectType: 'Activity',
        id,
        definition: {
          name: { 'en-US': 'From statements', de: 'Aus Aussagen' },
          type: 'http://example.com/types/statement-said',
          moreInfo: 'http://example.com/more',
          interactionType: 'other',
        },
      }),
    });
    assert.equal(stored.statusCode, 200, stored.body);
    assert.equal(
      (
        await put(tenant, [
          {
            id,
            definition: { name: { 'en-US': 'From the registry', fr: 'Du registre' }, type: 'http://adlnet.gov/expapi/activities/course' },
          },
        ])
      ).statusCode,
      200,
    );
    const res = await activity(tenant, id);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      objectType: 'Activity',
      id,
      definition: {
        name: { 'en-US': 'From the registry', de: 'Aus Aussagen', fr: 'Du registre' },
        type: 'http://adlnet.gov/expapi/activities/course',
        moreInfo: 'http://example.com/more',
        interactionType: 'other',
      },
    });
  });

  it('GET /xapi/activities: a registered activity no statement named answers the registry’s definition; other tenants see none of it', async () => {
    const tenant = await newTenant();
    const other = await newTenant();
    assert.equal((await put(tenant, [course])).statusCode, 200);
    assert.deepEqual((await activity(tenant, course.id)).json(), { objectType: 'Activity', id: course.id, definition: course.definition });
    assert.deepEqual((await activity(other, course.id)).json(), { objectType: 'Activity', id: course.id });
  });
});
