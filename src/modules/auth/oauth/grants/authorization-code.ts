import { createHash, timingSafeEqual } from 'node:crypto';
import { redeemCode } from '../code.service.js';
import type { OAuthClient } from '../clients/client.service.js';
import { InvalidGrant, InvalidRequest } from '../oauth-errors.js';
import type { TokenResponse, TokenService } from '../token.service.js';

export interface AuthorizationCodeParams {
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * RFC 6749 §4.1.3: exchanges a code for a token pair. The code is redeemed, checked against the
 * client, the redirect_uri and the PKCE challenge, and the tokens stored, in one transaction: a
 * failed check leaves the code unused (as oidc-provider does), and a concurrent second redemption
 * waits on the code's row lock until the tokens exist, so its replay revokes them.
 */
export async function exchangeAuthorizationCode(
  tokens: TokenService,
  client: OAuthClient,
  params: AuthorizationCodeParams,
): Promise<TokenResponse> {
  const { code, redirect_uri: redirectUri, code_verifier: codeVerifier } = params;
  if (!code) throw new InvalidRequest('The code parameter is required.');
  if (!redirectUri) throw new InvalidRequest('The redirect_uri parameter is required: the one the authorize request carried.');
  if (codeVerifier !== undefined && !CODE_VERIFIER.test(codeVerifier)) {
    throw new InvalidRequest('The code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9 and "-._~" (RFC 7636 §4.1).');
  }
  const tenantId = client.tenant.id;

  type Outcome = { replayed: Buffer[] } | { issued: TokenResponse };
  const outcome = await tokens.sql.transaction(async (tx): Promise<Outcome> => {
    const redeemed = await redeemCode(tx, tenantId, code);
    switch (redeemed.outcome) {
      case 'unknown':
        throw new InvalidGrant('The code is not valid.');
      case 'expired':
        throw new InvalidGrant('The code expired: codes last 10 minutes. Start the authorization again.');
      case 'replayed':
        // RFC 6749 §4.1.2: a code used twice revokes every token issued from it.
        return { replayed: await tokens.revokeFamily(tx, tenantId, redeemed.familyId) };
    }
    const { grant } = redeemed;
    if (grant.clientId !== client.clientId) throw new InvalidGrant('The code was issued to another client.');
    if (grant.redirectUri !== redirectUri) throw new InvalidGrant('The redirect_uri differs from the one of the authorize request.');
    checkPkce(grant.codeChallenge, codeVerifier);
    return {
      issued: await tokens.issuePair(tx, tenantId, {
        clientId: client.clientId,
        adminId: grant.adminId,
        familyId: redeemed.familyId,
        signedOnAt: grant.signedOnAt,
      }),
    };
  });

  if ('replayed' in outcome) {
    await tokens.announce(outcome.replayed);
    throw new InvalidGrant('The code was already used; every token issued from it is now revoked.');
  }
  return outcome.issued;
}

/** RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) must equal the S256 challenge of the authorize request. */
function checkPkce(challenge: string | undefined, verifier: string | undefined): void {
  if (challenge === undefined) {
    // RFC 9700 §2.1.1: a verifier for a code issued without a challenge is a downgrade attempt.
    if (verifier !== undefined) throw new InvalidGrant('The authorize request carried no code_challenge, so no code_verifier is expected.');
    return;
  }
  if (verifier === undefined) throw new InvalidGrant('The code_verifier is required: the authorize request carried a code_challenge.');
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  if (computed.length !== expected.length || !timingSafeEqual(computed, expected)) {
    throw new InvalidGrant('The code_verifier does not match the code_challenge.');
  }
}
