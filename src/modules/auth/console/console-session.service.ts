import { createHash, hash } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { TtlCache } from '../../../platform/cache.js';
import { hashSecret, newSecret } from '../../../platform/issued-secrets.js';
import type { Tenant } from '../../../kernel/principal.js';
import { type TenancyService, tenantHex, tenantIdFromHex } from '../../tenancy/index.js';
import { findAdmin } from '../admins/admin.service.js';
import { CONSOLE_REDIRECT_PATH, ensureConsoleClient } from '../oauth/clients/client.service.js';
import { exchangeAuthorizationCode } from '../oauth/grants/authorization-code.js';
import { rotateRefreshToken } from '../oauth/grants/refresh-token.js';
import { InvalidGrant } from '../oauth/oauth-errors.js';
import { findToken } from '../oauth/token.repository.js';
import type { AccessGrant, TokenService } from '../oauth/token.service.js';
import {
  deleteSession,
  findSession,
  insertSession,
  lockSession,
  type StoredSession,
  updateSessionTokens,
} from './console-session.repository.js';

/**
 * The console's backend-for-frontend (docs/console.md, "Signing in"): the console signs in through
 * the OAuth sign-in page as its tenant's console client; this server exchanges the code and keeps
 * the tokens' hashes in a session, and the browser holds the session's secret only, in an httpOnly
 * cookie. An API request with the cookie acts with the session's access token, refreshed here as it
 * runs out; signing out revokes the whole authorization.
 */

/** The session cookie: `__Host-` (Secure, Path=/, no Domain: never another sub-domain's), SameSite=Strict. */
export const SESSION_COOKIE = '__Host-lb-console';
/** One pending sign-in per cookie, named by its `state`: two tabs signing in at once do not undo each other. */
export const PENDING_COOKIE_PREFIX = '__Host-lb-console-signin-';
/** How long a sign-in may take at the sign-in page (as long as the page's own pending request). */
export const PENDING_LIFETIME_SECONDS = 600;
/** The header a write with the session cookie carries: the session's CSRF token (GET /console/auth/session). */
export const CSRF_HEADER = 'x-csrf-token';

/** `lbs_<tenant id hex>_<random>`: a session names its tenant, as tokens do; only its SHA-256 is kept. */
const SESSION = /^lbs_([0-9a-f]{32})_[A-Za-z0-9_-]{43}$/;
const STATE = /^[A-Za-z0-9_-]{22}$/;
/** Where a sign-in goes back to, below the console: a path of its own (`/people?q=…`), never another host. */
const RETURN_PATH = /^\/(?![/\\])[\x21-\x7e]{0,2000}$/;

/** Why the console's sign-in did not end in a session, as the start page names it (`?error=`). */
export type SignInFailure = 'unknown_tenant' | 'access_denied' | 'sign_in_expired' | 'sign_in_failed';

export interface PendingSignIn {
  tenantId: string;
  verifier: string;
  returnTo: string;
}

export interface SessionDescription {
  tenant: { id: string; name: string };
  admin: { id: string; email: string; scope?: { organisationId: string } };
  csrfToken: string;
}

export type SessionCheck = { valid: true; tenant: Tenant; grant: AccessGrant } | { valid: false };

/** The CSRF token of a session: derived from its secret, so only who holds the cookie's value (this server) can tell it. */
export const csrfTokenOf = (secret: string): string => hash('sha256', `learnbase console csrf\0${secret}`, 'base64url');

/** The return path when it is one of the console's own, else its home. */
export const returnPathOf = (value: unknown): string => (typeof value === 'string' && RETURN_PATH.test(value) ? value : '/');

export interface ConsoleSessionOptions {
  /** A session lives as long as its refresh token (LEARNBASE_REFRESH_TOKEN_TTL_S), renewed with each refresh. */
  lifetimeSeconds: number;
  /** How long one process trusts its reading of a session's current access token. */
  cacheTtlMs: number;
}

export class ConsoleSessions {
  /** Each session's current access token (its hash) and end, by the hex of the session's hash. */
  private readonly current: TtlCache<CurrentToken>;
  /** Refreshes under way in this process, by session: concurrent requests wait for the one. */
  private readonly refreshing = new Map<string, Promise<CurrentToken | undefined>>();

  constructor(
    private readonly sql: SqlClient,
    private readonly tenancy: TenancyService,
    private readonly tokens: TokenService,
    private readonly options: ConsoleSessionOptions,
  ) {
    this.current = new TtlCache(options.cacheTtlMs, { name: 'console_session' });
  }

  get lifetimeSeconds(): number {
    return this.options.lifetimeSeconds;
  }

  /**
   * Starts a sign-in: the authorize request of the tenant's console client (PKCE S256, a fresh
   * `state`) and the pending sign-in the browser keeps until it comes back. Undefined: no such tenant.
   */
  async begin(
    tenantName: string,
    returnTo: string,
    publicBaseUrl: string,
  ): Promise<{ tenant: Tenant; location: string; cookie: { name: string; value: string } } | undefined> {
    const tenant = await this.tenancy.findByName(tenantName);
    if (!tenant) return undefined;
    const client = await ensureConsoleClient(this.sql, tenant);
    const state = newSecret(16);
    const verifier = newSecret(32);
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: `${publicBaseUrl}${CONSOLE_REDIRECT_PATH}`,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const pending: PendingSignIn = { tenantId: tenant.id, verifier, returnTo: returnPathOf(returnTo) };
    return {
      tenant,
      location: `${publicBaseUrl}/auth/oauth/authorize?${query}`,
      cookie: { name: `${PENDING_COOKIE_PREFIX}${state}`, value: Buffer.from(JSON.stringify(pending)).toString('base64url') },
    };
  }

  /** The pending sign-in a cookie holds, or undefined for one that is no pending sign-in of ours. */
  static pendingOf(value: string | undefined): PendingSignIn | undefined {
    if (!value) return undefined;
    try {
      const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<PendingSignIn>;
      if (typeof parsed.tenantId !== 'string' || typeof parsed.verifier !== 'string') return undefined;
      return { tenantId: parsed.tenantId, verifier: parsed.verifier, returnTo: returnPathOf(parsed.returnTo) };
    } catch {
      return undefined;
    }
  }

  static isState(state: unknown): state is string {
    return typeof state === 'string' && STATE.test(state);
  }

  /**
   * Ends a sign-in with the code the sign-in page sent back: exchanged here (the console client's
   * PKCE verifier is the pending sign-in's), and a session made of the pair. Answers the session's
   * secret for the cookie, or why there is none.
   */
  async finish(
    pending: PendingSignIn,
    code: string,
    publicBaseUrl: string,
  ): Promise<{ secret: string; tenant: Tenant } | { failure: SignInFailure; tenant?: Tenant }> {
    const tenant = await this.tenancy.findById(pending.tenantId);
    if (!tenant) return { failure: 'unknown_tenant' };
    const client = await ensureConsoleClient(this.sql, tenant);
    let pair: { access_token: string; refresh_token: string };
    try {
      pair = await exchangeAuthorizationCode(this.tokens, client, {
        code,
        redirect_uri: `${publicBaseUrl}${CONSOLE_REDIRECT_PATH}`,
        code_verifier: pending.verifier,
      });
    } catch (error) {
      if (error instanceof InvalidGrant) return { failure: 'sign_in_failed', tenant };
      throw error;
    }
    const accessHash = hashSecret(pair.access_token);
    const issued = await findToken(this.sql, tenant.id, accessHash);
    if (!issued) return { failure: 'sign_in_failed', tenant };
    const secret = `lbs_${tenantHex(tenant.id)}_${newSecret()}`;
    await insertSession(
      this.sql,
      tenant.id,
      hashSecret(secret),
      {
        adminId: issued.adminId,
        clientId: client.clientId,
        familyId: issued.familyId,
        accessHash,
        refreshHash: hashSecret(pair.refresh_token),
      },
      this.options.lifetimeSeconds,
    );
    return { secret, tenant };
  }

  /**
   * The admin a session cookie acts for: its current access token checked as a Bearer token is
   * (revocations included), refreshed here when it has expired. Not valid: no such session, past its
   * lifetime, or its authorization revoked or refused a refresh (the session is then deleted).
   */
  async check(secret: string): Promise<SessionCheck> {
    const tenantId = tenantIdOfSession(secret);
    if (!tenantId) return { valid: false };
    const sessionHash = hashSecret(secret);
    const key = sessionHash.toString('hex');
    let current = this.current.get(key) ?? currentOf(await findSession(this.sql, tenantId, sessionHash));
    if (!current || current.expiresAtMs <= Date.now()) return { valid: false };
    let check = await this.tokens.checkAccessTokenHash(tenantId, current.accessHash);
    if (!check.valid && check.reason === 'expired') {
      current = await this.refreshOnce(tenantId, sessionHash, current.accessHash);
      check = current ? await this.tokens.checkAccessTokenHash(tenantId, current.accessHash) : check;
    }
    if (!check.valid || !current) {
      this.current.delete(key);
      await deleteSession(this.sql, tenantId, sessionHash);
      return { valid: false };
    }
    this.current.set(key, current);
    const tenant = await this.tenancy.findById(tenantId);
    return tenant ? { valid: true, tenant, grant: check.grant } : { valid: false };
  }

  /** What the console shows of its session: the tenant, the admin (with their scope) and the CSRF token. */
  async describe(secret: string): Promise<SessionDescription | undefined> {
    const check = await this.check(secret);
    if (!check.valid) return undefined;
    const admin = await findAdmin(this.sql, check.tenant.id, check.grant.adminId);
    if (!admin) return undefined;
    const { scope } = check.grant;
    return {
      tenant: { id: check.tenant.id, name: check.tenant.name },
      admin: { id: admin.id, email: admin.email, ...(scope === undefined ? {} : { scope: { organisationId: scope } }) },
      csrfToken: csrfTokenOf(secret),
    };
  }

  /** Ends the session and revokes its whole authorization (every token of the sign-in), in every process. */
  async signOut(secret: string): Promise<void> {
    const tenantId = tenantIdOfSession(secret);
    if (!tenantId) return;
    const sessionHash = hashSecret(secret);
    this.current.delete(sessionHash.toString('hex'));
    const revoked = await this.sql.transaction(async (tx) => {
      const session = await deleteSession(tx, tenantId, sessionHash);
      return session ? this.tokens.revokeFamily(tx, tenantId, session.familyId) : [];
    });
    await this.tokens.announce(revoked);
  }

  /** One refresh per session at a time in this process; across processes the session's row lock orders them. */
  private refreshOnce(tenantId: string, sessionHash: Buffer, stale: Buffer): Promise<CurrentToken | undefined> {
    const key = sessionHash.toString('hex');
    const running = this.refreshing.get(key);
    if (running) return running;
    const refresh = this.refresh(tenantId, sessionHash, stale).finally(() => this.refreshing.delete(key));
    this.refreshing.set(key, refresh);
    return refresh;
  }

  /**
   * Rotates the session's refresh token, with the session's row locked: a request that finds the
   * session already moved on (another process refreshed it) takes the new access token instead of
   * presenting the used refresh token again, which would revoke the authorization as a theft.
   * Answers the new access token's hash; undefined when the refresh was refused (the sign-in is over:
   * expired, revoked, or a single sign-on past LEARNBASE_SSO_ADMIN_SESSION_S), and the session is deleted.
   */
  private async refresh(tenantId: string, sessionHash: Buffer, stale: Buffer): Promise<CurrentToken | undefined> {
    const outcome = await this.sql.transaction(async (tx): Promise<{ access?: CurrentToken; revoked: Buffer[] }> => {
      const session = await lockSession(tx, tenantId, sessionHash);
      if (!session) return { revoked: [] };
      if (!session.accessHash.equals(stale)) return { access: currentOf(session), revoked: [] };
      const rotated = await rotateRefreshToken(tx, this.tokens, session.clientId, tenantId, session.refreshHash);
      if ('issued' in rotated) {
        const access = hashSecret(rotated.issued.access_token);
        const refresh = hashSecret(rotated.issued.refresh_token);
        await updateSessionTokens(tx, tenantId, sessionHash, { accessHash: access, refreshHash: refresh }, this.options.lifetimeSeconds);
        return { access: { accessHash: access, expiresAtMs: Date.now() + this.options.lifetimeSeconds * 1000 }, revoked: [] };
      }
      await deleteSession(tx, tenantId, sessionHash);
      return { revoked: 'reused' in rotated ? rotated.reused : [] };
    });
    await this.tokens.announce(outcome.revoked);
    return outcome.access;
  }
}

/** What a process keeps of a session between reads. */
interface CurrentToken {
  accessHash: Buffer;
  expiresAtMs: number;
}

const currentOf = (session: StoredSession | undefined): CurrentToken | undefined =>
  session && { accessHash: session.accessHash, expiresAtMs: session.expiresAtMs };

/** The tenant a session secret names, or undefined for text that is no session secret. */
export function tenantIdOfSession(secret: string): string | undefined {
  const hex = SESSION.exec(secret)?.[1];
  return hex && tenantIdFromHex(hex);
}
