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
  return Object.fromEntries((res.json() as { attributes: Entry[] }).attributes.map((entry) => [entry.name, entry]));
};

describeEachBackend('GET /api/actors/attributes with numbers a double does not hold', (ctx) => {
  it('answers 200 once more than 20 actors carry "1e400", typing the attribute as a string with its values as written', async () => {
    const tenant = await ctx.given.tenant();
    const users = Array.from({ length: 21 }, (_, i) => ({
      name: `U${i}`,
      attributes: { email: `u${i}@example.org`, huge: i === 0 ? '1e400' : String(i % 3), tiny: i === 0 ? '-1e-400' : '0.5', grade: String(i % 3) },
    }));
    await importUsers(ctx, tenant, users);
    const entries = await catalogue(ctx, tenant);
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
      { name: 'Bea', attributes: { email: 'bea@example.org', overflow: '1', underflow: '1', rounded: '1', unsafe: '1', largest: '1', smallest: '1', shortest: '1', scaled: '5', negativeZero: '0' } },
    ]);
    const entries = await catalogue(ctx, tenant);
    for (const name of ['overflow', 'underflow', 'rounded', 'unsafe']) assert.deepEqual(entries[name].schema, { type: 'string' }, name);
    for (const name of ['largest', 'smallest', 'shortest', 'scaled', 'negativeZero']) assert.deepEqual(entries[name].schema, { type: 'number' }, name);
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
