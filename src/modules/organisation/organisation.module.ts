import { declareModule } from '../../kernel/module-declaration.js';
import { organisationRoutes } from './organisation.routes.js';

/** The organisation structure and the job architecture, as imported (their imports are the imports module's). */
export const organisationDeclaration = declareModule<undefined>({
  name: 'organisation',
  needs: [],
  build: () => ({ services: undefined }),
  routes: async (app, { sql }) => {
    await app.register(organisationRoutes, { sql });
  },
});
