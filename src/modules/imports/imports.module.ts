import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../platform/module-options.js';
import { importHistoryRoutes } from './import-history.routes.js';
import { organisationImportRoutes } from './organisation-import.routes.js';
import { usersImportRoutes } from './user-import.routes.js';

/** Imports of users, the organisation and jobs, and their history. */
export const importsModule: FastifyPluginAsync<ModuleOptions> = async (app, { config, sql }) => {
  await app.register(usersImportRoutes, { sql, importLimitBytes: config.importLimitBytes, baseDomain: config.baseDomain });
  await app.register(importHistoryRoutes, { sql });
  await app.register(organisationImportRoutes, { sql, importLimitBytes: config.importLimitBytes });
};
