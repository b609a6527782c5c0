import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { PostgresNotifyBus } from '../../src/platform/database/notify-bus.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import { hashSecret } from '../../src/platform/issued-secrets.js';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { describeEachBackend, testConfig, type TestContext } from '../support/build-test-app.js';
import { Given } from '../support/given.js';
import { basicClient, exchange, expireToken, formRequest, givenOAuth, me } from './oauth-token-fixtures.js';

const INVALID_TOKEN = /^Bearer realm="learnbase", error="invalid_token"/;

describeEachBackend('Bearer authentication', (ctx) => {
  it('authenticates an access token as the admin, with the tenant named by X-SVC-Tenant, the sub-domain, or the token', async () => {
    const oauth = await givenOAuth(ctx);
    const { access_token: token } = await exchange(ctx.app, oauth);
    const expected = { tenant: { id: oauth.tenant.id, name: oauth.tenant.name }, principal: { kind: 'admin', id: oauth.adminId } };
    assert.deepEqual((await me(ctx.app, token, oauth.tenant.name)).json(), expected);
    assert.deepEqual((await me(ctx.app, token, null)).json(), expected);
    const bySubdomain = await ctx.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: `Bearer ${token}`, host: `${oauth.tenant.name}.localhost:8080` },
    });
    assert.deepEqual(bySubdomain.json(), expected);
  });

  it('reads and writes xAPI documents with a Bearer token, without the API-key deprecation header', async () => {
    const oauth = await givenOAuth(ctx);
    const { access_token: token } = await exchange(ctx.app, oauth);
    const headers = { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name, 'x-experience-api-version': '2.0.0' };
    const url = `/xapi/activities/state?activityId=${encodeURIComponent('https://example.com/a')}&agent=${encodeURIComponent(
      JSON.stringify({ mbox: 'mailto:learner@example.com' }),
    )}&stateId=bookmark`;
    const put = await ctx.app.inject({
      method: 'PUT',
      url,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: { page: 3 },
    });
    assert.equal(put.statusCode, 204, put.body);
    const get = await ctx.app.inject({ method: 'GET', url, headers });
    assert.equal(get.statusCode, 200);
    assert.deepEqual(get.json(), { page: 3 });
    assert.equal(get.headers.deprecation, undefined);
  });

  it('refuses a token of tenant A against tenant B with 401 invalid_token', async () => {
    const a = await givenOAuth(ctx);
    const b = await ctx.given.tenant();
    const { access_token: token } = await exchange(ctx.app, a);
    for (const headers of [{ 'x-svc-tenant': b.name }, { host: `${b.name}.localhost` }]) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${token}`, ...headers } });
      assert.equal(res.statusCode, 401);
      assert.match(String(res.headers['www-authenticate']), INVALID_TOKEN);
    }
  });

  it('refuses an expired token with 401 and WWW-Authenticate: Bearer error="invalid_token"', async () => {
    const oauth = await givenOAuth(ctx);
    const { access_token: token } = await exchange(ctx.app, oauth);
    await expireToken(ctx.db, oauth.tenant.id, token);
    const res = await me(ctx.app, token, oauth.tenant.name);
    assert.equal(res.statusCode, 401);
    assert.match(String(res.headers['www-authenticate']), INVALID_TOKEN);
    assert.match(String(res.headers['www-authenticate']), /expired/);
    assert.equal(res.json().code, 'auth.invalid_token');
  });

  it('refuses revoked, unknown, malformed and refresh tokens with 401 invalid_token', async () => {
    const oauth = await givenOAuth(ctx);
    const tokens = await exchange(ctx.app, oauth);
    const revoked = await formRequest(
      ctx.app,
      '/auth/oauth/revoke',
      { token: tokens.access_token },
      { authorization: basicClient(oauth.client) },
    );
    assert.equal(revoked.statusCode, 200);
    const hex = oauth.tenant.id.replaceAll('-', '');
    for (const token of [tokens.access_token, tokens.refresh_token, `lba_${hex}_${'B'.repeat(43)}`, 'garbage', '']) {
      const res = await me(ctx.app, token, oauth.tenant.name);
      assert.equal(res.statusCode, 401, token);
      assert.match(String(res.headers['www-authenticate']), token === '' ? /^Bearer realm/ : INVALID_TOKEN, token);
    }
  });

  it('offers both Bearer and Basic when no credential or an unknown scheme is sent', async () => {
    const tenant = await ctx.given.tenant();
    for (const authorization of [undefined, 'Digest abc']) {
      const headers: Record<string, string> = { 'x-svc-tenant': tenant.name };
      if (authorization) headers.authorization = authorization;
      const res = await ctx.app.inject({ method: 'GET', url: '/api/me', headers });
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="learnbase", Basic realm="learnbase", charset="UTF-8"');
    }
  });

  it('serves a verified token from the per-process cache, and a revocation evicts it at once', async () => {
    const oauth = await givenOAuth(ctx);
    const tokens = await exchange(ctx.app, oauth);
    assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).statusCode, 200);
    // Revoked behind the server's back, without an announcement: the cache still trusts it.
    await ctx.db.query('UPDATE oauth_tokens SET revoked_at = now() WHERE tenant_id = $1 AND token_hash = $2', [
      oauth.tenant.id,
      hashSecret(tokens.access_token),
    ]);
    assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).statusCode, 200);
    await ctx.db.query('UPDATE oauth_tokens SET revoked_at = NULL WHERE tenant_id = $1 AND token_hash = $2', [
      oauth.tenant.id,
      hashSecret(tokens.access_token),
    ]);
    await formRequest(ctx.app, '/auth/oauth/revoke', { token: tokens.access_token }, { authorization: basicClient(oauth.client) });
    assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).statusCode, 401);
  });

  it('hears a revocation made through a second app on the same database', async () => {
    const second = await buildApp(testConfig({ cacheTtlMs: 60_000 }), ctx.db, { logger: false });
    try {
      await checkCrossInstanceEviction(ctx, ctx.app, second);
    } finally {
      await second.close();
    }
  });
});

/** App `a` revokes a token that app `b` has cached (for a minute): `b` must refuse it within a second. */
async function checkCrossInstanceEviction(ctx: Pick<TestContext, 'db' | 'given'>, a: FastifyInstance, b: FastifyInstance): Promise<void> {
  const oauth = await givenOAuth(ctx);
  const tokens = await exchange(a, oauth);
  assert.equal((await me(b, tokens.access_token, oauth.tenant.name)).statusCode, 200);
  // Proof that b answers from its cache: with the row gone from the database b still says yes.
  await ctx.db.query('UPDATE oauth_tokens SET revoked_at = now() WHERE tenant_id = $1 AND token_hash = $2', [
    oauth.tenant.id,
    hashSecret(tokens.access_token),
  ]);
  assert.equal((await me(b, tokens.access_token, oauth.tenant.name)).statusCode, 200);
  await ctx.db.query('UPDATE oauth_tokens SET revoked_at = NULL WHERE tenant_id = $1 AND token_hash = $2', [
    oauth.tenant.id,
    hashSecret(tokens.access_token),
  ]);

  const revoked = await formRequest(a, '/auth/oauth/revoke', { token: tokens.access_token }, { authorization: basicClient(oauth.client) });
  assert.equal(revoked.statusCode, 200);
  const deadline = Date.now() + 2_000;
  let status = 200;
  while (status === 200 && Date.now() < deadline) {
    status = (await me(b, tokens.access_token, oauth.tenant.name)).statusCode;
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(status, 401, 'the second app still accepted the revoked token after 2 s');
}

describe('Bearer revocation across server processes on one PostgreSQL database (LISTEN/NOTIFY)', {
  skip: !POSTGRES_AVAILABLE && 'PostgreSQL not reachable',
}, () => {
  const opened: Array<{ close(): Promise<void> }> = [];
  let drop: () => Promise<void> = async () => {};
  let apps: FastifyInstance[] = [];
  let db: PostgresDatabase;
  let given: Given;

  before(async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    // Two "processes": each its own pool, its own LISTEN connection, its own app and cache.
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const pool = new PostgresDatabase(created.url, { max: 5 });
        const notifications = new PostgresNotifyBus(created.url, pool);
        opened.push(notifications, pool);
        return { pool, app: await buildApp(testConfig({ cacheTtlMs: 60_000 }), pool, { logger: false, notifications }) };
      }),
    );
    db = instances[0]!.pool;
    await migrate(db);
    apps = instances.map((instance) => instance.app);
    given = new Given(apps[0]!, db);
  });

  after(async () => {
    for (const app of apps) await app.close();
    for (const resource of opened.reverse()) await resource.close();
    await drop();
  });

  it('evicts the cached token in the second process when the first revokes it', async () => {
    await checkCrossInstanceEviction({ db, given }, apps[0]!, apps[1]!);
  });

  it('evicts the chain in the second process when the first detects a reused refresh token', async () => {
    const oauth = await givenOAuth({ db, given });
    const first = await exchange(apps[0]!, oauth);
    const body = (token: string) => ({
      grant_type: 'refresh_token',
      client_id: oauth.client.clientId,
      client_secret: oauth.client.clientSecret,
      refresh_token: token,
    });
    const refreshed = await apps[0]!.inject({ method: 'POST', url: '/auth/oauth/token', payload: body(first.refresh_token) });
    const second = refreshed.json().access_token as string;
    assert.equal((await me(apps[1]!, second, oauth.tenant.name)).statusCode, 200);
    const reuse = await apps[0]!.inject({ method: 'POST', url: '/auth/oauth/token', payload: body(first.refresh_token) });
    assert.equal(reuse.json().error, 'invalid_grant');
    const deadline = Date.now() + 2_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      status = (await me(apps[1]!, second, oauth.tenant.name)).statusCode;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(status, 401);
  });

  it('tells listeners about a gap when the LISTEN connection drops, and listens again', async () => {
    const created = await createPostgresDatabase();
    const pool = new PostgresDatabase(created.url, { max: 2 });
    const notifications = new PostgresNotifyBus(created.url, pool, { retryMs: 20 });
    try {
      const heard: string[] = [];
      let gaps = 0;
      await notifications.listen(
        'learnbase_test',
        (payload) => heard.push(payload),
        () => gaps++,
      );
      await pool.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
      );
      const until = async (done: () => boolean) => {
        for (let n = 0; n < 200 && !done(); n++) await new Promise((resolve) => setTimeout(resolve, 20));
      };
      await until(() => gaps >= 2);
      assert.ok(gaps >= 2, `gaps: ${gaps}`); // one when it dropped, one when it came back
      await until(() => {
        void notifications.publish('learnbase_test', 'after');
        return heard.includes('after');
      });
      assert.ok(heard.includes('after'));
    } finally {
      await notifications.close();
      await pool.close();
      await created.drop();
    }
  });
});
