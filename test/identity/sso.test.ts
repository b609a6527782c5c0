import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, launchChromium, serveContentPage } from '../support/chromium.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { exchange, givenOAuth } from '../auth/oauth-token-fixtures.js';
import { startOidcProvider, type OidcFixture } from './oidc-fixtures.js';

/**
 * Single sign-on end to end: Debian's Chromium opens a launch link without `auth` on the tenant's
 * sub-domain, signs in at a real OpenID provider (oidc-provider on loopback), comes back to the
 * callback and lands on the content, launched as the person the ID token names (created just in
 * time, updated at the next sign-in, refused once deactivated). `.ci/run` sets REQUIRE_BROWSER_TESTS.
 */
const skip = browserSkip;

type Json = Record<string, unknown>;

const CONTENT_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title></head><body><p>course</p></body></html>';

interface SignOnFixture {
  tenant: GivenTenant;
  admin: Record<string, string>;
  host: string;
  activityId: string;
  provider: OidcFixture;
}

/** A tenant with a registered activity, an admin, and a connection to a fresh provider that knows Ada. */
async function givenSignOn(ctx: TestContext, contentOrigin: string): Promise<SignOnFixture> {
  const oauth = await givenOAuth(ctx);
  const { access_token: token } = await exchange(ctx.app, oauth);
  const tenant = oauth.tenant;
  const admin = { authorization: `Bearer ${token}`, 'x-svc-tenant': tenant.name };
  const port = new URL(await ctx.url()).port;
  const host = `${tenant.name}.localhost:${port}`;
  const activityId = 'http://example.com/courses/sso';
  const registered = await ctx.app.inject({
    method: 'PUT',
    url: '/api/activities',
    headers: tenant.headers,
    payload: [{ id: activityId, definition: { name: { en: 'Course' } }, launchUrl: `${contentOrigin}/course/` }],
  });
  assert.ok(registered.statusCode < 300, registered.body);
  const people = new Map<string, Record<string, unknown>>([
    ['ada', { email: 'ada@example.com', name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace' }],
  ]);
  const provider = await startOidcProvider([`http://${host}/auth/sso/callback`], people);
  const connection = await ctx.app.inject({
    method: 'PUT',
    url: '/api/sso/connections/corp',
    headers: admin,
    payload: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
  });
  assert.equal(connection.statusCode, 201, connection.body);
  const view = connection.json() as Json;
  assert.equal(view.clientSecret, '(set)', 'the secret is never answered');
  assert.deepEqual(view.claims, { email: 'email', given_name: 'givenName', family_name: 'familyName' });
  return { tenant, admin, host, activityId, provider };
}

/** Opens the launch link without auth and signs in at the provider as `login`; answers the page where it ends. */
async function signInAndLaunch(browser: Browser, fixture: SignOnFixture, login: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`http://${fixture.host}/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`);
  assert.ok(page.url().startsWith(`${fixture.provider.issuer}/interaction/`), `at the provider's sign-in: ${page.url()}`);
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any password');
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  // The provider asks to consent on a first sign-in.
  if (page.url().startsWith(`${fixture.provider.issuer}/interaction/`)) {
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  }
  return page;
}

async function peopleOf(ctx: TestContext, tenant: GivenTenant): Promise<Json[]> {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/actors?kind=all', headers: tenant.headers });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as Json[]).filter((actor) => actor.extensions !== undefined);
}

const attributesOf = (actor: Json | undefined) =>
  (actor?.extensions as Json | undefined)?.['http://localhost/api/ext/agent/attributes'] as Record<string, string> | undefined;

describeEachBackend('Single sign-on with OpenID Connect', (ctx) => {
  let browser: Browser;
  let content: Awaited<ReturnType<typeof serveContentPage>>;
  let contentOrigin: string;
  const providers: OidcFixture[] = [];

  before(async () => {
    content = await serveContentPage(CONTENT_PAGE);
    contentOrigin = content.origin;
    if (skip) return;
    browser = await launchChromium({ tenantSubdomains: true });
  });
  after(async () => {
    await browser?.close();
    await Promise.all(providers.map((provider) => provider.close()));
    await content?.close();
  });

  it('launches as the person who signed in: created just in time, updated at the next sign-in, refused once deactivated', {
    skip,
  }, async () => {
    const fixture = await givenSignOn(ctx, contentOrigin);
    providers.push(fixture.provider);

    const first = await signInAndLaunch(browser, fixture, 'ada');
    const landed = new URL(first.url());
    assert.equal(`${landed.origin}${landed.pathname}`, `${contentOrigin}/course/`, 'launched');
    assert.equal(landed.searchParams.get('endpoint'), `http://${fixture.host}/xapi/`);
    const actor = JSON.parse(landed.searchParams.get('actor') ?? '{}') as Json;
    assert.deepEqual(actor.account, { homePage: `http://${fixture.tenant.name}.localhost`, name: 'ada@example.com' });
    // The launch token works for the content, as after any launch.
    const state = await ctx.app.inject({
      method: 'GET',
      url: '/xapi/statements',
      headers: { authorization: landed.searchParams.get('auth') ?? '', 'x-experience-api-version': '1.0.3' },
    });
    assert.equal(state.statusCode, 200, state.body);

    let [ada] = await peopleOf(ctx, fixture.tenant);
    assert.equal(ada?.name, 'Ada Lovelace');
    assert.deepEqual(attributesOf(ada), { email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
    const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit', headers: fixture.admin });
    const created = (audit.json() as Json[]).find((entry) => entry.action === 'actor.created');
    assert.equal(created?.source, 'sso:corp');
    assert.deepEqual(created?.principal, { kind: 'sso', id: 'corp' });

    fixture.provider.people.set('ada', { email: 'ada@example.com', name: 'Augusta Ada King', given_name: 'Augusta', family_name: 'King' });
    const second = await signInAndLaunch(browser, fixture, 'ada');
    assert.ok(second.url().startsWith(`${contentOrigin}/course/`), second.url());
    const people = await peopleOf(ctx, fixture.tenant);
    assert.equal(people.length, 1, 'one person');
    [ada] = people;
    assert.equal(ada?.name, 'Augusta Ada King');
    assert.deepEqual(attributesOf(ada), { email: 'ada@example.com', givenName: 'Augusta', familyName: 'King' });

    // Deactivated (an HR leaver), she cannot sign in; her session's credential is revoked with it.
    const hook = await ctx.app.inject({ method: 'POST', url: '/api/hr-webhooks', headers: fixture.admin });
    const { url, secret } = hook.json() as { url: string; secret: string };
    const { Webhook } = await import('standardwebhooks');
    const body = JSON.stringify({ type: 'person.left', data: { attributes: { email: 'ada@example.com' } } });
    const at = new Date();
    const left = await ctx.app.inject({
      method: 'POST',
      url: new URL(url).pathname,
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_left',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign('msg_left', at, body),
      },
      payload: body,
    });
    assert.equal(left.statusCode, 202, left.body);
    for (let tries = 0; (await peopleOf(ctx, fixture.tenant)).length > 0 && tries < 100; tries++) {
      const deactivated = await ctx.app.inject({ method: 'GET', url: '/api/actors?kind=deactivated', headers: fixture.tenant.headers });
      if ((deactivated.json() as Json[]).length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const refused = await signInAndLaunch(browser, fixture, 'ada');
    assert.ok(refused.url().startsWith(`http://${fixture.host}/auth/sso/callback`), refused.url());
    assert.match(await refused.content(), /Your account is not active/);
    const revoked = await ctx.app.inject({
      method: 'GET',
      url: '/xapi/statements',
      headers: { authorization: landed.searchParams.get('auth') ?? '', 'x-experience-api-version': '1.0.3' },
    });
    assert.equal(revoked.statusCode, 401, 'the launch of a deactivated person ends');
  });

  it('refuses a return without the sign-in’s cookie, an unknown state, and a state used twice; a link of a tenant without a connection still needs auth', async () => {
    const tenant = await ctx.given.tenant();
    const unknown = await ctx.app.inject({
      method: 'GET',
      url: '/auth/sso/callback?state=nope&code=x',
      headers: { cookie: 'lb_sso_state=nope' },
    });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(String(unknown.headers['content-type']), /^text\/html/);
    const noCookie = await ctx.app.inject({ method: 'GET', url: '/auth/sso/callback?state=nope&code=x' });
    assert.equal(noCookie.statusCode, 400, noCookie.body);
    const link = await ctx.app.inject({
      method: 'GET',
      url: '/api/activities/launch?activityId=http://example.com/x',
      headers: { 'x-svc-tenant': tenant.name },
    });
    assert.equal(link.statusCode, 400, 'no connection: auth is required as before');
  });

  it('takes a connection only from an admin, checks it, and never answers its secret', async () => {
    const oauth = await givenOAuth(ctx);
    const { access_token: token } = await exchange(ctx.app, oauth);
    const admin = { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name };
    const put = (name: string, payload: unknown, headers: Record<string, string> = admin) =>
      ctx.app.inject({ method: 'PUT', url: `/api/sso/connections/${name}`, headers, payload: payload as object });
    const valid = { issuer: 'https://login.example.com/realms/acme', clientId: 'learnbase', clientSecret: 's3cret' };
    assert.equal((await put('corp', valid, oauth.tenant.headers)).statusCode, 403, 'an API key');
    const bad = await put('corp', { issuer: 'http://login.example.com', clientId: '', scopes: 'email', claims: { email: 5 }, extra: true });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(
      (bad.json().details.problems as Json[]).map((problem) => problem.path),
      ['/extra', '/issuer', '/clientId', '/scopes', '/claims/email'],
    );
    assert.equal((await put('Not A Name', valid)).statusCode, 400);
    assert.equal((await put('corp', valid)).statusCode, 201);
    const unknownConnection = await ctx.app.inject({
      method: 'GET',
      url: '/api/activities/launch?activityId=http://example.com/x&connection=nope',
      headers: { 'x-svc-tenant': oauth.tenant.name },
    });
    assert.equal(unknownConnection.statusCode, 404, 'a link naming a connection the tenant has not');
    assert.match(String(unknownConnection.headers['content-type']), /^text\/html/);
    const replaced = await put('corp', { ...valid, claims: { email: 'email', employee_id: 'employeeId' } });
    assert.equal(replaced.statusCode, 200, replaced.body);
    const listed = await ctx.app.inject({ method: 'GET', url: '/api/sso/connections', headers: admin });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.ok(!listed.body.includes('s3cret'), 'never the secret');
    assert.deepEqual(
      (listed.json() as Json[]).map((connection) => [connection.name, connection.claims]),
      [['corp', { email: 'email', employee_id: 'employeeId' }]],
    );
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: '/api/sso/connections/corp', headers: admin })).statusCode, 204);
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: '/api/sso/connections/corp', headers: admin })).statusCode, 404);
  });
});
