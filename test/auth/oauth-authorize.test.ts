import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { createClient } from '../../src/modules/auth/oauth/clients/client.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { hashSecret, newSecret } from '../../src/platform/issued-secrets.js';
import { describeEachBackend, testConfig, type TestContext } from '../support/build-test-app.js';
import { givenOAuth, me, pkceChallenge, redeemCode, REDIRECT_URI, type OAuthFixture } from './oauth-token-fixtures.js';

const ACCOUNT_LIMIT = 3;
const ADDRESS_LIMIT = 6;

function authorizeUrl(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  return `/auth/oauth/authorize?${query}`;
}

interface ServedForm {
  fields: { request_id: string; client_id: string; csrf_token: string };
  cookie: { name: string; value: string };
  html: string;
}

function hidden(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  assert.ok(match, `the page has a hidden ${name}`);
  return match[1]!;
}

/** GET the authorize page and read what a browser keeps: the hidden fields and the cookie. */
async function openForm(app: FastifyInstance, oauth: OAuthFixture, extra: Record<string, string> = {}): Promise<ServedForm> {
  const res = await app.inject({
    method: 'GET',
    url: authorizeUrl({ response_type: 'code', client_id: oauth.client.clientId, redirect_uri: REDIRECT_URI, state: 'st-1', ...extra }),
  });
  assert.equal(res.statusCode, 200, res.body);
  const cookie = res.cookies.find((item) => item.name.startsWith('__Host-lb-signin-'));
  assert.ok(cookie, 'the page sets its sign-in cookie');
  return {
    html: res.body,
    cookie: { name: cookie.name, value: cookie.value },
    fields: {
      request_id: hidden(res.body, 'request_id'),
      client_id: hidden(res.body, 'client_id'),
      csrf_token: hidden(res.body, 'csrf_token'),
    },
  };
}

function submit(
  app: FastifyInstance,
  form: ServedForm,
  fields: Record<string, string | undefined>,
  options: { cookie?: Record<string, string> | null; remoteAddress?: string } = {},
) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...form.fields, ...fields })) if (value !== undefined) body.append(name, value);
  return app.inject({
    method: 'POST',
    url: '/auth/oauth/authorize',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
    cookies: options.cookie === null ? {} : (options.cookie ?? { [form.cookie.name]: form.cookie.value }),
    remoteAddress: options.remoteAddress,
  });
}

const signIn = (app: FastifyInstance, form: ServedForm, oauth: OAuthFixture, extra: { password?: string; remoteAddress?: string } = {}) =>
  submit(
    app,
    form,
    { email: oauth.adminEmail, password: extra.password ?? oauth.adminPassword, action: 'authorize' },
    { remoteAddress: extra.remoteAddress },
  );

async function pendingCount(ctx: TestContext, oauth: OAuthFixture): Promise<number> {
  const { rows } = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_authorization_requests WHERE tenant_id = $1', [
    oauth.tenant.id,
  ]);
  return rows[0]!.n;
}

async function codeCount(ctx: TestContext, oauth: OAuthFixture): Promise<number> {
  const { rows } = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_codes WHERE tenant_id = $1', [oauth.tenant.id]);
  return rows[0]!.n;
}

const GENERIC = 'The e-mail address or the password is not right.';

describeEachBackend(
  'GET /auth/oauth/authorize',
  (ctx) => {
    it('serves the sign-in page naming the client and the organisation, with labelled fields and strict headers', async () => {
      const oauth = await givenOAuth(ctx);
      const res = await ctx.app.inject({
        method: 'GET',
        url: authorizeUrl({ response_type: 'code', client_id: oauth.client.clientId, redirect_uri: REDIRECT_URI, state: 'xyz' }),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.headers['cache-control'], 'no-store');
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /form-action/);
      assert.doesNotMatch(csp, /unsafe-inline|script-src/);
      assert.equal(res.headers['x-frame-options'], 'DENY');

      assert.match(res.body, /<html lang="en">/);
      assert.match(res.body, new RegExp(`organisation <strong>${oauth.tenant.name}</strong>`));
      assert.match(res.body, /Unnamed integration/);
      assert.match(res.body, /<label for="email">E-mail address<\/label>/);
      assert.match(res.body, /<input type="email" id="email" name="email" autocomplete="username" required/);
      assert.match(res.body, /<label for="password">Password<\/label>/);
      assert.match(res.body, /<input type="password" id="password" name="password" autocomplete="current-password" required/);
      assert.match(res.body, /<button type="submit" class="primary" name="action" value="authorize">Sign in and authorise<\/button>/);
      assert.doesNotMatch(res.body, /<script|https?:\/\/(?!127\.0\.0\.1)/, 'no script, no third-party asset');

      const setCookie = String(res.headers['set-cookie']);
      assert.match(setCookie, /^__Host-lb-signin-[0-9a-f-]{36}=[\w-]+; Max-Age=600; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
      assert.doesNotMatch(setCookie, /Domain/i);
    });

    it('keeps the pending request server-side with only the hash of its CSRF token', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth, { code_challenge: pkceChallenge('v'.repeat(50)), code_challenge_method: 'S256' });
      assert.equal(form.cookie.value, form.fields.csrf_token);
      const { rows } = await ctx.db.query<{
        csrf_hash: Buffer;
        client_id: string;
        redirect_uri: string;
        state: string;
        code_challenge: string;
      }>(
        'SELECT csrf_hash, client_id, redirect_uri, state, code_challenge FROM oauth_authorization_requests WHERE tenant_id = $1 AND id = $2',
        [oauth.tenant.id, form.fields.request_id],
      );
      assert.equal(rows.length, 1);
      assert.deepEqual(Buffer.from(rows[0]!.csrf_hash), hashSecret(form.fields.csrf_token));
      assert.deepEqual(
        { clientId: rows[0]!.client_id, redirectUri: rows[0]!.redirect_uri, state: rows[0]!.state, challenge: rows[0]!.code_challenge },
        { clientId: oauth.client.clientId, redirectUri: REDIRECT_URI, state: 'st-1', challenge: pkceChallenge('v'.repeat(50)) },
      );
    });

    it('escapes the client name on the page', async () => {
      const oauth = await givenOAuth(ctx);
      const tenant = (await new TenancyService(ctx.db, 0).findById(oauth.tenant.id))!;
      const client = await createClient(ctx.db, tenant, [REDIRECT_URI], '<img src=x onerror="alert(1)">');
      const res = await ctx.app.inject({
        method: 'GET',
        url: authorizeUrl({ response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT_URI }),
      });
      assert.equal(res.statusCode, 200);
      assert.doesNotMatch(res.body, /<img/);
      assert.match(res.body, /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;/);
    });

    it('answers an unknown, malformed, missing or repeated client_id with an error page, never a redirect', async () => {
      const oauth = await givenOAuth(ctx);
      const unknown = `lbc_${oauth.tenant.id.replaceAll('-', '')}_0123456789abcdef`;
      for (const query of [
        authorizeUrl({ response_type: 'code', client_id: unknown, redirect_uri: REDIRECT_URI }),
        authorizeUrl({ response_type: 'code', client_id: 'not-a-client', redirect_uri: REDIRECT_URI }),
        authorizeUrl({ response_type: 'code', redirect_uri: REDIRECT_URI }),
        `${authorizeUrl({ response_type: 'code', client_id: oauth.client.clientId, redirect_uri: REDIRECT_URI })}&client_id=${oauth.client.clientId}`,
      ]) {
        const res = await ctx.app.inject({ method: 'GET', url: query });
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.headers.location, undefined);
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
        assert.match(res.body, /<h1>Unknown application<\/h1>/);
        assert.match(res.body, /role="alert"/);
        assert.equal(res.headers['set-cookie'], undefined);
      }
      assert.equal(await pendingCount(ctx, oauth), 0);
    });

    it('answers a redirect_uri that is not exactly a registered one with an error page (prefix, case, slash, query, other client)', async () => {
      const oauth = await givenOAuth(ctx);
      const other = await givenOAuth(ctx);
      const tenant = (await new TenancyService(ctx.db, 0).findById(other.tenant.id))!;
      const foreign = await createClient(ctx.db, tenant, ['http://127.0.0.1:9/foreign']);
      assert.ok(foreign);
      for (const redirectUri of [
        `${REDIRECT_URI}/more`,
        'http://127.0.0.1:9/call',
        'http://127.0.0.1:9/Callback',
        'HTTP://127.0.0.1:9/callback',
        `${REDIRECT_URI}/`,
        `${REDIRECT_URI}?x=1`,
        `${REDIRECT_URI}#frag`,
        'http://127.0.0.1:9/foreign',
        'https://evil.example.com/callback',
        '',
      ]) {
        const res = await ctx.app.inject({
          method: 'GET',
          url: authorizeUrl({ response_type: 'code', client_id: oauth.client.clientId, redirect_uri: redirectUri, state: 's' }),
        });
        assert.equal(res.statusCode, 400, redirectUri);
        assert.equal(res.headers.location, undefined, redirectUri);
        assert.match(res.body, /<h1>Invalid redirect URI<\/h1>/);
      }
      const missing = await ctx.app.inject({
        method: 'GET',
        url: authorizeUrl({ response_type: 'code', client_id: oauth.client.clientId }),
      });
      assert.equal(missing.statusCode, 400);
      assert.match(missing.body, /names no redirect_uri/);
      assert.equal(await pendingCount(ctx, oauth), 0);
    });

    it('accepts each registered redirect URI of the client', async () => {
      const oauth = await givenOAuth(ctx);
      const res = await ctx.app.inject({
        method: 'GET',
        url: authorizeUrl({ response_type: 'code', client_id: oauth.client.clientId, redirect_uri: 'http://localhost:9/other' }),
      });
      assert.equal(res.statusCode, 200);
    });

    it('sends other request errors back to the redirect URI with error and state (RFC 6749 §4.1.2.1)', async () => {
      const oauth = await givenOAuth(ctx);
      const base = { client_id: oauth.client.clientId, redirect_uri: REDIRECT_URI, state: 'st 1/é' };
      const challenge = pkceChallenge('v'.repeat(50));
      const cases: Array<[Record<string, string | undefined>, string, RegExp]> = [
        [{ response_type: 'token' }, 'unsupported_response_type', /"token" is not supported/],
        [{ response_type: undefined }, 'invalid_request', /no response_type/],
        [{ response_type: 'code', code_challenge: challenge, code_challenge_method: 'plain' }, 'invalid_request', /must be S256/],
        [{ response_type: 'code', code_challenge: challenge }, 'invalid_request', /must be S256/],
        [{ response_type: 'code', code_challenge_method: 'S256' }, 'invalid_request', /without a code_challenge/],
        [{ response_type: 'code', code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request', /43 base64url/],
        [{ response_type: 'code', state: 'x'.repeat(2049) }, 'invalid_request', /state is longer/],
      ];
      for (const [params, error, description] of cases) {
        const res = await ctx.app.inject({ method: 'GET', url: authorizeUrl({ ...base, ...params }) });
        assert.equal(res.statusCode, 302, JSON.stringify(params));
        const location = new URL(String(res.headers.location));
        assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
        assert.equal(location.searchParams.get('error'), error);
        assert.match(location.searchParams.get('error_description') ?? '', description);
        assert.equal(location.searchParams.get('code'), null);
        if (!params.state) assert.equal(location.searchParams.get('state'), 'st 1/é');
      }
      const repeated = await ctx.app.inject({
        method: 'GET',
        url: `${authorizeUrl({ ...base, response_type: 'code' })}&response_type=code`,
      });
      assert.equal(new URL(String(repeated.headers.location)).searchParams.get('error'), 'invalid_request');
      const twoStates = await ctx.app.inject({ method: 'GET', url: `${authorizeUrl({ ...base, response_type: 'code' })}&state=other` });
      const location = new URL(String(twoStates.headers.location));
      assert.equal(location.searchParams.get('error'), 'invalid_request');
      assert.equal(location.searchParams.get('state'), null, 'an ambiguous state is not echoed');
      assert.equal(await pendingCount(ctx, oauth), 0);
    });

    it("refuses a tenant sub-domain that is not the client's tenant", async () => {
      const oauth = await givenOAuth(ctx);
      const other = await ctx.given.tenant();
      const url = authorizeUrl({ response_type: 'code', client_id: oauth.client.clientId, redirect_uri: REDIRECT_URI });
      const wrong = await ctx.app.inject({ method: 'GET', url, headers: { host: `${other.name}.localhost:8080` } });
      assert.equal(wrong.statusCode, 400);
      assert.equal(wrong.headers.location, undefined);
      assert.match(wrong.body, /Wrong organisation/);
      const right = await ctx.app.inject({ method: 'GET', url, headers: { host: `${oauth.tenant.name}.localhost:8080` } });
      assert.equal(right.statusCode, 200);
      const trailingDot = await ctx.app.inject({ method: 'GET', url, headers: { host: `${other.name}.localhost.:8080` } });
      assert.equal(trailingDot.statusCode, 400);
      assert.match(trailingDot.body, /Wrong organisation/);
      const nested = await ctx.app.inject({ method: 'GET', url, headers: { host: `x.${oauth.tenant.name}.localhost:8080` } });
      assert.equal(nested.statusCode, 400);
      assert.match(String(nested.headers['content-type']), /text\/html/);
      assert.match(nested.body, /one label deep/);
    });
  },
  {},
  { signInPolicy: { delayStepMs: 0, maxFailuresPerAccount: ACCOUNT_LIMIT, maxFailuresPerAddress: ADDRESS_LIMIT } },
);

describeEachBackend(
  'POST /auth/oauth/authorize (the sign-in form)',
  (ctx) => {
    it('signs in, answers 303 to the redirect URI with the code and the state, and the code exchanges for a working token', async () => {
      const oauth = await givenOAuth(ctx);
      const verifier = newSecret();
      const form = await openForm(ctx.app, oauth, { code_challenge: pkceChallenge(verifier), code_challenge_method: 'S256' });
      const res = await signIn(ctx.app, form, oauth);
      assert.equal(res.statusCode, 303, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const location = new URL(String(res.headers.location));
      assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
      assert.equal(location.searchParams.get('state'), 'st-1');
      const code = location.searchParams.get('code');
      assert.ok(code);
      assert.match(
        String(res.headers['set-cookie']),
        new RegExp(`^${form.cookie.name}=; Max-Age=0; Path=/; .*HttpOnly; Secure; SameSite=Strict`),
      );
      assert.equal(await pendingCount(ctx, oauth), 0, 'the pending request is used up');

      const tokens = await redeemCode(ctx.app, oauth.client, code, verifier);
      assert.equal(tokens.statusCode, 200, tokens.body);
      const who = await me(ctx.app, tokens.json().access_token, oauth.tenant.name);
      assert.equal(who.statusCode, 200);
      assert.deepEqual(who.json().principal, { kind: 'admin', id: oauth.adminId });
    });

    it('signs in with the e-mail address in any case and surrounding spaces', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      const res = await submit(ctx.app, form, {
        email: `  ${oauth.adminEmail.toUpperCase()} `,
        password: oauth.adminPassword,
        action: 'authorize',
      });
      assert.equal(res.statusCode, 303, res.body);
    });

    it('binds the code to the PKCE challenge of the authorize request', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth, { code_challenge: pkceChallenge(newSecret()), code_challenge_method: 'S256' });
      const code = new URL(String((await signIn(ctx.app, form, oauth)).headers.location)).searchParams.get('code');
      assert.ok(code);
      const res = await redeemCode(ctx.app, oauth.client, code, newSecret());
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_grant');
    });

    it('refuses a second submission of a used form, and issues no second code', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      assert.equal((await signIn(ctx.app, form, oauth)).statusCode, 303);
      const again = await signIn(ctx.app, form, oauth);
      assert.equal(again.statusCode, 403);
      assert.equal(again.headers.location, undefined);
      assert.match(again.body, /expired or has already been used/);
      assert.equal(await codeCount(ctx, oauth), 1);
    });

    it('answers Cancel with 303 and error=access_denied, and ends the pending request', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      const res = await submit(ctx.app, form, { action: 'cancel' });
      assert.equal(res.statusCode, 303);
      const location = new URL(String(res.headers.location));
      assert.equal(location.searchParams.get('error'), 'access_denied');
      assert.equal(location.searchParams.get('state'), 'st-1');
      assert.equal(location.searchParams.get('code'), null);
      assert.equal(await pendingCount(ctx, oauth), 0);
      assert.equal((await signIn(ctx.app, form, oauth)).statusCode, 403);
    });

    it('refuses the form without its CSRF token, with a wrong one, without the cookie, or with another form’s cookie', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      const otherForm = await openForm(ctx.app, oauth);
      const credentials = { email: oauth.adminEmail, password: oauth.adminPassword, action: 'authorize' };

      const missing = await submit(ctx.app, form, { ...credentials, csrf_token: undefined });
      assert.equal(missing.statusCode, 400);
      assert.match(missing.body, /not sent as this server served it/);

      const wrong = await submit(ctx.app, form, { ...credentials, csrf_token: newSecret() });
      assert.equal(wrong.statusCode, 403);
      assert.match(wrong.body, /does not match/);

      const noCookie = await submit(ctx.app, form, credentials, { cookie: null });
      assert.equal(noCookie.statusCode, 403);
      assert.match(noCookie.body, /did not send back the cookie/);

      // An attacker's own valid form (token and request) posted with the victim's cookie of another form.
      const crossed = await submit(ctx.app, otherForm, credentials, { cookie: { [otherForm.cookie.name]: form.cookie.value } });
      assert.equal(crossed.statusCode, 403);

      // The token of one pending request does not open another.
      const swapped = await submit(
        ctx.app,
        form,
        { ...credentials, request_id: otherForm.fields.request_id },
        {
          cookie: { [otherForm.cookie.name]: form.cookie.value },
        },
      );
      assert.equal(swapped.statusCode, 403);

      for (const res of [missing, wrong, noCookie, crossed, swapped]) {
        assert.equal(res.headers.location, undefined);
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      }
      assert.equal(await codeCount(ctx, oauth), 0);
      assert.equal((await signIn(ctx.app, form, oauth)).statusCode, 303, 'the genuine form still works');
    });

    it('refuses an expired form', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      await ctx.db.query("UPDATE oauth_authorization_requests SET expires_at = now() - interval '1 second' WHERE tenant_id = $1", [
        oauth.tenant.id,
      ]);
      const res = await signIn(ctx.app, form, oauth);
      assert.equal(res.statusCode, 403);
      assert.match(res.body, /expired/);
      assert.equal(await codeCount(ctx, oauth), 0);
    });

    it('answers a wrong password and an unknown e-mail address with the same message, keeping the form usable', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      const wrongPassword = await signIn(ctx.app, form, oauth, { password: 'not the password' });
      const unknownEmail = await submit(ctx.app, form, { email: 'nobody@example.com', password: oauth.adminPassword, action: 'authorize' });
      for (const res of [wrongPassword, unknownEmail]) {
        assert.equal(res.statusCode, 401);
        assert.equal(res.headers.location, undefined);
        assert.match(res.body, new RegExp(`<div class="alert" role="alert" id="sign-in-error">${GENERIC}</div>`));
        assert.match(res.body, /aria-invalid="true" aria-describedby="sign-in-error"/);
        assert.equal(hidden(res.body, 'csrf_token'), form.fields.csrf_token);
      }
      assert.match(wrongPassword.body, new RegExp(`value="${oauth.adminEmail}"`), 'the e-mail address is kept');
      assert.doesNotMatch(wrongPassword.body, /not the password/, 'the password is never echoed');
      assert.equal(await codeCount(ctx, oauth), 0);
      assert.equal((await signIn(ctx.app, form, oauth)).statusCode, 303);
    });

    it('asks for both fields when one is empty, without counting a failure', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      const res = await submit(ctx.app, form, { email: oauth.adminEmail, password: '', action: 'authorize' });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /Enter your e-mail address and your password/);
      const { rows } = await ctx.db.query('SELECT 1 FROM sign_in_failures WHERE tenant_id = $1', [oauth.tenant.id]);
      assert.equal(rows.length, 0);
    });

    it("refuses an admin of another tenant, with the generic message, even with that admin's right password", async () => {
      const tenantA = await givenOAuth(ctx);
      const tenantB = await givenOAuth(ctx);
      const form = await openForm(ctx.app, tenantA);
      const res = await submit(ctx.app, form, { email: tenantB.adminEmail, password: tenantB.adminPassword, action: 'authorize' });
      assert.equal(res.statusCode, 401);
      assert.match(res.body, new RegExp(GENERIC));
      assert.equal(await codeCount(ctx, tenantA), 0);
      assert.equal(await codeCount(ctx, tenantB), 0);
    });

    it('refuses an account for a while after repeated failures, even with the right password', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      for (let attempt = 1; attempt < ACCOUNT_LIMIT; attempt++) {
        assert.equal(
          (await signIn(ctx.app, form, oauth, { password: `wrong ${attempt}`, remoteAddress: `10.0.0.${attempt}` })).statusCode,
          401,
        );
      }
      const locking = await signIn(ctx.app, form, oauth, { password: 'wrong again', remoteAddress: '10.0.0.9' });
      assert.equal(locking.statusCode, 429);
      assert.match(locking.body, /Too many failed sign-in attempts .* try again in 15 minutes/);
      assert.equal(locking.headers['retry-after'], '900');

      const right = await signIn(ctx.app, form, oauth, { remoteAddress: '10.0.0.10' });
      assert.equal(right.statusCode, 429, 'the right password does not get through a lock');
      assert.match(right.body, /role="alert"/);
      assert.ok(Number(right.headers['retry-after']) > 0);
      assert.equal(await codeCount(ctx, oauth), 0);

      const { rows } = await ctx.db.query<{ failures: number; locked: boolean }>(
        'SELECT failures, locked_until > now() AS locked FROM sign_in_failures WHERE tenant_id = $1 AND subject = $2',
        [oauth.tenant.id, `email:${oauth.adminEmail}`],
      );
      assert.deepEqual(
        rows.map((row) => ({ ...row })),
        [{ failures: ACCOUNT_LIMIT, locked: true }],
      );

      // When the lock runs out, the right password works and clears the count.
      await ctx.db.query("UPDATE sign_in_failures SET locked_until = now() - interval '1 second' WHERE tenant_id = $1", [oauth.tenant.id]);
      assert.equal((await signIn(ctx.app, form, oauth, { remoteAddress: '10.0.0.11' })).statusCode, 303);
      const after = await ctx.db.query('SELECT 1 FROM sign_in_failures WHERE tenant_id = $1 AND subject = $2', [
        oauth.tenant.id,
        `email:${oauth.adminEmail}`,
      ]);
      assert.equal(after.rows.length, 0);
    });

    it('refuses a network address for a while after failures across many accounts', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      const address = '192.0.2.7';
      for (let attempt = 1; attempt < ADDRESS_LIMIT; attempt++) {
        const res = await submit(
          ctx.app,
          form,
          { email: `guess-${attempt}@example.com`, password: 'guess', action: 'authorize' },
          { remoteAddress: address },
        );
        assert.equal(res.statusCode, 401);
      }
      const locking = await submit(
        ctx.app,
        form,
        { email: 'guess-last@example.com', password: 'guess', action: 'authorize' },
        { remoteAddress: address },
      );
      assert.equal(locking.statusCode, 429);
      assert.equal((await signIn(ctx.app, form, oauth, { remoteAddress: address })).statusCode, 429);
      assert.equal((await signIn(ctx.app, form, oauth, { remoteAddress: '192.0.2.8' })).statusCode, 303, 'another address is not locked');
    });

    it('counts failures per tenant: a lock in one tenant does not lock the same address in another', async () => {
      const tenantA = await givenOAuth(ctx);
      const tenantB = await givenOAuth(ctx);
      const formA = await openForm(ctx.app, tenantA);
      for (let attempt = 0; attempt < ADDRESS_LIMIT; attempt++) {
        await submit(
          ctx.app,
          formA,
          { email: `x${attempt}@example.com`, password: 'guess', action: 'authorize' },
          { remoteAddress: '198.51.100.1' },
        );
      }
      assert.equal((await signIn(ctx.app, formA, tenantA, { remoteAddress: '198.51.100.1' })).statusCode, 429);
      const formB = await openForm(ctx.app, tenantB);
      assert.equal((await signIn(ctx.app, formB, tenantB, { remoteAddress: '198.51.100.1' })).statusCode, 303);
    });

    it("refuses the form posted on another tenant's sub-domain", async () => {
      const oauth = await givenOAuth(ctx);
      const other = await ctx.given.tenant();
      const form = await openForm(ctx.app, oauth);
      const body = new URLSearchParams({ ...form.fields, email: oauth.adminEmail, password: oauth.adminPassword, action: 'authorize' });
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/auth/oauth/authorize',
        headers: { 'content-type': 'application/x-www-form-urlencoded', host: `${other.name}.localhost:8080` },
        payload: body.toString(),
        cookies: { [form.cookie.name]: form.cookie.value },
      });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /Wrong organisation/);
      assert.equal(await codeCount(ctx, oauth), 0);
    });

    it('answers an oversized form with an HTML error page', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      const res = await submit(ctx.app, form, { email: 'x'.repeat(20_000), password: 'p', action: 'authorize' });
      assert.equal(res.statusCode, 413);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.match(res.body, /larger than this server accepts/);
    });
  },
  {},
  { signInPolicy: { delayStepMs: 0, maxFailuresPerAccount: ACCOUNT_LIMIT, maxFailuresPerAddress: ADDRESS_LIMIT } },
);

describeEachBackend('GET /auth/demo/callback', (ctx) => {
  it('shows the code, the state and a curl line that exchanges it', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/auth/demo/callback?code=abc_DEF-123&state=s1',
      headers: { host: '127.0.0.1:8080' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(res.body, /<code id="code">abc_DEF-123<\/code>/);
    assert.match(res.body, /<code id="state">s1<\/code>/);
    assert.match(
      res.body,
      /curl -s -X POST http:\/\/127\.0\.0\.1:8080\/auth\/oauth\/token -H &#39;Content-Type: application\/json&#39; -d &#39;\{&quot;grant_type&quot;:&quot;authorization_code&quot;/,
    );
    assert.match(
      res.body,
      /&quot;redirect_uri&quot;:&quot;http:\/\/127\.0\.0\.1:8080\/auth\/demo\/callback&quot;,&quot;code&quot;:&quot;abc_DEF-123&quot;/,
    );
  });

  it('escapes what the address carries', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/auth/demo/callback?code=${encodeURIComponent('<script>x</script>')}&state=${encodeURIComponent('"><b>')}`,
    });
    assert.equal(res.statusCode, 200);
    assert.doesNotMatch(res.body, /<script>|<b>/);
  });

  it('shows the error when there is no code', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/auth/demo/callback?error=access_denied&error_description=cancelled' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /error &quot;access_denied&quot;\. cancelled/);
  });
});

describeEachBackend(
  'The sign-in throttle behind a reverse proxy (LEARNBASE_TRUST_PROXY)',
  (ctx) => {
    it("counts the client address from a trusted proxy's X-Forwarded-For", async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth);
      const body = new URLSearchParams({ ...form.fields, email: 'nobody@example.com', password: 'guess', action: 'authorize' });
      const post = (forwardedFor: string, remoteAddress: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/auth/oauth/authorize',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor },
          payload: body.toString(),
          cookies: { [form.cookie.name]: form.cookie.value },
          remoteAddress,
        });
      assert.equal((await post('203.0.113.5', '10.1.2.3')).statusCode, 401);
      // A peer that is not a trusted proxy is the client itself, whatever header it sends.
      assert.equal((await post('203.0.113.99', '198.51.100.20')).statusCode, 401);
      const { rows } = await ctx.db.query<{ subject: string }>(
        "SELECT subject FROM sign_in_failures WHERE tenant_id = $1 AND subject LIKE 'ip:%' ORDER BY subject",
        [oauth.tenant.id],
      );
      assert.deepEqual(
        rows.map((row) => row.subject),
        ['ip:198.51.100.20', 'ip:203.0.113.5'],
      );
    });

    it('answers the metadata with the scheme and host the proxy received', async () => {
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/.well-known/oauth-authorization-server',
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'lrs.example.com' },
        remoteAddress: '10.9.9.9',
      });
      assert.equal(res.json().issuer, 'https://lrs.example.com');
      assert.equal(res.json().authorization_endpoint, 'https://lrs.example.com/auth/oauth/authorize');
    });
  },
  { trustProxy: ['10.0.0.0/8'] },
  { signInPolicy: { delayStepMs: 0 } },
);

describeEachBackend('Sign-in logs', (ctx) => {
  it('logs failed sign-ins with the tenant for alerting, and never the password, the CSRF token or the code', async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = await buildApp(testConfig({ logLevel: 'info' }), ctx.db, { logger: { stream }, signInPolicy: { delayStepMs: 0 } });
    try {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(app, oauth);
      assert.equal((await signIn(app, form, oauth, { password: 'a wrong secret password' })).statusCode, 401);
      const success = await signIn(app, form, oauth);
      assert.equal(success.statusCode, 303);
      const code = new URL(String(success.headers.location)).searchParams.get('code')!;
      // The browser lands on the demo callback with the code in its address: the request log masks it.
      const landing = await app.inject({ method: 'GET', url: `/auth/demo/callback?code=${code}&state=s` });
      assert.equal(landing.statusCode, 200);
      assert.ok(lines.some((line) => (line.req as { url?: string } | undefined)?.url === '/auth/demo/callback?code=[redacted]&state=s'));

      const failed = lines.find((line) => line.msg === 'sign-in failed');
      assert.ok(failed, 'the failure is logged');
      assert.equal(failed.level, 40);
      assert.equal(failed.tenant, oauth.tenant.name);
      assert.ok(lines.some((line) => line.msg === 'sign-in form' && line.outcome === 'authorized'));
      const text = JSON.stringify(lines);
      for (const secret of ['a wrong secret password', oauth.adminPassword, form.fields.csrf_token, code]) {
        assert.ok(!text.includes(secret), `"${secret.slice(0, 12)}…" is not logged`);
      }
    } finally {
      await app.close();
    }
  });
});
