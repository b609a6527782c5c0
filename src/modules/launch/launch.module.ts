import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../platform/module-options.js';
import { LaunchSessionService } from './launch-session.service.js';
import { launchRoutes } from './launch.routes.js';

/**
 * Launch sessions: a learner credential (auth's) opens an activity, and the content gets a launch
 * token, which the authentication hook checks through the service made here.
 */
export const launchModule: FastifyPluginAsync<ModuleOptions> = async (app, { config, sql }) => {
  const launches = new LaunchSessionService(sql, app.auth.credentials, {
    cacheTtlMs: config.cacheTtlMs,
    lifetimeSeconds: config.launchTokenTtlS,
  });
  app.auth.acceptLaunchTokens(launches);
  await app.register(launchRoutes, { launches, tenancy: app.tenancy, baseDomain: config.baseDomain });
};
