import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../kernel/module-options.js';
import type { ModuleDeclaration } from '../../kernel/module-declaration.js';
import { activityRegistryRoutes } from './activity-registry.routes.js';

/** The activities registry. */
export const activitiesModule: FastifyPluginAsync<ModuleOptions> = async (app, { config, sql }) => {
  await app.register(activityRegistryRoutes, { sql, importLimitBytes: config.importLimitBytes });
};

/** The activities module as a declared unit. */
export const activitiesDeclaration: ModuleDeclaration = {
  name: 'activities',
  cascadesFrom: ['competencies'],
  needs: ['organisation'],
  fills: {},
  plugin: activitiesModule,
};
