import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { issueCode } from '../../src/modules/auth/oauth/code.service.js';
import { newSecret } from '../../src/platform/issued-secrets.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import {
  exchange,
  givenOAuth,
  pkceChallenge,
  REDIRECT_URI,
  redeemCode,
  submitSignInForm,
  type OAuthFixture,
} from './oauth-token-fixtures.js';

/**
 * The tenant's admins over HTTP (issue 39): `GET/POST /api/admins`, `PATCH/DELETE /api/admins/{id}`,
 * for an admin of the whole tenant, with the effects of `learnbase admin create|list|set-scope|delete`:
 * tokens revoked at once, audited; an admin never changes or deletes themselves there.
 */
type Json = Record<string, unknown>;
type Headers = Record<string, string>;

interface TenantAdmin {
  oauth: OAuthFixture;
  token: string;
  /** The admin's Bearer token, its tenant named. */
  headers: Headers;
}

async function givenAdmin(ctx: Pick<TestContext, 'app' | 'db' | 'given'>): Promise<TenantAdmin> {
  const oauth = await givenOAuth(ctx);
  const { access_token: token } = await exchange(ctx.app, oauth);
  return { oauth, token, headers: { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name } };
}

const call = (
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  headers: Headers,
  payload?: unknown,
) =>
  app.inject({
    method,
    url,
    headers: payload === undefined || typeof payload === 'object' ? headers : { ...headers, 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

const PASSWORD = 'a long enough passphrase';

describeEachBackend('Admins over HTTP: /api/admins', (ctx) => {
  /** A Bearer token of the tenant's admin `adminId` (a code as the authorize page issues it, redeemed at the token endpoint). */
  async function tokenFor(admin: TenantAdmin, adminId: string): Promise<Headers> {
    const verifier = newSecret();
    const code = await issueCode(ctx.db, {
      tenantId: admin.oauth.tenant.id,
      clientId: admin.oauth.client.clientId,
      adminId,
      redirectUri: REDIRECT_URI,
      codeChallenge: pkceChallenge(verifier),
    });
    const res = await redeemCode(ctx.app, admin.oauth.client, code, verifier);
    assert.equal(res.statusCode, 200, res.body);
    return { authorization: `Bearer ${res.json().access_token}`, 'x-svc-tenant': admin.oauth.tenant.name };
  }

  async function scopeOf(headers: Headers) {
    const res = await call(ctx.app, 'GET', '/api/me', headers);
    return res.statusCode === 200 ? (res.json().principal.scope?.organisationId ?? 'whole tenant') : res.statusCode;
  }

  async function withStructure(admin: TenantAdmin) {
    const res = await call(ctx.app, 'PUT', '/api/import/organisation', admin.oauth.tenant.headers, [
      { id: 'HQ' },
      { id: 'EMEA', parentId: 'HQ' },
    ]);
    assert.ok(res.statusCode < 300, res.body);
  }

  async function audit(admin: TenantAdmin, action: string) {
    const res = await call(ctx.app, 'GET', `/api/audit?action=${action}`, admin.headers);
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as Json[]).map((entry) => ({
      principal: entry.principal,
      source: entry.source,
      email: (entry.details as Json).email,
      scope: (entry.details as Json).scope,
    }));
  }

  it('creates an admin with the rules of admin create, lists the admins (never a password hash), and the new one signs in with the password', async () => {
    const admin = await givenAdmin(ctx);
    await withStructure(admin);
    const created = await call(
      ctx.app,
      'POST',
      '/api/admins',
      { ...admin.headers, 'svc-account-source': 'console' },
      {
        email: ' Ops@Example.com ',
        password: PASSWORD,
      },
    );
    assert.equal(created.statusCode, 201, created.body);
    const ops = created.json() as Json;
    assert.match(String(ops.id), /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...ops, id: '…', createdAt: '…' },
      {
        id: '…',
        email: 'ops@example.com',
        scope: null,
        createdAt: '…',
        lockedUntil: null,
        password: true,
        connection: null,
      },
    );

    const listed = await call(ctx.app, 'GET', '/api/admins', admin.headers);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.ok(!/scrypt|password_hash|\$/.test(listed.body), 'never a password hash');
    assert.deepEqual(
      (listed.json() as Json[]).map((entry) => [entry.email, entry.scope, entry.password, entry.connection]),
      [
        [admin.oauth.adminEmail, null, true, null],
        ['ops@example.com', null, true, null],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );

    // The new admin signs in on the authorize page with that password.
    const query = new URLSearchParams({ response_type: 'code', client_id: admin.oauth.client.clientId, redirect_uri: REDIRECT_URI });
    const form = await ctx.app.inject({ method: 'GET', url: `/auth/oauth/authorize?${query}` });
    const signedIn = await submitSignInForm(ctx.app, form, { email: 'ops@example.com', password: PASSWORD });
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    const code = new URL(String(signedIn.headers.location)).searchParams.get('code') ?? '';
    const token = await redeemCode(ctx.app, admin.oauth.client, code);
    assert.equal(token.statusCode, 200, token.body);

    // One limited to an organisation entry; the rules of admin create refuse the rest, nothing made.
    const scoped = await call(ctx.app, 'POST', '/api/admins', admin.headers, {
      email: 'lin@example.com',
      password: PASSWORD,
      scope: 'EMEA',
    });
    assert.equal(scoped.statusCode, 201, scoped.body);
    assert.equal(scoped.json().scope, 'EMEA');
    assert.equal(await scopeOf(await tokenFor(admin, scoped.json().id)), 'EMEA');
    for (const [body, status, code] of [
      [{ email: 'OPS@example.com', password: PASSWORD }, 409, 'admin.exists'],
      [{ email: 'new@example.com', password: 'short' }, 400, 'admin.weak_password'],
      [{ email: 'not an address', password: PASSWORD }, 400, 'admin.invalid_email'],
      [{ email: 'new@example.com', password: PASSWORD, scope: 'NOPE' }, 400, 'admin.invalid_scope'],
    ] as const) {
      const res = await call(ctx.app, 'POST', '/api/admins', admin.headers, body);
      assert.equal(res.statusCode, status, res.body);
      assert.equal(res.json().code, code);
    }
    assert.equal((await call(ctx.app, 'GET', '/api/admins', admin.headers)).json().length, 3);
    assert.deepEqual(await audit(admin, 'admin.created'), [
      { principal: { kind: 'admin', id: admin.oauth.adminId }, source: undefined, email: 'lin@example.com', scope: 'EMEA' },
      { principal: { kind: 'admin', id: admin.oauth.adminId }, source: 'console', email: 'ops@example.com', scope: null },
    ]);
  });

  it('PATCH limits an admin or gives them the whole tenant, revoking their tokens at once; DELETE removes them; never one’s own account', async () => {
    const admin = await givenAdmin(ctx);
    await withStructure(admin);
    const ops = (await call(ctx.app, 'POST', '/api/admins', admin.headers, { email: 'ops@example.com', password: PASSWORD })).json();
    const before = await tokenFor(admin, ops.id);
    assert.equal(await scopeOf(before), 'whole tenant');

    const limited = await call(ctx.app, 'PATCH', `/api/admins/${ops.id}`, admin.headers, { scope: 'EMEA' });
    assert.equal(limited.statusCode, 200, limited.body);
    assert.deepEqual([limited.json().email, limited.json().scope], ['ops@example.com', 'EMEA']);
    assert.equal(await scopeOf(before), 401, 'the token of the former scope is refused at once');
    const after = await tokenFor(admin, ops.id);
    assert.equal(await scopeOf(after), 'EMEA');
    const widened = await call(ctx.app, 'PATCH', `/api/admins/${ops.id.toUpperCase()}`, admin.headers, { scope: null });
    assert.equal(widened.statusCode, 200, widened.body);
    assert.equal(widened.json().scope, null);
    assert.equal(await scopeOf(after), 401);
    assert.deepEqual(
      (await audit(admin, 'admin.scope_changed')).map((entry) => [entry.email, entry.scope]),
      [
        ['ops@example.com', null],
        ['ops@example.com', 'EMEA'],
      ],
    );
    const unknownEntry = await call(ctx.app, 'PATCH', `/api/admins/${ops.id}`, admin.headers, { scope: 'NOPE' });
    assert.equal(unknownEntry.statusCode, 400, unknownEntry.body);
    assert.equal(unknownEntry.json().code, 'admin.invalid_scope');

    // Never one's own account, however the id is written: the tenant is not left without an admin by a slip.
    for (const id of [admin.oauth.adminId, admin.oauth.adminId.toUpperCase()]) {
      const demoted = await call(ctx.app, 'PATCH', `/api/admins/${id}`, admin.headers, { scope: 'EMEA' });
      assert.equal(demoted.statusCode, 409, demoted.body);
      assert.equal(demoted.json().code, 'admin.self');
      const removed = await call(ctx.app, 'DELETE', `/api/admins/${id}`, admin.headers);
      assert.equal(removed.statusCode, 409, removed.body);
      assert.equal(removed.json().code, 'admin.self');
    }
    assert.equal(await scopeOf(admin.headers), 'whole tenant', 'still an admin of the whole tenant');

    const current = await tokenFor(admin, ops.id);
    const deleted = await call(ctx.app, 'DELETE', `/api/admins/${ops.id}`, { ...admin.headers, 'svc-account-source': 'console' });
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal(await scopeOf(current), 401, 'refused at once');
    assert.deepEqual(
      (await call(ctx.app, 'GET', '/api/admins', admin.headers)).json().map((entry: Json) => entry.email),
      [admin.oauth.adminEmail],
    );
    const [entry] = await audit(admin, 'admin.deleted');
    assert.deepEqual([entry?.email, entry?.source], ['ops@example.com', 'console']);
    for (const method of ['PATCH', 'DELETE'] as const) {
      const again = await call(ctx.app, method, `/api/admins/${ops.id}`, admin.headers, method === 'PATCH' ? { scope: null } : undefined);
      assert.equal(again.statusCode, 404, again.body);
      assert.equal(again.json().code, 'admin.not_found');
    }
  });

  it('refuses nobody, an API key, a scoped admin and another tenant’s admin; another tenant’s admin finds none of these admins', async () => {
    const a = await givenAdmin(ctx);
    const b = await givenAdmin(ctx);
    await withStructure(a);
    const lin = (
      await call(ctx.app, 'POST', '/api/admins', a.headers, { email: 'lin@example.com', password: PASSWORD, scope: 'EMEA' })
    ).json();
    const scoped = await tokenFor(a, lin.id);
    const routes: Array<['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?]> = [
      ['GET', '/api/admins'],
      ['POST', '/api/admins', { email: 'new@example.com', password: PASSWORD }],
      ['PATCH', `/api/admins/${lin.id}`, { scope: null }],
      ['DELETE', `/api/admins/${lin.id}`],
    ];
    const tenantA = a.oauth.tenant;
    for (const [method, url, payload] of routes) {
      const anonymous = await call(ctx.app, method, url, { 'x-svc-tenant': tenantA.name }, payload);
      assert.equal(anonymous.statusCode, 401, `nobody: ${method} ${url}: ${anonymous.body}`);
      const apiKey = await call(ctx.app, method, url, tenantA.headers, payload);
      assert.equal(apiKey.statusCode, 403, `an API key: ${method} ${url}: ${apiKey.body}`);
      assert.equal(apiKey.json().code, 'auth.admin_required');
      const limited = await call(ctx.app, method, url, scoped, payload);
      assert.equal(limited.statusCode, 403, `a scoped admin: ${method} ${url}: ${limited.body}`);
      assert.equal(limited.json().code, 'auth.out_of_scope');
      const other = await call(ctx.app, method, url, { authorization: `Bearer ${b.token}`, 'x-svc-tenant': tenantA.name }, payload);
      assert.equal(other.statusCode, 401, `another tenant's admin: ${method} ${url}: ${other.body}`);
    }
    // B in its own tenant: B's admins only; A's are unknown there.
    assert.deepEqual(
      (await call(ctx.app, 'GET', '/api/admins', b.headers)).json().map((entry: Json) => entry.email),
      [b.oauth.adminEmail],
    );
    for (const [method, payload] of [
      ['PATCH', { scope: null }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(ctx.app, method, `/api/admins/${lin.id}`, b.headers, payload);
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().code, 'admin.not_found');
    }
    assert.equal(await scopeOf(scoped), 'EMEA', 'A’s admin as she was');
    assert.deepEqual(
      (await call(ctx.app, 'GET', '/api/admins', a.headers)).json().map((entry: Json) => [entry.email, entry.scope]),
      [
        [a.oauth.adminEmail, null],
        ['lin@example.com', 'EMEA'],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
  });

  it('answers 400 naming every problem of a malformed body or id, and changes nothing', async () => {
    const admin = await givenAdmin(ctx);
    const ops = (await call(ctx.app, 'POST', '/api/admins', admin.headers, { email: 'ops@example.com', password: PASSWORD })).json();
    const fields = (res: Awaited<ReturnType<typeof call>>) => {
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'request.invalid');
      return (res.json().details.problems as Json[]).map((problem) => problem.field);
    };
    assert.deepEqual(fields(await call(ctx.app, 'POST', '/api/admins', admin.headers, '[]')), ['body']);
    assert.deepEqual(fields(await call(ctx.app, 'POST', '/api/admins', admin.headers, '"ops"')), ['body']);
    assert.deepEqual(fields(await call(ctx.app, 'POST', '/api/admins', admin.headers, {})), ['email', 'password']);
    assert.deepEqual(
      fields(
        await call(ctx.app, 'POST', '/api/admins', admin.headers, {
          email: 'x'.repeat(300),
          password: 123_456_789_012,
          scope: 7,
          role: 'owner',
        }),
      ),
      ['role', 'email', 'password', 'scope'],
    );
    assert.deepEqual(fields(await call(ctx.app, 'PATCH', `/api/admins/${ops.id}`, admin.headers, {})), ['scope']);
    assert.deepEqual(fields(await call(ctx.app, 'PATCH', `/api/admins/${ops.id}`, admin.headers, { scope: 5, email: 'x@example.com' })), [
      'email',
      'scope',
    ]);
    assert.deepEqual(fields(await call(ctx.app, 'PATCH', `/api/admins/${ops.id}`, admin.headers, { scope: '' })), ['scope']);
    assert.deepEqual(fields(await call(ctx.app, 'PATCH', '/api/admins/not-a-uuid', admin.headers, { scope: null })), ['id']);
    const badDelete = await call(ctx.app, 'DELETE', '/api/admins/not-a-uuid', admin.headers);
    assert.equal(badDelete.statusCode, 400, badDelete.body);
    assert.deepEqual(
      (await call(ctx.app, 'GET', '/api/admins', admin.headers)).json().map((entry: Json) => [entry.email, entry.scope]),
      [
        [admin.oauth.adminEmail, null],
        ['ops@example.com', null],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
  });

  it('describes every operation in /openapi.json with its operationId, Bearer-only security and error responses', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const expected: Array<[string, string, string, string[]]> = [
      ['/api/admins', 'get', 'GET:admins', ['200', '401', '403']],
      ['/api/admins', 'post', 'POST:admins', ['201', '400', '401', '403', '409']],
      ['/api/admins/{id}', 'patch', 'PATCH:admins', ['200', '400', '401', '403', '404', '409']],
      ['/api/admins/{id}', 'delete', 'DELETE:admins', ['204', '401', '403', '404', '409']],
    ];
    for (const [path, method, operationId, statuses] of expected) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method} ${path} is not described`);
      assert.equal(operation.operationId, operationId);
      assert.deepEqual(operation.security, [{ bearer: [] }]);
      for (const status of statuses) assert.ok(operation.responses[status], `${operationId} lacks ${status}`);
    }
  });
});
