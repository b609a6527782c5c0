import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as oidc from 'openid-client';
import { AuthorizationCode } from 'simple-oauth2';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { givenOAuth, me, REDIRECT_URI, type GivenClient, type OAuthFixture } from './oauth-token-fixtures.js';

/** Real OAuth client libraries against the server on a loopback socket, with no workaround on either side. */
describeEachBackend('OAuth client libraries against the authorize and token endpoints', (ctx) => {
  /** openid-client v6 by RFC 8414 discovery; http is allowed for loopback only through allowInsecureRequests. */
  async function discover(client: GivenClient, auth: oidc.ClientAuth): Promise<oidc.Configuration> {
    const base = await ctx.url();
    return oidc.discovery(new URL(base), client.clientId, undefined, auth, {
      algorithm: 'oauth2',
      execute: [oidc.allowInsecureRequests],
    });
  }

  /** The callback URL the browser would land on after the authorize step. */
  async function callback(oauth: OAuthFixture, state: string): Promise<{ url: URL; verifier: string }> {
    const { code, verifier } = await oauth.code();
    const url = new URL(REDIRECT_URI);
    url.searchParams.set('code', code);
    url.searchParams.set('state', state);
    return { url, verifier: verifier! };
  }

  for (const [name, auth] of [
    ['client_secret_basic', (secret: string) => oidc.ClientSecretBasic(secret)],
    ['client_secret_post', (secret: string) => oidc.ClientSecretPost(secret)],
  ] as const) {
    it(`openid-client: exchanges a code with PKCE S256 and ${name}, refreshes, and revokes (form-encoded)`, async () => {
      const oauth = await givenOAuth(ctx);
      const config = await discover(oauth.client, auth(oauth.client.clientSecret));
      const state = oidc.randomState();
      const { url, verifier } = await callback(oauth, state);

      const tokens = await oidc.authorizationCodeGrant(config, url, { pkceCodeVerifier: verifier, expectedState: state });
      assert.equal(tokens.token_type, 'bearer');
      assert.equal(tokens.expires_in, 3600);
      assert.ok(tokens.refresh_token);
      assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).json().principal.id, oauth.adminId);

      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      assert.notEqual(refreshed.access_token, tokens.access_token);
      assert.equal((await me(ctx.app, refreshed.access_token, oauth.tenant.name)).statusCode, 200);

      // The used refresh token: the library surfaces RFC 6749's error.
      await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!), (error: oidc.ResponseBodyError) => {
        assert.equal(error.error, 'invalid_grant');
        assert.equal(error.status, 400);
        return true;
      });
      assert.equal((await me(ctx.app, refreshed.access_token, oauth.tenant.name)).statusCode, 401);
    });
  }

  it('openid-client: revokes through the revocation endpoint of the metadata', async () => {
    const oauth = await givenOAuth(ctx);
    const config = await discover(oauth.client, oidc.ClientSecretBasic(oauth.client.clientSecret));
    const state = oidc.randomState();
    const { url, verifier } = await callback(oauth, state);
    const tokens = await oidc.authorizationCodeGrant(config, url, { pkceCodeVerifier: verifier, expectedState: state });
    await oidc.tokenRevocation(config, tokens.refresh_token!);
    assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).statusCode, 401);
  });

  it('openid-client: a wrong secret is invalid_client (a Basic challenge for client_secret_basic), a wrong verifier invalid_grant', async () => {
    const oauth = await givenOAuth(ctx);
    const state = oidc.randomState();
    const { url, verifier } = await callback(oauth, state);
    const byPost = await discover(oauth.client, oidc.ClientSecretPost('wrong-secret'));
    await assert.rejects(
      oidc.authorizationCodeGrant(byPost, url, { pkceCodeVerifier: verifier, expectedState: state }),
      (error: oidc.ResponseBodyError) => {
        assert.equal(error.error, 'invalid_client');
        assert.equal(error.status, 401);
        return true;
      },
    );
    // With a WWW-Authenticate challenge on the 401 (RFC 6749 §5.2), openid-client reports the challenge.
    const byBasic = await discover(oauth.client, oidc.ClientSecretBasic('wrong-secret'));
    await assert.rejects(
      oidc.authorizationCodeGrant(byBasic, url, { pkceCodeVerifier: verifier, expectedState: state }),
      (error: oidc.WWWAuthenticateChallengeError) => {
        assert.equal(error.status, 401);
        assert.equal(error.cause[0]?.scheme, 'basic');
        return true;
      },
    );
    const right = await discover(oauth.client, oidc.ClientSecretBasic(oauth.client.clientSecret));
    await assert.rejects(
      oidc.authorizationCodeGrant(right, url, { pkceCodeVerifier: oidc.randomPKCECodeVerifier(), expectedState: state }),
      (error: oidc.ResponseBodyError) => error.error === 'invalid_grant',
    );
  });

  it('openid-client: its authorization URL opens the sign-in page, and the redirect after signing in completes the grant', async () => {
    const oauth = await givenOAuth(ctx);
    const config = await discover(oauth.client, oidc.ClientSecretBasic(oauth.client.clientSecret));
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    assert.equal(url.pathname, '/auth/oauth/authorize');
    const landed = await signInThroughPage(url, oauth);
    const tokens = await oidc.authorizationCodeGrant(config, landed, { pkceCodeVerifier: verifier, expectedState: state });
    assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).json().principal.id, oauth.adminId);
  });

  it('simple-oauth2: its authorization URL opens the sign-in page, and the code of the redirect exchanges', async () => {
    const oauth = await givenOAuth(ctx);
    const client = new AuthorizationCode({
      client: { id: oauth.client.clientId, secret: oauth.client.clientSecret },
      auth: { tokenHost: await ctx.url(), tokenPath: '/auth/oauth/token', authorizePath: '/auth/oauth/authorize' },
      options: { authorizationMethod: 'body', bodyFormat: 'json' },
    });
    const landed = await signInThroughPage(new URL(client.authorizeURL({ redirect_uri: REDIRECT_URI, state: 'simple-state' })), oauth);
    assert.equal(landed.searchParams.get('state'), 'simple-state');
    const code = landed.searchParams.get('code')!;
    const token = (await client.getToken({ code, redirect_uri: REDIRECT_URI })).token as { access_token: string };
    assert.equal((await me(ctx.app, token.access_token, oauth.tenant.name)).statusCode, 200);
  });

  /** What a browser does on the sign-in page, over the socket: GET it, post the form with its cookie, answer the 303. */
  async function signInThroughPage(url: URL, oauth: OAuthFixture): Promise<URL> {
    const page = await fetch(url, { redirect: 'manual' });
    assert.equal(page.status, 200);
    const html = await page.text();
    const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
    const form = new URLSearchParams({ email: oauth.adminEmail, password: oauth.adminPassword, action: 'authorize' });
    for (const name of ['request_id', 'client_id', 'csrf_token']) {
      form.set(name, new RegExp(`name="${name}" value="([^"]*)"`).exec(html)![1]!);
    }
    const posted = await fetch(new URL('/auth/oauth/authorize', url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: form,
    });
    assert.equal(posted.status, 303);
    return new URL(posted.headers.get('location')!);
  }

  it('simple-oauth2 with JSON bodies and the client in the body (exactly the interface request): exchange, refresh, revoke', async () => {
    const oauth = await givenOAuth(ctx);
    const client = new AuthorizationCode({
      client: { id: oauth.client.clientId, secret: oauth.client.clientSecret },
      auth: {
        tokenHost: await ctx.url(),
        tokenPath: '/auth/oauth/token',
        revokePath: '/auth/oauth/revoke',
        authorizePath: '/auth/oauth/authorize',
      },
      options: { authorizationMethod: 'body', bodyFormat: 'json' },
    });
    const { code, verifier } = await oauth.code();
    const accessToken = await client.getToken({ code, redirect_uri: REDIRECT_URI, code_verifier: verifier } as Parameters<
      typeof client.getToken
    >[0]);
    const first = accessToken.token as { access_token: string; refresh_token: string; token_type: string; expires_in: number };
    assert.equal(first.token_type, 'bearer');
    assert.equal(first.expires_in, 3600);
    assert.equal(accessToken.expired(), false);
    assert.equal((await me(ctx.app, first.access_token, oauth.tenant.name)).statusCode, 200);

    const refreshed = await accessToken.refresh();
    const second = refreshed.token as { access_token: string };
    assert.notEqual(second.access_token, first.access_token);
    assert.equal((await me(ctx.app, second.access_token, oauth.tenant.name)).statusCode, 200);

    await refreshed.revokeAll();
    assert.equal((await me(ctx.app, second.access_token, oauth.tenant.name)).statusCode, 401);
  });

  it('simple-oauth2: a code used twice fails with invalid_grant and revokes the first tokens', async () => {
    const oauth = await givenOAuth(ctx);
    const client = new AuthorizationCode({
      client: { id: oauth.client.clientId, secret: oauth.client.clientSecret },
      auth: { tokenHost: await ctx.url(), tokenPath: '/auth/oauth/token' },
      options: { authorizationMethod: 'body', bodyFormat: 'json' },
    });
    const { code, verifier } = await oauth.code();
    const params = { code, redirect_uri: REDIRECT_URI, code_verifier: verifier } as Parameters<typeof client.getToken>[0];
    const first = (await client.getToken(params)).token as { access_token: string };
    await assert.rejects(client.getToken(params), (error: { output?: { statusCode: number }; data?: { payload?: { error?: string } } }) => {
      assert.equal(error.output?.statusCode, 400);
      assert.equal(error.data?.payload?.error, 'invalid_grant');
      return true;
    });
    assert.equal((await me(ctx.app, first.access_token, oauth.tenant.name)).statusCode, 401);
  });
});

export type { TestContext };
