import { declareModule } from '../../kernel/module-declaration.js';
import { TenancyService } from './tenancy.service.js';

/**
 * Tenancy as a declared unit: its service, the tenants cached per process and forgotten by every
 * process when one deletes a tenant (it listens from the start to the close). A deletion runs
 * every module's tenant eraser (the port `tenantErasers`). Tenancy has no routes of its own.
 */
export const tenancyDeclaration = declareModule<TenancyService>({
  name: 'tenancy',
  needs: [],
  build: ({ config, sql, bus, ports, log }) => {
    const tenancy = new TenancyService(sql, config.cacheTtlMs, {
      notifications: bus,
      erasers: ports.tenantErasers,
      onError: (error) => log.warn({ err: error }, 'could not announce a tenant deletion to the other processes'),
    });
    return { services: tenancy, listening: [tenancy] };
  },
});
