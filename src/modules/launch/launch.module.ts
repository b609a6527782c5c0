import { declareModule } from '../../kernel/module-declaration.js';
import type { AuthServices } from '../auth/index.js';
import type { TenancyService } from '../tenancy/index.js';
import { LaunchSessionService } from './launch-session.service.js';
import { launchRoutes } from './launch.routes.js';

/** What launch builds: the modules above start sessions through it (identity's single sign-on). */
export interface LaunchServices {
  launches: LaunchSessionService;
}

type LaunchBelow = { auth: Pick<AuthServices, 'credentials'>; tenancy: TenancyService };

/**
 * Launch sessions: a learner credential (auth's) opens an activity, and the content gets a launch
 * token, which the authentication hook checks through the port `launchTokens` this fills. A launch
 * link without `auth` signs in through the port `launchSignOn` (identity's).
 */
export const launchDeclaration = declareModule<LaunchServices, LaunchBelow>({
  name: 'launch',
  cascadesFrom: ['actor_credentials'],
  needs: ['activities', 'actors', 'audit', 'auth', 'tenancy', 'xapi'],
  build: ({ config, sql, ports }, { auth }) => {
    const launches = new LaunchSessionService(sql, auth.credentials, {
      cacheTtlMs: config.cacheTtlMs,
      lifetimeSeconds: config.launchTokenTtlS,
      projections: ports.statementProjections,
    });
    return { services: { launches }, fills: { launchTokens: launches } };
  },
  routes: async (app, { config, ports, services, below }) => {
    await app.register(launchRoutes, {
      launches: services.launches,
      tenancy: below.tenancy,
      baseDomain: config.baseDomain,
      signOn: ports.launchSignOn,
    });
  },
});
