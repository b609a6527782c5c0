import { randomUUID } from 'node:crypto';
import { TtlCache } from '../../platform/cache.js';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { AppError, badRequest, conflict } from '../../platform/http/app-error.js';
import { findTenantById, findTenantByName, insertTenant, type Tenant } from './tenant.repository.js';

export type { Tenant };

/** A tenant name is a DNS label: it becomes the sub-domain of {tenant_base_url}. */
export const TENANT_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export class TenancyService {
  // Tenants are never renamed, so a cached one can only be stale by having been deleted.
  private readonly byName: TtlCache<Tenant>;
  private readonly byId: TtlCache<Tenant>;

  constructor(
    private readonly sql: SqlClient,
    cacheTtlMs: number,
  ) {
    this.byName = new TtlCache(cacheTtlMs);
    this.byId = new TtlCache(cacheTtlMs);
  }

  async create(name: string): Promise<Tenant> {
    if (!TENANT_NAME.test(name)) {
      throw badRequest(
        'tenant.invalid_name',
        `"${name}" is not a valid tenant name: use 1 to 63 lower-case letters, digits and inner hyphens (it becomes a sub-domain).`,
      );
    }
    if (await findTenantByName(this.sql, name)) throw conflict('tenant.exists', `A tenant named "${name}" already exists.`);
    return insertTenant(this.sql, randomUUID(), name);
  }

  async findByName(name: string): Promise<Tenant | undefined> {
    const cached = this.byName.get(name);
    if (cached) return cached;
    const tenant = TENANT_NAME.test(name) ? await findTenantByName(this.sql, name) : undefined;
    if (tenant) this.remember(tenant);
    return tenant;
  }

  async findById(id: string): Promise<Tenant | undefined> {
    const cached = this.byId.get(id);
    if (cached) return cached;
    const tenant = await findTenantById(this.sql, id);
    if (tenant) this.remember(tenant);
    return tenant;
  }

  /** The tenant of that name, or 404 naming it. */
  async require(name: string): Promise<Tenant> {
    const tenant = await this.findByName(name);
    if (!tenant) throw new AppError('tenant.not_found', 404, `No tenant named "${name}".`, { details: { tenant: name } });
    return tenant;
  }

  private remember(tenant: Tenant): void {
    this.byName.set(tenant.name, tenant);
    this.byId.set(tenant.id, tenant);
  }
}
