import { declareModule } from '../../kernel/module-declaration.js';
import { completionRoutes } from './completion.routes.js';
import { recordCompletions } from './completion.service.js';

/** Completion records, projected from the statements in the transaction that stores them (the port `statementProjection`). */
export const completionsDeclaration = declareModule<undefined>({
  name: 'completions',
  needs: ['actors'],
  build: () => ({ services: undefined, fills: { statementProjection: recordCompletions } }),
  routes: async (app, { sql }) => {
    await app.register(completionRoutes, { sql });
  },
});
