import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import { basicClient, exchange, formRequest, givenOAuth, me, tokenRequest, type GivenClient } from './oauth-token-fixtures.js';

describeEachBackend('POST /auth/oauth/revoke with another tenant’s token', (ctx) => {
  const revoke = (client: GivenClient, token: string, extra: Record<string, string> = {}) =>
    formRequest(ctx.app, '/auth/oauth/revoke', { token, ...extra }, { authorization: basicClient(client) });
  const refresh = (client: GivenClient, refreshToken: string) =>
    tokenRequest(ctx.app, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      refresh_token: refreshToken,
    });

  it('refuses another tenant’s access and refresh tokens with 400 invalid_request, and they stay valid', async () => {
    const mine = await givenOAuth(ctx);
    const theirs = await givenOAuth(ctx);
    const tokens = await exchange(ctx.app, theirs);
    // Verified once, so this process holds it in its cache too.
    assert.equal((await me(ctx.app, tokens.access_token, theirs.tenant.name)).statusCode, 200);

    for (const [token, hint] of [
      [tokens.access_token, 'access_token'],
      [tokens.refresh_token, 'refresh_token'],
      [tokens.access_token, undefined],
      [tokens.refresh_token, undefined],
    ] as const) {
      const res = await revoke(mine.client, token, hint ? { token_type_hint: hint } : {});
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error, 'invalid_request');
      assert.match(res.json().error_description, /not issued to this client/);
    }
    const json = await ctx.app.inject({
      method: 'POST',
      url: '/auth/oauth/revoke',
      headers: { 'content-type': 'application/json' },
      payload: { token: tokens.refresh_token, client_id: mine.client.clientId, client_secret: mine.client.clientSecret },
    });
    assert.equal(json.statusCode, 400, json.body);

    assert.equal((await me(ctx.app, tokens.access_token, theirs.tenant.name)).statusCode, 200);
    const stored = await ctx.db.query<{ revoked: number }>(
      'SELECT count(*)::int AS revoked FROM oauth_tokens WHERE tenant_id = $1 AND revoked_at IS NOT NULL',
      [theirs.tenant.id],
    );
    assert.equal(stored.rows[0].revoked, 0);
    const refreshed = await refresh(theirs.client, tokens.refresh_token);
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    assert.equal((await me(ctx.app, refreshed.json().access_token, theirs.tenant.name)).statusCode, 200);
  });

  it('still answers 200 to a token naming another tenant that no one was issued (RFC 7009 §2.2)', async () => {
    const mine = await givenOAuth(ctx);
    const theirs = await givenOAuth(ctx);
    const hex = theirs.tenant.id.replaceAll('-', '');
    assert.equal((await revoke(mine.client, `lba_${hex}_${'A'.repeat(43)}`)).statusCode, 200);
    assert.equal((await revoke(mine.client, `lbr_${hex}_${'B'.repeat(43)}`)).statusCode, 200);
    assert.equal((await revoke(mine.client, `lba_${'f'.repeat(32)}_${'A'.repeat(43)}`)).statusCode, 200);
  });

  it('lets the issuing client revoke the token the other tenant could not', async () => {
    const mine = await givenOAuth(ctx);
    const theirs = await givenOAuth(ctx);
    const tokens = await exchange(ctx.app, theirs);
    assert.equal((await revoke(mine.client, tokens.refresh_token)).statusCode, 400);
    assert.equal((await revoke(theirs.client, tokens.refresh_token)).statusCode, 200);
    assert.equal((await me(ctx.app, tokens.access_token, theirs.tenant.name)).statusCode, 401);
    assert.equal((await refresh(theirs.client, tokens.refresh_token)).json().error, 'invalid_grant');
  });
});
