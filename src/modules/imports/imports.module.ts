import type { FastifyPluginAsync } from 'fastify';
import type { ModuleContext, ModuleDeclaration } from '../../kernel/module-declaration.js';
import { importHistoryRoutes } from './import-history.routes.js';
import { organisationImportRoutes } from './organisation-import.routes.js';
import { usersImportRoutes } from './users/user-import.routes.js';

/** Imports of users, the organisation and jobs, and their history. Needs `app.auth` (a users sync revokes credentials). */
export const importsModule: FastifyPluginAsync<ModuleContext> = async (app, { config, sql, ports }) => {
  // What hears of people the imports write or relink: every module's `peopleChanged` port.
  const { peopleChanges } = ports;
  // A sync revokes the learner credentials of the people it deactivates: auth's, registered before.
  const sync = { maxShare: config.importSyncMaxShare, credentials: app.auth.credentials };
  await app.register(usersImportRoutes, {
    sql,
    importLimitBytes: config.importLimitBytes,
    baseDomain: config.baseDomain,
    peopleChanges,
    sync,
  });
  await app.register(importHistoryRoutes, { sql });
  await app.register(organisationImportRoutes, { sql, importLimitBytes: config.importLimitBytes, peopleChanges });
};

/** The imports module as a declared unit. */
export const importsDeclaration: ModuleDeclaration = {
  name: 'imports',
  needs: ['actors', 'audit', 'auth', 'organisation'],
  fills: {},
  plugin: importsModule,
};
