import type { AuthenticationScheme } from '../../kernel/authentication-scheme.port.js';
import { actorPrincipal as credentialPrincipal } from './principals.js';
import cookie from '@fastify/cookie';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/http/app-error.js';
import { type TenancyService, namedTenant } from '../tenancy/index.js';
import type { Tenant, Principal } from '../../kernel/principal.js';
import { tenantIdOfApiKey, type ApiKeyService } from './api-keys/api-key.service.js';
import type { TokenService } from './oauth/token.service.js';
import { credentialRefusal, type CredentialService } from './credentials/credential.service.js';
import type { LaunchTokenVerifier } from '../../kernel/launch-tokens.port.js';
import { checkCsrf } from './console/console-csrf.js';
import { type ConsoleSessions, SESSION_COOKIE } from './console/console-session.service.js';
import { clientAddress } from '../../platform/http/client-address.js';
import { GUIDES_PATH } from '../../platform/http/guides.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without a tenant or a credential (`/xapi/about`, the API reference). */
    public?: boolean;
  }
}

export interface AuthPluginOptions {
  tenancy: TenancyService;
  baseDomain: string;
  /** Checks Bearer access tokens (cached per process, evicted on revocation). */
  tokens: TokenService;
  /** Checks learner credentials (Basic username/password of POST /api/auth/basic; cached, evicted on revocation). */
  credentials: CredentialService;
  /** Checks launch tokens (the `auth` handed to launched content). */
  launches: LaunchTokenVerifier;
  /** Checks API keys (cached per process, evicted on revocation). */
  apiKeys: ApiKeyService;
  /** Checks the console's session cookie (docs/console.md, "Signing in"). */
  consoleSessions: ConsoleSessions;
  /** The credentials of modules above (identity's SCIM tokens), each checked alone on its paths. */
  schemes: readonly AuthenticationScheme[];
}

/** RFC 9745: the date Basic authentication with API keys was deprecated (2026-01-01), as a Structured Field Date. */
const BASIC_DEPRECATION = '@1767225600';
const BASIC_CHALLENGE = 'Basic realm="learnbase", charset="UTF-8"';
const BEARER_CHALLENGE = 'Bearer realm="learnbase"';
/** No credential (or an unknown scheme): both schemes are offered, in one field (RFC 9110 §11.6.1). */
const ANY_CHALLENGE = `${BEARER_CHALLENGE}, ${BASIC_CHALLENGE}`;

/**
 * One hook for every request: finds the tenant the request names, turns the credential
 * into a principal bound to one tenant, and refuses the request when the two disagree.
 */
export const authPlugin = fp<AuthPluginOptions>(
  async (app, options) => {
    app.decorateRequest('tenant', undefined);
    app.decorateRequest('principal', undefined);
    // Cookies are read here for every module: the console's session on /api/ and /xapi/, the
    // sign-in pages' own (auth's authorize page, identity's single sign-on) on theirs.
    await app.register(cookie);

    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'OPTIONS') return;
      // A module's own credential (identity's SCIM tokens) on its own paths: that scheme alone.
      const scheme = options.schemes.find((candidate) => request.url.startsWith(candidate.prefix));
      if (scheme?.phase === 'body') return;
      if (scheme) {
        if (request.routeOptions.config.public || request.is404) return;
        const principal = await scheme.authenticate(request, options.tenancy);
        request.tenant = principal.tenant;
        request.principal = principal;
        return;
      }
      if (!isProtectedPath(request.url)) return;
      const named = namedTenant(request, options.baseDomain);
      if (request.routeOptions.config.public || request.is404) return;
      const tenant = named === undefined ? undefined : await options.tenancy.require(named);
      const principal = await authenticate(request, reply, tenant);
      request.tenant = principal.tenant;
      request.principal = principal;
    });

    // A credential that signs the body (identity's HR webhooks): checked once the body is read and
    // the route's schema has checked the request.
    app.addHook('preHandler', async (request) => {
      if (request.is404) return;
      const scheme = options.schemes.find((candidate) => candidate.phase === 'body' && request.url.startsWith(candidate.prefix));
      if (!scheme) return;
      const principal = await scheme.authenticate(request, options.tenancy);
      request.tenant = principal.tenant;
      request.principal = principal;
    });

    /** One credential, dispatched by scheme, into a principal; then the tenant check every scheme shares. */
    async function authenticate(request: FastifyRequest, reply: FastifyReply, tenant: Tenant | undefined): Promise<Principal> {
      const header = request.headers.authorization;
      const session = header ? undefined : request.cookies[SESSION_COOKIE];
      if (session) return sessionPrincipal(request, session, tenant);
      if (!header) {
        throw unauthorized(
          tenant
            ? 'Authentication is required: send an Authorization header.'
            : 'Authentication is required, and no tenant was named: send an Authorization header with a credential of the tenant, ' +
                `and name the tenant with the X-SVC-Tenant header or the sub-domain {tenant}.${options.baseDomain}.`,
          ANY_CHALLENGE,
        );
      }
      const [scheme, value = ''] = header.trim().split(/\s+/, 2) as [string, string?];
      let principal: Principal;
      switch (scheme.toLowerCase()) {
        case 'basic':
          principal = await basicPrincipal(value, tenant, clientAddress(request.ip, request.socket?.remoteAddress));
          break;
        case 'bearer':
          principal = await bearerPrincipal(value);
          break;
        default:
          throw unauthorized(`The ${scheme} authorization scheme is not accepted here; use Bearer or Basic.`, ANY_CHALLENGE);
      }
      // A credential of tenant A is refused against tenant B, whatever the headers say.
      if (tenant && principal.tenant.id !== tenant.id) {
        throw principal.kind === 'admin'
          ? invalidToken('The access token does not belong to this tenant.')
          : unauthorized('The credential does not belong to this tenant.');
      }
      if (principal.kind === 'api_key') {
        reply.header('Deprecation', BASIC_DEPRECATION);
        reply.header('Link', `<${request.publicBaseUrl}${GUIDES_PATH}oauth>; rel="deprecation"; type="text/html"`);
      }
      return principal;
    }

    /**
     * Basic carries three credentials, told apart by the user-id: an API key (`lb_<tenant hex>_…`),
     * a launch token (`launch.<tenant hex>.<session>`), or else a learner credential's username,
     * looked up in the tenant the request names. API keys, learner credentials and launch tokens
     * are cached by their services, which evict them on revocation.
     */
    async function basicPrincipal(value: string, tenant: Tenant | undefined, client: string): Promise<Principal> {
      const { username, password } = decodeBasic(value);
      if (options.launches.isLaunchUsername(username)) return launchPrincipal(username, password);
      if (!tenantIdOfApiKey(username)) return actorPrincipal(username, password, tenant, client);
      return verifyApiKey(username, password);
    }

    /** A learner credential (POST /api/auth/basic): acts for its one actor, in the tenant the request names. */
    async function actorPrincipal(username: string, password: string, tenant: Tenant | undefined, client: string): Promise<Principal> {
      if (!tenant) {
        throw unauthorized(
          'A learner credential belongs to one tenant, and none was named: name it with the X-SVC-Tenant header or the sub-domain ' +
            `{tenant}.${options.baseDomain}.`,
        );
      }
      const check = await options.credentials.verify(tenant.id, username, password, client);
      if (!check.valid && check.reason === 'throttled') throw tooManyAttempts(check.retryAfterSeconds);
      if (!check.valid) throw unauthorized(credentialRefusal(check.reason));
      return credentialPrincipal(tenant, username, check.credential.agentKey);
    }

    /** A launch token: its actor's data about its activity and registration only. */
    async function launchPrincipal(username: string, secret: string): Promise<Principal> {
      const check = await options.launches.checkToken(username, secret);
      if (!check.valid) {
        throw unauthorized(
          check.reason === 'expired'
            ? 'The launch token expired; launch the content again.'
            : check.reason === 'revoked'
              ? 'The launch token ended: the learner credential that launched it was revoked.'
              : 'The launch token is not valid.',
        );
      }
      const { grant } = check;
      const tenant = await options.tenancy.findById(grant.tenantId);
      if (!tenant) throw unauthorized('The launch token is not valid.');
      return {
        kind: 'launch',
        tenant,
        id: grant.sessionId,
        agentKey: grant.agentKey,
        activityId: grant.activityId,
        registration: grant.registration,
      };
    }

    /**
     * The console's session cookie (when no Authorization header is sent): the admin of the
     * session's access token, refreshed on the server as it runs out. A write carries the session's
     * CSRF token; the session's tenant must be the one the request names, as for every credential.
     */
    async function sessionPrincipal(request: FastifyRequest, secret: string, tenant: Tenant | undefined): Promise<Principal> {
      const check = await options.consoleSessions.check(secret);
      if (!check.valid) {
        throw unauthorized('The console session ended (signed out, expired or revoked): sign in again.', ANY_CHALLENGE);
      }
      if (tenant && check.tenant.id !== tenant.id) throw unauthorized('The console session belongs to another tenant.', ANY_CHALLENGE);
      if (!SAFE_METHODS.has(request.method)) checkCsrf(request, secret);
      return { kind: 'admin', tenant: check.tenant, id: check.grant.adminId, ...scopeOf(check.grant.scope) };
    }

    /** RFC 6750 §2.1: an access token of the OAuth flow; its admin may do everything in the token's tenant (or its scope). */
    async function bearerPrincipal(token: string): Promise<Principal> {
      const check = await options.tokens.checkAccessToken(token);
      if (!check.valid) {
        throw invalidToken(
          check.reason === 'expired'
            ? 'The access token expired; refresh it.'
            : check.reason === 'revoked'
              ? 'The access token was revoked.'
              : 'The access token is not valid.',
        );
      }
      const tenant = await options.tenancy.findById(check.grant.tenantId);
      if (!tenant) throw invalidToken('The access token is not valid.');
      return { kind: 'admin', tenant, id: check.grant.adminId, ...scopeOf(check.grant.scope) };
    }

    async function verifyApiKey(key: string, secret: string): Promise<Principal> {
      const verified = await options.apiKeys.verify(key, secret);
      if (!verified) throw unauthorized('The credential is not valid.');
      return { kind: 'api_key', tenant: verified.tenant, id: key, ...scopeOf(verified.scope) };
    }
  },
  { name: 'authentication' },
);

/** RFC 9110 §9.2.1: what a cross-site request may do without the CSRF token, as it changes nothing. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** An admin's or an API key's organisation scope, as the principal carries it (none: the whole tenant). */
const scopeOf = (organisationId: string | undefined): Pick<Principal, 'scope'> =>
  organisationId === undefined ? {} : { scope: { organisationId } };

function decodeBasic(encoded: string): { username: string; password: string } {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw unauthorized('The Basic credential is malformed: expected base64 of "username:password".');
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The API and the LRS need a credential; the sign-in pages and the API reference do not. */
const isProtectedPath = (url: string) => /^\/(api|xapi)(\/|\?|$)/.test(url);

function unauthorized(message: string, challenge = BASIC_CHALLENGE): AppError {
  return new AppError('auth.unauthorized', 401, message, { headers: { 'WWW-Authenticate': challenge } });
}

/** Too many failed learner sign-ins lately (CredentialService): 429, and when to try again. */
function tooManyAttempts(retryAfterSeconds: number): AppError {
  return new AppError('auth.too_many_attempts', 429, credentialRefusal('throttled'), {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

/** RFC 6750 §3.1: a Bearer token that is unknown, expired, revoked or of another tenant. */
function invalidToken(message: string): AppError {
  return new AppError('auth.invalid_token', 401, message, {
    headers: { 'WWW-Authenticate': `${BEARER_CHALLENGE}, error="invalid_token", error_description="${message}"` },
  });
}
