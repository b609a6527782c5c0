import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import { givenLaunchTenant, peopleOf } from './sign-on-fixtures.js';
import { type Attributes, readAuthnRequest, type SamlIdpFixture, startSamlIdp } from './saml-fixtures.js';

/**
 * Single sign-on behind LEARNBASE_PUBLIC_URL, as production runs it: the server known to browsers
 * and providers as https://lrs.example.com/learning (a proxy strips `/learning`), and each tenant's
 * launch links opened on its own sub-domain. The provider returns the browser to the public
 * address, so the sign-in must begin there (the state cookie is set where the browser returns, at
 * the path it sees), and the content is handed the public address's xAPI endpoint, path included.
 */
const PUBLIC_URL = 'https://lrs.example.com/learning';
const CONTENT = 'https://content.example.com';
const ADA: Attributes = { email: 'ada@example.com', givenName: 'Ada', sn: 'Lovelace' };

const idps: SamlIdpFixture[] = [];
after(async () => Promise.all(idps.map((idp) => idp.close())));

/** What the proxy in front of the server does: the public address's host, its path prefix taken off. */
const throughProxy = (url: URL) => ({ url: `${url.pathname.replace(/^\/learning/, '')}${url.search}`, host: url.host });

describeEachBackend(
  'Single sign-on at the public address (LEARNBASE_PUBLIC_URL with a path)',
  (ctx) => {
    it('begins a launch link’s sign-in at the public address, and finishes it there as the person the provider names', async () => {
      const fixture = await givenLaunchTenant(ctx, CONTENT, 'http://example.com/courses/public-url');
      const idp = await startSamlIdp(new Map([['ada', { ...ADA }]]));
      idps.push(idp);
      const put = await ctx.app.inject({
        method: 'PUT',
        url: '/api/sso/connections/corp',
        headers: fixture.admin,
        payload: { protocol: 'saml', metadataUrl: idp.metadataUrl },
      });
      assert.equal(put.statusCode, 201, put.body);
      assert.equal(put.json().acsUrl, `${PUBLIC_URL}/auth/sso/saml`);

      // The link, opened on the tenant's sub-domain: on to the public address, nothing set here.
      const link = await ctx.app.inject({
        method: 'GET',
        url: `/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`,
        headers: { host: fixture.host },
      });
      assert.equal(link.statusCode, 302, link.body);
      assert.equal(link.headers['set-cookie'], undefined);
      const hop = new URL(String(link.headers.location));
      assert.equal(`${hop.origin}${hop.pathname}`, `${PUBLIC_URL}/auth/sso/launch/${fixture.tenant.name}`);
      assert.deepEqual(Object.fromEntries(hop.searchParams), { activityId: fixture.activityId, connection: 'corp' });

      // At the public address: to the provider, the state cookie set for the callback's path as the browser sees it.
      const begun = await ctx.app.inject({ method: 'GET', ...throughProxy(hop) });
      assert.equal(begun.statusCode, 302, begun.body);
      const location = String(begun.headers.location);
      assert.ok(location.startsWith(`${idp.ssoUrl}?`), location);
      const setCookie = String(begun.headers['set-cookie']);
      assert.match(setCookie, /; Path=\/learning\/auth\/sso\/callback;/);
      assert.match(setCookie, /; Secure$/);
      const cookie = setCookie.split(';')[0]!;
      const request = readAuthnRequest(location);
      assert.equal(request.acsUrl, `${PUBLIC_URL}/auth/sso/saml`);

      // The provider's answer, posted to the public ACS: on to the public callback, its path kept.
      const posted = await ctx.app.inject({
        method: 'POST',
        ...throughProxy(new URL(request.acsUrl)),
        headers: { host: 'lrs.example.com', 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          SAMLResponse: idp.response({
            inResponseTo: request.id,
            acsUrl: request.acsUrl,
            audience: put.json().spEntityId,
            nameId: 'ada@example.com',
            attributes: ADA,
          }),
          RelayState: request.relayState,
        }).toString(),
      });
      assert.equal(posted.statusCode, 303, posted.body);
      const callback = new URL(String(posted.headers.location));
      assert.equal(`${callback.origin}${callback.pathname}`, `${PUBLIC_URL}/auth/sso/callback`);

      // The browser returns with the cookie: launched, the content handed the public xAPI endpoint.
      const launched = await ctx.app.inject({ method: 'GET', ...throughProxy(callback), headers: { cookie } });
      assert.equal(launched.statusCode, 302, launched.body);
      const content = new URL(String(launched.headers.location));
      assert.equal(`${content.origin}${content.pathname}`, `${CONTENT}/course/`);
      assert.equal(content.searchParams.get('endpoint'), `${PUBLIC_URL}/xapi/`);
      assert.equal((await peopleOf(ctx, fixture.tenant)).length, 1);
    });

    it('refuses a sign-in begun for another tenant than the address names, an unknown tenant, and a tenant without single sign-on', async () => {
      const fixture = await givenLaunchTenant(ctx, CONTENT, 'http://example.com/courses/public-url');
      const begin = (tenant: string, headers: Record<string, string> = {}, query = { activityId: fixture.activityId }) =>
        ctx.app.inject({ method: 'GET', url: `/auth/sso/launch/${tenant}?${new URLSearchParams(query)}`, headers });
      const mismatch = await begin(fixture.tenant.name, { 'x-svc-tenant': 'another' });
      assert.equal(mismatch.statusCode, 400);
      assert.match(String(mismatch.headers['content-type']), /^text\/html/);
      assert.equal((await begin('no-such-tenant')).statusCode, 404);
      const none = await begin(fixture.tenant.name);
      assert.equal(none.statusCode, 404, 'the tenant has no connection');
      assert.equal(none.headers['set-cookie'], undefined);
      assert.equal((await begin(fixture.tenant.name, {}, {} as { activityId: string })).statusCode, 400, 'no activityId');
      // And a link on the tenant's address, the tenant having no connection, is the launch it always was: 400 without auth.
      const link = await ctx.app.inject({
        method: 'GET',
        url: `/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`,
        headers: { host: fixture.host },
      });
      assert.equal(link.statusCode, 400);
      assert.match(link.body, /This link is incomplete/);
    });
  },
  { publicUrl: PUBLIC_URL },
);
