import fp from 'fastify-plugin';
import { purgeHourly } from '../../platform/housekeeping.js';
import type { ModuleContext, ModuleDeclaration } from '../../kernel/module-declaration.js';
import { ApiKeyService } from './api-keys/api-key.service.js';
import { apiKeyRoutes } from './api-keys/api-key.routes.js';
import { authPlugin } from './auth.plugin.js';
import { authRoutes } from './auth.routes.js';
import { CredentialService } from './credentials/credential.service.js';
import { credentialRoutes } from './credentials/credential.routes.js';
import type { LaunchTokenVerifier } from './launch-token.js';
import { adminRoutes } from './admins/admin.routes.js';
import { purgeExpiredSessions } from './console/console-session.repository.js';
import { consoleSessionRoutes } from './console/console-session.routes.js';
import { ConsoleSessions } from './console/console-session.service.js';
import type { AdminSignOn, AnnounceRevokedTokens, FinishAdminSignOn } from './oauth/admin-sign-on.js';
import { authorizeRoutes } from './oauth/authorize.routes.js';
import { AuthorizeService } from './oauth/authorize.service.js';
import { clientRoutes } from './oauth/clients/client.routes.js';
import { purgeExpiredOAuthRows } from './oauth/oauth-housekeeping.js';
import { DEFAULT_SIGN_IN_POLICY, SignInThrottle, type SignInPolicy } from './oauth/sign-in-throttle.js';
import { oauthTokenEndpoints } from './oauth/token.routes.js';
import { TokenService } from './oauth/token.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** What auth offers the modules above it (auth.module.ts). */
    auth: AuthExports;
  }
}

export interface AuthExports {
  /** Learner credentials: the launch module verifies them and follows their revocations. */
  credentials: CredentialService;
  /**
   * Hands the authentication hook the checker of launch tokens. The launch module issues them and
   * sits above auth, so it brings its checker once it is registered; until then no Basic user-id
   * is taken for a launch token.
   */
  acceptLaunchTokens(verifier: LaunchTokenVerifier): void;
  /** Hands the authorize page the single sign-on it offers admins (identity's; admin-sign-on.ts). */
  acceptAdminSignOn(signOn: AdminSignOn): void;
  /** Ends an admin's single sign-on with the authorization code (AuthorizeService.finishSignOn). */
  finishAdminSignOn: FinishAdminSignOn;
  /**
   * Tells every process that admins' access tokens revoked in a committed transaction are (single
   * sign-on ends the admins a connection made with admin.service's endConnectionAdmins,
   * signOutConnectionAdmins and endSignedOnAdmin, in its own transactions).
   */
  announceRevokedTokens: AnnounceRevokedTokens;
}

const NO_LAUNCH_TOKENS: LaunchTokenVerifier = {
  isLaunchUsername: () => false,
  checkToken: async () => ({ valid: false, reason: 'unknown' }),
};

/**
 * Authentication and what it checks: the one hook that turns a credential into a principal, API
 * keys, OAuth (clients, the sign-in pages, tokens) and learner credentials, with their caches'
 * listening, the OAuth housekeeping and their shutdown. Needs `app.tenancy`; offers `app.auth`.
 * Not encapsulated: the hook must run for every module's routes, registered after this.
 */
export const authModule = fp<ModuleContext>(
  async (app, { config, sql, bus, signInPolicy: tuned, ports }) => {
    // How failed sign-ins are slowed and refused, and the sign-in page's own limits; tests lower them.
    const policyOverrides = tuned as Partial<SignInPolicy> | undefined;
    const { tenancy } = app;
    const apiKeys = new ApiKeyService(sql, tenancy, bus, {
      cacheTtlMs: config.cacheTtlMs,
      onError: (error) => app.log.warn({ err: error }, 'could not announce an API key revocation or record its use'),
    });
    await apiKeys.start();
    app.addHook('onClose', async () => apiKeys.stop());
    const tokens = new TokenService(sql, tenancy, bus, {
      cacheTtlMs: config.cacheTtlMs,
      refreshLifetimeSeconds: config.refreshTokenTtlS,
      ssoAdminSessionSeconds: config.ssoAdminSessionS,
      onError: (error) => app.log.warn({ err: error }, 'could not announce a token revocation to the other processes'),
    });
    await tokens.start();
    app.addHook('onClose', async () => tokens.stop());
    const credentials = new CredentialService(sql, bus, {
      cacheTtlMs: config.cacheTtlMs,
      lifetimeSeconds: config.credentialTtlS,
      onError: (error) => app.log.warn({ err: error }, 'could not announce a credential revocation to the other processes'),
    });
    await credentials.start();
    app.addHook('onClose', async () => credentials.stop());

    const consoleSessions = new ConsoleSessions(sql, tenancy, tokens, {
      lifetimeSeconds: config.refreshTokenTtlS,
      cacheTtlMs: config.cacheTtlMs,
    });

    const signInPolicy = { ...DEFAULT_SIGN_IN_POLICY, ...policyOverrides };
    const authorize = new AuthorizeService(sql, tenancy, new SignInThrottle(sql, signInPolicy), config.baseDomain, tokens);
    let launchTokens = NO_LAUNCH_TOKENS;
    app.decorate('auth', {
      credentials,
      acceptLaunchTokens: (verifier: LaunchTokenVerifier) => {
        launchTokens = verifier;
      },
      acceptAdminSignOn: (signOn: AdminSignOn) => authorize.acceptSignOn(signOn),
      finishAdminSignOn: (pending, admin, by) => authorize.finishSignOn(pending, admin, by),
      announceRevokedTokens: (hashes) => tokens.announce(hashes),
    } satisfies AuthExports);

    await app.register(authPlugin, {
      tenancy,
      baseDomain: config.baseDomain,
      tokens,
      credentials,
      launches: {
        isLaunchUsername: (username) => launchTokens.isLaunchUsername(username),
        checkToken: (username, secret) => launchTokens.checkToken(username, secret),
      },
      apiKeys,
      consoleSessions,
      schemes: ports.authenticationSchemes,
    });
    await app.register(oauthTokenEndpoints, { tokens });

    // Expired codes, tokens, pending sign-ins and failure counts are deleted, so attempts from
    // ever new addresses cannot grow the tables without bound.
    purgeHourly(app, 'expired OAuth rows', () => purgeExpiredOAuthRows(sql, signInPolicy, config.refreshTokenTtlS));
    purgeHourly(app, 'expired console sessions', () => purgeExpiredSessions(sql));
    await app.register(authorizeRoutes, { authorize });
    await app.register(consoleSessionRoutes, { sessions: consoleSessions, baseDomain: config.baseDomain });

    await app.register(authRoutes);
    await app.register(credentialRoutes, { credentials });
    await app.register(apiKeyRoutes, { sql, apiKeys });
    await app.register(clientRoutes, { sql, tokens });
    await app.register(adminRoutes, { sql, tokens });
  },
  { name: 'auth', dependencies: ['tenancy'] },
);

/** The auth module as a declared unit. */
export const authDeclaration: ModuleDeclaration = {
  name: 'auth',
  needs: ['actors', 'audit', 'organisation', 'tenancy'],
  fills: {},
  plugin: authModule,
};
