import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../kernel/module-options.js';
import { notificationRoutes } from './notification.routes.js';

/** Notifications. */
export const notificationsModule: FastifyPluginAsync<ModuleOptions> = async (app, { config, sql }) => {
  await app.register(notificationRoutes, { sql, cacheTtlMs: config.cacheTtlMs });
};
