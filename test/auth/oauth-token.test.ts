import assert from 'node:assert/strict';
import { it } from 'node:test';
import { hashSecret } from '../../src/platform/issued-secrets.js';
import { describeEachBackend } from '../support/build-test-app.js';
import { basicClient, exchange, formRequest, givenOAuth, me, redeemCode, REDIRECT_URI, tokenRequest } from './oauth-token-fixtures.js';

describeEachBackend('POST /auth/oauth/token', (ctx) => {
  it('exchanges a code sent as JSON with the client in the body (the interface form) for a token pair', async () => {
    const oauth = await givenOAuth(ctx);
    const { code, verifier } = await oauth.code();
    const res = await redeemCode(ctx.app, oauth.client, code, verifier);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers.pragma, 'no-cache');
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'refresh_token', 'token_type']);
    assert.equal(body.token_type, 'bearer');
    assert.equal(body.expires_in, 3600);
    assert.match(body.access_token, new RegExp(`^lba_${oauth.tenant.id.replaceAll('-', '')}_`));
    assert.match(body.refresh_token, new RegExp(`^lbr_${oauth.tenant.id.replaceAll('-', '')}_`));

    const who = await me(ctx.app, body.access_token, oauth.tenant.name);
    assert.equal(who.statusCode, 200, who.body);
    assert.deepEqual(who.json(), {
      tenant: { id: oauth.tenant.id, name: oauth.tenant.name },
      principal: { kind: 'admin', id: oauth.adminId },
    });
    assert.equal(who.headers.deprecation, undefined);
  });

  it('stores only SHA-256 hashes of the tokens', async () => {
    const oauth = await givenOAuth(ctx);
    const tokens = await exchange(ctx.app, oauth);
    const { rows } = await ctx.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM oauth_tokens WHERE tenant_id = $1 AND token_hash IN ($2, $3)',
      [oauth.tenant.id, hashSecret(tokens.access_token), hashSecret(tokens.refresh_token)],
    );
    assert.equal(rows[0]?.n, 2);
  });

  it('exchanges a code sent as a form with the client in HTTP Basic (RFC 6749)', async () => {
    const oauth = await givenOAuth(ctx);
    const { code, verifier } = await oauth.code();
    const res = await formRequest(
      ctx.app,
      '/auth/oauth/token',
      { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, code, code_verifier: verifier! },
      { authorization: basicClient(oauth.client), 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().token_type, 'bearer');
  });

  it('exchanges a code issued without PKCE when no verifier is sent', async () => {
    const oauth = await givenOAuth(ctx);
    const { code } = await oauth.code({ pkce: false });
    const res = await redeemCode(ctx.app, oauth.client, code);
    assert.equal(res.statusCode, 200, res.body);
  });

  it('refuses a wrong secret, an unknown client and a missing client with 401 invalid_client', async () => {
    const oauth = await givenOAuth(ctx);
    const { code, verifier } = await oauth.code();
    const base = { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, code, code_verifier: verifier };
    const cases = {
      'wrong secret in the body': [{ ...base, client_id: oauth.client.clientId, client_secret: 'wrong' }, {}],
      'wrong secret in Basic': [base, { authorization: basicClient({ ...oauth.client, clientSecret: 'wrong' }) }],
      'unknown client': [{ ...base, client_id: `lbc_${'0'.repeat(32)}_${'0'.repeat(16)}`, client_secret: oauth.client.clientSecret }, {}],
      'malformed client id': [{ ...base, client_id: 'nobody', client_secret: 'x' }, {}],
      'no client authentication': [base, {}],
      'client id without secret': [{ ...base, client_id: oauth.client.clientId }, {}],
      'Bearer instead of Basic': [base, { authorization: 'Bearer abc' }],
    } as const;
    for (const [name, [body, headers]] of Object.entries(cases)) {
      const res = await tokenRequest(ctx.app, body, headers);
      assert.equal(res.statusCode, 401, name);
      assert.equal(res.json().error, 'invalid_client', name);
      assert.equal(typeof res.json().error_description, 'string', name);
      // RFC 6749 §5.2: the Basic challenge when the client tried Basic or sent no secret at all.
      const challenged = 'authorization' in headers || !('client_secret' in body);
      assert.equal(res.headers['www-authenticate'], challenged ? 'Basic realm="learnbase", charset="UTF-8"' : undefined, name);
      assert.equal(res.headers['cache-control'], 'no-store', name);
    }
    // None of these consumed the code.
    const good = await tokenRequest(ctx.app, { ...base, client_id: oauth.client.clientId, client_secret: oauth.client.clientSecret });
    assert.equal(good.statusCode, 200, good.body);
  });

  it('refuses two client authentication methods at once with invalid_request', async () => {
    const oauth = await givenOAuth(ctx);
    const { code, verifier } = await oauth.code();
    const res = await tokenRequest(
      ctx.app,
      {
        grant_type: 'authorization_code',
        redirect_uri: REDIRECT_URI,
        code,
        code_verifier: verifier,
        client_secret: oauth.client.clientSecret,
      },
      { authorization: basicClient(oauth.client) },
    );
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_request');
  });

  it('refuses a code issued to another client, a different redirect_uri, and a wrong or missing PKCE verifier with invalid_grant, leaving the code usable', async () => {
    const oauth = await givenOAuth(ctx);
    const { code, verifier } = await oauth.code();
    const base = {
      grant_type: 'authorization_code',
      client_id: oauth.client.clientId,
      client_secret: oauth.client.clientSecret,
      redirect_uri: REDIRECT_URI,
      code,
      code_verifier: verifier,
    };
    const cases: Record<string, Record<string, unknown>> = {
      'another client': { ...base, client_id: oauth.otherClient.clientId, client_secret: oauth.otherClient.clientSecret },
      'redirect_uri mismatch': { ...base, redirect_uri: 'http://localhost:9/other' },
      'redirect_uri with a trailing slash': { ...base, redirect_uri: `${REDIRECT_URI}/` },
      'PKCE verifier mismatch': { ...base, code_verifier: 'x'.repeat(43) },
      'PKCE verifier missing': { ...base, code_verifier: undefined },
    };
    for (const [name, body] of Object.entries(cases)) {
      const res = await tokenRequest(ctx.app, body);
      assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
      assert.equal(res.json().error, 'invalid_grant', name);
    }
    const good = await tokenRequest(ctx.app, base);
    assert.equal(good.statusCode, 200, good.body);
  });

  it('refuses a code of another tenant and a made-up code with invalid_grant', async () => {
    const a = await givenOAuth(ctx);
    const b = await givenOAuth(ctx);
    const { code, verifier } = await b.code();
    for (const candidate of [code, 'made-up-code']) {
      const res = await redeemCode(ctx.app, a.client, candidate, verifier);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_grant');
    }
  });

  it('refuses a verifier for a code issued without a challenge (PKCE downgrade)', async () => {
    const oauth = await givenOAuth(ctx);
    const { code } = await oauth.code({ pkce: false });
    const res = await redeemCode(ctx.app, oauth.client, code, 'y'.repeat(43));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_grant');
  });

  it('refuses an expired code with invalid_grant', async () => {
    const oauth = await givenOAuth(ctx);
    const { code, verifier } = await oauth.code();
    await ctx.db.query("UPDATE oauth_codes SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND code_hash = $2", [
      oauth.tenant.id,
      hashSecret(code),
    ]);
    const res = await redeemCode(ctx.app, oauth.client, code, verifier);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_grant');
    assert.match(res.json().error_description, /expired/);
  });

  it('refuses a second use of a code and revokes every token issued from it', async () => {
    const oauth = await givenOAuth(ctx);
    const { code, verifier } = await oauth.code();
    const redeem = () => redeemCode(ctx.app, oauth.client, code, verifier);
    const first = await redeem();
    assert.equal(first.statusCode, 200);
    const tokens = first.json();
    // Used once, so cached by this process: the revocation must evict it.
    assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).statusCode, 200);

    const second = await redeem();
    assert.equal(second.statusCode, 400);
    assert.equal(second.json().error, 'invalid_grant');

    const after = await me(ctx.app, tokens.access_token, oauth.tenant.name);
    assert.equal(after.statusCode, 401);
    assert.match(String(after.headers['www-authenticate']), /^Bearer realm="learnbase", error="invalid_token"/);
    const refresh = await tokenRequest(ctx.app, {
      grant_type: 'refresh_token',
      client_id: oauth.client.clientId,
      client_secret: oauth.client.clientSecret,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(refresh.statusCode, 400);
    assert.equal(refresh.json().error, 'invalid_grant');
  });

  it('gives one token pair to two concurrent redemptions of one code, and revokes it', async () => {
    const oauth = await givenOAuth(ctx);
    const { code, verifier } = await oauth.code();
    const redeem = () => redeemCode(ctx.app, oauth.client, code, verifier);
    const results = await Promise.all([redeem(), redeem()]);
    const ok = results.filter((res) => res.statusCode === 200);
    assert.equal(ok.length, 1, results.map((res) => res.body).join('\n'));
    assert.equal(results.find((res) => res.statusCode !== 200)?.json().error, 'invalid_grant');
    assert.equal((await me(ctx.app, ok[0]!.json().access_token, oauth.tenant.name)).statusCode, 401);
  });

  it('refreshes: a new pair, and the old refresh token stops working', async () => {
    const oauth = await givenOAuth(ctx);
    const first = await exchange(ctx.app, oauth);
    const refresh = (token: string) =>
      tokenRequest(ctx.app, {
        grant_type: 'refresh_token',
        client_id: oauth.client.clientId,
        client_secret: oauth.client.clientSecret,
        refresh_token: token,
      });
    const res = await refresh(first.refresh_token);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const second = res.json();
    assert.notEqual(second.access_token, first.access_token);
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.equal(second.expires_in, 3600);
    assert.equal((await me(ctx.app, second.access_token, oauth.tenant.name)).json().principal.id, oauth.adminId);

    // Presenting the used refresh token again revokes the whole chain.
    const reuse = await refresh(first.refresh_token);
    assert.equal(reuse.statusCode, 400);
    assert.equal(reuse.json().error, 'invalid_grant');
    assert.equal((await me(ctx.app, second.access_token, oauth.tenant.name)).statusCode, 401);
    assert.equal((await me(ctx.app, first.access_token, oauth.tenant.name)).statusCode, 401);
    assert.equal((await refresh(second.refresh_token)).json().error, 'invalid_grant');
  });

  it('answers exactly one of two concurrent uses of one refresh token', async () => {
    const oauth = await givenOAuth(ctx);
    const first = await exchange(ctx.app, oauth);
    const body = {
      grant_type: 'refresh_token',
      client_id: oauth.client.clientId,
      client_secret: oauth.client.clientSecret,
      refresh_token: first.refresh_token,
    };
    const results = await Promise.all([tokenRequest(ctx.app, body), tokenRequest(ctx.app, body), tokenRequest(ctx.app, body)]);
    assert.equal(results.filter((res) => res.statusCode === 200).length, 1, results.map((res) => res.body).join('\n'));
    assert.deepEqual(
      results.filter((res) => res.statusCode !== 200).map((res) => res.json().error),
      ['invalid_grant', 'invalid_grant'],
    );
  });

  it('refuses a refresh token presented by another client, of another tenant, or expired', async () => {
    const oauth = await givenOAuth(ctx);
    const other = await givenOAuth(ctx);
    const tokens = await exchange(ctx.app, oauth);
    const byOther = await tokenRequest(ctx.app, {
      grant_type: 'refresh_token',
      client_id: oauth.otherClient.clientId,
      client_secret: oauth.otherClient.clientSecret,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(byOther.json().error, 'invalid_grant');
    const byOtherTenant = await tokenRequest(ctx.app, {
      grant_type: 'refresh_token',
      client_id: other.client.clientId,
      client_secret: other.client.clientSecret,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(byOtherTenant.json().error, 'invalid_grant');
    await ctx.db.query("UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND token_hash = $2", [
      oauth.tenant.id,
      hashSecret(tokens.refresh_token),
    ]);
    const expired = await tokenRequest(ctx.app, {
      grant_type: 'refresh_token',
      client_id: oauth.client.clientId,
      client_secret: oauth.client.clientSecret,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(expired.json().error, 'invalid_grant');
    assert.match(expired.json().error_description, /expired/);
  });

  it('answers malformed requests with RFC 6749 errors in JSON', async () => {
    const oauth = await givenOAuth(ctx);
    const client = { client_id: oauth.client.clientId, client_secret: oauth.client.clientSecret };
    const cases: Array<[string, () => ReturnType<typeof tokenRequest>, number, string]> = [
      ['missing grant_type', () => tokenRequest(ctx.app, { ...client, code: 'x' }), 400, 'invalid_request'],
      ['unsupported grant_type', () => tokenRequest(ctx.app, { ...client, grant_type: 'password' }), 400, 'unsupported_grant_type'],
      [
        'client_credentials',
        () => formRequest(ctx.app, '/auth/oauth/token', { ...client, grant_type: 'client_credentials' }),
        400,
        'unsupported_grant_type',
      ],
      [
        'missing code',
        () => tokenRequest(ctx.app, { ...client, grant_type: 'authorization_code', redirect_uri: REDIRECT_URI }),
        400,
        'invalid_request',
      ],
      [
        'missing redirect_uri',
        () => tokenRequest(ctx.app, { ...client, grant_type: 'authorization_code', code: 'x' }),
        400,
        'invalid_request',
      ],
      ['missing refresh_token', () => tokenRequest(ctx.app, { ...client, grant_type: 'refresh_token' }), 400, 'invalid_request'],
      [
        'malformed code_verifier',
        () =>
          tokenRequest(ctx.app, {
            ...client,
            grant_type: 'authorization_code',
            code: 'x',
            redirect_uri: REDIRECT_URI,
            code_verifier: 'short',
          }),
        400,
        'invalid_request',
      ],
      [
        'grant_type repeated',
        () =>
          ctx.app.inject({
            method: 'POST',
            url: '/auth/oauth/token',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: 'grant_type=refresh_token&grant_type=authorization_code',
          }),
        400,
        'invalid_request',
      ],
      ['grant_type not a string', () => tokenRequest(ctx.app, { ...client, grant_type: { a: 1 } }), 400, 'invalid_request'],
      [
        'bad content type',
        () =>
          ctx.app.inject({
            method: 'POST',
            url: '/auth/oauth/token',
            headers: { 'content-type': 'application/xml' },
            payload: '<grant_type>refresh_token</grant_type>',
          }),
        400,
        'invalid_request',
      ],
      [
        'text/plain',
        () =>
          ctx.app.inject({
            method: 'POST',
            url: '/auth/oauth/token',
            headers: { 'content-type': 'text/plain' },
            payload: 'grant_type=refresh_token',
          }),
        400,
        'invalid_request',
      ],
      [
        'broken JSON',
        () =>
          ctx.app.inject({
            method: 'POST',
            url: '/auth/oauth/token',
            headers: { 'content-type': 'application/json' },
            payload: '{"grant_type":',
          }),
        400,
        'invalid_request',
      ],
      ['no body', () => ctx.app.inject({ method: 'POST', url: '/auth/oauth/token' }), 400, 'invalid_request'],
      [
        'JSON array',
        () => ctx.app.inject({ method: 'POST', url: '/auth/oauth/token', headers: { 'content-type': 'application/json' }, payload: '[]' }),
        400,
        'invalid_request',
      ],
    ];
    for (const [name, send, status, error] of cases) {
      const res = await send();
      assert.equal(res.statusCode, status, `${name}: ${res.body}`);
      assert.match(String(res.headers['content-type']), /^application\/json/, name);
      assert.equal(res.json().error, error, `${name}: ${res.body}`);
      assert.equal(typeof res.json().error_description, 'string', name);
      assert.equal(res.headers['cache-control'], 'no-store', name);
    }
  });
});

describeEachBackend('POST /auth/oauth/revoke', (ctx) => {
  const revoke = (client: { clientId: string; clientSecret: string }, token: string, extra: Record<string, string> = {}) =>
    formRequest(ctx.app, '/auth/oauth/revoke', { token, ...extra }, { authorization: basicClient(client) });

  it('revokes an access token at once, even one this process has cached', async () => {
    const oauth = await givenOAuth(ctx);
    const tokens = await exchange(ctx.app, oauth);
    assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).statusCode, 200);
    const res = await revoke(oauth.client, tokens.access_token, { token_type_hint: 'access_token' });
    assert.equal(res.statusCode, 200, res.body);
    const after = await me(ctx.app, tokens.access_token, oauth.tenant.name);
    assert.equal(after.statusCode, 401);
    assert.equal(after.json().code, 'auth.invalid_token');
    assert.match(String(after.headers['www-authenticate']), /error="invalid_token"/);
    // The refresh token of the authorization still works: only the access token went.
    const refreshed = await tokenRequest(ctx.app, {
      grant_type: 'refresh_token',
      client_id: oauth.client.clientId,
      client_secret: oauth.client.clientSecret,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(refreshed.statusCode, 200);
  });

  it('revokes a refresh token with its whole authorization', async () => {
    const oauth = await givenOAuth(ctx);
    const tokens = await exchange(ctx.app, oauth);
    assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).statusCode, 200);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/auth/oauth/revoke',
      headers: { 'content-type': 'application/json' },
      payload: { token: tokens.refresh_token, client_id: oauth.client.clientId, client_secret: oauth.client.clientSecret },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).statusCode, 401);
    const refreshed = await tokenRequest(ctx.app, {
      grant_type: 'refresh_token',
      client_id: oauth.client.clientId,
      client_secret: oauth.client.clientSecret,
      refresh_token: tokens.refresh_token,
    });
    assert.equal(refreshed.json().error, 'invalid_grant');
  });

  it("answers 200 to unknown and malformed tokens (RFC 7009 §2.2), 401 to a bad client, 400 to another client's token", async () => {
    const oauth = await givenOAuth(ctx);
    const tokens = await exchange(ctx.app, oauth);
    assert.equal((await revoke(oauth.client, 'not-a-token')).statusCode, 200);
    assert.equal((await revoke(oauth.client, `lba_${oauth.tenant.id.replaceAll('-', '')}_${'A'.repeat(43)}`)).statusCode, 200);
    const badClient = await revoke({ ...oauth.client, clientSecret: 'wrong' }, tokens.access_token);
    assert.equal(badClient.statusCode, 401);
    assert.equal(badClient.json().error, 'invalid_client');
    const otherClient = await revoke(oauth.otherClient, tokens.access_token);
    assert.equal(otherClient.statusCode, 400);
    assert.equal(otherClient.json().error, 'invalid_request');
    const badHint = await revoke(oauth.client, tokens.access_token, { token_type_hint: 'id_token' });
    assert.equal(badHint.json().error, 'unsupported_token_type');
    assert.equal((await me(ctx.app, tokens.access_token, oauth.tenant.name)).statusCode, 200);
  });
});

describeEachBackend('GET /.well-known/oauth-authorization-server', (ctx) => {
  it('describes the endpoints, grants, client authentication methods and PKCE (RFC 8414)', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/.well-known/oauth-authorization-server',
      headers: { host: '127.0.0.1:8080' },
    });
    assert.equal(res.statusCode, 200);
    const metadata = res.json();
    assert.equal(metadata.issuer, 'http://127.0.0.1:8080');
    assert.equal(metadata.token_endpoint, 'http://127.0.0.1:8080/auth/oauth/token');
    assert.equal(metadata.authorization_endpoint, 'http://127.0.0.1:8080/auth/oauth/authorize');
    assert.equal(metadata.revocation_endpoint, 'http://127.0.0.1:8080/auth/oauth/revoke');
    assert.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post']);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
  });
});
