/**
 * The face of the tenancy module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export { createTenant, listTenants, requireTenant, TENANT_NAME } from './tenancy.service.js';
export { countTenants, findTenantById, findTenantByName } from './tenant.repository.js';
export type { TenancyService } from './tenancy.service.js';
export { tenantHex, tenantIdFromHex } from './tenant-credential.js';
export { namedTenant, refuseOtherTenant, tenantNameOfHost } from './tenant-host.js';
