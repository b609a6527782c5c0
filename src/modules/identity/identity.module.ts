import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../platform/module-options.js';
import type { PeopleChanges } from '../actors/people-changes.js';
import { scimRoutes } from './scim.routes.js';
import { scimTokenRoutes } from './scim-token.routes.js';

export interface IdentityModuleOptions extends ModuleOptions {
  /** What hears of people written here (SCIM): the entry hands it in (actors' people-changes.ts). */
  peopleChanges: PeopleChanges;
}

/**
 * Accounts from identity systems (docs/identity.md): the SCIM 2.0 service provider at `/scim/v2/`
 * and its tokens. Needs `app.tenancy` and `app.auth` (deactivating a person revokes their
 * learner credentials).
 */
export const identityModule: FastifyPluginAsync<IdentityModuleOptions> = async (app, { config, sql, peopleChanges }) => {
  await app.register(scimTokenRoutes, { sql });
  await app.register(scimRoutes, {
    sql,
    tenancy: app.tenancy,
    baseDomain: config.baseDomain,
    domains: { baseDomain: config.baseDomain, serviceDomain: config.serviceDomain },
    peopleChanges,
    credentials: app.auth.credentials,
  });
};
