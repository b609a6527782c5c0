import type { SqlClient } from '../../../../platform/database/sql-client.js';
import { hashSecret } from '../../../../platform/issued-secrets.js';
import type { OAuthClient } from '../clients/client.service.js';
import { InvalidGrant, InvalidRequest } from '../oauth-errors.js';
import { lockToken, markTokenUsed } from '../token.repository.js';
import { parseToken, type TokenResponse, type TokenService } from '../token.service.js';

export interface RefreshTokenParams {
  refresh_token?: string;
}

/**
 * RFC 6749 §6 with rotation (RFC 9700 §4.14.2): a refresh token is used once and answered with a
 * new pair of the same family. Presenting a used one again means two parties hold it, so the
 * whole family is revoked. The token's row is locked for the check and the rotation: of two
 * concurrent uses exactly one succeeds, and the other is the reuse that revokes the family.
 * An authorization begun by single sign-on is refreshed for LEARNBASE_SSO_ADMIN_SESSION_S after
 * the admin signed in at their provider, not longer: then they sign in there again, where the
 * connection's claim says again whether they are an admin (docs/identity.md).
 */
export async function refreshTokens(tokens: TokenService, client: OAuthClient, params: RefreshTokenParams): Promise<TokenResponse> {
  const refreshToken = params.refresh_token;
  if (!refreshToken) throw new InvalidRequest('The refresh_token parameter is required.');
  const parsed = parseToken(refreshToken);
  if (!parsed || parsed.kind !== 'refresh' || parsed.tenantId !== client.tenant.id) {
    throw new InvalidGrant('The refresh token is not valid.');
  }
  const outcome = await tokens.sql.transaction((tx) =>
    rotateRefreshToken(tx, tokens, client.clientId, parsed.tenantId, hashSecret(refreshToken)),
  );
  if ('reused' in outcome) {
    await tokens.announce(outcome.reused);
    throw new InvalidGrant('The refresh token was already used; every token of its authorization is now revoked.');
  }
  if ('refused' in outcome) throw new InvalidGrant(outcome.refused);
  return outcome.issued;
}

export type RotationOutcome = { refused: string } | { reused: Buffer[] } | { issued: TokenResponse };

/**
 * The rotation itself, in the caller's transaction `tx`, for the refresh token of hash `hash`: the
 * token endpoint's refresh above, and the console's session (console-session.service.ts), which
 * keeps the hashes of its tokens only. A `reused` outcome revoked the family in `tx`: announce it
 * once `tx` has committed.
 */
export async function rotateRefreshToken(
  tx: SqlClient,
  tokens: TokenService,
  clientId: string,
  tenantId: string,
  hash: Buffer,
): Promise<RotationOutcome> {
  const stored = await lockToken(tx, tenantId, hash);
  if (!stored || stored.kind !== 'refresh') return { refused: 'The refresh token is not valid.' };
  if (stored.clientId !== clientId) return { refused: 'The refresh token was issued to another client.' };
  if (stored.revoked) return { refused: 'The refresh token was revoked.' };
  if (stored.used) return { reused: await tokens.revokeFamily(tx, tenantId, stored.familyId) };
  if (stored.expired) return { refused: 'The refresh token expired. Start the authorization again.' };
  if (stored.signedOn && stored.signedOn.ageSeconds >= tokens.ssoAdminSessionSeconds) {
    return {
      refused:
        'The admin signed in through single sign-on, and that sign-in is older than the server lets it be refreshed ' +
        '(LEARNBASE_SSO_ADMIN_SESSION_S): start the authorization again and sign in at the identity provider.',
    };
  }
  await markTokenUsed(tx, tenantId, hash);
  return {
    issued: await tokens.issuePair(tx, tenantId, {
      clientId,
      adminId: stored.adminId,
      familyId: stored.familyId,
      signedOnAt: stored.signedOn?.at,
    }),
  };
}
