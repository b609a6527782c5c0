import { declareModule } from '../../kernel/module-declaration.js';
import type { AuthServices } from '../auth/index.js';
import { importHistoryRoutes } from './import-history.routes.js';
import { organisationImportRoutes } from './organisation-import.routes.js';
import { usersImportRoutes } from './users/user-import.routes.js';

/** Imports of users, the organisation and jobs, and their history. A users sync revokes the credentials of the people it deactivates (auth's). */
export const importsDeclaration = declareModule<undefined, { auth: Pick<AuthServices, 'credentials'> }>({
  name: 'imports',
  needs: ['actors', 'audit', 'auth', 'organisation'],
  build: () => ({ services: undefined }),
  routes: async (app, { config, sql, ports, below }) => {
    // What hears of people the imports write or relink: every module's `peopleChanged` port.
    const { peopleChanges } = ports;
    const sync = { maxShare: config.importSyncMaxShare, credentials: below.auth.credentials };
    await app.register(usersImportRoutes, {
      sql,
      importLimitBytes: config.importLimitBytes,
      baseDomain: config.baseDomain,
      peopleChanges,
      sync,
    });
    await app.register(importHistoryRoutes, { sql });
    await app.register(organisationImportRoutes, { sql, importLimitBytes: config.importLimitBytes, peopleChanges });
  },
});
