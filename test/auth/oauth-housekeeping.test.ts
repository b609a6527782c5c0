import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { DEFAULTS } from '../../src/config.js';
import { purgeExpiredOAuthRows } from '../../src/modules/auth/oauth/oauth-housekeeping.js';
import { DEFAULT_SIGN_IN_POLICY } from '../../src/modules/auth/oauth/sign-in-throttle.js';
import { hashSecret, newSecret } from '../../src/platform/issued-secrets.js';
import { describeEachBackend } from '../support/build-test-app.js';
import { exchange, givenOAuth, me, REDIRECT_URI } from './oauth-token-fixtures.js';

describeEachBackend('Purging expired OAuth rows', (ctx) => {
  it('deletes only what can no longer matter, and live tokens and sign-ins keep working', async () => {
    const oauth = await givenOAuth(ctx);
    const live = await exchange(ctx.app, oauth);
    const tenantId = oauth.tenant.id;
    const ago = (interval: string) => `now() - interval '${interval}'`;

    const pending = async (expiresAt: string) => {
      const id = randomUUID();
      await ctx.db.query(
        `INSERT INTO oauth_authorization_requests (tenant_id, id, csrf_hash, client_id, redirect_uri, expires_at)
         VALUES ($1, $2, $3, $4, $5, ${expiresAt})`,
        [tenantId, id, hashSecret(newSecret()), oauth.client.clientId, REDIRECT_URI],
      );
      return id;
    };
    const code = async (expiresAt: string) => {
      const hash = hashSecret(newSecret());
      await ctx.db.query(
        `INSERT INTO oauth_codes (tenant_id, code_hash, client_id, admin_id, redirect_uri, family_id, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, ${expiresAt})`,
        [tenantId, hash, oauth.client.clientId, oauth.adminId, REDIRECT_URI, randomUUID()],
      );
      return hash;
    };
    const token = async (expiresAt: string) => {
      const hash = hashSecret(newSecret());
      await ctx.db.query(
        `INSERT INTO oauth_tokens (tenant_id, token_hash, kind, client_id, admin_id, family_id, expires_at)
         VALUES ($1, $2, 'access', $3, $4, $5, ${expiresAt})`,
        [tenantId, hash, oauth.client.clientId, oauth.adminId, randomUUID()],
      );
      return hash;
    };
    const failure = async (subject: string, windowStartedAt: string, lockedUntil: string) => {
      await ctx.db.query(
        `INSERT INTO sign_in_failures (tenant_id, subject, failures, window_started_at, locked_until)
         VALUES ($1, $2, 3, ${windowStartedAt}, ${lockedUntil})`,
        [tenantId, subject],
      );
    };

    const expiredPending = await pending(ago('1 second'));
    const livePending = await pending("now() + interval '5 minutes'");
    const ancientCode = await code(ago('32 days'));
    const recentCode = await code(ago('2 days'));
    const oldToken = await token(ago('2 days'));
    const recentToken = await token(ago('1 hour'));
    await failure('ip:192.0.2.1', ago('1 hour'), 'NULL');
    await failure('ip:192.0.2.2', ago('1 hour'), ago('1 minute'));
    await failure('ip:192.0.2.3', ago('1 hour'), "now() + interval '5 minutes'");
    await failure('ip:192.0.2.4', ago('1 minute'), 'NULL');

    const purged = await purgeExpiredOAuthRows(ctx.db, DEFAULT_SIGN_IN_POLICY, DEFAULTS.refreshTokenTtlS);
    // Other tests' tenants share the database: at least ours went, and nothing of ours that should stay.
    assert.ok(
      purged.authorizationRequests >= 1 && purged.codes >= 1 && purged.tokens >= 1 && purged.signInFailures >= 2,
      JSON.stringify(purged),
    );

    const ids = async (text: string) => (await ctx.db.query<{ k: string }>(text, [tenantId])).rows.map((row) => row.k).sort();
    assert.deepEqual(await ids('SELECT id::text AS k FROM oauth_authorization_requests WHERE tenant_id = $1'), [livePending]);
    assert.ok(
      !(await ids("SELECT encode(code_hash, 'hex') AS k FROM oauth_codes WHERE tenant_id = $1")).includes(ancientCode.toString('hex')),
    );
    assert.ok(
      (await ids("SELECT encode(code_hash, 'hex') AS k FROM oauth_codes WHERE tenant_id = $1")).includes(recentCode.toString('hex')),
    );
    const tokens = await ids("SELECT encode(token_hash, 'hex') AS k FROM oauth_tokens WHERE tenant_id = $1");
    assert.ok(!tokens.includes(oldToken.toString('hex')));
    assert.ok(tokens.includes(recentToken.toString('hex')));
    assert.ok(tokens.includes(hashSecret(live.access_token).toString('hex')));
    assert.ok(tokens.includes(hashSecret(live.refresh_token).toString('hex')));
    assert.deepEqual(await ids('SELECT subject AS k FROM sign_in_failures WHERE tenant_id = $1'), ['ip:192.0.2.3', 'ip:192.0.2.4']);
    assert.ok(expiredPending);

    assert.equal((await me(ctx.app, live.access_token, oauth.tenant.name)).statusCode, 200);
  });
});
