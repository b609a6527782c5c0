import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../platform/module-options.js';
import type { Admission } from '../../platform/http/admission.js';
import type { PeopleChanges } from '../actors/people-changes.js';
import { DropFolder } from './drop-folder.service.js';
import { scimRoutes } from './scim.routes.js';
import { scimTokenRoutes } from './scim-token.routes.js';

export interface IdentityModuleOptions extends ModuleOptions {
  /** What hears of people written here (SCIM): the entry hands it in (actors' people-changes.ts). */
  peopleChanges: PeopleChanges;
  /** The imports in flight in this process (LEARNBASE_IMPORTS_IN_FLIGHT): the import folder's large files count among them. */
  importAdmission: Admission;
}

/**
 * Accounts from identity systems (docs/identity.md): the SCIM 2.0 service provider at `/scim/v2/`
 * and its tokens, and the import folder when `importDropDir` is set (watched from the app's start
 * to its close, which waits for the file being imported). Needs `app.tenancy` and `app.auth`
 * (deactivating a person revokes their learner credentials).
 */
export const identityModule: FastifyPluginAsync<IdentityModuleOptions> = async (app, { config, sql, peopleChanges, importAdmission }) => {
  await app.register(scimTokenRoutes, { sql });
  await app.register(scimRoutes, {
    sql,
    tenancy: app.tenancy,
    baseDomain: config.baseDomain,
    domains: { baseDomain: config.baseDomain, serviceDomain: config.serviceDomain },
    peopleChanges,
    credentials: app.auth.credentials,
  });
  if (config.importDropDir !== undefined) {
    const dropFolder = new DropFolder({
      dir: config.importDropDir,
      intervalMs: config.importDropIntervalMs,
      stableMs: config.importDropStableMs,
      importLimitBytes: config.importLimitBytes,
      admission: importAdmission,
      sql,
      tenancy: app.tenancy,
      baseDomain: config.baseDomain,
      peopleChanges,
      log: app.log,
    });
    app.addHook('onReady', () => dropFolder.start());
    app.addHook('onClose', () => dropFolder.stop());
  }
};
