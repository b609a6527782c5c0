import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Entry = { name: string; count: number; schema: Record<string, unknown> };

const importUsers = async (ctx: TestContext, tenant: GivenTenant, users: unknown[]) => {
  const res = await ctx.app.inject({ method: 'POST', url: '/api/import/users', headers: tenant.headers, payload: { users } });
  assert.equal(res.statusCode, 200, res.body);
};
const catalogue = async (ctx: TestContext, tenant: GivenTenant) => {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/actors/attributes', headers: tenant.headers });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { attributes: Entry[] }).attributes;
};
const byName = (entries: Entry[]) => Object.fromEntries(entries.map((entry) => [entry.name, entry]));

describeEachBackend('GET /api/actors/attributes', (ctx) => {
  it('types each attribute by what every value reads as, with the number of actors carrying it', async () => {
    const tenant = await ctx.given.tenant();
    await importUsers(ctx, tenant, [
      {
        name: 'Ada',
        attributes: {
          email: 'ada@example.org',
          score: '12.5',
          active: 'true',
          born: '1990-02-28',
          seen: '2026-11-23T17:00:00Z',
          city: 'Oslo',
          mixed: '5',
          login: 'ada@example.org',
        },
      },
      {
        name: 'Bea',
        attributes: {
          email: 'bea@example.org',
          score: '-3',
          active: 'false',
          born: '2000-02-29',
          seen: '2026-11-23T18:00:00.123+01:00',
          city: 'Bergen',
          mixed: 'five',
        },
      },
      { name: 'Cid', attributes: { email: 'cid@example.org', score: '1e3', born: '2024-12-31', city: '' } },
    ]);
    const entries = await catalogue(ctx, tenant);
    assert.deepEqual(
      entries.map((entry) => entry.name),
      ['active', 'born', 'city', 'email', 'login', 'mixed', 'score', 'seen'],
    );
    assert.deepEqual(byName(entries), {
      active: { name: 'active', count: 2, schema: { type: 'boolean' } },
      born: { name: 'born', count: 3, schema: { type: 'string', format: 'date' } },
      city: { name: 'city', count: 3, schema: { type: 'string' } },
      email: { name: 'email', count: 3, schema: { type: 'string', format: 'email' } },
      login: { name: 'login', count: 1, schema: { type: 'string', format: 'email' } },
      mixed: { name: 'mixed', count: 2, schema: { type: 'string' } },
      score: { name: 'score', count: 3, schema: { type: 'number' } },
      seen: { name: 'seen', count: 2, schema: { type: 'string', format: 'date-time' } },
    });
  });

  it('gives no format when one value lacks it: an impossible day, a date-time without offset, a number out of form', async () => {
    const tenant = await ctx.given.tenant();
    await importUsers(ctx, tenant, [
      {
        name: 'Ada',
        attributes: { email: 'ada@example.org', born: '2023-02-29', seen: '2026-11-23T17:00:00', amount: '1,5', flag: 'TRUE' },
      },
      { name: 'Bea', attributes: { email: 'not-an-email', born: '2023-02-28', seen: '2026-11-23T17:00:00Z', amount: '2', flag: 'false' } },
      { name: 'Cid', attributes: { email: 'cid@example.org', born: '2023-02-28', seen: '2026-11-23', amount: '007' } },
    ]);
    const entries = byName(await catalogue(ctx, tenant));
    assert.deepEqual(entries.born.schema, { type: 'string' });
    assert.deepEqual(entries.seen.schema, { type: 'string' });
    assert.deepEqual(entries.email.schema, { type: 'string' });
    assert.deepEqual(entries.amount.schema, { type: 'string' });
    assert.deepEqual(entries.flag.schema, { type: 'string' });
  });

  it('lists an enum of at most 20 distinct values once more than 20 actors carry the attribute', async () => {
    const tenant = await ctx.given.tenant();
    const cities = ['Oslo', 'Bergen', 'Ålesund', 'aal'];
    const users = Array.from({ length: 21 }, (_, i) => ({
      name: `U${i}`,
      attributes: {
        email: `u${i}@example.org`,
        city: cities[i % cities.length],
        grade: String((i % 3) * 10 + 2),
        member: i % 2 === 0 ? 'true' : 'false',
        code: `C${i}`,
        ...(i < 20 ? { team: `T${i % 2}` } : {}),
      },
    }));
    await importUsers(ctx, tenant, users);
    const entries = byName(await catalogue(ctx, tenant));
    // Code-point order: upper case before lower case, Å after z.
    assert.deepEqual(entries.city, { name: 'city', count: 21, schema: { type: 'string', enum: ['Bergen', 'Oslo', 'aal', 'Ålesund'] } });
    assert.deepEqual(entries.grade, { name: 'grade', count: 21, schema: { type: 'number', enum: [2, 12, 22] } });
    assert.deepEqual(entries.member, { name: 'member', count: 21, schema: { type: 'boolean', enum: [false, true] } });
    // 21 distinct values: no enum; 20 actors only: no enum either.
    assert.deepEqual(entries.code, { name: 'code', count: 21, schema: { type: 'string' } });
    assert.deepEqual(entries.team, { name: 'team', count: 20, schema: { type: 'string' } });
    assert.deepEqual(entries.email.count, 21);
  });

  it('counts only the tenant’s own actors, none for actors statements named, and refuses other credentials', async () => {
    const tenant = await ctx.given.tenant();
    assert.deepEqual(await catalogue(ctx, tenant), []);
    const statement = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: tenant.xapi,
      payload: {
        actor: { mbox: 'mailto:learner@x.org' },
        verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
        object: { id: 'http://example.com/a' },
      },
    });
    assert.equal(statement.statusCode, 200, statement.body);
    assert.deepEqual(await catalogue(ctx, tenant), []);
    await importUsers(ctx, tenant, [{ name: 'Ada', attributes: { email: 'ada@example.org' } }]);

    const other = await ctx.given.tenant();
    await importUsers(ctx, other, [
      { name: 'Theirs', attributes: { email: 'theirs@example.org', secret: 'x' } },
      { name: 'Also', attributes: { email: 'also@example.org' } },
    ]);
    assert.deepEqual(await catalogue(ctx, tenant), [{ name: 'email', count: 1, schema: { type: 'string', format: 'email' } }]);
    assert.deepEqual(
      (await catalogue(ctx, other)).map((entry) => [entry.name, entry.count]),
      [
        ['email', 2],
        ['secret', 1],
      ],
    );

    const crossed = await ctx.app.inject({
      method: 'GET',
      url: '/api/actors/attributes',
      headers: { ...other.headers, 'x-svc-tenant': tenant.name },
    });
    assert.equal(crossed.statusCode, 401);
    const anonymous = await ctx.app.inject({ method: 'GET', url: '/api/actors/attributes', headers: { 'x-svc-tenant': tenant.name } });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(typeof anonymous.json().code, 'string');
  });
});

describeEachBackend('GET /api/actors/attributes with numbers a double does not hold', (ctx) => {
  it('answers 200 once more than 20 actors carry "1e400", typing the attribute as a string with its values as written', async () => {
    const tenant = await ctx.given.tenant();
    const users = Array.from({ length: 21 }, (_, i) => ({
      name: `U${i}`,
      attributes: {
        email: `u${i}@example.org`,
        huge: i === 0 ? '1e400' : String(i % 3),
        tiny: i === 0 ? '-1e-400' : '0.5',
        grade: String(i % 3),
      },
    }));
    await importUsers(ctx, tenant, users);
    const entries = byName(await catalogue(ctx, tenant));
    assert.deepEqual(entries.huge.schema, { type: 'string', enum: ['0', '1', '1e400', '2'] });
    assert.deepEqual(entries.tiny.schema, { type: 'string', enum: ['-1e-400', '0.5'] });
    assert.deepEqual(entries.grade.schema, { type: 'number', enum: [0, 1, 2] });
  });

  it('types as a string whatever a double would round or overflow, and as a number whatever it holds exactly', async () => {
    const tenant = await ctx.given.tenant();
    await importUsers(ctx, tenant, [
      {
        name: 'Ada',
        attributes: {
          email: 'ada@example.org',
          overflow: '1.7976931348623158e308',
          underflow: '1e-400',
          rounded: '12345678901234567890',
          unsafe: '9007199254740993',
          largest: '1.7976931348623157e308',
          smallest: '5e-324',
          shortest: '0.30000000000000004',
          scaled: '5.0',
          negativeZero: '-0',
        },
      },
      {
        name: 'Bea',
        attributes: {
          email: 'bea@example.org',
          overflow: '1',
          underflow: '1',
          rounded: '1',
          unsafe: '1',
          largest: '1',
          smallest: '1',
          shortest: '1',
          scaled: '5',
          negativeZero: '0',
        },
      },
    ]);
    const entries = byName(await catalogue(ctx, tenant));
    for (const name of ['overflow', 'underflow', 'rounded', 'unsafe']) assert.deepEqual(entries[name].schema, { type: 'string' }, name);
    for (const name of ['largest', 'smallest', 'shortest', 'scaled', 'negativeZero'])
      assert.deepEqual(entries[name].schema, { type: 'number' }, name);
  });

  it('still compares "1e400" as the number it is in a search, without failing', async () => {
    const tenant = await ctx.given.tenant();
    await importUsers(ctx, tenant, [
      { name: 'Ada', attributes: { email: 'ada@example.org', amount: '1e400' } },
      { name: 'Bea', attributes: { email: 'bea@example.org', amount: '-1e400' } },
      { name: 'Cid', attributes: { email: 'cid@example.org', amount: '1e-400' } },
    ]);
    const search = async (op: string, value: number) => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/actors/search',
        headers: tenant.headers,
        payload: { criteria: { field: 'attributes.amount', op, value } },
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { actors: { name: string }[] }).actors.map((actor) => actor.name).sort();
    };
    assert.deepEqual(await search('gt', 1.7976931348623157e308), ['Ada']);
    assert.deepEqual(await search('lt', -1.7976931348623157e308), ['Bea']);
    assert.deepEqual(await search('gt', 0), ['Ada', 'Cid']);
    assert.deepEqual(await search('lt', 5e-324), ['Bea', 'Cid']);
  });
});
