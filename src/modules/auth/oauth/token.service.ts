import type { NotifyBus } from '../../../platform/database/notify-bus.js';
import { RevocableCache } from '../../../platform/revocable-cache.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { hashSecret, newSecret } from '../../../platform/issued-secrets.js';
import { type TenancyService, tenantHex, tenantIdFromHex } from '../../tenancy/index.js';
import type { OAuthClient } from './clients/client.service.js';
import { InvalidRequest } from './oauth-errors.js';
import {
  findToken,
  findTokenWithScope,
  insertTokens,
  revokeAdminTokenRows,
  revokeFamilyRows,
  revokeTokenRow,
  type TokenKind,
} from './token.repository.js';

/** Interface 5.1 step 6: an access token lasts one hour. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
/** The LISTEN/NOTIFY channel that carries the SHA-256 (hex) of revoked access tokens, comma-separated. */
export const REVOCATIONS_CHANNEL = 'learnbase_revocations';

/** RFC 6749 §5.1, with the interface's lower-case `bearer` (5.1 step 4). */
export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
}

/** What a valid access token grants: an admin of one tenant, through one client, until `expiresAtMs`. */
export interface AccessGrant {
  tenantId: string;
  adminId: string;
  clientId: string;
  expiresAtMs: number;
  /**
   * The organisation entry the admin is limited to, as it was when the token was first checked:
   * a change of the admin's scope revokes their tokens (revokeAdminTokens), so it is never stale.
   */
  scope?: string;
}

export type AccessCheck = { valid: true; grant: AccessGrant } | { valid: false; reason: 'unknown' | 'expired' | 'revoked' };

/**
 * Tokens look like `lba_<tenant id hex>_<random>` (access) and `lbr_<tenant id hex>_<random>`
 * (refresh): a token names its tenant, as API keys and client ids do, so it is found without a
 * global index. Only its SHA-256 is stored.
 */
const TOKEN = /^lb([ar])_([0-9a-f]{32})_[A-Za-z0-9_-]{43}$/;

export function parseToken(token: string): { kind: TokenKind; tenantId: string } | undefined {
  const match = TOKEN.exec(token);
  if (!match) return undefined;
  const hex = match[2] as string;
  return {
    kind: match[1] === 'a' ? 'access' : 'refresh',
    tenantId: tenantIdFromHex(hex),
  };
}

export interface TokenServiceOptions {
  /** How long one process trusts an access token it verified, in ms (never past the token's expiry). */
  cacheTtlMs: number;
  /** Publishing a revocation failed; the revocation itself stands, and other processes' caches age out. */
  onError?: (error: Error) => void;
  /**
   * How long a refresh token lives, in seconds (LEARNBASE_REFRESH_TOKEN_TTL_S). Each refresh issues
   * a new one with the whole lifetime again, so an integration that refreshes keeps working.
   * A command that only revokes may pass 0.
   */
  refreshLifetimeSeconds: number;
  /**
   * How long after signing in at their identity provider an admin single sign-on made may go on
   * refreshing, in seconds (LEARNBASE_SSO_ADMIN_SESSION_S); then they sign in there again, where
   * the connection's claim is checked again. Left out (a command that only revokes): no such
   * refresh is granted.
   */
  ssoAdminSessionSeconds?: number;
}

/**
 * Issues, checks and revokes tokens. Verified access tokens are cached per process so that a
 * Bearer request costs no database round trip; every revocation is announced on
 * `learnbase_revocations`, and every process evicts what it hears.
 */
export class TokenService {
  /** Verified access tokens by the hex of their hash. */
  private readonly cache: RevocableCache<AccessGrant>;

  constructor(
    readonly sql: SqlClient,
    readonly tenancy: TenancyService,
    notifications: NotifyBus,
    private readonly options: TokenServiceOptions,
  ) {
    this.cache = new RevocableCache(notifications, REVOCATIONS_CHANNEL, {
      ttlMs: options.cacheTtlMs,
      name: 'access_token',
      onError: options.onError,
    });
  }

  /** Starts hearing the revocations of every process; call once before serving. */
  start(): Promise<void> {
    return this.cache.start();
  }

  stop(): void {
    this.cache.stop();
  }

  /** How long an admin's single sign-on lets them refresh (TokenServiceOptions.ssoAdminSessionSeconds). */
  get ssoAdminSessionSeconds(): number {
    return this.options.ssoAdminSessionSeconds ?? 0;
  }

  /**
   * Mints an access and a refresh token of one family (one authorization) and stores their hashes;
   * `signedOnAt`, when the authorization began with a sign-in at an identity provider, goes with them.
   */
  async issuePair(
    sql: SqlClient,
    tenantId: string,
    grant: { clientId: string; adminId: string; familyId: string; signedOnAt?: Date },
  ): Promise<TokenResponse> {
    const hex = tenantHex(tenantId);
    const accessToken = `lba_${hex}_${newSecret()}`;
    const refreshToken = `lbr_${hex}_${newSecret()}`;
    await insertTokens(sql, tenantId, [
      { ...grant, tokenHash: hashSecret(accessToken), kind: 'access', lifetimeSeconds: ACCESS_TOKEN_LIFETIME_SECONDS },
      {
        ...grant,
        tokenHash: hashSecret(refreshToken),
        kind: 'refresh',
        lifetimeSeconds: this.options.refreshLifetimeSeconds,
      },
    ]);
    return { access_token: accessToken, refresh_token: refreshToken, token_type: 'bearer', expires_in: ACCESS_TOKEN_LIFETIME_SECONDS };
  }

  /** Checks a Bearer access token: from this process's cache when it verified it lately, else one primary-key read. */
  async checkAccessToken(token: string): Promise<AccessCheck> {
    const parsed = parseToken(token);
    if (!parsed || parsed.kind !== 'access') return { valid: false, reason: 'unknown' };
    return this.checkAccessTokenHash(parsed.tenantId, hashSecret(token));
  }

  /**
   * The same check by the token's hash, for who keeps the hash only (the console's sessions): a
   * revocation announced for the hash refuses it here as it does the token.
   */
  async checkAccessTokenHash(tenantId: string, hash: Buffer): Promise<AccessCheck> {
    const key = hash.toString('hex');
    if (this.cache.isRevoked(key)) return { valid: false, reason: 'revoked' };
    const cached = this.cache.get(key);
    if (cached) {
      if (cached.expiresAtMs > Date.now()) return { valid: true, grant: cached };
      this.cache.delete(key);
      return { valid: false, reason: 'expired' };
    }
    const stored = await findTokenWithScope(this.sql, tenantId, hash);
    if (!stored || stored.kind !== 'access') return { valid: false, reason: 'unknown' };
    if (stored.revoked) return { valid: false, reason: 'revoked' };
    if (stored.expired) return { valid: false, reason: 'expired' };
    const grant: AccessGrant = {
      tenantId,
      adminId: stored.adminId,
      clientId: stored.clientId,
      expiresAtMs: stored.expiresAt.getTime(),
      ...(stored.scope === undefined ? {} : { scope: stored.scope }),
    };
    this.cache.set(key, grant);
    return { valid: true, grant };
  }

  /**
   * RFC 7009: revokes a token the client holds. A refresh token takes its whole authorization
   * (every token of its family) with it; an access token goes alone. Tokens that are unknown or
   * malformed are ignored (§2.2: the answer is 200 either way). A token issued to another client,
   * of this tenant or of another, is refused and stays valid (§2.1).
   */
  async revoke(client: OAuthClient, token: string): Promise<void> {
    const parsed = parseToken(token);
    if (!parsed) return;
    const hash = hashSecret(token);
    // Looked up in the tenant the token names, not the client's: another tenant's token is then
    // told apart from an unknown one and refused like any token of another client, where
    // answering 200 would tell its caller it was revoked. Only a holder of the whole token learns
    // that it exists, which using it as a Bearer token would tell as well.
    const stored = await findToken(this.sql, parsed.tenantId, hash);
    if (!stored) return;
    // RFC 7009 §2.1: the server verifies that the token was issued to the client revoking it.
    if (parsed.tenantId !== client.tenant.id || stored.clientId !== client.clientId) {
      throw new InvalidRequest('The token was not issued to this client.');
    }
    const revoked =
      stored.kind === 'refresh'
        ? await revokeFamilyRows(this.sql, parsed.tenantId, stored.familyId)
        : await revokeTokenRow(this.sql, parsed.tenantId, hash);
    await this.announce(revoked);
  }

  /** Revokes every token issued to one admin (a change of their scope); call `announce` after commit. */
  revokeAdminTokens(sql: SqlClient, tenantId: string, adminId: string): Promise<Buffer[]> {
    return revokeAdminTokenRows(sql, tenantId, adminId);
  }

  /** Revokes every token of one authorization (a replayed code, a reused refresh token); call `announce` after commit. */
  revokeFamily(sql: SqlClient, tenantId: string, familyId: string): Promise<Buffer[]> {
    return revokeFamilyRows(sql, tenantId, familyId);
  }

  /**
   * Tells every process, this one first and synchronously, that these access tokens are revoked.
   * Call it once the revocation is committed, so no process re-reads a still-valid row.
   */
  announce(accessTokenHashes: Buffer[]): Promise<void> {
    return this.cache.revoke(accessTokenHashes.map((hash) => hash.toString('hex')));
  }
}
