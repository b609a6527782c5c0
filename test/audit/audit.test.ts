import assert from 'node:assert/strict';
import { it } from 'node:test';
import { recordAudit, sourceOfHeader } from '../../src/modules/audit/audit.service.js';
import type { Principal } from '../../src/kernel/principal.js';
import { parseAgent } from '../../src/kernel/agent.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

const audit = (ctx: TestContext, tenant: GivenTenant, query = '') =>
  ctx.app.inject({ method: 'GET', url: `/api/audit${query}`, headers: tenant.headers });

describeEachBackend('GET /api/audit', (ctx) => {
  /** Entries as the services write them: the actor writes and launches of the actors issue record these. */
  async function given(tenant: GivenTenant) {
    const principal: Principal = { kind: 'api_key', tenant: { id: tenant.id, name: tenant.name } as Principal['tenant'], id: tenant.key };
    const ada = parseAgent({ mbox: 'mailto:ada@example.com' });
    const bob = parseAgent({ account: { homePage: 'http://hr.example.com', name: 'b|7' } });
    await recordAudit(ctx.db, { action: 'actor.created', principal, actor: ada, source: 'hr-sync', details: { name: 'Ada' } });
    await recordAudit(ctx.db, { action: 'actor.updated', principal, actor: ada, source: 'crm' });
    await recordAudit(ctx.db, { action: 'actor.created', principal, actor: bob });
    return { ada, bob };
  }

  it('lists the entries newest first, with actor, source, principal and details', async () => {
    const tenant = await ctx.given.tenant();
    const { ada, bob } = await given(tenant);
    const res = await audit(ctx, tenant);
    assert.equal(res.statusCode, 200, res.body);
    const entries = res.json() as Array<Record<string, any>>;
    assert.deepEqual(
      entries.map((entry) => [entry.action, entry.actorId, entry.source]),
      [
        ['actor.created', bob.key, undefined],
        ['actor.updated', ada.key, 'crm'],
        ['actor.created', ada.key, 'hr-sync'],
      ],
    );
    assert.deepEqual(entries[2].actor, { mbox: 'mailto:ada@example.com' });
    assert.deepEqual(entries[2].principal, { kind: 'api_key', id: tenant.key });
    assert.deepEqual(entries[2].details, { name: 'Ada' });
    assert.ok(Date.parse(entries[0].at) >= Date.parse(entries[2].at));
    const page = await audit(ctx, tenant, '?limit=1&skip=1');
    assert.deepEqual(
      (page.json() as Array<{ id: string }>).map((entry) => entry.id),
      [entries[1].id],
    );
  });

  it('filters by actor (agent JSON or actorId), source, action and time', async () => {
    const tenant = await ctx.given.tenant();
    const { ada, bob } = await given(tenant);
    const actions = async (query: string) => {
      const res = await audit(ctx, tenant, query);
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as Array<{ action: string; actorId?: string }>).map((entry) => `${entry.action} ${entry.actorId}`);
    };
    assert.deepEqual(await actions(`?agent=${encodeURIComponent(JSON.stringify({ mbox: 'mailto:ada@example.com' }))}`), [
      `actor.updated ${ada.key}`,
      `actor.created ${ada.key}`,
    ]);
    assert.deepEqual(await actions(`?actorId=${encodeURIComponent(bob.key)}`), [`actor.created ${bob.key}`]);
    assert.deepEqual(await actions('?source=hr-sync'), [`actor.created ${ada.key}`]);
    assert.deepEqual(await actions('?action=actor.updated'), [`actor.updated ${ada.key}`]);
    assert.deepEqual(await actions('?until=2000-01-01T00:00:00Z'), []);
    assert.equal((await actions('?since=2000-01-01T00:00:00Z')).length, 3);
    assert.deepEqual(await actions(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`), []);
  });

  it('refuses malformed filters with 400 naming them', async () => {
    const tenant = await ctx.given.tenant();
    for (const [query, pattern] of [
      ['?since=yesterday', /'since'/],
      ['?until=2024-01-01T00:00:00', /'until'/],
      ['?agent={"mbox":"ada"}', /mbox/],
      ['?agent=nope', /'agent'/],
      ['?actorId=phone|123', /'actorId'/],
      ['?agent={"mbox":"mailto:a@x"}&actorId=mbox|mailto:a@x', /not both/],
      ['?limit=0', /limit/],
      ['?colour=red', /colour/],
    ] as const) {
      const res = await audit(ctx, tenant, query.replace(/[{}"]/g, encodeURIComponent));
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
      assert.match(res.json().message, pattern, query);
    }
  });

  it('keeps tenants apart and refuses a call without a credential or with another tenant’s', async () => {
    const [tenant, other] = [await ctx.given.tenant(), await ctx.given.tenant()];
    await given(other);
    const mine = await audit(ctx, tenant);
    assert.equal(mine.statusCode, 200);
    assert.deepEqual(mine.json(), []);
    const anonymous = await ctx.app.inject({ method: 'GET', url: '/api/audit', headers: { 'x-svc-tenant': tenant.name } });
    assert.equal(anonymous.statusCode, 401);
    const crossed = await ctx.app.inject({ method: 'GET', url: '/api/audit', headers: { ...other.headers, 'x-svc-tenant': tenant.name } });
    assert.equal(crossed.statusCode, 401);
  });
});

it('reads the svc-account-source header: trimmed, empty as absent, bounded and storable', () => {
  assert.equal(sourceOfHeader(undefined), undefined);
  assert.equal(sourceOfHeader('  '), undefined);
  assert.equal(sourceOfHeader(' hr-sync '), 'hr-sync');
  assert.throws(() => sourceOfHeader('x'.repeat(201)), /at most 200/);
  assert.throws(() => sourceOfHeader(['a', 'b']), /once/);
  assert.throws(() => sourceOfHeader('a\u0000b'), /svc-account-source/);
});
