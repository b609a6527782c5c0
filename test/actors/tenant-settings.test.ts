import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';

describeEachBackend('GET and PUT /api/settings', (ctx) => {
  const get = (headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url: '/api/settings', headers });
  const put = (headers: Record<string, string>, payload: unknown) =>
    ctx.app.inject({ method: 'PUT', url: '/api/settings', headers, payload: payload as object });
  const importUsers = (headers: Record<string, string>, users: unknown[]) =>
    ctx.app.inject({ method: 'POST', url: '/api/import/users', headers, payload: { users } });

  it('answers every setting with its default, the homePage being the tenant’s own address', async () => {
    const tenant = await ctx.given.tenant();
    const res = await get(tenant.headers);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      uniqueAttributes: ['email'],
      accountHomePage: `http://${tenant.name}.${ctx.config.baseDomain}`,
      organisationAttribute: null,
      jobAttribute: null,
      positionJobAttribute: null,
    });
  });

  it('replaces the stored settings: keys left out take their defaults again', async () => {
    const tenant = await ctx.given.tenant();
    const full = {
      uniqueAttributes: ['employeeId', 'email'],
      accountHomePage: 'https://people.example.com',
      organisationAttribute: 'position',
      jobAttribute: 'jobCode',
      positionJobAttribute: 'job',
    };
    const res = await put(tenant.headers, full);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), full);
    assert.deepEqual((await get(tenant.headers)).json(), full);
    const partial = await put(tenant.headers, { jobAttribute: 'jobCode' });
    assert.deepEqual(partial.json(), {
      uniqueAttributes: ['email'],
      accountHomePage: `http://${tenant.name}.${ctx.config.baseDomain}`,
      organisationAttribute: null,
      jobAttribute: 'jobCode',
      positionJobAttribute: null,
    });
    const other = await ctx.given.tenant();
    assert.deepEqual((await get(other.headers)).json().jobAttribute, null, 'another tenant keeps its own settings');
  });

  it('refuses a bad field with 400 naming it, and stores nothing', async () => {
    const tenant = await ctx.given.tenant();
    const bad: Array<[unknown, string]> = [
      [{ uniqueAttributes: [] }, 'uniqueAttributes'],
      [{ uniqueAttributes: ['email', 'email'] }, 'uniqueAttributes'],
      [{ uniqueAttributes: [''] }, 'uniqueAttributes'],
      [{ accountHomePage: 'not a url' }, 'accountHomePage'],
      [{ accountHomePage: 'ftp://example.com' }, 'accountHomePage'],
      [{ organisationAttribute: '' }, 'organisationAttribute'],
      [{ jobAttribute: {} }, 'jobAttribute'],
      [{ positionJobAttribute: '' }, 'positionJobAttribute'],
      [{ positionJobAttribute: 7 }, 'positionJobAttribute'],
      [{ colour: 'blue' }, 'colour'],
      [{ organisationAttribute: 'a\u0000' }, 'organisationAttribute'],
      [[], 'body'],
    ];
    for (const [payload, field] of bad) {
      const res = await put(tenant.headers, payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.match(JSON.stringify(res.json()), new RegExp(field), JSON.stringify(payload));
    }
    assert.deepEqual((await get(tenant.headers)).json().uniqueAttributes, ['email']);
  });

  it('rebuilds the identifiers when uniqueAttributes change, so imports match on the new ones', async () => {
    const tenant = await ctx.given.tenant();
    await importUsers(tenant.headers, [{ name: 'Ada', attributes: { email: 'ada@x', employeeId: 'E1' } }]);
    assert.equal((await put(tenant.headers, { uniqueAttributes: ['employeeId'] })).statusCode, 200);
    const { rows } = await ctx.db.query<{ attribute: string; value: string }>(
      `SELECT attribute, value FROM actor_identifiers WHERE tenant_id = $1`,
      [tenant.id],
    );
    assert.deepEqual(rows, [{ attribute: 'employeeId', value: 'E1' }]);
    const again = (await importUsers(tenant.headers, [{ name: 'Ada L.', attributes: { email: 'new@x', employeeId: 'E1' } }])).json();
    assert.deepEqual([again.new, again.existing], [0, 1]);
  });

  it('refuses with 409 naming the value a change would make two users share, changing nothing', async () => {
    const tenant = await ctx.given.tenant();
    await importUsers(tenant.headers, [
      { name: 'A', attributes: { email: 'a@x', site: 'Oslo' } },
      { name: 'B', attributes: { email: 'b@x', site: 'Oslo' } },
    ]);
    const res = await put(tenant.headers, { uniqueAttributes: ['email', 'site'] });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().code, 'settings.unique_conflict');
    assert.equal(res.json().details.conflicts[0].attribute, 'site');
    assert.equal(res.json().details.conflicts[0].value, 'Oslo');
    assert.deepEqual((await get(tenant.headers)).json().uniqueAttributes, ['email']);
    const { rows } = await ctx.db.query<{ attribute: string }>(`SELECT DISTINCT attribute FROM actor_identifiers WHERE tenant_id = $1`, [
      tenant.id,
    ]);
    assert.deepEqual(rows, [{ attribute: 'email' }]);
  });

  it('answers 401 without a credential and keeps tenants apart', async () => {
    const tenant = await ctx.given.tenant();
    const other = await ctx.given.tenant();
    assert.equal((await get({ 'x-svc-tenant': tenant.name })).statusCode, 401);
    assert.equal((await put({ 'x-svc-tenant': tenant.name }, {})).statusCode, 401);
    assert.equal((await get({ ...tenant.headers, 'x-svc-tenant': other.name })).statusCode, 401);
  });
});
