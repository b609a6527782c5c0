import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describeEachBackend('authentication and tenancy', (ctx) => {
  it('answers the principal and tenant of a valid API key named by X-SVC-Tenant', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({ method: 'GET', url: '/api/me', headers: tenant.headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { tenant: { id: tenant.id, name: tenant.name }, principal: { kind: 'api_key', id: tenant.key } });
  });

  it('marks Basic API-key responses as deprecated (RFC 9745) with a link to the docs', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({ method: 'GET', url: '/api/me', headers: tenant.headers });
    assert.match(String(res.headers.deprecation), /^@\d+$/);
    assert.match(String(res.headers.link), /rel="deprecation"/);
  });

  it('takes the tenant from a {tenant}.{base-domain} Host', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: tenant.authorization, host: `${tenant.name}.localhost:8080` },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().tenant.name, tenant.name);
  });

  it("reads a Host with a trailing dot as naming its tenant, so another tenant's key is refused", async () => {
    const a = await ctx.given.tenant();
    const b = await ctx.given.tenant();
    const own = await ctx.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: b.authorization, host: `${b.name}.localhost.:8080` },
    });
    assert.equal(own.statusCode, 200);
    assert.equal(own.json().tenant.name, b.name);
    const other = await ctx.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: a.authorization, host: `${b.name}.localhost.:8080` },
    });
    assert.equal(other.statusCode, 401);
    const xapi = await ctx.app.inject({
      method: 'GET',
      url: '/xapi/statements',
      headers: { authorization: a.authorization, host: `${b.name.toUpperCase()}.LOCALHOST.`, 'x-experience-api-version': '2.0.0' },
    });
    assert.equal(xapi.statusCode, 401);
  });

  it('refuses a Host nested deeper than {tenant}.{base-domain} instead of falling back to the credential', async () => {
    const tenant = await ctx.given.tenant();
    for (const host of [`x.${tenant.name}.localhost`, `x.${tenant.name}.localhost:8080`, '.localhost:8080']) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/me', headers: { authorization: tenant.authorization, host } });
      assert.equal(res.statusCode, 400, host);
      assert.equal(res.json().code, 'tenant.invalid_host');
      assert.match(res.json().message, /one label deep/);
    }
  });

  it('takes the tenant from the credential when neither Host nor header names one', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: tenant.authorization, host: '127.0.0.1:8080' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().tenant.id, tenant.id);
  });

  it('answers 400 when the Host and X-SVC-Tenant name different tenants', async () => {
    const a = await ctx.given.tenant();
    const b = await ctx.given.tenant();
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { ...a.headers, host: `${b.name}.localhost` },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'tenant.mismatch');
  });

  it('answers 404 naming an unknown tenant', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: tenant.authorization, 'x-svc-tenant': 'no-such-tenant' },
    });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'tenant.not_found');
    assert.match(res.json().message, /no-such-tenant/);
  });

  it('refuses a key of tenant A used against tenant B with 401', async () => {
    const a = await ctx.given.tenant();
    const b = await ctx.given.tenant();
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: a.authorization, 'x-svc-tenant': b.name },
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['www-authenticate'], 'Basic realm="learnbase", charset="UTF-8"');
  });

  it('refuses a missing, malformed, unknown or wrong credential with 401 and a Basic challenge', async () => {
    const tenant = await ctx.given.tenant();
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      'not base64 of key:secret': 'Basic bm9jb2xvbg==',
      'wrong secret': basic(tenant.key, 'wrong'),
      'unknown key': basic(`lb_${'0'.repeat(32)}_${'0'.repeat(16)}`, tenant.secret),
      'other scheme': 'Digest abc',
      'empty secret': basic(tenant.key, ''),
    };
    for (const [name, authorization] of Object.entries(cases)) {
      const headers: Record<string, string> = { 'x-svc-tenant': tenant.name };
      if (authorization) headers.authorization = authorization;
      const res = await ctx.app.inject({ method: 'GET', url: '/api/me', headers });
      assert.equal(res.statusCode, 401, name);
      assert.ok(res.headers['www-authenticate'], name);
      assert.equal(res.json().code, 'auth.unauthorized', name);
    }
  });

  it('answers 401 naming the ways to name a tenant when there is neither tenant nor credential', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/me', headers: { host: '127.0.0.1:8080' } });
    assert.equal(res.statusCode, 401);
    assert.match(res.json().message, /X-SVC-Tenant/);
    assert.match(res.json().message, /sub-domain/);
  });

  it('serves the API description and reference without a credential', async () => {
    const spec = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(spec.statusCode, 200);
    assert.equal(spec.json().openapi, '3.1.0');
    assert.ok(spec.json().paths['/api/me']);
    const page = await ctx.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /text\/html/);
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const kept = await ctx.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'lb-trace-1' } });
    assert.equal(kept.headers['x-request-id'], 'lb-trace-1');
    const made = await ctx.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });
});
