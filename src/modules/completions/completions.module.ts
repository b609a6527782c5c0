import { declareModule } from '../../kernel/module-declaration.js';
import { completionRoutes } from './completion.routes.js';

/** Completion records (projected from statements by the xapi module's writes). */
export const completionsDeclaration = declareModule<undefined>({
  name: 'completions',
  needs: ['actors'],
  build: () => ({ services: undefined }),
  routes: async (app, { sql }) => {
    await app.register(completionRoutes, { sql });
  },
});
