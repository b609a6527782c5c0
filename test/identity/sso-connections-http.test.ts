import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { exchange, givenOAuth } from '../auth/oauth-token-fixtures.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';

type Json = Record<string, any>;

/** An admin of the whole tenant (a Bearer token) and the tenant's API key. */
async function givenTenantAdmin(ctx: TestContext) {
  const oauth = await givenOAuth(ctx);
  const { access_token: token } = await exchange(ctx.app, oauth);
  return { oauth, token, headers: { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name } };
}

const OIDC = { issuer: 'https://login.example.com/realms/acme', clientId: 'learnbase', clientSecret: 'the first secret' };
const PEM = readFileSync(new URL('./fixtures/saml-idp.crt', import.meta.url), 'utf8');
const SAML = { protocol: 'saml', idpEntityId: 'https://idp.example.com', entryPoint: 'https://idp.example.com/sso', certificates: [PEM] };

describeEachBackend('GET /api/sso/connections/{name}', (ctx) => {
  const send = (method: 'GET' | 'PUT', url: string, headers: Record<string, string>, payload?: unknown) =>
    ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('answers one OpenID Connect connection in the shape of an element of the list', async () => {
    const admin = await givenTenantAdmin(ctx);
    assert.equal((await send('PUT', '/api/sso/connections/corp', admin.headers, OIDC)).statusCode, 201);
    assert.equal((await send('PUT', '/api/sso/connections/other', admin.headers, { ...OIDC, clientSecret: undefined })).statusCode, 201);
    const listed = (await send('GET', '/api/sso/connections', admin.headers)).json() as Json[];
    for (const element of listed) {
      const one = await send('GET', `/api/sso/connections/${element.name}`, admin.headers);
      assert.equal(one.statusCode, 200, one.body);
      assert.deepEqual(one.json(), element);
    }
    const corp = (await send('GET', '/api/sso/connections/corp', admin.headers)).json();
    assert.equal(corp.clientSecret, '(set)', 'never the secret');
    assert.equal(corp.certificateDetails, undefined);
    assert.ok(!JSON.stringify(corp).includes('the first secret'));
  });

  it('answers a SAML connection with its certificates’ subject, issuer, serial number, validity and fingerprint', async () => {
    const admin = await givenTenantAdmin(ctx);
    const put = await send('PUT', '/api/sso/connections/entra', admin.headers, SAML);
    assert.equal(put.statusCode, 201, put.body);
    const one = await send('GET', '/api/sso/connections/entra', admin.headers);
    assert.equal(one.statusCode, 200, one.body);
    const { certificateDetails, ...asListed } = one.json() as Json;
    assert.deepEqual(asListed, (await send('GET', '/api/sso/connections', admin.headers)).json()[0], 'the list’s shape, plus the details');
    assert.equal(asListed.certificates, 1);
    assert.deepEqual(certificateDetails, [
      {
        subject: 'CN=saml-idp.test',
        issuer: 'CN=saml-idp.test',
        serialNumber: '4A097716B3FD363A8A1337BCD1067D8F0B26B9BC',
        notBefore: '2026-11-28T09:30:34.000Z',
        notAfter: '2126-11-04T09:30:34.000Z',
        fingerprint: 'E6:9D:85:0D:9C:F6:B4:CC:58:5F:71:E0:8B:BC:BD:BC:ED:E4:10:CF:C1:B0:DB:78:F8:4A:0F:DE:B4:47:1A:15',
      },
    ]);
  });

  it('answers 404 identity.connection_not_found in the API’s error shape for a name the tenant has not, or no connection could have', async () => {
    const admin = await givenTenantAdmin(ctx);
    for (const name of ['nobody', 'Not%20A%20Name', 'x'.repeat(41)]) {
      const res = await send('GET', `/api/sso/connections/${name}`, admin.headers);
      assert.equal(res.statusCode, 404, `${name}: ${res.body}`);
      assert.equal(res.json().code, 'identity.connection_not_found');
      assert.match(res.json().message, /has no single sign-on connection/);
    }
  });

  it('refuses nobody (401), another tenant’s admin (401) and an API key (403); another tenant’s admin finds none in its own', async () => {
    const a = await givenTenantAdmin(ctx);
    const b = await givenTenantAdmin(ctx);
    assert.equal((await send('PUT', '/api/sso/connections/corp', a.headers, OIDC)).statusCode, 201);
    const url = '/api/sso/connections/corp';
    const nobody = await send('GET', url, { 'x-svc-tenant': a.oauth.tenant.name });
    assert.equal(nobody.statusCode, 401, nobody.body);
    const crossed = await send('GET', url, { authorization: `Bearer ${b.token}`, 'x-svc-tenant': a.oauth.tenant.name });
    assert.equal(crossed.statusCode, 401, crossed.body);
    const apiKey = await send('GET', url, a.oauth.tenant.headers);
    assert.equal(apiKey.statusCode, 403, apiKey.body);
    const ownTenant = await send('GET', url, b.headers);
    assert.equal(ownTenant.statusCode, 404, ownTenant.body);
    assert.equal(ownTenant.json().code, 'identity.connection_not_found');
  });
});

describeEachBackend('PUT /api/sso/connections/{name}: the client secret and If-None-Match', (ctx) => {
  const put = (headers: Record<string, string>, payload: unknown, extra: Record<string, string> = {}, name = 'corp') =>
    ctx.app.inject({ method: 'PUT', url: `/api/sso/connections/${name}`, headers: { ...headers, ...extra }, payload: payload as object });
  const storedSecret = async (tenantId: string, name = 'corp') =>
    (
      await ctx.db.query<{ client_secret: string | null }>('SELECT client_secret FROM sso_connections WHERE tenant_id = $1 AND name = $2', [
        tenantId,
        name,
      ])
    ).rows[0]?.client_secret;
  const actions = async (headers: Record<string, string>) =>
    ((await ctx.app.inject({ method: 'GET', url: '/api/audit', headers })).json() as Json[])
      .filter((entry) => String(entry.action).startsWith('sso_connection.'))
      .map((entry) => entry.action)
      .reverse();

  it('keeps the stored secret when a replacement sends none, removes it for null, replaces it when sent; audited as before', async () => {
    const admin = await givenTenantAdmin(ctx);
    const tenantId = admin.oauth.tenant.id;
    const created = await put(admin.headers, OIDC);
    assert.equal(created.statusCode, 201, created.body);
    const sealed = await storedSecret(tenantId);
    assert.match(String(sealed), /^v1:/);

    const kept = await put(admin.headers, { issuer: OIDC.issuer, clientId: OIDC.clientId, scopes: 'openid email' });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.equal(kept.json().clientSecret, '(set)');
    assert.equal(kept.json().scopes, 'openid email', 'the rest replaced');
    assert.equal(await storedSecret(tenantId), sealed, 'the very secret stored before');
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: '/api/sso/connections/corp', headers: admin.headers })).json().clientSecret,
      '(set)',
    );

    const replaced = await put(admin.headers, { ...OIDC, clientSecret: 'the second secret' });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.equal(replaced.json().clientSecret, '(set)');
    const resealed = await storedSecret(tenantId);
    assert.match(String(resealed), /^v1:/);
    assert.notEqual(resealed, sealed);

    const removed = await put(admin.headers, { ...OIDC, clientSecret: null });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.equal(removed.json().clientSecret, null, 'a public client now');
    assert.equal(await storedSecret(tenantId), null);

    const stillNone = await put(admin.headers, { issuer: OIDC.issuer, clientId: OIDC.clientId });
    assert.equal(stillNone.json().clientSecret, null, 'nothing to keep');

    assert.deepEqual(await actions(admin.headers), [
      'sso_connection.created',
      'sso_connection.updated',
      'sso_connection.updated',
      'sso_connection.updated',
      'sso_connection.updated',
    ]);
  });

  it('keeps no secret across a change of protocol, and a new connection without one has none', async () => {
    const admin = await givenTenantAdmin(ctx);
    const tenantId = admin.oauth.tenant.id;
    assert.equal((await put(admin.headers, OIDC)).statusCode, 201);
    const saml = await put(admin.headers, SAML);
    assert.equal(saml.statusCode, 200, saml.body);
    assert.equal(await storedSecret(tenantId), null, 'a SAML connection holds no client secret');
    const back = await put(admin.headers, { issuer: OIDC.issuer, clientId: OIDC.clientId });
    assert.equal(back.statusCode, 200, back.body);
    assert.equal(back.json().clientSecret, null, 'the OpenID Connect secret of before the SAML one is gone');
    const fresh = await put(admin.headers, { issuer: OIDC.issuer, clientId: OIDC.clientId }, {}, 'fresh');
    assert.equal(fresh.statusCode, 201, fresh.body);
    assert.equal(fresh.json().clientSecret, null);
  });

  it('refuses a clientSecret that is not text, or is null on a SAML connection, naming it', async () => {
    const admin = await givenTenantAdmin(ctx);
    for (const [body, path] of [
      [{ ...OIDC, clientSecret: 42 }, '/clientSecret'],
      [{ ...OIDC, clientSecret: '' }, '/clientSecret'],
      [{ ...OIDC, clientSecret: 'x'.repeat(501) }, '/clientSecret'],
      [{ ...SAML, clientSecret: null }, '/clientSecret'],
    ] as const) {
      const res = await put(admin.headers, body);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'identity.invalid_connection');
      assert.deepEqual(
        (res.json().details.problems as Json[]).map((problem) => problem.path),
        [path],
      );
    }
  });

  it('If-None-Match: * creates, and answers 412 identity.connection_exists for a connection the tenant has, changing nothing', async () => {
    const admin = await givenTenantAdmin(ctx);
    const tenantId = admin.oauth.tenant.id;
    const created = await put(admin.headers, OIDC, { 'if-none-match': '*' });
    assert.equal(created.statusCode, 201, created.body);
    const sealed = await storedSecret(tenantId);
    const again = await put(admin.headers, { ...OIDC, clientId: 'another', clientSecret: null }, { 'if-none-match': '*' });
    assert.equal(again.statusCode, 412, again.body);
    assert.equal(again.json().code, 'identity.connection_exists');
    assert.match(again.json().message, /has a single sign-on connection "corp" already.*If-None-Match/);
    const one = (await ctx.app.inject({ method: 'GET', url: '/api/sso/connections/corp', headers: admin.headers })).json();
    assert.equal(one.clientId, 'learnbase', 'unchanged');
    assert.equal(await storedSecret(tenantId), sealed);
    // A SAML connection named by a metadata URL is refused before the URL is read (nothing listens there).
    const saml = await put(admin.headers, { protocol: 'saml', metadataUrl: 'http://127.0.0.1:9/metadata' }, { 'if-none-match': '*' });
    assert.equal(saml.statusCode, 412, saml.body);
    assert.deepEqual(await actions(admin.headers), ['sso_connection.created'], 'one entry: the creation');

    for (const value of ['"v1"', 'W/"x"', '*, "v1"']) {
      const res = await put(admin.headers, OIDC, { 'if-none-match': value }, 'other');
      assert.equal(res.statusCode, 400, `${value}: ${res.body}`);
      assert.equal(res.json().code, 'identity.invalid_precondition');
      assert.match(res.json().message, /If-None-Match takes only "\*"/);
    }
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/sso/connections/other', headers: admin.headers })).statusCode, 404);
  });

  it('refuses nobody (401), another tenant’s admin (401) and an API key (403) before any precondition', async () => {
    const a = await givenTenantAdmin(ctx);
    const b = await givenTenantAdmin(ctx);
    assert.equal((await put(a.headers, OIDC)).statusCode, 201);
    const ifNoneMatch = { 'if-none-match': '*' };
    assert.equal((await put({ 'x-svc-tenant': a.oauth.tenant.name }, OIDC, ifNoneMatch)).statusCode, 401);
    assert.equal(
      (await put({ authorization: `Bearer ${b.token}`, 'x-svc-tenant': a.oauth.tenant.name }, OIDC, ifNoneMatch)).statusCode,
      401,
    );
    assert.equal((await put(a.oauth.tenant.headers, OIDC, ifNoneMatch)).statusCode, 403);
    // B's own tenant has no "corp": created there, A's untouched.
    assert.equal((await put(b.headers, { ...OIDC, clientSecret: null }, ifNoneMatch)).statusCode, 201);
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: '/api/sso/connections/corp', headers: a.headers })).json().clientSecret,
      '(set)',
    );
  });
});
