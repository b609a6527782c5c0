import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { purging } from '../../platform/housekeeping.js';
import { declareModule, type RouteContext } from '../../kernel/module-declaration.js';
import type { TenancyService } from '../tenancy/index.js';
import { ApiKeyService } from './api-keys/api-key.service.js';
import { apiKeyRoutes } from './api-keys/api-key.routes.js';
import { authPlugin } from './auth.plugin.js';
import { authRoutes } from './auth.routes.js';
import { CredentialService } from './credentials/credential.service.js';
import { credentialRoutes } from './credentials/credential.routes.js';
import { adminRoutes } from './admins/admin.routes.js';
import { purgeExpiredSessions } from './console/console-session.repository.js';
import { consoleSessionRoutes } from './console/console-session.routes.js';
import { ConsoleSessions } from './console/console-session.service.js';
import type { AnnounceRevokedTokens, FinishAdminSignOn } from './oauth/admin-sign-on.js';
import { authorizeRoutes } from './oauth/authorize.routes.js';
import { AuthorizeService } from './oauth/authorize.service.js';
import { clientRoutes } from './oauth/clients/client.routes.js';
import { purgeExpiredOAuthRows } from './oauth/oauth-housekeeping.js';
import { DEFAULT_SIGN_IN_POLICY, SignInThrottle, type SignInPolicy } from './oauth/sign-in-throttle.js';
import { oauthTokenEndpoints } from './oauth/token.routes.js';
import { TokenService } from './oauth/token.service.js';

type AuthBelow = { tenancy: TenancyService };

/** What auth builds: the first four are what the modules above take (`below.auth`), the rest its own routes'. */
export interface AuthServices {
  /** Learner credentials: launch verifies them and follows their revocations; imports and identity revoke them. */
  credentials: CredentialService;
  /** Ends an admin's single sign-on with the authorization code (AuthorizeService.finishSignOn). */
  finishAdminSignOn: FinishAdminSignOn;
  /**
   * Tells every process that admins' access tokens revoked in a committed transaction are (single
   * sign-on ends the admins a connection made with admin.service's endConnectionAdmins,
   * signOutConnectionAdmins and endSignedOnAdmin, in its own transactions).
   */
  announceRevokedTokens: AnnounceRevokedTokens;
  /** Access and refresh tokens (the command line revokes through it, announcing to the servers). */
  tokens: TokenService;
  /** API keys (the command line revokes through it, announcing to the servers). */
  apiKeys: ApiKeyService;
  consoleSessions: ConsoleSessions;
  authorize: AuthorizeService;
}

/** Auth's HTTP: the one authentication hook first, then its routes. */
const authRoutesPlugin: FastifyPluginAsync<RouteContext<AuthServices, AuthBelow>> = async (
  app,
  { config, sql, ports, services, below },
) => {
  const { tokens, credentials, apiKeys, consoleSessions, authorize } = services;
  await app.register(authPlugin, {
    tenancy: below.tenancy,
    baseDomain: config.baseDomain,
    tokens,
    credentials,
    launches: ports.launchTokens,
    apiKeys,
    consoleSessions,
    schemes: ports.authenticationSchemes,
  });
  await app.register(oauthTokenEndpoints, { tokens });
  await app.register(authorizeRoutes, { authorize });
  await app.register(consoleSessionRoutes, { sessions: consoleSessions, tenancy: below.tenancy, baseDomain: config.baseDomain });
  await app.register(authRoutes);
  await app.register(credentialRoutes, { credentials });
  await app.register(apiKeyRoutes, { sql, apiKeys });
  await app.register(clientRoutes, { sql, tokens });
  await app.register(adminRoutes, { sql, tokens });
};

/**
 * Authentication and what it checks: the one hook that turns a credential into a principal (the
 * schemes of the modules above and their launch tokens through the ports), API keys, OAuth (clients,
 * the sign-in pages, tokens) and learner credentials, with their caches' listening and the OAuth
 * housekeeping.
 */
export const authDeclaration = declareModule<AuthServices, AuthBelow>({
  name: 'auth',
  needs: ['actors', 'audit', 'organisation', 'tenancy'],
  build: ({ config, sql, bus, signInPolicy: tuned, ports, log }, { tenancy }) => {
    const apiKeys = new ApiKeyService(sql, tenancy, bus, {
      cacheTtlMs: config.cacheTtlMs,
      onError: (error) => log.warn({ err: error }, 'could not announce an API key revocation or record its use'),
    });
    const tokens = new TokenService(sql, tenancy, bus, {
      cacheTtlMs: config.cacheTtlMs,
      refreshLifetimeSeconds: config.refreshTokenTtlS,
      ssoAdminSessionSeconds: config.ssoAdminSessionS,
      onError: (error) => log.warn({ err: error }, 'could not announce a token revocation to the other processes'),
    });
    const credentials = new CredentialService(sql, bus, {
      cacheTtlMs: config.cacheTtlMs,
      lifetimeSeconds: config.credentialTtlS,
      onError: (error) => log.warn({ err: error }, 'could not announce a credential revocation to the other processes'),
    });
    const consoleSessions = new ConsoleSessions(sql, tenancy, tokens, {
      lifetimeSeconds: config.refreshTokenTtlS,
      cacheTtlMs: config.cacheTtlMs,
    });
    // How failed sign-ins are slowed and refused, and the sign-in page's own limits; tests lower them.
    const signInPolicy: SignInPolicy = { ...DEFAULT_SIGN_IN_POLICY, ...(tuned as Partial<SignInPolicy> | undefined) };
    const authorize = new AuthorizeService(
      sql,
      tenancy,
      new SignInThrottle(sql, signInPolicy),
      config.baseDomain,
      tokens,
      ports.adminSignOn,
    );
    return {
      services: {
        credentials,
        finishAdminSignOn: (pending, admin, by) => authorize.finishSignOn(pending, admin, by),
        announceRevokedTokens: (hashes) => tokens.announce(hashes),
        tokens,
        apiKeys,
        consoleSessions,
        authorize,
      },
      listening: [apiKeys, tokens, credentials],
      // Expired codes, tokens, pending sign-ins and failure counts are deleted, so attempts from
      // ever new addresses cannot grow the tables without bound.
      hourly: [
        purging('expired OAuth rows', () => purgeExpiredOAuthRows(sql, signInPolicy, config.refreshTokenTtlS)),
        purging('expired console sessions', () => purgeExpiredSessions(sql)),
      ],
    };
  },
  // Not encapsulated: the hook must run for every module's routes, registered after these.
  routes: fp(authRoutesPlugin, { name: 'auth' }),
});
