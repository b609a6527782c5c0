import fp from 'fastify-plugin';
import type { ModuleOptions } from '../../kernel/module-options.js';
import type { ModuleDeclaration } from '../../kernel/module-declaration.js';
import { LaunchSessionService } from './launch-session.service.js';
import { launchRoutes } from './launch.routes.js';
import { NO_SIGN_ON, type LaunchSignOn } from './launch-sign-on.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** What launch offers the modules above it (launch.module.ts). */
    launch: LaunchExports;
  }
}

export interface LaunchExports {
  /** Starts sessions for a learner credential the caller vouches for (identity's single sign-on). */
  launches: LaunchSessionService;
  /** Hands the launch route the single sign-on of a launch link without `auth` (identity's). */
  acceptSignOn(signOn: LaunchSignOn): void;
}

/**
 * Launch sessions: a learner credential (auth's) opens an activity, and the content gets a launch
 * token, which the authentication hook checks through the service made here. Offers `app.launch`
 * (not encapsulated, so the modules above see it).
 */
export const launchModule = fp<ModuleOptions>(
  async (app, { config, sql }) => {
    const launches = new LaunchSessionService(sql, app.auth.credentials, {
      cacheTtlMs: config.cacheTtlMs,
      lifetimeSeconds: config.launchTokenTtlS,
    });
    app.auth.acceptLaunchTokens(launches);
    let signOn = NO_SIGN_ON;
    app.decorate('launch', {
      launches,
      acceptSignOn: (handed: LaunchSignOn) => {
        signOn = handed;
      },
    } satisfies LaunchExports);
    await app.register(launchRoutes, { launches, tenancy: app.tenancy, baseDomain: config.baseDomain, signOn: () => signOn });
  },
  { name: 'launch', dependencies: ['auth'] },
);

/** The launch module as a declared unit. */
export const launchDeclaration: ModuleDeclaration = {
  name: 'launch',
  cascadesFrom: ['actor_credentials'],
  needs: ['activities', 'actors', 'audit', 'auth', 'tenancy', 'xapi'],
  fills: {},
  plugin: launchModule,
};
