import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../kernel/module-options.js';
import { importHistoryRoutes } from './import-history.routes.js';
import { organisationImportRoutes } from './organisation-import.routes.js';
import { usersImportRoutes } from './users/user-import.routes.js';
import type { PeopleChanges } from '../actors/index.js';

export interface ImportsModuleOptions extends ModuleOptions {
  /** What hears of people the imports write or relink: the entry hands it in (actors' people-changes.ts). */
  peopleChanges: PeopleChanges;
}

/** Imports of users, the organisation and jobs, and their history. Needs `app.auth` (a users sync revokes credentials). */
export const importsModule: FastifyPluginAsync<ImportsModuleOptions> = async (app, { config, sql, peopleChanges }) => {
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
