import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../platform/module-options.js';
import { auditRoutes } from './audit.routes.js';

/** The audit log's routes. */
export const auditModule: FastifyPluginAsync<ModuleOptions> = async (app, { sql }) => {
  await app.register(auditRoutes, { sql });
};
