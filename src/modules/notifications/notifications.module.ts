import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../kernel/module-options.js';
import type { ModuleDeclaration } from '../../kernel/module-declaration.js';
import { notificationRoutes } from './notification.routes.js';

/** Notifications. */
export const notificationsModule: FastifyPluginAsync<ModuleOptions> = async (app, { config, sql }) => {
  await app.register(notificationRoutes, { sql, cacheTtlMs: config.cacheTtlMs });
};

/** The notifications module as a declared unit. */
export const notificationsDeclaration: ModuleDeclaration = {
  name: 'notifications',
  needs: ['activities', 'actors'],
  fills: {},
  plugin: notificationsModule,
};
