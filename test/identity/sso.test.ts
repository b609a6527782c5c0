import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, launchChromium, serveContentPage } from '../support/chromium.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { exchange, givenOAuth, pkceChallenge, REDIRECT_URI, submitSignInForm } from '../auth/oauth-token-fixtures.js';
import { createClient } from '../../src/modules/auth/oauth/clients/client.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { newSecret } from '../../src/platform/issued-secrets.js';
import { startOidcProvider, type OidcFixture } from './oidc-fixtures.js';
import { type IdTokenSigning, type OidcIssuerFixture, startOidcIssuer } from './oidc-issuer-fixtures.js';
import { attributesOf, givenLaunchTenant, type LaunchTenant, peopleOf, signInAtOidcProvider } from './sign-on-fixtures.js';

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

interface SignOnFixture extends LaunchTenant {
  provider: OidcFixture;
}

/** A tenant with a registered activity, an admin, and a connection to a fresh provider that knows Ada. */
async function givenSignOn(ctx: TestContext, contentOrigin: string): Promise<SignOnFixture> {
  const launchTenant = await givenLaunchTenant(ctx, contentOrigin, 'http://example.com/courses/sso');
  const { host, admin } = launchTenant;
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
  return { ...launchTenant, provider };
}

/** Opens the launch link without auth and signs in at the provider as `login`; answers the page where it ends. */
async function signInAndLaunch(browser: Browser, fixture: SignOnFixture, login: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`http://${fixture.host}/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`);
  await signInAtOidcProvider(page, fixture.provider.issuer, login);
  return page;
}

describeEachBackend('Single sign-on with OpenID Connect', (ctx) => {
  let browser: Browser;
  let content: Awaited<ReturnType<typeof serveContentPage>>;
  let contentOrigin: string;
  const providers: Array<OidcFixture | OidcIssuerFixture> = [];

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

  it('signs an admin in on the authorize page through the provider: the admins claim makes them one, created at the first sign-in', {
    skip,
  }, async () => {
    const fixture = await givenSignOn(ctx, contentOrigin);
    providers.push(fixture.provider);
    fixture.provider.people.set('grace', { email: 'Grace@Example.com', name: 'Grace Hopper', groups: ['staff', 'lb-admins'] });
    const tenant = (await new TenancyService(ctx.db, 0).findById(fixture.tenant.id))!;
    const redirectUri = `http://${fixture.host}/auth/demo/callback`;
    const client = await createClient(ctx.db, tenant, [redirectUri], 'Reports App');
    const put = await ctx.app.inject({
      method: 'PUT',
      url: '/api/sso/connections/corp',
      headers: fixture.admin,
      payload: {
        issuer: fixture.provider.issuer,
        clientId: fixture.provider.clientId,
        clientSecret: fixture.provider.clientSecret,
        admins: { claim: 'groups', value: 'lb-admins' },
      },
    });
    assert.equal(put.statusCode, 200, put.body);

    const verifier = newSecret(48);
    const authorize = async (login: string) => {
      const page = await (await browser.newContext()).newPage();
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: redirectUri,
        state: 'st',
        code_challenge: pkceChallenge(verifier),
        code_challenge_method: 'S256',
      });
      await page.goto(`http://${fixture.host}/auth/oauth/authorize?${query}`);
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in with corp' }).click()]);
      await signInAtOidcProvider(page, fixture.provider.issuer, login);
      return page;
    };

    const signedIn = await authorize('grace');
    const landed = new URL(signedIn.url());
    assert.equal(`${landed.origin}${landed.pathname}`, redirectUri, signedIn.url());
    assert.equal(landed.searchParams.get('state'), 'st');
    const token = await ctx.app.inject({
      method: 'POST',
      url: '/auth/oauth/token',
      payload: {
        grant_type: 'authorization_code',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uri: redirectUri,
        code: landed.searchParams.get('code'),
        code_verifier: verifier,
      },
    });
    assert.equal(token.statusCode, 200, token.body);
    const asGrace = { authorization: `Bearer ${token.json().access_token}`, 'x-svc-tenant': fixture.tenant.name };
    const adminOnly = await ctx.app.inject({ method: 'GET', url: '/api/sso/connections', headers: asGrace });
    assert.equal(adminOnly.statusCode, 200, 'an admin of the whole tenant');
    const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=admin.created', headers: fixture.admin });
    const created = (audit.json() as Json[])[0];
    assert.equal(created?.source, 'sso:corp');
    assert.equal((created?.details as Json | undefined)?.email, 'grace@example.com');
    assert.deepEqual(await peopleOf(ctx, fixture.tenant), [], 'an admin is not made a learner');

    const refused = await authorize('ada');
    assert.ok(refused.url().startsWith(`http://${fixture.host}/auth/sso/callback`), refused.url());
    assert.match(await refused.content(), /You are not an administrator here/);
    const again = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=admin.created', headers: fixture.admin });
    assert.equal((again.json() as Json[]).length, 1, 'no admin made of Ada');
  });

  it('never launches as the holder of an e-mail the provider says is unverified (false or "false"), nor makes an admin of it', {
    skip,
  }, async () => {
    const fixture = await givenSignOn(ctx, contentOrigin);
    providers.push(fixture.provider);
    const launched = new URL((await signInAndLaunch(browser, fixture, 'ada')).url());
    assert.equal(`${launched.origin}${launched.pathname}`, `${contentOrigin}/course/`, 'Ada launched');
    const count = async (table: 'launch_sessions' | 'actor_credentials') => {
      const { rows } = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [
        fixture.tenant.id,
      ]);
      return rows[0]!.n;
    };
    const sessions = await count('launch_sessions');
    const credentials = await count('actor_credentials');

    // The attack: another account at the provider whose unverified address is Ada's.
    for (const [login, verified] of [
      ['mallory', false],
      ['mallory-text', 'false'],
    ] as const) {
      fixture.provider.people.set(login, { email: 'ada@example.com', email_verified: verified, name: 'Mallory', given_name: 'Mallory' });
      const refused = await signInAndLaunch(browser, fixture, login);
      assert.ok(refused.url().startsWith(`http://${fixture.host}/auth/sso/callback`), `${login}: ${refused.url()}`);
      assert.match(await refused.content(), /You could not be signed in/);
      assert.equal(await count('launch_sessions'), sessions, `${login}: no launch`);
      assert.equal(await count('actor_credentials'), credentials, `${login}: no credential`);
      assert.deepEqual(
        (await peopleOf(ctx, fixture.tenant)).map((person) => [person.name, attributesOf(person)?.email]),
        [['Ada Lovelace', 'ada@example.com']],
        `${login}: Ada as she was, nobody else`,
      );
    }

    // The admin sign-in refuses an unverified address too.
    const tenant = (await new TenancyService(ctx.db, 0).findById(fixture.tenant.id))!;
    const redirectUri = `http://${fixture.host}/auth/demo/callback`;
    const client = await createClient(ctx.db, tenant, [redirectUri], 'Reports App');
    const put = await ctx.app.inject({
      method: 'PUT',
      url: '/api/sso/connections/corp',
      headers: fixture.admin,
      payload: {
        issuer: fixture.provider.issuer,
        clientId: fixture.provider.clientId,
        clientSecret: fixture.provider.clientSecret,
        admins: { claim: 'groups', value: 'lb-admins' },
      },
    });
    assert.equal(put.statusCode, 200, put.body);
    fixture.provider.people.set('eve', { email: 'eve@example.com', email_verified: 'false', groups: ['lb-admins'] });
    const page = await (await browser.newContext()).newPage();
    const query = new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: redirectUri, state: 'st' });
    await page.goto(`http://${fixture.host}/auth/oauth/authorize?${query}`);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in with corp' }).click()]);
    await signInAtOidcProvider(page, fixture.provider.issuer, 'eve');
    assert.ok(page.url().startsWith(`http://${fixture.host}/auth/sso/callback`), page.url());
    assert.match(await page.content(), /You are not an administrator here/);
    const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=admin.created', headers: fixture.admin });
    assert.deepEqual(audit.json(), [], 'no admin made');
  });

  it('refuses the code of another sign-in (its PKCE verifier and nonce are another’s), with no actor created', { skip }, async () => {
    const fixture = await givenSignOn(ctx, contentOrigin);
    providers.push(fixture.provider);
    const link = `/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`;
    // Sign-in A is started and left at the provider.
    const started = await ctx.app.inject({ method: 'GET', url: link, headers: { host: fixture.host } });
    assert.equal(started.statusCode, 302, started.body);
    const stateA = new URL(String(started.headers.location)).searchParams.get('state') ?? '';
    // Sign-in B goes through the provider, but its browser loses the state cookie on the way: its
    // return is refused before the code is used, and the code is kept here.
    const page = await (await browser.newContext()).newPage();
    let returned: URL | undefined;
    page.on('request', (request) => {
      if (request.url().includes('/auth/sso/callback')) returned = new URL(request.url());
    });
    await page.goto(`http://${fixture.host}${link}`);
    await page.context().clearCookies({ name: 'lb_sso_state' });
    await signInAtOidcProvider(page, fixture.provider.issuer, 'ada');
    assert.ok(returned?.searchParams.get('code'), 'the provider returned a code');
    // B's code, brought to A's sign-in (A's state and cookie).
    const crossed = await ctx.app.inject({
      method: 'GET',
      url: `/auth/sso/callback?${new URLSearchParams({ code: returned?.searchParams.get('code') ?? '', state: stateA })}`,
      headers: { host: fixture.host, cookie: `lb_sso_state=${stateA}` },
    });
    assert.equal(crossed.statusCode, 401, crossed.body.slice(0, 300));
    assert.deepEqual(await peopleOf(ctx, fixture.tenant), [], 'no actor created');
  });

  it('refuses an ID token not signed by a key of the provider (another key naming its kid, alg none, HS256 with the client secret): nobody created or launched', async () => {
    const fixture = await givenLaunchTenant(ctx, contentOrigin, 'http://example.com/courses/signed');
    const { tenant, host, admin } = fixture;
    const issuer = await startOidcIssuer([`http://${host}/auth/sso/callback`], {
      sub: 'ada-1',
      email: 'ada@example.com',
      given_name: 'Ada',
      family_name: 'Lovelace',
    });
    providers.push(issuer);
    const put = await ctx.app.inject({
      method: 'PUT',
      url: '/api/sso/connections/corp',
      headers: admin,
      payload: { issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret },
    });
    assert.equal(put.statusCode, 201, put.body);
    /** A launch link without auth, through the provider's authorization endpoint, back to the callback with the state cookie. */
    const signIn = async () => {
      const link = await ctx.app.inject({
        method: 'GET',
        url: `/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`,
        headers: { host },
      });
      assert.equal(link.statusCode, 302, link.body);
      const cookie = String(link.headers['set-cookie']).split(';')[0]!;
      const atProvider = await fetch(String(link.headers.location), { redirect: 'manual' });
      assert.equal(atProvider.status, 302, await atProvider.text());
      const back = new URL(atProvider.headers.get('location') ?? '');
      return ctx.app.inject({ method: 'GET', url: `${back.pathname}${back.search}`, headers: { host, cookie } });
    };
    const stored = async () => {
      const count = async (table: string) =>
        Number((await ctx.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1`, [tenant.id])).rows[0]?.n);
      return {
        people: (await peopleOf(ctx, tenant)).length,
        credentials: await count('actor_credentials'),
        launches: await count('launch_sessions'),
        signInsInFlight: await count('sso_sign_ins'),
      };
    };

    for (const signing of ['another key', 'none', 'client secret'] satisfies IdTokenSigning[]) {
      issuer.signing = signing;
      const refused = await signIn();
      assert.equal(refused.statusCode, 401, `${signing}: ${refused.body.slice(0, 300)}`);
      assert.match(String(refused.headers['content-type']), /^text\/html/);
      assert.match(refused.body, /You could not be signed in/, signing);
      assert.deepEqual(
        await stored(),
        { people: 0, credentials: 0, launches: 0, signInsInFlight: 0 },
        `${signing}: nobody, and the sign-in is used up`,
      );
    }
    assert.ok(issuer.jwksReads() >= 1, 'the provider’s key set was read');

    issuer.signing = 'provider';
    const launched = await signIn();
    assert.equal(launched.statusCode, 302, launched.body.slice(0, 300));
    assert.ok(String(launched.headers.location).startsWith(`${contentOrigin}/course/`), String(launched.headers.location));
    assert.deepEqual(await stored(), { people: 1, credentials: 1, launches: 1, signInsInFlight: 0 });
    const [ada] = await peopleOf(ctx, tenant);
    assert.deepEqual(attributesOf(ada), { email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
  });

  it('shows each admin connection’s display name on the authorize page, HTML-escaped, its button still sending the name; refuses a bad display name', async () => {
    const oauth = await givenOAuth(ctx);
    const { access_token: token } = await exchange(ctx.app, oauth);
    const admin = { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name };
    const issuer = await startOidcIssuer([], { sub: 'grace' });
    providers.push(issuer);
    const provider = { issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret };
    const admins = { claim: 'groups', value: 'lb-admins' };
    const put = (name: string, payload: Json) =>
      ctx.app.inject({ method: 'PUT', url: `/api/sso/connections/${name}`, headers: admin, payload });
    const hostile = `Acme <script>alert("x")</script> & 'staff'`;
    const corp = await put('corp', { ...provider, admins, displayName: hostile });
    assert.equal(corp.statusCode, 201, corp.body);
    assert.equal(corp.json().displayName, hostile);
    assert.equal((await put('plain', { ...provider, admins })).json().displayName, 'plain', 'none given: the name');
    assert.equal((await put('learners', { ...provider, displayName: 'Learners only' })).statusCode, 201);
    const listed = async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/sso/connections', headers: admin });
      return (res.json() as Json[]).map((connection) => [connection.name, connection.displayName]);
    };
    assert.deepEqual(await listed(), [
      ['corp', hostile],
      ['learners', 'Learners only'],
      ['plain', 'plain'],
    ]);

    const query = new URLSearchParams({
      response_type: 'code',
      client_id: oauth.client.clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkceChallenge(newSecret(48)),
      code_challenge_method: 'S256',
    });
    const form = await ctx.app.inject({ method: 'GET', url: `/auth/oauth/authorize?${query}` });
    assert.equal(form.statusCode, 200, form.body);
    const buttons = [...form.body.matchAll(/<button [^>]*name="connection" value="([^"]*)"[^>]*>([^<]*)<\/button>/g)].map((match) => [
      match[1],
      match[2],
    ]);
    assert.deepEqual(buttons, [
      ['corp', 'Sign in with Acme &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;staff&#39;'],
      ['plain', 'Sign in with plain'],
    ]);
    assert.ok(!form.body.includes('<script>'), 'the display name is never markup');
    const choose = (connection: string) => submitSignInForm(ctx.app, form, { connection });
    const byDisplayName = await choose(hostile);
    assert.equal(byDisplayName.statusCode, 400, 'a display name is not what the button sends');
    assert.match(byDisplayName.body, /not offered any more/);
    const chosen = await choose('corp');
    assert.equal(chosen.statusCode, 302, chosen.body);
    assert.ok(String(chosen.headers.location).startsWith(`${issuer.issuer}/authorize?`), String(chosen.headers.location));

    const refusals: Array<[string, unknown]> = [
      ['empty', ''],
      ['101 characters', 'x'.repeat(101)],
      ['only spaces', '   '],
      ['a line break', 'Acme\nstaff'],
      ['a tab', 'Acme\tstaff'],
      ['an escape sequence', 'Acme \u001b[31mstaff'],
      ['DEL', 'Acme\u007f'],
      ['a C1 control', 'Acme\u0085staff'],
      ['a number', 5],
      ['an object', { en: 'Acme' }],
      ['a list', ['Acme']],
      ['false', false],
    ];
    for (const [what, displayName] of refusals) {
      const refused = await put('corp', { ...provider, admins, displayName } as Json);
      assert.equal(refused.statusCode, 400, `${what}: ${refused.body}`);
      assert.equal(refused.json().code, 'identity.invalid_connection', what);
      assert.deepEqual(
        (refused.json().details.problems as Json[]).map((problem) => problem.path),
        ['/displayName'],
        what,
      );
    }
    for (const [what, displayName] of [
      ['NUL', 'Acme\u0000'],
      ['a lone surrogate', 'Acme\ud800'],
    ] as const) {
      const refused = await put('corp', { ...provider, admins, displayName });
      assert.equal(refused.statusCode, 400, `${what}: ${refused.body}`);
    }
    assert.equal((await listed())[0]?.[1], hostile, 'a refused PUT changes nothing');

    const long = '🎓'.repeat(100);
    assert.equal(
      (await put('corp', { ...provider, admins, displayName: long })).json().displayName,
      long,
      '100 characters, 200 UTF-16 units',
    );
    assert.equal((await put('corp', { ...provider, admins, displayName: 'Ünïcode – staff 職員' })).statusCode, 200);
    assert.equal((await put('corp', { ...provider, admins, displayName: null })).json().displayName, 'corp', 'null: the name again');
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
