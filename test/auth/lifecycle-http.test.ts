import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { PostgresNotifyBus } from '../../src/platform/database/notify-bus.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { describeEachBackend, testConfig, type TestContext } from '../support/build-test-app.js';
import { Given } from '../support/given.js';
import { basic, PASSWORD } from '../launch/launch-fixtures.js';
import { exchange, givenOAuth, redeemCode, REDIRECT_URI, type GivenClient, type OAuthFixture } from './oauth-token-fixtures.js';

type Headers = Record<string, string>;

interface Admin {
  oauth: OAuthFixture;
  token: string;
  /** The admin's Bearer token, its tenant named. */
  headers: Headers;
}

async function givenAdmin(ctx: Pick<TestContext, 'app' | 'db' | 'given'>): Promise<Admin> {
  const oauth = await givenOAuth(ctx);
  const { access_token: token } = await exchange(ctx.app, oauth);
  return { oauth, token, headers: { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name } };
}

const call = (app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, headers: Headers, payload?: unknown) =>
  app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

const xapiHeaders = (tenant: string, key: string, secret: string): Headers => ({
  authorization: basic(key, secret),
  'x-svc-tenant': tenant,
  'x-experience-api-version': '2.0.0',
});

const statements = (app: FastifyInstance, headers: Headers) => app.inject({ method: 'GET', url: '/xapi/statements', headers });

const bearerMe = (app: FastifyInstance, token: string, tenant: string) =>
  app.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${token}`, 'x-svc-tenant': tenant } });

/** Every route of the feature, with a body where it takes one. */
const ROUTES = (key: string, clientId: string): Array<['GET' | 'POST' | 'DELETE', string, unknown?]> => [
  ['GET', '/api/api-keys'],
  ['POST', '/api/api-keys'],
  ['DELETE', `/api/api-keys/${key}`],
  ['GET', '/api/oauth-clients'],
  ['POST', '/api/oauth-clients', { redirectUris: [REDIRECT_URI] }],
  ['DELETE', `/api/oauth-clients/${clientId}`],
  ['POST', `/api/oauth-clients/${clientId}/secret`],
];

async function auditActions(
  app: FastifyInstance,
  admin: Admin,
): Promise<Array<{ action: string; details: Record<string, unknown>; principal: { kind: string } }>> {
  const res = await call(app, 'GET', '/api/audit', admin.headers);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

describeEachBackend('Lifecycle over HTTP: /api/api-keys', (ctx) => {
  it('creates a key (secret once), lists it without a secret, lets it work on /xapi/, revokes it: refused at once, 204 again on a second revocation', async () => {
    const admin = await givenAdmin(ctx);
    const tenant = admin.oauth.tenant.name;
    const created = await call(ctx.app, 'POST', '/api/api-keys', { ...admin.headers, 'svc-account-source': 'console' });
    assert.equal(created.statusCode, 201, created.body);
    const { key, secret } = created.json();
    assert.match(key, /^lb_[0-9a-f]{32}_[0-9a-f]{16}$/);
    assert.equal(typeof secret, 'string');

    const listed = await call(ctx.app, 'GET', '/api/api-keys', admin.headers);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.ok(!listed.body.includes(secret), 'the list shows a secret');
    const entry = listed.json().find((item: { key: string }) => item.key === key);
    assert.deepEqual(Object.keys(entry).sort(), ['createdAt', 'key', 'lastUsedAt', 'revokedAt', 'scope']);
    assert.equal(entry.lastUsedAt, null);
    assert.equal(entry.revokedAt, null);
    // The fixture's own key is listed too.
    assert.ok(listed.json().some((item: { key: string }) => item.key === admin.oauth.tenant.key));

    const headers = xapiHeaders(tenant, key, secret);
    assert.equal((await statements(ctx.app, headers)).statusCode, 200);
    const used = (await call(ctx.app, 'GET', '/api/api-keys', admin.headers)).json().find((item: { key: string }) => item.key === key);
    await waitFor(async () => {
      const now = (await call(ctx.app, 'GET', '/api/api-keys', admin.headers)).json().find((item: { key: string }) => item.key === key);
      return now.lastUsedAt !== null && new Date(now.lastUsedAt).getUTCSeconds() === 0;
    }, `lastUsedAt stayed ${used.lastUsedAt}`);

    const revoked = await call(ctx.app, 'DELETE', `/api/api-keys/${key}`, admin.headers);
    assert.equal(revoked.statusCode, 204, revoked.body);
    assert.equal((await statements(ctx.app, headers)).statusCode, 401);
    const again = await call(ctx.app, 'DELETE', `/api/api-keys/${key}`, admin.headers);
    assert.equal(again.statusCode, 204, again.body);
    const after = (await call(ctx.app, 'GET', '/api/api-keys', admin.headers)).json().find((item: { key: string }) => item.key === key);
    assert.notEqual(after.revokedAt, null);

    const stored = await ctx.db.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM api_keys WHERE tenant_id = $1 AND key = $2', [
      admin.oauth.tenant.id,
      key,
    ]);
    assert.equal(new Date(stored.rows[0]!.revoked_at!).toISOString(), after.revokedAt);

    const audit = await auditActions(ctx.app, admin);
    const created_ = audit.find((item) => item.action === 'api_key.created');
    assert.deepEqual(created_?.details, { key });
    assert.equal(created_?.principal.kind, 'admin');
    assert.equal(audit.filter((item) => item.action === 'api_key.revoked').length, 2);
    assert.ok(!JSON.stringify(audit).includes(secret), 'the audit log holds a secret');
  });

  it("answers 404 api_key.not_found for an unknown key, text that is no key, and another tenant's key (which keeps working)", async () => {
    const admin = await givenAdmin(ctx);
    const other = await ctx.given.tenant();
    const unknown = `lb_${admin.oauth.tenant.id.replaceAll('-', '')}_0000000000000000`;
    for (const key of [unknown, 'nope', other.key, encodeURIComponent('lb_\u0000')]) {
      const res = await call(ctx.app, 'DELETE', `/api/api-keys/${key}`, admin.headers);
      assert.equal(res.statusCode, 404, `${key}: ${res.body}`);
      assert.equal(res.json().code, 'api_key.not_found');
    }
    assert.equal((await statements(ctx.app, other.xapi)).statusCode, 200);
  });
});

describeEachBackend('Lifecycle over HTTP: /api/oauth-clients', (ctx) => {
  it('creates a client whose secret authenticates, rotates it (old refused, new accepted), deletes it (its tokens refused at once)', async () => {
    const admin = await givenAdmin(ctx);
    const tenant = admin.oauth.tenant.name;
    const created = await call(ctx.app, 'POST', '/api/oauth-clients', admin.headers, { redirectUris: [REDIRECT_URI], name: 'Dashboard' });
    assert.equal(created.statusCode, 201, created.body);
    const client: GivenClient = created.json();
    assert.match(client.clientId, /^lbc_[0-9a-f]{32}_[0-9a-f]{16}$/);

    const listed = await call(ctx.app, 'GET', '/api/oauth-clients', admin.headers);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.ok(!listed.body.includes(client.clientSecret), 'the list shows a secret');
    const entry = listed.json().find((item: { clientId: string }) => item.clientId === client.clientId);
    assert.deepEqual(
      { ...entry, createdAt: typeof entry.createdAt },
      { clientId: client.clientId, name: 'Dashboard', redirectUris: [REDIRECT_URI], createdAt: 'string' },
    );

    const first = await admin.oauth.code({ clientId: client.clientId });
    const redeemed = await redeemCode(ctx.app, client, first.code, first.verifier);
    assert.equal(redeemed.statusCode, 200, redeemed.body);
    const token = redeemed.json().access_token as string;
    assert.equal((await bearerMe(ctx.app, token, tenant)).statusCode, 200);

    const rotated = await call(ctx.app, 'POST', `/api/oauth-clients/${client.clientId}/secret`, admin.headers);
    assert.equal(rotated.statusCode, 200, rotated.body);
    const renewed: GivenClient = rotated.json();
    assert.equal(renewed.clientId, client.clientId);
    assert.notEqual(renewed.clientSecret, client.clientSecret);
    const stale = await admin.oauth.code({ clientId: client.clientId });
    assert.equal((await redeemCode(ctx.app, client, stale.code, stale.verifier)).statusCode, 401);
    const fresh = await admin.oauth.code({ clientId: client.clientId });
    const withNew = await redeemCode(ctx.app, renewed, fresh.code, fresh.verifier);
    assert.equal(withNew.statusCode, 200, withNew.body);

    const deleted = await call(ctx.app, 'DELETE', `/api/oauth-clients/${client.clientId}`, admin.headers);
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal((await bearerMe(ctx.app, token, tenant)).statusCode, 401);
    assert.equal((await bearerMe(ctx.app, withNew.json().access_token, tenant)).statusCode, 401);
    const remaining = (await call(ctx.app, 'GET', '/api/oauth-clients', admin.headers)).json();
    assert.ok(!remaining.some((item: { clientId: string }) => item.clientId === client.clientId));
    const rows = await ctx.db.query('SELECT 1 FROM oauth_clients WHERE tenant_id = $1 AND client_id = $2', [
      admin.oauth.tenant.id,
      client.clientId,
    ]);
    assert.equal(rows.rows.length, 0);
    assert.equal((await call(ctx.app, 'DELETE', `/api/oauth-clients/${client.clientId}`, admin.headers)).statusCode, 404);

    const actions = (await auditActions(ctx.app, admin)).map((item) => item.action);
    for (const action of ['oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted'])
      assert.ok(actions.includes(action), action);
  });

  it('answers 400 naming the field for malformed bodies, and every bad redirect URI in one 400', async () => {
    const admin = await givenAdmin(ctx);
    const cases: Array<[unknown, RegExp]> = [
      [{}, /redirectUris/],
      [{ redirectUris: [] }, /redirectUris/],
      [{ redirectUris: 'https://a.example' }, /redirectUris/],
      [{ redirectUris: [REDIRECT_URI], name: 7 }, /name/],
      [{ redirectUris: [REDIRECT_URI], extra: true }, /extra/],
      [{ redirectUris: [REDIRECT_URI], name: 'a\u0000b' }, /name/],
    ];
    for (const [payload, field] of cases) {
      const res = await call(ctx.app, 'POST', '/api/oauth-clients', admin.headers, payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.match(res.json().message, field);
    }
    const bad = await call(ctx.app, 'POST', '/api/oauth-clients', admin.headers, {
      redirectUris: ['https://ok.example/cb', 'http://insecure.example/cb', 'relative/path', 'https://x.example/cb#frag'],
    });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(bad.json().code, 'client.invalid_redirect_uri');
    assert.deepEqual(
      bad.json().details.problems.map((problem: { field: string; uri: string }) => [problem.field, problem.uri]),
      [
        ['redirectUris[1]', 'http://insecure.example/cb'],
        ['redirectUris[2]', 'relative/path'],
        ['redirectUris[3]', 'https://x.example/cb#frag'],
      ],
    );
    const count = await ctx.db.query('SELECT 1 FROM oauth_clients WHERE tenant_id = $1', [admin.oauth.tenant.id]);
    assert.equal(count.rows.length, 2, 'only the fixture’s two clients');
  });

  it("answers 404 client.not_found for an unknown id and another tenant's client (which keeps working)", async () => {
    const admin = await givenAdmin(ctx);
    const other = await givenOAuth(ctx);
    const unknown = `lbc_${admin.oauth.tenant.id.replaceAll('-', '')}_0000000000000000`;
    for (const id of [unknown, 'nope', other.client.clientId]) {
      for (const [method, url] of [
        ['DELETE', `/api/oauth-clients/${id}`],
        ['POST', `/api/oauth-clients/${id}/secret`],
      ] as const) {
        const res = await call(ctx.app, method, url, admin.headers);
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'client.not_found');
      }
    }
    assert.equal((await exchange(ctx.app, other)).access_token.length > 0, true);
  });
});

describeEachBackend('Lifecycle over HTTP: who may call it', (ctx) => {
  it('refuses an API key with 403 auth.admin_required on every route, and changes nothing', async () => {
    const admin = await givenAdmin(ctx);
    const { tenant } = admin.oauth;
    for (const [method, url, payload] of ROUTES(tenant.key, admin.oauth.client.clientId)) {
      const res = await call(ctx.app, method, url, tenant.headers, payload);
      assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
      assert.equal(res.json().code, 'auth.admin_required');
    }
    assert.equal((await statements(ctx.app, tenant.xapi)).statusCode, 200, 'the key was revoked');
    assert.equal((await call(ctx.app, 'GET', '/api/oauth-clients', admin.headers)).json().length, 2);
  });

  it('refuses an actor credential with 403, and no credential with 401', async () => {
    const admin = await givenAdmin(ctx);
    const { tenant } = admin.oauth;
    const email = `ada-${randomBytes(3).toString('hex')}@example.com`;
    const imported = await call(ctx.app, 'POST', '/api/import/users', tenant.headers, { users: [{ name: 'Ada', attributes: { email } }] });
    assert.equal(imported.statusCode, 200, imported.body);
    const username = `u-${randomBytes(8).toString('hex')}`;
    const actor = { account: { homePage: `http://${tenant.name}.localhost`, name: email } };
    const credential = await call(ctx.app, 'POST', '/api/auth/basic', tenant.headers, { username, password: PASSWORD, data: { actor } });
    assert.equal(credential.statusCode, 201, credential.body);
    const learner = { authorization: basic(username, PASSWORD), 'x-svc-tenant': tenant.name };
    for (const [method, url, payload] of ROUTES(tenant.key, admin.oauth.client.clientId)) {
      const asLearner = await call(ctx.app, method, url, learner, payload);
      assert.equal(asLearner.statusCode, 403, `${method} ${url}: ${asLearner.body}`);
      assert.equal(asLearner.json().code, 'auth.admin_required');
      const anonymous = await call(ctx.app, method, url, { 'x-svc-tenant': tenant.name }, payload);
      assert.equal(anonymous.statusCode, 401, `${method} ${url}: ${anonymous.body}`);
    }
  });

  it("lets another tenant's admin neither see nor touch this tenant's keys and clients", async () => {
    const a = await givenAdmin(ctx);
    const b = await givenAdmin(ctx);
    // B's token naming tenant A: 401, as everywhere else.
    for (const [method, url, payload] of ROUTES(a.oauth.tenant.key, a.oauth.client.clientId)) {
      const res = await call(ctx.app, method, url, { authorization: `Bearer ${b.token}`, 'x-svc-tenant': a.oauth.tenant.name }, payload);
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
    // B's token in its own tenant: B's keys and clients only; A's are unknown there.
    const keys = (await call(ctx.app, 'GET', '/api/api-keys', b.headers)).json().map((item: { key: string }) => item.key);
    assert.deepEqual(keys, [b.oauth.tenant.key]);
    const clients = (await call(ctx.app, 'GET', '/api/oauth-clients', b.headers)).json().map((item: { clientId: string }) => item.clientId);
    assert.deepEqual(clients.sort(), [b.oauth.client.clientId, b.oauth.otherClient.clientId].sort());
    assert.equal((await call(ctx.app, 'DELETE', `/api/api-keys/${a.oauth.tenant.key}`, b.headers)).statusCode, 404);
    assert.equal((await call(ctx.app, 'DELETE', `/api/oauth-clients/${a.oauth.client.clientId}`, b.headers)).statusCode, 404);
    assert.equal((await call(ctx.app, 'POST', `/api/oauth-clients/${a.oauth.client.clientId}/secret`, b.headers)).statusCode, 404);
    assert.equal((await statements(ctx.app, a.oauth.tenant.xapi)).statusCode, 200);
    assert.equal((await bearerMe(ctx.app, a.token, a.oauth.tenant.name)).statusCode, 200);
  });

  it('describes every operation in /openapi.json with its operationId, Bearer-only security and error responses', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const expected: Array<[string, string, string, string[]]> = [
      ['/api/api-keys', 'get', 'GET:api_keys', ['200', '401', '403']],
      ['/api/api-keys', 'post', 'POST:api_keys', ['201', '401', '403']],
      ['/api/api-keys/{key}', 'delete', 'DELETE:api_keys', ['204', '401', '403', '404']],
      ['/api/oauth-clients', 'get', 'GET:oauth_clients', ['200', '401', '403']],
      ['/api/oauth-clients', 'post', 'POST:oauth_clients', ['201', '400', '401', '403']],
      ['/api/oauth-clients/{id}', 'delete', 'DELETE:oauth_clients', ['204', '401', '403', '404']],
      ['/api/oauth-clients/{id}/secret', 'post', 'POST:oauth_clients.secret', ['200', '401', '403', '404']],
    ];
    for (const [path, method, operationId, statuses] of expected) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method} ${path} is not described`);
      assert.equal(operation.operationId, operationId);
      assert.ok(operation.summary);
      assert.deepEqual(operation.security, [{ bearer: [] }]);
      for (const status of statuses) assert.ok(operation.responses[status], `${operationId} lacks ${status}`);
    }
  });
});

async function waitFor(check: () => Promise<boolean>, what: string, ms = 2_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) assert.fail(what);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('Lifecycle over HTTP reaches every server process on one PostgreSQL database', {
  skip: !POSTGRES_AVAILABLE && 'PostgreSQL not reachable',
}, () => {
  const opened: Array<{ close(): Promise<void> }> = [];
  let drop: () => Promise<void> = async () => {};
  let apps: FastifyInstance[] = [];
  let first: Pick<TestContext, 'app' | 'db' | 'given'>;

  before(async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    for (const _ of [0, 1]) {
      const pool = new PostgresDatabase(created.url, { max: 5 });
      await migrate(pool);
      const notifications = new PostgresNotifyBus(created.url, pool);
      opened.push(notifications, pool);
      // Caches that would keep a key a minute: only the notification can end it sooner.
      const app = await buildApp(testConfig({ cacheTtlMs: 60_000 }), pool, { logger: false, notifications });
      apps.push(app);
      first ??= { app, db: pool, given: new Given(app, pool) };
    }
  });

  after(async () => {
    for (const app of apps) await app.close();
    for (const resource of opened.reverse()) await resource.close();
    await drop();
    apps = [];
  });

  it('refuses a key revoked through one process in the other within a second, although it cached it', async () => {
    const admin = await givenAdmin(first);
    const created = await call(apps[0]!, 'POST', '/api/api-keys', admin.headers);
    assert.equal(created.statusCode, 201, created.body);
    const headers = xapiHeaders(admin.oauth.tenant.name, created.json().key, created.json().secret);
    for (const app of apps) assert.equal((await statements(app, headers)).statusCode, 200);
    assert.equal((await call(apps[0]!, 'DELETE', `/api/api-keys/${created.json().key}`, admin.headers)).statusCode, 204);
    const started = Date.now();
    await waitFor(async () => (await statements(apps[1]!, headers)).statusCode === 401, 'the second process still accepted the key', 1_000);
    assert.ok(Date.now() - started < 1_000);
  });

  it("refuses a deleted client's tokens in the other process within a second", async () => {
    const admin = await givenAdmin(first);
    const tenant = admin.oauth.tenant.name;
    for (const app of apps) assert.equal((await bearerMe(app, admin.token, tenant)).statusCode, 200);
    const deleted = await call(apps[0]!, 'DELETE', `/api/oauth-clients/${admin.oauth.client.clientId}`, { ...admin.headers });
    assert.equal(deleted.statusCode, 204, deleted.body);
    await waitFor(
      async () => (await bearerMe(apps[1]!, admin.token, tenant)).statusCode === 401,
      "the deleted client's token still worked",
      1_000,
    );
  });
});
