import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { hashSecret } from '../../src/platform/issued-secrets.js';
import { describeEachBackend } from '../support/build-test-app.js';
import { exchange, expireToken, givenOAuth, tokenRequest } from './oauth-token-fixtures.js';

const LIFETIME_S = 7_200;

describeEachBackend(
  'LEARNBASE_REFRESH_TOKEN_TTL_S',
  (ctx) => {
    /** Seconds from now until the stored refresh token expires. */
    async function secondsLeft(tenantId: string, token: string): Promise<number> {
      const { rows } = await ctx.db.query<{ left: number }>(
        `SELECT extract(epoch FROM expires_at - now())::float8 AS left FROM oauth_tokens WHERE tenant_id = $1 AND token_hash = $2 AND kind = 'refresh'`,
        [tenantId, hashSecret(token)],
      );
      assert.equal(rows.length, 1, 'the refresh token is stored');
      return Number(rows[0]!.left);
    }

    it('gives each refresh token the configured lifetime, and a refresh starts it again (sliding)', async () => {
      const oauth = await givenOAuth(ctx);
      const first = await exchange(ctx.app, oauth);
      const left = await secondsLeft(oauth.tenant.id, first.refresh_token);
      assert.ok(left > LIFETIME_S - 60 && left <= LIFETIME_S, `${left} s left of ${LIFETIME_S}`);

      const refreshed = await tokenRequest(ctx.app, {
        grant_type: 'refresh_token',
        client_id: oauth.client.clientId,
        client_secret: oauth.client.clientSecret,
        refresh_token: first.refresh_token,
      });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      const next = refreshed.json() as { refresh_token: string };
      const nextLeft = await secondsLeft(oauth.tenant.id, next.refresh_token);
      assert.ok(nextLeft > LIFETIME_S - 60 && nextLeft <= LIFETIME_S, `${nextLeft} s left of ${LIFETIME_S}`);
    });

    it('refuses a refresh token past its lifetime with invalid_grant', async () => {
      const oauth = await givenOAuth(ctx);
      const tokens = await exchange(ctx.app, oauth);
      await expireToken(ctx.db, oauth.tenant.id, tokens.refresh_token);
      const res = await tokenRequest(ctx.app, {
        grant_type: 'refresh_token',
        client_id: oauth.client.clientId,
        client_secret: oauth.client.clientSecret,
        refresh_token: tokens.refresh_token,
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error, 'invalid_grant');
    });
  },
  { refreshTokenTtlS: LIFETIME_S },
);

it('LEARNBASE_REFRESH_TOKEN_TTL_S: 30 days by default; at least an hour, at most 366 days', () => {
  assert.equal(loadConfig({}, {}).refreshTokenTtlS, 30 * 24 * 3600);
  assert.equal(loadConfig({}, { LEARNBASE_REFRESH_TOKEN_TTL_S: '86400' }).refreshTokenTtlS, 86_400);
  for (const bad of ['60', '40000000', 'a day']) {
    assert.throws(() => loadConfig({}, { LEARNBASE_REFRESH_TOKEN_TTL_S: bad }), /refreshTokenTtlS|LEARNBASE_REFRESH_TOKEN_TTL_S/, bad);
  }
});
