import { declareModule } from '../../kernel/module-declaration.js';
import { notificationRoutes } from './notification.routes.js';

/** Notifications. */
export const notificationsDeclaration = declareModule<undefined>({
  name: 'notifications',
  needs: ['activities', 'actors'],
  build: () => ({ services: undefined }),
  routes: async (app, { config, sql }) => {
    await app.register(notificationRoutes, { sql, cacheTtlMs: config.cacheTtlMs });
  },
});
