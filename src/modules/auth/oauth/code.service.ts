import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { hashSecret, newSecret } from '../../../platform/issued-secrets.js';

/** Interface 5.1 step 2: a code is single-use and expires after 10 minutes. */
export const CODE_LIFETIME_SECONDS = 600;

export interface CodeGrant {
  tenantId: string;
  clientId: string;
  adminId: string;
  redirectUri: string;
  /** The PKCE S256 challenge the authorize request carried, if any. */
  codeChallenge?: string;
  /** When the admin signed in at their identity provider (single sign-on); undefined: with a password. */
  signedOnAt?: Date;
}

export type RedeemedCode =
  | { outcome: 'valid'; grant: CodeGrant; familyId: string }
  /** Already redeemed once: every token of `familyId` must be revoked (RFC 6749 §4.1.2). */
  | { outcome: 'replayed'; familyId: string }
  | { outcome: 'expired' | 'unknown' };

/**
 * Issues a code for a signed-in admin's authorization; only its hash is stored. `signedOn`: the
 * admin signed in at their identity provider just now (single sign-on), which the code carries to
 * the tokens and each refresh to the next (their session is bounded: refresh-token.ts).
 */
export async function issueCode(sql: SqlClient, grant: Omit<CodeGrant, 'signedOnAt'> & { signedOn?: boolean }): Promise<string> {
  const code = newSecret();
  await sql.query(
    `INSERT INTO oauth_codes (tenant_id, code_hash, client_id, admin_id, redirect_uri, code_challenge, family_id, expires_at, signed_on_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8), CASE WHEN $9::boolean THEN now() END)`,
    [
      grant.tenantId,
      hashSecret(code),
      grant.clientId,
      grant.adminId,
      grant.redirectUri,
      grant.codeChallenge ?? null,
      randomUUID(),
      CODE_LIFETIME_SECONDS,
      grant.signedOn === true,
    ],
  );
  return code;
}

/**
 * Marks the code used and answers what it granted. Atomic: of two concurrent redemptions of one
 * code exactly one is `valid`. The caller still checks the client, redirect_uri and PKCE verifier.
 */
export async function redeemCode(sql: SqlClient, tenantId: string, code: string): Promise<RedeemedCode> {
  const codeHash = hashSecret(code);
  const { rows } = await sql.query<{
    client_id: string;
    admin_id: string;
    redirect_uri: string;
    code_challenge: string | null;
    family_id: string;
    signed_on_at: Date | string | null;
    expired: boolean;
    previously_used: boolean;
  }>(
    `UPDATE oauth_codes c SET used_at = COALESCE(c.used_at, now())
       FROM (SELECT used_at IS NOT NULL AS previously_used FROM oauth_codes
              WHERE tenant_id = $1 AND code_hash = $2 FOR UPDATE) AS before
      WHERE c.tenant_id = $1 AND c.code_hash = $2
      RETURNING c.client_id, c.admin_id, c.redirect_uri, c.code_challenge, c.family_id, c.signed_on_at,
                c.expires_at <= now() AS expired, before.previously_used`,
    [tenantId, codeHash],
  );
  const row = rows[0];
  if (!row) return { outcome: 'unknown' };
  if (row.previously_used) return { outcome: 'replayed', familyId: row.family_id };
  if (row.expired) return { outcome: 'expired' };
  return {
    outcome: 'valid',
    familyId: row.family_id,
    grant: {
      tenantId,
      clientId: row.client_id,
      adminId: row.admin_id,
      redirectUri: row.redirect_uri,
      codeChallenge: row.code_challenge ?? undefined,
      ...(row.signed_on_at === null ? {} : { signedOnAt: new Date(row.signed_on_at) }),
    },
  };
}
