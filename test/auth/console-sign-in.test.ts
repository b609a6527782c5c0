import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createAdmin } from '../../src/modules/auth/admins/admin.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { hashSecret, newSecret } from '../../src/platform/issued-secrets.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { tenantAddress } from '../../src/modules/auth/console/console-session.routes.js';
import { submitSignInForm, tokenRequest } from './oauth-token-fixtures.js';

/**
 * The console's sign-in (docs/console.md, "Signing in"): the backend-for-frontend through HTTP as a
 * browser drives it (the start, the OAuth sign-in page, the callback), the session cookie on the
 * API with its CSRF token, the refresh on the server, sign-out revoking, revocations elsewhere
 * ending the session, a scoped admin narrowed, and every way a sign-in can fail said to the console.
 */
const HOST = '127.0.0.1:8080';
const BASE = `http://${HOST}`;
const PASSWORD = 'correct horse battery';

interface Admin {
  id: string;
  email: string;
}

/** The value of the cookie `name` a response sets ('' when it clears it), or undefined. */
function setCookie(res: { headers: Record<string, unknown> }, name: string): string | undefined {
  const header = res.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header === undefined ? [] : [String(header)];
  const found = all.find((cookie: string) => cookie.startsWith(`${name}=`));
  return found === undefined ? undefined : decodeURIComponent(found.slice(name.length + 1).split(';')[0]!);
}

const pendingCookieOf = (res: { headers: Record<string, unknown> }) => {
  const header = res.headers['set-cookie'];
  const all = Array.isArray(header) ? header : [String(header)];
  return all.find((cookie: string) => cookie.startsWith('__Host-lb-console-signin-'))!.split(';')[0]!;
};

it("tenantAddress: the organisation's label under the base domain, scheme, port and public path kept", () => {
  assert.equal(tenantAddress('http://127.0.0.1:8080', 'demo', 'localhost'), 'http://demo.localhost:8080/');
  assert.equal(tenantAddress('https://lrs.example.com/learning', 'acme', 'lrs.example.com'), 'https://acme.lrs.example.com/learning/');
  assert.equal(tenantAddress('http://acme.localhost:8080/', 'acme', 'localhost'), 'http://acme.localhost:8080/');
  assert.equal(tenantAddress('not a url', 'acme', 'lrs.example.com'), 'http://acme.lrs.example.com/');
});

describeEachBackend('The console signs in as a backend-for-frontend', (ctx: TestContext) => {
  const app = () => ctx.app as FastifyInstance;

  async function givenAdmin(tenant: GivenTenant, scope?: string): Promise<Admin> {
    const record = await new TenancyService(ctx.db, 0).findById(tenant.id);
    const admin = await createAdmin(ctx.db, record!, `admin-${newSecret(4).toLowerCase()}@example.com`, PASSWORD, scope);
    return { id: admin.id, email: admin.email };
  }

  /** The sign-in start: its redirect to the sign-in page and the pending sign-in cookie. */
  async function start(query: string, host = HOST) {
    return app().inject({ method: 'GET', url: `/console/auth/sign-in?${query}`, headers: { host } });
  }

  /** Through the OAuth sign-in page to the callback's redirect (the code and state), as a browser. */
  async function throughSignInPage(started: { headers: Record<string, unknown> }, admin: Admin, host = HOST) {
    const location = new URL(String(started.headers.location));
    const page = await app().inject({ method: 'GET', url: `${location.pathname}${location.search}`, headers: { host } });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h1>Sign in to the learnbase console<\/h1>/);
    const signedIn = await submitSignInForm(app(), page, { email: admin.email, password: PASSWORD });
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    return new URL(String(signedIn.headers.location));
  }

  /** A whole sign-in: answers the session cookie's value and where the callback sent the browser. */
  async function signIn(tenant: GivenTenant, admin: Admin, returnTo = '/', host = HOST) {
    const started = await start(`tenant=${tenant.name}&return=${encodeURIComponent(returnTo)}`, host);
    assert.equal(started.statusCode, 303, started.body);
    const callback = await throughSignInPage(started, admin, host);
    const res = await app().inject({
      method: 'GET',
      url: `${callback.pathname}${callback.search}`,
      headers: { host, cookie: pendingCookieOf(started) },
    });
    assert.equal(res.statusCode, 303, res.body);
    const session = setCookie(res, '__Host-lb-console');
    assert.ok(session, 'the callback sets the session cookie');
    return { session, location: String(res.headers.location), res };
  }

  const withSession = (session: string, extra: Record<string, string> = {}) => ({
    host: HOST,
    cookie: `__Host-lb-console=${session}`,
    ...extra,
  });

  async function describeSession(session: string) {
    return app().inject({ method: 'GET', url: '/console/auth/session', headers: withSession(session) });
  }

  async function csrfOf(session: string): Promise<string> {
    const res = await describeSession(session);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().csrfToken;
  }

  const me = (session: string, extra: Record<string, string> = {}) =>
    app().inject({ method: 'GET', url: '/api/me', headers: withSession(session, extra) });

  it('signs in through the OAuth sign-in page, and the cookie then acts as the admin on /api/ and /xapi/', async () => {
    const tenant = await ctx.given.tenant();
    const admin = await givenAdmin(tenant);
    const started = await start(`tenant=${tenant.name}&return=${encodeURIComponent('/people?q=a%20b')}`);
    assert.equal(started.statusCode, 303);
    const authorize = new URL(String(started.headers.location));
    assert.equal(`${authorize.origin}${authorize.pathname}`, `${BASE}/auth/oauth/authorize`);
    assert.equal(authorize.searchParams.get('redirect_uri'), `${BASE}/console/auth/callback`);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    const cookieHeader = String((started.headers['set-cookie'] as string[] | string) ?? '');
    assert.match(cookieHeader, /HttpOnly/);
    assert.match(cookieHeader, /SameSite=Lax/);

    const { session, location, res } = await signIn(tenant, admin, '/people?q=a%20b');
    assert.equal(location, '/console/people?q=a%20b');
    const sessionCookie = String(res.headers['set-cookie']);
    assert.match(sessionCookie, /__Host-lb-console=lbs_/);
    assert.match(sessionCookie, /HttpOnly/);
    assert.match(sessionCookie, /SameSite=Strict/);
    assert.match(sessionCookie, /Secure/);

    const described = await describeSession(session);
    assert.equal(described.statusCode, 200, described.body);
    assert.equal(described.headers['cache-control'], 'no-store');
    const body = described.json();
    assert.equal(body.signedIn, true);
    const { address, ...named } = body.tenant;
    assert.deepEqual(named, { id: tenant.id, name: tenant.name });
    // The organisation's own address, where launch links point: its label under the base domain, on the address asked.
    assert.match(address, new RegExp(`^http://${tenant.name}\\.localhost(:\\d+)?/$`));
    assert.deepEqual(body.admin, { id: admin.id, email: admin.email });
    assert.match(body.csrfToken, /^[A-Za-z0-9_-]{43}$/);

    const who = await me(session);
    assert.equal(who.statusCode, 200, who.body);
    assert.deepEqual(who.json().principal, { kind: 'admin', id: admin.id });
    const statements = await app().inject({
      method: 'GET',
      url: '/xapi/statements?limit=1',
      headers: withSession(session, { 'x-experience-api-version': '2.0.0' }),
    });
    assert.equal(statements.statusCode, 200, statements.body);

    // Only hashes are kept: the session's secret and its tokens appear nowhere in the database.
    const { rows } = await ctx.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM console_sessions WHERE tenant_id = $1 AND session_hash = $2',
      [tenant.id, hashSecret(session)],
    );
    assert.equal(rows[0]!.n, 1);
  });

  it('takes a write with the cookie only with the CSRF token, and the Authorization header over the cookie', async () => {
    const tenant = await ctx.given.tenant();
    const { session } = await signIn(tenant, await givenAdmin(tenant));
    const write = (headers: Record<string, string>) =>
      app().inject({ method: 'POST', url: '/api/api-keys', headers: withSession(session, headers), payload: {} });
    const refused = await write({});
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().code, 'auth.csrf');
    const wrong = await write({ 'x-csrf-token': 'x'.repeat(43) });
    assert.equal(wrong.statusCode, 403);
    const { rows } = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1', [tenant.id]);
    assert.equal(rows[0]!.n, 1, 'nothing was stored by the refused writes');
    const taken = await write({ 'x-csrf-token': await csrfOf(session) });
    assert.equal(taken.statusCode, 201, taken.body);

    // A credential in the Authorization header is the request's credential, whatever cookie comes with it.
    const withKey = await app().inject({
      method: 'GET',
      url: '/api/me',
      headers: { ...withSession('lbs_garbage'), authorization: tenant.headers.authorization },
    });
    assert.equal(withKey.statusCode, 200);
    assert.equal(withKey.json().principal.kind, 'api_key');
  });

  it('refuses a cookie of another tenant, a made-up one, and one past its lifetime', async () => {
    const tenant = await ctx.given.tenant();
    const other = await ctx.given.tenant();
    const { session } = await signIn(tenant, await givenAdmin(tenant));
    const elsewhere = await me(session, { 'x-svc-tenant': other.name });
    assert.equal(elsewhere.statusCode, 401);
    assert.match(elsewhere.json().message, /another tenant/);
    for (const made of ['lbs_nonsense', `lbs_${tenant.id.replaceAll('-', '')}_${newSecret()}`]) {
      const res = await me(made);
      assert.equal(res.statusCode, 401, made);
      assert.equal(res.json().code, 'auth.unauthorized');
    }
    // A session no process has read yet (each process keeps its reading for the cache's lifetime).
    const { session: later } = await signIn(tenant, await givenAdmin(tenant));
    await ctx.db.query("UPDATE console_sessions SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND session_hash = $2", [
      tenant.id,
      hashSecret(later),
    ]);
    const expired = await me(later);
    assert.equal(expired.statusCode, 401);
    const described = await describeSession(later);
    assert.equal(described.statusCode, 200);
    assert.deepEqual(described.json(), { signedIn: false });
    assert.match(String(described.headers['set-cookie']), /__Host-lb-console=;/);
  });

  it('refreshes on the server when the access token runs out, once for many requests at once', async () => {
    const tenant = await ctx.given.tenant();
    const { session } = await signIn(tenant, await givenAdmin(tenant));
    const before = await ctx.db.query<{ access_hash: Buffer; family_id: string }>(
      'SELECT access_hash, family_id FROM console_sessions WHERE tenant_id = $1',
      [tenant.id],
    );
    const familyId = before.rows[0]!.family_id;
    await ctx.db.query("UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND kind = 'access'", [
      tenant.id,
    ]);
    const answers = await Promise.all(Array.from({ length: 6 }, () => me(session)));
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      Array(6).fill(200),
      answers.map((res) => res.body).join('\n'),
    );
    const tokens = await ctx.db.query<{ kind: string; used: boolean; revoked: boolean }>(
      'SELECT kind, used_at IS NOT NULL AS used, revoked_at IS NOT NULL AS revoked FROM oauth_tokens WHERE tenant_id = $1 AND family_id = $2',
      [tenant.id, familyId],
    );
    assert.equal(tokens.rows.filter((row) => row.kind === 'refresh').length, 2, 'one rotation: the first refresh token used, a second one');
    assert.equal(tokens.rows.filter((row) => row.revoked).length, 0, 'the authorization was not taken for a theft');
    const after = await ctx.db.query<{ access_hash: Buffer }>('SELECT access_hash FROM console_sessions WHERE tenant_id = $1', [tenant.id]);
    assert.notDeepEqual(after.rows[0]!.access_hash, before.rows[0]!.access_hash);
  });

  it('signs out: the CSRF token is required, every token of the sign-in is revoked, and the cookie no longer works', async () => {
    const tenant = await ctx.given.tenant();
    const { session } = await signIn(tenant, await givenAdmin(tenant));
    const csrf = await csrfOf(session);
    const refused = await app().inject({ method: 'POST', url: '/console/auth/sign-out', headers: withSession(session) });
    assert.equal(refused.statusCode, 403);
    assert.equal((await me(session)).statusCode, 200, 'a refused sign-out signs nobody out');
    const out = await app().inject({
      method: 'POST',
      url: '/console/auth/sign-out',
      headers: withSession(session, { 'x-csrf-token': csrf }),
    });
    assert.equal(out.statusCode, 204, out.body);
    assert.match(String(out.headers['set-cookie']), /__Host-lb-console=;/);
    assert.equal((await me(session)).statusCode, 401);
    const { rows } = await ctx.db.query<{ live: number }>(
      'SELECT count(*) FILTER (WHERE revoked_at IS NULL)::int AS live FROM oauth_tokens WHERE tenant_id = $1',
      [tenant.id],
    );
    assert.equal(rows[0]!.live, 0);
    const again = await app().inject({ method: 'POST', url: '/console/auth/sign-out', headers: { host: HOST } });
    assert.equal(again.statusCode, 204, 'signed out already: 204 all the same');
  });

  it('ends the session when the admin is deleted or their scope changes, and narrows a scoped admin', async () => {
    const tenant = await ctx.given.tenant();
    await app().inject({
      method: 'PUT',
      url: '/api/import/organisation',
      headers: tenant.headers,
      payload: [{ id: 'HQ' }, { id: 'EMEA', parentId: 'HQ' }],
    });
    const owner = await givenAdmin(tenant);
    const scoped = await givenAdmin(tenant, 'EMEA');
    const ownerSession = (await signIn(tenant, owner)).session;
    const scopedSession = (await signIn(tenant, scoped)).session;

    const described = await describeSession(scopedSession);
    assert.deepEqual(described.json().admin.scope, { organisationId: 'EMEA' });
    assert.deepEqual((await me(scopedSession)).json().principal.scope, { organisationId: 'EMEA' });
    const keys = await app().inject({ method: 'GET', url: '/api/api-keys', headers: withSession(scopedSession) });
    assert.equal(keys.statusCode, 403, 'a scoped admin manages no credentials, in the console as over the API');

    const deleted = await app().inject({
      method: 'DELETE',
      url: `/api/admins/${scoped.id}`,
      headers: withSession(ownerSession, { 'x-csrf-token': await csrfOf(ownerSession) }),
    });
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal((await me(scopedSession)).statusCode, 401);
    assert.deepEqual((await describeSession(scopedSession)).json(), { signedIn: false });
  });

  it('says to the console why a sign-in did not end in a session', async () => {
    const tenant = await ctx.given.tenant();
    const admin = await givenAdmin(tenant);

    const none = await start('');
    assert.equal(none.statusCode, 303);
    assert.equal(none.headers.location, '/console/');
    const unknown = await start('tenant=no-such-tenant-here');
    assert.equal(unknown.headers.location, '/console/?tenant=no-such-tenant-here&error=unknown_tenant');

    // Cancel on the sign-in page: access_denied.
    const started = await start(`tenant=${tenant.name}`);
    const location = new URL(String(started.headers.location));
    const page = await app().inject({ method: 'GET', url: `${location.pathname}${location.search}`, headers: { host: HOST } });
    const cancelled = await submitSignInForm(app(), page, { action: 'cancel' });
    assert.equal(cancelled.statusCode, 303, cancelled.body);
    const back = new URL(String(cancelled.headers.location));
    assert.equal(back.searchParams.get('error'), 'access_denied');
    const denied = await app().inject({
      method: 'GET',
      url: `${back.pathname}${back.search}`,
      headers: { host: HOST, cookie: pendingCookieOf(started) },
    });
    assert.equal(denied.headers.location, `/console/?tenant=${tenant.name}&error=access_denied`);

    // A callback without its pending sign-in (another browser, or past ten minutes).
    const second = await start(`tenant=${tenant.name}`);
    const callback = await throughSignInPage(second, admin);
    const lost = await app().inject({ method: 'GET', url: `${callback.pathname}${callback.search}`, headers: { host: HOST } });
    assert.equal(lost.headers.location, '/console/?error=sign_in_expired');
    assert.equal(setCookie(lost, '__Host-lb-console'), undefined);

    // The code used twice: the second fails, and the first session ends with it (RFC 6749 §4.1.2).
    const third = await start(`tenant=${tenant.name}`);
    const thirdCallback = await throughSignInPage(third, admin);
    const url = `${thirdCallback.pathname}${thirdCallback.search}`;
    const first = await app().inject({ method: 'GET', url, headers: { host: HOST, cookie: pendingCookieOf(third) } });
    const firstSession = setCookie(first, '__Host-lb-console')!;
    assert.equal((await me(firstSession)).statusCode, 200);
    const replayed = await app().inject({ method: 'GET', url, headers: { host: HOST, cookie: pendingCookieOf(third) } });
    assert.equal(replayed.headers.location, `/console/?tenant=${tenant.name}&error=sign_in_failed`);
    assert.equal((await me(firstSession)).statusCode, 401);
  });

  it('comes back to console pages only, and below a tenant sub-domain stays on it', async () => {
    const tenant = await ctx.given.tenant();
    const admin = await givenAdmin(tenant);
    for (const hostile of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'people']) {
      const { location } = await signIn(tenant, admin, hostile);
      assert.equal(location, '/console/', hostile);
    }
    const host = `${tenant.name}.localhost:8080`;
    const started = await app().inject({ method: 'GET', url: '/console/auth/sign-in?return=/reports', headers: { host } });
    const authorize = new URL(String(started.headers.location));
    assert.equal(authorize.searchParams.get('redirect_uri'), `http://${host}/console/auth/callback`);
    const callback = await throughSignInPage(started, admin, host);
    assert.equal(callback.host, host);
    const res = await app().inject({
      method: 'GET',
      url: `${callback.pathname}${callback.search}`,
      headers: { host, cookie: pendingCookieOf(started) },
    });
    assert.equal(res.headers.location, '/console/reports');

    // The console client's redirect URI is on the address the request came to, never another.
    const client = authorize.searchParams.get('client_id')!;
    const elsewhere = await app().inject({
      method: 'GET',
      url: `/auth/oauth/authorize?response_type=code&client_id=${client}&redirect_uri=${encodeURIComponent('https://evil.example/console/auth/callback')}`,
      headers: { host },
    });
    assert.equal(elsewhere.statusCode, 400);
  });

  it("keeps the console's client to itself: not listed, neither deleted nor given a secret, no token over HTTP", async () => {
    const tenant = await ctx.given.tenant();
    const started = await start(`tenant=${tenant.name}`);
    const clientId = new URL(String(started.headers.location)).searchParams.get('client_id')!;
    const listed = await app().inject({ method: 'GET', url: '/api/oauth-clients', headers: tenant.headers });
    assert.equal(listed.statusCode, 403, 'an API key lists no clients');
    const { session } = await signIn(tenant, await givenAdmin(tenant));
    const headers = withSession(session, { 'x-csrf-token': await csrfOf(session) });
    const list = await app().inject({ method: 'GET', url: '/api/oauth-clients', headers });
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(list.json(), []);
    for (const [method, url] of [
      ['DELETE', `/api/oauth-clients/${clientId}`],
      ['POST', `/api/oauth-clients/${clientId}/secret`],
    ] as const) {
      const res = await app().inject({ method, url, headers });
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json().code, 'client.console');
    }
    const token = await tokenRequest(app(), {
      grant_type: 'refresh_token',
      client_id: clientId,
      client_secret: newSecret(),
      refresh_token: 'x',
    });
    assert.equal(token.statusCode, 401);
    const { rows } = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_clients WHERE tenant_id = $1 AND console', [
      tenant.id,
    ]);
    assert.equal(rows[0]!.n, 1, 'one console client, made once');
  });
});
