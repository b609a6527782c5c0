import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Principal } from '../../src/kernel/principal.js';
import { recordImportRun } from '../../src/modules/imports/import-run.service.js';
import { describeEachBackend } from '../support/build-test-app.js';

describeEachBackend('GET /api/import/history', (ctx) => {
  const principalOf = (tenant: { id: string; name: string; key: string }): Principal => ({
    kind: 'api_key',
    tenant: { id: tenant.id, name: tenant.name, createdAt: new Date() },
    id: tenant.key,
  });

  it('lists the tenant’s imports newest first, with limit and skip', async () => {
    const tenant = await ctx.given.tenant();
    const empty = await ctx.app.inject({ method: 'GET', url: '/api/import/history', headers: tenant.headers });
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(empty.json(), []);
    for (const kind of ['organisation', 'jobs', 'users'] as const) {
      await recordImportRun(ctx.db, {
        kind,
        verify: kind === 'users',
        principal: principalOf(tenant),
        startedAt: new Date(),
        summary: { entries: 1 },
      });
    }
    const all = (await ctx.app.inject({ method: 'GET', url: '/api/import/history', headers: tenant.headers })).json();
    assert.deepEqual(
      all.map((run: { kind: string }) => run.kind),
      ['users', 'jobs', 'organisation'],
    );
    assert.deepEqual(all[0].principal, { kind: 'api_key', id: tenant.key });
    assert.equal(all[0].verify, true);
    assert.deepEqual(all[0].summary, { entries: 1 });
    const page = (await ctx.app.inject({ method: 'GET', url: '/api/import/history?limit=1&skip=1', headers: tenant.headers })).json();
    assert.deepEqual(
      page.map((run: { kind: string }) => run.kind),
      ['jobs'],
    );
  });

  it('shows no other tenant’s imports, and refuses a missing credential or a bad page', async () => {
    const mine = await ctx.given.tenant();
    const other = await ctx.given.tenant();
    await recordImportRun(ctx.db, {
      kind: 'jobs',
      verify: false,
      principal: principalOf(other),
      startedAt: new Date(),
      summary: { entries: 3 },
    });
    assert.deepEqual((await ctx.app.inject({ method: 'GET', url: '/api/import/history', headers: mine.headers })).json(), []);
    const crossed = await ctx.app.inject({
      method: 'GET',
      url: '/api/import/history',
      headers: { ...mine.headers, 'x-svc-tenant': other.name },
    });
    assert.equal(crossed.statusCode, 401);
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: '/api/import/history', headers: { 'x-svc-tenant': mine.name } })).statusCode,
      401,
    );
    for (const query of ['limit=0', 'limit=1001', 'skip=-1', 'limit=1e2']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/import/history?${query}`, headers: mine.headers });
      assert.equal(res.statusCode, 400, query);
    }
  });
});
