import fp from 'fastify-plugin';
import type { ModuleOptions } from '../../kernel/module-options.js';
import type { ModuleDeclaration } from '../../kernel/module-declaration.js';
import { TenancyService } from './tenancy.service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The tenants, for every module above tenancy (tenancy.module.ts). */
    tenancy: TenancyService;
  }
}

/**
 * Tenancy's service, `app.tenancy`: tenants cached per process and forgotten by every process
 * when one deletes a tenant, until the app closes. Registered before authentication, which names
 * the request's tenant through it. Tenancy has no routes of its own.
 */
export const tenancyModule = fp<ModuleOptions>(
  async (app, { config, sql, bus }) => {
    const tenancy = new TenancyService(sql, config.cacheTtlMs, bus, (error) =>
      app.log.warn({ err: error }, 'could not announce a tenant deletion to the other processes'),
    );
    await tenancy.start();
    app.addHook('onClose', async () => tenancy.stop());
    app.decorate('tenancy', tenancy);
  },
  { name: 'tenancy' },
);

/** The tenancy module as a declared unit. */
export const tenancyDeclaration: ModuleDeclaration = { name: 'tenancy', needs: [], fills: {}, plugin: tenancyModule };
