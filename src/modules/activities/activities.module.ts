import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../kernel/module-options.js';
import { activityRegistryRoutes } from './activity-registry.routes.js';

/** The activities registry. */
export const activitiesModule: FastifyPluginAsync<ModuleOptions> = async (app, { config, sql }) => {
  await app.register(activityRegistryRoutes, { sql, importLimitBytes: config.importLimitBytes });
};
