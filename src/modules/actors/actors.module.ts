import { declareModule } from '../../kernel/module-declaration.js';
import { personReach } from './people/person-access.service.js';
import { actorsRoutes } from './actor.routes.js';
import { directReportsRoutes } from './people/direct-reports.routes.js';
import { actorsSearchRoutes } from './search/actor-search.routes.js';
import { tenantSettingsRoutes } from './settings/tenant-settings.routes.js';

/**
 * The actor store, its search, managers' direct reports, and the tenant's people settings. It fills
 * the rule of who may read whom (audit, below it, reads people through it).
 */
export const actorsDeclaration = declareModule<undefined>({
  name: 'actors',
  needs: ['audit', 'organisation'],
  build: () => ({ services: undefined, fills: { personReach } }),
  routes: async (app, { config, sql, ports }) => {
    // What hears of people written here (agents, settings): every module's `peopleChanged` port.
    const { peopleChanges } = ports;
    const options = { sql, baseDomain: config.baseDomain, serviceDomain: config.serviceDomain, peopleChanges };
    await app.register(actorsRoutes, options);
    await app.register(actorsSearchRoutes, options);
    await app.register(directReportsRoutes, options);
    await app.register(tenantSettingsRoutes, { sql, baseDomain: config.baseDomain, peopleChanges });
  },
});
