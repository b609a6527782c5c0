import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../kernel/module-options.js';
import { actorsRoutes } from './actor.routes.js';
import { directReportsRoutes } from './people/direct-reports.routes.js';
import { actorsSearchRoutes } from './search/actor-search.routes.js';
import { tenantSettingsRoutes } from './settings/tenant-settings.routes.js';
import type { PeopleChanges } from './people/people-changes.js';

export interface ActorsModuleOptions extends ModuleOptions {
  /** What hears of people written here (agents, settings): the entry hands it in (people-changes.ts). */
  peopleChanges: PeopleChanges;
}

/** The actor store, its search, managers' reports, and the tenant's people settings. */
export const actorsModule: FastifyPluginAsync<ActorsModuleOptions> = async (app, { config, sql, peopleChanges }) => {
  const options = { sql, baseDomain: config.baseDomain, serviceDomain: config.serviceDomain, peopleChanges };
  await app.register(actorsRoutes, options);
  await app.register(actorsSearchRoutes, options);
  await app.register(directReportsRoutes, options);
  await app.register(tenantSettingsRoutes, { sql, baseDomain: config.baseDomain, peopleChanges });
};
