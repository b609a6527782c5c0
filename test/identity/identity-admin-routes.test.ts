import assert from 'node:assert/strict';
import { it } from 'node:test';
import { exchange, givenOAuth } from '../auth/oauth-token-fixtures.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';

/**
 * The identity module's admin routes (SCIM tokens, HR webhooks, single sign-on connections) refuse
 * whoever is not an admin of the whole tenant: nobody (401), an API key (403), another tenant's
 * admin naming this tenant (401); and in their own tenant, another tenant's admin finds none of
 * this tenant's tokens, webhooks or connections.
 */
async function givenTenantAdmin(ctx: TestContext) {
  const oauth = await givenOAuth(ctx);
  const { access_token: token } = await exchange(ctx.app, oauth);
  return { oauth, token, headers: { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name } };
}

type Route = ['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?];

const CONNECTION = { issuer: 'https://login.example.com/realms/acme', clientId: 'learnbase', clientSecret: 's3cret' };

describeEachBackend('Identity admin routes and tenants', (ctx) => {
  it('refuse nobody, an API key and another tenant’s admin; another tenant’s admin finds nothing of this tenant', async () => {
    const a = await givenTenantAdmin(ctx);
    const b = await givenTenantAdmin(ctx);
    const send = (method: Route[0], url: string, headers: Record<string, string>, payload?: unknown) =>
      ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

    const scimToken = await send('POST', '/api/scim-tokens', a.headers);
    assert.equal(scimToken.statusCode, 201, scimToken.body);
    const hook = await send('POST', '/api/hr-webhooks', a.headers);
    assert.equal(hook.statusCode, 201, hook.body);
    assert.equal((await send('PUT', '/api/sso/connections/corp', a.headers, CONNECTION)).statusCode, 201);
    const routes: Route[] = [
      ['GET', '/api/scim-tokens'],
      ['POST', '/api/scim-tokens'],
      ['DELETE', `/api/scim-tokens/${scimToken.json().id}`],
      ['GET', '/api/hr-webhooks'],
      ['POST', '/api/hr-webhooks'],
      ['DELETE', `/api/hr-webhooks/${hook.json().id}`],
      ['GET', '/api/hr-webhooks/messages'],
      ['GET', '/api/sso/connections'],
      ['GET', '/api/sso/connections/corp'],
      ['GET', '/api/sso/connections/corp/metadata'],
      ['POST', '/api/sso/connections/corp/refresh'],
      ['PUT', '/api/sso/connections/corp', CONNECTION],
      ['DELETE', '/api/sso/connections/corp'],
    ];
    const tenantA = a.oauth.tenant;
    for (const [method, url, payload] of routes) {
      const anonymous = await send(method, url, { 'x-svc-tenant': tenantA.name }, payload);
      assert.equal(anonymous.statusCode, 401, `nobody: ${method} ${url}: ${anonymous.body}`);
      const apiKey = await send(method, url, tenantA.headers, payload);
      assert.equal(apiKey.statusCode, 403, `an API key: ${method} ${url}: ${apiKey.body}`);
      const otherAdmin = await send(method, url, { authorization: `Bearer ${b.token}`, 'x-svc-tenant': tenantA.name }, payload);
      assert.equal(otherAdmin.statusCode, 401, `another tenant's admin: ${method} ${url}: ${otherAdmin.body}`);
    }

    // B in its own tenant: none of A's.
    for (const list of ['/api/scim-tokens', '/api/hr-webhooks', '/api/hr-webhooks/messages', '/api/sso/connections']) {
      const listed = await send('GET', list, b.headers);
      assert.equal(listed.statusCode, 200, listed.body);
      assert.deepEqual(listed.json(), [], `${list} of tenant B`);
    }
    assert.equal((await send('DELETE', `/api/scim-tokens/${scimToken.json().id}`, b.headers)).statusCode, 404);
    assert.equal((await send('DELETE', `/api/hr-webhooks/${hook.json().id}`, b.headers)).statusCode, 404);
    assert.equal((await send('DELETE', '/api/sso/connections/corp', b.headers)).statusCode, 404);
    const metadataOfB = await send('GET', '/api/sso/connections/corp/metadata', b.headers);
    assert.equal(metadataOfB.statusCode, 404);
    assert.equal(metadataOfB.json().code, 'identity.connection_not_found');
    // A's connection is an OpenID Connect one: no SAML metadata.
    const metadataOfA = await send('GET', '/api/sso/connections/corp/metadata', a.headers);
    assert.equal(metadataOfA.statusCode, 404);
    assert.equal(metadataOfA.json().code, 'identity.not_saml');
    const refreshOfB = await send('POST', '/api/sso/connections/corp/refresh', b.headers);
    assert.equal(refreshOfB.statusCode, 404);
    assert.equal(refreshOfB.json().code, 'identity.no_metadata_url');
    const publishedOfA = await send('GET', `/auth/sso/saml/${a.oauth.tenant.name}/corp/metadata`, {});
    assert.equal(publishedOfA.statusCode, 404);
    assert.equal(publishedOfA.json().code, 'identity.not_saml');

    // A's are all still there, and A's SCIM token is not B's.
    assert.equal((await send('GET', '/api/scim-tokens', a.headers)).json().length, 1);
    assert.equal((await send('GET', '/api/hr-webhooks', a.headers)).json().length, 1);
    assert.equal((await send('GET', '/api/sso/connections', a.headers)).json().length, 1);
    const scimOfA = { authorization: `Bearer ${scimToken.json().token}` };
    assert.equal((await send('GET', '/scim/v2/Users', { ...scimOfA, 'x-svc-tenant': tenantA.name })).statusCode, 200);
    assert.equal((await send('GET', '/scim/v2/Users', { ...scimOfA, 'x-svc-tenant': b.oauth.tenant.name })).statusCode, 401);
  });
});
