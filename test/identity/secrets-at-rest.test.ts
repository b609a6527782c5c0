import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { keyIdOf, parseSecretsKey } from '../../src/platform/secret-box.js';
import { exchange, givenOAuth } from '../auth/oauth-token-fixtures.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { browserSkip, launchChromium, serveContentPage } from '../support/chromium.js';
import { TEST_SECRETS_KEY } from '../support/secrets-key.js';
import { startOidcProvider, type OidcFixture } from './oidc-fixtures.js';
import { givenLaunchTenant, peopleOf, signInAtOidcProvider } from './sign-on-fixtures.js';

/**
 * Secrets the server must present or check, encrypted at rest (docs/operations.md, "Secrets at
 * rest"), through HTTP on both backends: what the tables hold is not the secret; the HR webhook
 * still verifies and the OpenID Connect sign-in still works; a value copied to another row or
 * another tenant's does not decrypt; a server without a key refuses to store one (503).
 */

type Json = Record<string, unknown>;
const TEST_KEY_ID = keyIdOf(parseSecretsKey(TEST_SECRETS_KEY, 'the test key'));

interface Hook {
  admin: Record<string, string>;
  tenantId: string;
  id: string;
  url: string;
  secret: string;
}

async function adminOf(ctx: Pick<TestContext, 'app' | 'db' | 'given'>) {
  const oauth = await givenOAuth(ctx);
  const { access_token: token } = await exchange(ctx.app, oauth);
  return { tenant: oauth.tenant, admin: { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name } };
}

async function givenHook(ctx: TestContext): Promise<Hook> {
  const { tenant, admin } = await adminOf(ctx);
  const created = await ctx.app.inject({ method: 'POST', url: '/api/hr-webhooks', headers: admin });
  assert.equal(created.statusCode, 201, created.body);
  const body = created.json() as { id: string; url: string; secret: string };
  return { admin, tenantId: tenant.id, id: body.id, url: new URL(body.url).pathname, secret: body.secret };
}

/** A joiner posted as the HR system posts it, signed with `secret`. */
function postJoiner(app: FastifyInstance, url: string, secret: string) {
  const id = `msg_${randomUUID()}`;
  const body = JSON.stringify({ type: 'person.joined', data: { name: 'Ada Lovelace', attributes: { email: `${id}@example.com` } } });
  const at = new Date();
  return app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    },
    payload: body,
  });
}

const storedHookSecret = async (ctx: TestContext, hook: Pick<Hook, 'tenantId' | 'id'>) =>
  (await ctx.db.query<{ secret: string }>('SELECT secret FROM hr_webhooks WHERE tenant_id = $1 AND id = $2', [hook.tenantId, hook.id]))
    .rows[0]!.secret;

describeEachBackend('Secrets encrypted at rest', (ctx) => {
  let browser: Browser | undefined;
  let content: Awaited<ReturnType<typeof serveContentPage>>;
  const providers: OidcFixture[] = [];

  before(async () => {
    content = await serveContentPage('<!doctype html><html lang="en"><head><title>Course</title></head><body>course</body></html>');
    if (!browserSkip) browser = await launchChromium({ tenantSubdomains: true });
  });
  after(async () => {
    await browser?.close();
    await Promise.all(providers.map((provider) => provider.close()));
    await content?.close();
  });

  it('stores an HR webhook’s signing secret sealed under the key, and verifies its messages with it', async () => {
    const hook = await givenHook(ctx);
    const stored = await storedHookSecret(ctx, hook);
    assert.notEqual(stored, hook.secret);
    assert.match(stored, new RegExp(`^v1:${TEST_KEY_ID}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`));
    assert.ok(!stored.includes(hook.secret.slice('whsec_'.length, 20)), 'no part of the secret is stored');
    const accepted = await postJoiner(ctx.app, hook.url, hook.secret);
    assert.equal(accepted.statusCode, 202, accepted.body);
    const forged = await postJoiner(ctx.app, hook.url, `whsec_${Buffer.alloc(32, 1).toString('base64')}`);
    assert.equal(forged.statusCode, 401, forged.body);
  });

  it('does not decrypt a sealed secret copied to another endpoint’s row, of the same tenant or another', async () => {
    const first = await givenHook(ctx);
    const sameTenant = await ctx.app.inject({ method: 'POST', url: '/api/hr-webhooks', headers: first.admin });
    const second = { ...first, ...(sameTenant.json() as { id: string }) };
    const other = await givenHook(ctx);
    const sealed = await storedHookSecret(ctx, first);
    for (const target of [second, other]) {
      await ctx.db.query('UPDATE hr_webhooks SET secret = $3 WHERE tenant_id = $1 AND id = $2', [target.tenantId, target.id, sealed]);
      const res = await postJoiner(ctx.app, `/hooks/hr/${target.id}`, first.secret);
      assert.equal(res.statusCode, 500, res.body);
      assert.equal(res.json().code, 'secrets.unreadable');
    }
    const unchanged = await postJoiner(ctx.app, first.url, first.secret);
    assert.equal(unchanged.statusCode, 202, 'the row it was sealed for still verifies');
    const listed = await ctx.app.inject({ method: 'GET', url: '/api/hr-webhooks/messages', headers: other.admin });
    assert.deepEqual(listed.json(), [], 'nothing was stored for the endpoint the copy went to');
  });

  it('stores an OpenID Connect client secret sealed, never answers it, and refuses one copied to another tenant’s connection', async () => {
    const { tenant, admin } = await adminOf(ctx);
    const put = await ctx.app.inject({
      method: 'PUT',
      url: '/api/sso/connections/corp',
      headers: admin,
      payload: { issuer: 'https://login.example.com', clientId: 'learnbase', clientSecret: 'the client secret, kept' },
    });
    assert.equal(put.statusCode, 201, put.body);
    assert.equal(put.json().clientSecret, '(set)');
    const { rows } = await ctx.db.query<{ client_secret: string }>(
      'SELECT client_secret FROM sso_connections WHERE tenant_id = $1 AND name = $2',
      [tenant.id, 'corp'],
    );
    assert.match(rows[0]!.client_secret, new RegExp(`^v1:${TEST_KEY_ID}:`));
    assert.ok(!rows[0]!.client_secret.includes('kept'));

    // Copied into another tenant's connection of the same name, it does not open there: the sign-in stops before any request.
    const fixture = await givenLaunchTenant(ctx, content.origin, 'http://example.com/courses/moved-secret');
    const provider = await startOidcProvider([`http://${fixture.host}/auth/sso/callback`], new Map());
    providers.push(provider);
    const other = await ctx.app.inject({
      method: 'PUT',
      url: '/api/sso/connections/corp',
      headers: fixture.admin,
      payload: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
    });
    assert.equal(other.statusCode, 201, other.body);
    await ctx.db.query('UPDATE sso_connections SET client_secret = $2 WHERE tenant_id = $1 AND name = $3', [
      fixture.tenant.id,
      rows[0]!.client_secret,
      'corp',
    ]);
    const launch = await ctx.app.inject({
      method: 'GET',
      url: `/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`,
      headers: { host: fixture.host },
    });
    assert.equal(launch.statusCode, 500, launch.body);
  });

  it('signs in through OpenID Connect with the sealed client secret: the provider takes it at its token endpoint', {
    skip: browserSkip,
  }, async () => {
    const fixture = await givenLaunchTenant(ctx, content.origin, 'http://example.com/courses/sealed');
    const provider = await startOidcProvider(
      [`http://${fixture.host}/auth/sso/callback`],
      new Map([['ada', { email: 'ada@example.com', name: 'Ada Lovelace' }]]),
    );
    providers.push(provider);
    const put = await ctx.app.inject({
      method: 'PUT',
      url: '/api/sso/connections/corp',
      headers: fixture.admin,
      payload: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
    });
    assert.equal(put.statusCode, 201, put.body);
    const { rows } = await ctx.db.query<{ client_secret: string }>('SELECT client_secret FROM sso_connections WHERE tenant_id = $1', [
      fixture.tenant.id,
    ]);
    assert.notEqual(rows[0]!.client_secret, provider.clientSecret);
    assert.match(rows[0]!.client_secret, /^v1:/);

    const page = await (await browser!.newContext()).newPage();
    await page.goto(`http://${fixture.host}/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`);
    await signInAtOidcProvider(page, provider.issuer, 'ada');
    const landed = new URL(page.url());
    assert.equal(`${landed.origin}${landed.pathname}`, `${content.origin}/course/`, 'launched: the code was exchanged with the secret');
    const [ada] = await peopleOf(ctx, fixture.tenant);
    assert.equal(ada?.name, 'Ada Lovelace');
  });
});

describeEachBackend(
  'A server with no key for secrets',
  (ctx) => {
    it('refuses to store a secret it would have to keep as issued (503 naming the setting), and stores the rest', async () => {
      const { tenant, admin } = await adminOf(ctx);
      const hook = await ctx.app.inject({ method: 'POST', url: '/api/hr-webhooks', headers: admin });
      assert.equal(hook.statusCode, 503, hook.body);
      assert.equal(hook.json().code, 'secrets.no_key');
      assert.match(hook.json().message, /LEARNBASE_SECRETS_KEY or LEARNBASE_SECRETS_KEY_FILE/);
      const confidential = await ctx.app.inject({
        method: 'PUT',
        url: '/api/sso/connections/corp',
        headers: admin,
        payload: { issuer: 'https://login.example.com', clientId: 'learnbase', clientSecret: 'a secret' },
      });
      assert.equal(confidential.statusCode, 503, confidential.body);
      assert.equal(confidential.json().code, 'secrets.no_key');
      const stored = await ctx.db.query(
        'SELECT 1 FROM hr_webhooks WHERE tenant_id = $1 UNION ALL SELECT 1 FROM sso_connections WHERE tenant_id = $1',
        [tenant.id],
      );
      assert.equal(stored.rows.length, 0, 'nothing stored');
      const audit = (await ctx.app.inject({ method: 'GET', url: '/api/audit', headers: admin })).json() as Json[];
      assert.ok(!audit.some((entry) => String(entry.action).startsWith('hr_webhook') || String(entry.action).startsWith('sso_connection')));
      // A public client (PKCE only) has no secret to keep.
      const publicClient = await ctx.app.inject({
        method: 'PUT',
        url: '/api/sso/connections/corp',
        headers: admin,
        payload: { issuer: 'https://login.example.com', clientId: 'learnbase' },
      });
      assert.equal(publicClient.statusCode, 201, publicClient.body);
    });
  },
  { secretsKey: undefined },
);
