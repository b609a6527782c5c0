import { declareModule } from '../../kernel/module-declaration.js';
import { activityRegistryRoutes } from './activity-registry.routes.js';

/** The activities registry. */
export const activitiesDeclaration = declareModule<undefined>({
  name: 'activities',
  cascadesFrom: ['competencies'],
  needs: ['organisation'],
  build: () => ({ services: undefined }),
  routes: async (app, { config, sql, ports }) => {
    await app.register(activityRegistryRoutes, {
      sql,
      importLimitBytes: config.importLimitBytes,
      activitiesChanges: ports.activitiesChanges,
    });
  },
});
