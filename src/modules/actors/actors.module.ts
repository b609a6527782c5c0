import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../platform/module-options.js';
import { actorsRoutes } from './actor.routes.js';
import { actorReportsRoutes } from './actor-reports.routes.js';
import { actorsSearchRoutes } from './actor-search.routes.js';
import { tenantSettingsRoutes } from './tenant-settings.routes.js';

/** The actor store, its search, managers' reports, and the tenant's people settings. */
export const actorsModule: FastifyPluginAsync<ModuleOptions> = async (app, { config, sql }) => {
  const options = { sql, baseDomain: config.baseDomain, serviceDomain: config.serviceDomain };
  await app.register(actorsRoutes, options);
  await app.register(actorsSearchRoutes, options);
  await app.register(actorReportsRoutes, options);
  await app.register(tenantSettingsRoutes, { sql, baseDomain: config.baseDomain });
};
