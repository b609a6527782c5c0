import { declareModule } from '../../kernel/module-declaration.js';
import { auditRoutes } from './audit.routes.js';

/** The audit log's routes. It reads people through the port `personReach`, which actors fills (audit sits below actors). */
export const auditDeclaration = declareModule<undefined>({
  name: 'audit',
  needs: [],
  build: () => ({ services: undefined }),
  routes: async (app, { sql, ports }) => {
    await app.register(auditRoutes, { sql, people: ports.personReach });
  },
});
