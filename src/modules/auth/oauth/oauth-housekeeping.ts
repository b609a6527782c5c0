import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { SignInPolicy } from './sign-in-throttle.js';

/** Expired tokens are kept a day past their expiry, for the logs' and the operators' sake. */
const TOKEN_RETENTION_SECONDS = 24 * 3600;

export interface PurgedRows {
  authorizationRequests: number;
  codes: number;
  tokens: number;
  signInFailures: number;
}

/**
 * Deletes what can no longer matter, across tenants: pending sign-ins past their 10 minutes,
 * tokens a day past expiry, failure counts whose window and lock have both run out, and codes once
 * no refresh token issued from them can still be alive (a replayed code revokes its tokens, so a
 * code is kept as long as they may live).
 */
export async function purgeExpiredOAuthRows(sql: SqlClient, policy: SignInPolicy, refreshLifetimeSeconds: number): Promise<PurgedRows> {
  const requests = await sql.query('DELETE FROM oauth_authorization_requests WHERE expires_at <= now()', []);
  const codes = await sql.query('DELETE FROM oauth_codes WHERE expires_at < now() - make_interval(secs => $1)', [
    refreshLifetimeSeconds + TOKEN_RETENTION_SECONDS,
  ]);
  const tokens = await sql.query('DELETE FROM oauth_tokens WHERE expires_at < now() - make_interval(secs => $1)', [
    TOKEN_RETENTION_SECONDS,
  ]);
  const failures = await sql.query(
    `DELETE FROM sign_in_failures
      WHERE window_started_at < now() - make_interval(secs => $1) AND (locked_until IS NULL OR locked_until <= now())`,
    [policy.windowSeconds],
  );
  return {
    authorizationRequests: requests.rowCount,
    codes: codes.rowCount,
    tokens: tokens.rowCount,
    signInFailures: failures.rowCount,
  };
}
