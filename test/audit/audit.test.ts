import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUDIT_ACTIONS, recordAudit, sourceOfHeader } from '../../src/modules/audit/audit.service.js';
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
      ['?action=actor.creatd', /'action'.*GET \/api\/audit\/actions/],
      ['?since=2026-02-01T00:00:00Z&until=2026-01-31T00:00:00Z', /'until' is before 'since'/],
    ] as const) {
      const res = await audit(ctx, tenant, query.replace(/[{}"]/g, encodeURIComponent));
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
      assert.match(res.json().message, pattern, query);
    }
    const filter = await audit(ctx, tenant, '?action=launch');
    assert.equal(filter.statusCode, 200, 'a known action no entry has yet: an empty list');
    assert.deepEqual(filter.json(), []);
  });

  it('says how many entries the filters keep (X-Total-Count) and links the next page with the same filters', async () => {
    const tenant = await ctx.given.tenant();
    await given(tenant);
    const first = await audit(ctx, tenant, '?action=actor.created&limit=1');
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers['x-total-count'], '2');
    assert.equal(first.json().length, 1);
    const next = /^<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1];
    assert.ok(next, `a next link: ${first.headers.link}`);
    const url = new URL(next);
    assert.equal(url.pathname, '/api/audit');
    assert.deepEqual(Object.fromEntries(url.searchParams), { action: 'actor.created', limit: '1', skip: '1' });
    const second = await audit(ctx, tenant, url.search);
    assert.equal(second.headers['x-total-count'], '2');
    assert.equal(second.json().length, 1);
    assert.notEqual(second.json()[0].id, first.json()[0].id);
    assert.doesNotMatch(String(second.headers.link ?? ''), /rel="next"/, 'no next link on the last page');
    const all = await audit(ctx, tenant);
    assert.equal(all.headers['x-total-count'], '3');
    assert.doesNotMatch(String(all.headers.link ?? ''), /rel="next"/);
    const beyond = await audit(ctx, tenant, '?skip=10');
    assert.deepEqual(beyond.json(), []);
    assert.equal(beyond.headers['x-total-count'], '3', 'past the end, the total still');
  });

  it('keeps tenants apart in the total', async () => {
    const [tenant, other] = [await ctx.given.tenant(), await ctx.given.tenant()];
    await given(other);
    const mine = await audit(ctx, tenant);
    assert.equal(mine.headers['x-total-count'], '0');
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

describeEachBackend('GET /api/audit/actions', (ctx) => {
  it('lists every action the log records, sorted, each with what records it; GET /api/audit takes each as `action`', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({ method: 'GET', url: '/api/audit/actions', headers: tenant.headers });
    assert.equal(res.statusCode, 200, res.body);
    const actions = res.json() as Array<{ action: string; description: string }>;
    const names = actions.map((entry) => entry.action);
    assert.deepEqual(names, [...names].sort(), 'sorted');
    assert.deepEqual(new Set(names), new Set(AUDIT_ACTIONS.map((known) => known.action)), 'the catalogue the code writes from');
    for (const name of ['actor.created', 'launch', 'sso_connection.updated', 'admin.tokens_revoked']) assert.ok(names.includes(name), name);
    for (const entry of actions) assert.ok(entry.description.length > 10, entry.action);
    for (const name of names) {
      const filtered = await ctx.app.inject({ method: 'GET', url: `/api/audit?action=${name}`, headers: tenant.headers });
      assert.equal(filtered.statusCode, 200, `${name}: ${filtered.body}`);
    }
  });

  it('refuses a call without a credential, with another tenant’s, or with an actor credential', async () => {
    const [tenant, other] = [await ctx.given.tenant(), await ctx.given.tenant()];
    const anonymous = await ctx.app.inject({ method: 'GET', url: '/api/audit/actions', headers: { 'x-svc-tenant': tenant.name } });
    assert.equal(anonymous.statusCode, 401, anonymous.body);
    assert.equal(anonymous.json().code, 'auth.unauthorized');
    const crossed = await ctx.app.inject({
      method: 'GET',
      url: '/api/audit/actions',
      headers: { ...other.headers, 'x-svc-tenant': tenant.name },
    });
    assert.equal(crossed.statusCode, 401, crossed.body);
    const agent = { mbox: 'mailto:ada@example.com' };
    assert.ok(
      (await ctx.app.inject({ method: 'PUT', url: '/api/actors/agents', headers: tenant.headers, payload: agent })).statusCode < 300,
    );
    const made = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: tenant.headers,
      payload: { username: 'ada-audit', password: 'a long enough password', data: { actor: agent } },
    });
    assert.equal(made.statusCode, 201, made.body);
    const learner = await ctx.app.inject({
      method: 'GET',
      url: '/api/audit/actions',
      headers: {
        authorization: `Basic ${Buffer.from('ada-audit:a long enough password').toString('base64')}`,
        'x-svc-tenant': tenant.name,
      },
    });
    assert.equal(learner.statusCode, 403, learner.body);
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
