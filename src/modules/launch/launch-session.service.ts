import { randomUUID, timingSafeEqual } from 'node:crypto';
import { TtlCache } from '../../platform/cache.js';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { AppError, badRequest, notFound } from '../../platform/http/app-error.js';
import { hashSecret, newSecret } from '../../platform/issued-secrets.js';
import { findRegisteredActivity } from '../activities/index.js';
import { findActorByKey } from '../actors/index.js';
import { recordAudit } from '../audit/index.js';
import { tenantHex, tenantIdFromHex } from '../tenancy/index.js';
import type { Tenant } from '../../kernel/principal.js';
import { storeStatements } from '../xapi/index.js';
import { tenantIdOfApiKey, credentialKey, credentialRefusal, LAUNCH_USERNAME_PREFIX, type CredentialService } from '../auth/index.js';
import type { LaunchCheck, LaunchGrant, LaunchTokenVerifier } from '../../kernel/launch-tokens.port.js';
import type { StatementProjection } from '../../kernel/statement-projection.port.js';
import { findLaunchSession, insertLaunchSession } from './launch-session.repository.js';
import { actorPrincipal } from '../auth/index.js';

/** xAPI's ADL verb for "the LRS launched this content for this actor". */
export const LAUNCHED_VERB = 'http://adlnet.gov/expapi/verbs/launched';

/**
 * A launch token is a Basic credential whose user-id names its tenant and session,
 * `launch.<tenant id hex>.<session id>`, and whose password is a 256-bit secret (only its
 * SHA-256 is stored). Content sends it as its `Authorization` header, as launched content does
 * with the `auth` parameter (interface 5.2); the endpoint it calls need not name the tenant.
 */
const LAUNCH_USERNAME = /^launch\.([0-9a-f]{32})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function parseLaunchUsername(username: string): { tenantId: string; sessionId: string } | undefined {
  const match = LAUNCH_USERNAME.exec(username);
  return match ? { tenantId: tenantIdFromHex(match[1]!), sessionId: match[2]! } : undefined;
}

/** What launch answers: where to send the browser. */
export interface Launched {
  location: string;
  sessionId: string;
  registration: string;
}

export interface LaunchSessionServiceOptions {
  /** How long one process trusts a launch token it verified, in ms (never past its expiry). */
  cacheTtlMs: number;
  /** Lifetime of a launch token, in seconds. */
  lifetimeSeconds: number;
  /** What the other modules keep from the "launched" statement (the port `statementProjections`). */
  projections: readonly StatementProjection[];
}

/** Why a launch link cannot sign its learner in (the page says it in a learner's words, launch.page.ts). */
export type LaunchRefusal = 'no_tenant' | 'not_a_learner_credential' | 'malformed' | 'unknown' | 'expired' | 'revoked' | 'actor_gone';

/**
 * Errors of the launch link. Their messages are for the integrator and go to the log; the learner's
 * page says each in a learner's words (launch.page.ts).
 */
export const LaunchErrors = {
  missingParameter: (name: string) =>
    badRequest('launch.missing_parameter', `The launch link has no ${name} parameter; it must carry activityId and auth.`, {
      parameter: name,
    }),
  repeatedParameter: (name: string) =>
    badRequest(
      'launch.repeated_parameter',
      `The launch link has the ${name} parameter more than once; it must carry each of activityId and auth once.`,
      {
        parameter: name,
      },
    ),
  unauthorized: (reason: LaunchRefusal, message: string) => new AppError('launch.unauthorized', 401, message, { details: { reason } }),
  tooManyAttempts: (retryAfterSeconds: number) =>
    new AppError('launch.too_many_attempts', 429, credentialRefusal('throttled'), {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    }),
  activityNotFound: (activityId: string) =>
    notFound('launch.activity_not_found', `The activity ${activityId} is not in this organisation’s catalogue (PUT /api/activities).`, {
      activityId,
    }),
  notLaunchable: (activityId: string) =>
    notFound('launch.no_launch_url', `The activity ${activityId} has no launchUrl, so there is no content to open.`, { activityId }),
};

/**
 * Launch sessions (interface 4.2 GET /api/activities/launch): a learner credential opens an
 * activity, and the content gets a short-lived token for that actor, activity and registration.
 */
export class LaunchSessionService implements LaunchTokenVerifier {
  private readonly verified: TtlCache<LaunchGrant & { generation: number }>;

  constructor(
    readonly sql: SqlClient,
    private readonly credentials: CredentialService,
    private readonly options: LaunchSessionServiceOptions,
  ) {
    this.verified = new TtlCache(options.cacheTtlMs, { name: 'launch_token' });
  }

  /** Checks a launch token (already split into user-id and secret): from this process's cache, else one read. */
  isLaunchUsername(username: string): boolean {
    return parseLaunchUsername(username) !== undefined;
  }

  async checkToken(username: string, secret: string): Promise<LaunchCheck> {
    const parsed = parseLaunchUsername(username);
    if (!parsed) return { valid: false, reason: 'unknown' };
    const key = hashSecret(`${username}:${secret}`).toString('hex');
    const cached = this.verified.get(key);
    if (cached && cached.generation !== this.credentials.generation) this.verified.delete(key);
    else if (cached) {
      if (this.credentials.isRevoked(cached.credentialKey)) return { valid: false, reason: 'revoked' };
      if (cached.expiresAtMs > Date.now()) return { valid: true, grant: cached };
      this.verified.delete(key);
      return { valid: false, reason: 'expired' };
    }
    const stored = await findLaunchSession(this.sql, parsed.tenantId, parsed.sessionId);
    const presented = hashSecret(secret);
    if (!stored || !timingSafeEqual(presented, stored.tokenHash)) return { valid: false, reason: 'unknown' };
    if (stored.credentialRevoked) return { valid: false, reason: 'revoked' };
    if (stored.expired) return { valid: false, reason: 'expired' };
    const grant: LaunchGrant = {
      tenantId: parsed.tenantId,
      sessionId: stored.id,
      agentKey: stored.agentKey,
      activityId: stored.activityId,
      registration: stored.registration,
      expiresAtMs: stored.expiresAt.getTime(),
      credentialKey: credentialKey(parsed.tenantId, stored.credentialUsername),
    };
    if (!this.credentials.isRevoked(grant.credentialKey)) this.verified.set(key, { ...grant, generation: this.credentials.generation });
    return { valid: true, grant };
  }

  /**
   * GET /api/activities/launch: verifies the learner credential in `auth` against the tenant,
   * finds the activity and its launchUrl, and in one transaction creates the session, stores the
   * `launched` statement and the audit entry. `baseUrl` is this tenant's URL as the request
   * reached it (`http://acme.example.com`): the content's xAPI endpoint is below it.
   */
  async launch(tenant: Tenant, query: { activityId?: string; auth?: string }, baseUrl: string, client = 'unknown'): Promise<Launched> {
    if (!query.activityId) throw LaunchErrors.missingParameter('activityId');
    if (!query.auth) throw LaunchErrors.missingParameter('auth');
    const { username, password } = splitBasic(query.auth);
    if (tenantIdOfApiKey(username) || username.startsWith(LAUNCH_USERNAME_PREFIX)) {
      throw LaunchErrors.unauthorized(
        'not_a_learner_credential',
        'Only a learner credential (POST /api/auth/basic) can launch content; this is an API key or a launch token.',
      );
    }
    const check = await this.credentials.verify(tenant.id, username, password, client);
    if (!check.valid && check.reason === 'throttled') throw LaunchErrors.tooManyAttempts(check.retryAfterSeconds);
    if (!check.valid) throw LaunchErrors.unauthorized(check.reason, credentialRefusal(check.reason));
    return this.startSession(tenant, check.credential, query.activityId, baseUrl);
  }

  /**
   * A session of `activityId` for the person of a learner credential the caller vouches for
   * (verified by `launch`, or just made by identity's single sign-on for the person who signed in):
   * finds the activity and its launchUrl, and in one transaction creates the session, stores the
   * `launched` statement and the audit entry. The session ends with the credential.
   */
  async startSession(
    tenant: Tenant,
    credential: { username: string; agentKey: string },
    activityId: string,
    baseUrl: string,
  ): Promise<Launched> {
    const activity = await findRegisteredActivity(this.sql, tenant.id, activityId);
    if (!activity) throw LaunchErrors.activityNotFound(activityId);
    if (!activity.launchUrl) throw LaunchErrors.notLaunchable(activityId);
    const actor = await findActorByKey(this.sql, tenant.id, credential.agentKey);
    if (!actor) throw LaunchErrors.unauthorized('actor_gone', 'The credential’s actor is no longer in this organisation’s actor store.');

    const principal = actorPrincipal(tenant, credential.username, credential.agentKey);
    const sessionId = randomUUID();
    const registration = randomUUID();
    const secret = newSecret();
    const tokenUsername = `${LAUNCH_USERNAME_PREFIX}${tenantHex(tenant.id)}.${sessionId}`;
    await this.sql.transaction(async (tx) => {
      const expiresAt = await insertLaunchSession(tx, tenant.id, {
        id: sessionId,
        tokenHash: hashSecret(secret),
        agentKey: credential.agentKey,
        activityId: activity.id,
        registration,
        credentialUsername: credential.username,
        lifetimeSeconds: this.options.lifetimeSeconds,
      });
      const launched = {
        actor: actor.agent,
        verb: { id: LAUNCHED_VERB, display: { 'en-US': 'launched' } },
        object: { objectType: 'Activity', id: activity.id },
        context: { registration },
      };
      const [statementId] = await storeStatements(
        { sql: tx, projections: this.options.projections },
        { tenantId: tenant.id, principal, version: '1.0.3', baseUrl },
        launched,
      );
      await recordAudit(tx, {
        action: 'launch',
        principal,
        actor: { key: actor.agentKey, agent: actor.agent },
        details: { activityId: activity.id, registration, sessionId, statementId, expiresAt: expiresAt.toISOString() },
      });
    });

    const location = withLaunchParameters(activity.launchUrl, {
      endpoint: `${baseUrl}/xapi/`,
      auth: `Basic ${Buffer.from(`${tokenUsername}:${secret}`).toString('base64')}`,
      actor: JSON.stringify(actor.agent),
      registration,
      activity_id: activity.id,
    });
    return { location, sessionId, registration };
  }
}

/**
 * The launchUrl with the xAPI launch parameters TinCanJS reads ("Rustici launch") added to its
 * own query (any of the same name replaced). Encoded with encodeURIComponent (a space as %20,
 * never "+"): content often decodes with decodeURIComponent, which leaves a "+" as it is.
 */
export function withLaunchParameters(launchUrl: string, parameters: Record<string, string>): string {
  const url = new URL(launchUrl);
  for (const name of Object.keys(parameters)) if (url.searchParams.has(name)) url.searchParams.delete(name);
  const added = Object.entries(parameters)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  url.search = url.search.length > 1 ? `${url.search}&${added}` : `?${added}`;
  return url.toString();
}

/** `Basic base64(user-id:password)` (RFC 7617) into its parts; anything else is a 401. */
export function splitBasic(value: string): { username: string; password: string } {
  const [scheme, encoded = ''] = value.trim().split(/\s+/, 2) as [string, string?];
  if (scheme.toLowerCase() !== 'basic')
    throw LaunchErrors.unauthorized('malformed', 'The auth parameter must be "Basic " followed by base64 of "username:password".');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0)
    throw LaunchErrors.unauthorized('malformed', 'The auth parameter is malformed: expected "Basic " and base64 of "username:password".');
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
