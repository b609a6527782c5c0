import { randomUUID } from 'node:crypto';
import { TtlCache } from '../../platform/cache.js';
import { LocalNotifyBus, type NotifyBus } from '../../platform/database/notify-bus.js';
import type { TenantEraser } from '../../kernel/tenant-eraser.port.js';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { AppError, badRequest, conflict } from '../../platform/http/app-error.js';
import { deleteTenantRows, findTenantById, findTenantByName, insertTenant, listTenantRows } from './tenant.repository.js';
import type { Tenant } from '../../kernel/principal.js';

export type { Tenant };

/** A tenant name is a DNS label: it becomes the sub-domain of {tenant_base_url}. */
export const TENANT_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** The LISTEN/NOTIFY channel that carries the ids of deleted tenants, comma-separated. */
export const TENANT_DELETIONS_CHANNEL = 'learnbase_tenant_deletions';

export interface TenancyOptions {
  /** Where deletions are announced and heard (the app's bus; by default the in-process one of `sql`). */
  notifications?: NotifyBus;
  /** Every module's rows outside the tenants cascade, deleted in the deleting transaction (the port `tenantErasers`). */
  erasers?: readonly TenantEraser[];
  /** Publishing a deletion failed; the deletion itself stands, and other processes' caches age out. */
  onError?: (error: Error) => void;
}

export class TenancyService {
  // Tenants are never renamed, so a cached one can only be stale by having been deleted: every
  // deletion is announced on `learnbase_tenant_deletions`, and every process evicts it.
  private byName: TtlCache<Tenant>;
  private byId: TtlCache<Tenant>;
  /** Tenants deleted lately: a lookup that read the row just before the deletion must not cache it. */
  private readonly deleted: TtlCache<true>;
  private stopListening: (() => void) | undefined;
  private readonly notifications: NotifyBus;

  constructor(
    private readonly sql: SqlClient,
    private readonly cacheTtlMs: number,
    private readonly options: TenancyOptions = {},
  ) {
    this.byName = new TtlCache(cacheTtlMs, { name: 'tenant_by_name' });
    this.byId = new TtlCache(cacheTtlMs, { name: 'tenant_by_id' });
    this.deleted = new TtlCache(Math.max(cacheTtlMs, 1_000));
    this.notifications = options.notifications ?? LocalNotifyBus.of(sql);
  }

  /** Starts hearing the deletions of every process; call once before serving. */
  async start(): Promise<void> {
    this.stopListening = await this.notifications.listen(
      TENANT_DELETIONS_CHANNEL,
      (payload) => this.forget(payload.split(',').filter(Boolean)),
      () => {
        this.byName = new TtlCache(this.cacheTtlMs, { name: 'tenant_by_name' });
        this.byId = new TtlCache(this.cacheTtlMs, { name: 'tenant_by_id' });
      },
    );
  }

  stop(): void {
    this.stopListening?.();
    this.stopListening = undefined;
  }

  /**
   * Deletes the tenant and every row it owns in one transaction (the erasers first: the modules
   * above tenancy that keep rows without a foreign key to the tenant delete their own, in that
   * transaction), then tells every process to forget it: its API keys, tokens and credentials stop
   * working, and its name is free again.
   */
  async delete(name: string): Promise<Tenant> {
    const tenant = TENANT_NAME.test(name) ? await findTenantByName(this.sql, name) : undefined;
    const erase = async (tx: SqlClient, tenantId: string) => {
      for (const eraser of this.options.erasers ?? []) await eraser(tx, tenantId);
      return deleteTenantRows(tx, tenantId);
    };
    if (!tenant || !(await this.sql.transaction((tx) => erase(tx, tenant.id)))) {
      refuseUnknown(name);
    }
    this.forget([tenant.id]);
    await this.notifications.publish(TENANT_DELETIONS_CHANNEL, tenant.id).catch((error: Error) => this.options.onError?.(error));
    return tenant;
  }

  create(name: string): Promise<Tenant> {
    return createTenant(this.sql, name);
  }

  async findByName(name: string): Promise<Tenant | undefined> {
    const cached = this.byName.get(name);
    if (cached && !this.deleted.get(cached.id)) return cached;
    const tenant = TENANT_NAME.test(name) ? await findTenantByName(this.sql, name) : undefined;
    if (tenant) this.remember(tenant);
    return tenant;
  }

  /** The tenant of that id (cached); a caller inside a transaction reads it with that transaction (`sql`). */
  async findById(id: string, sql: SqlClient = this.sql): Promise<Tenant | undefined> {
    const cached = this.byId.get(id);
    if (cached) return cached;
    const tenant = await findTenantById(sql, id);
    if (tenant) this.remember(tenant);
    return tenant;
  }

  /** The tenant of that name, or 404 naming it. */
  async require(name: string): Promise<Tenant> {
    return (await this.findByName(name)) ?? refuseUnknown(name);
  }

  private remember(tenant: Tenant): void {
    if (this.deleted.get(tenant.id)) return;
    this.byName.set(tenant.name, tenant);
    this.byId.set(tenant.id, tenant);
  }

  private forget(ids: string[]): void {
    for (const id of ids) {
      const cached = this.byId.get(id);
      if (cached) this.byName.delete(cached.name);
      this.byId.delete(id);
      this.deleted.set(id, true);
    }
  }
}

/** 404 tenant.not_found, naming the tenant. */
function refuseUnknown(name: string): never {
  throw new AppError('tenant.not_found', 404, `No tenant named "${name}".`, { details: { tenant: name } });
}

/** A new tenant of that name: 400 for a name that is not a DNS label, 409 for one taken. */
export async function createTenant(sql: SqlClient, name: string): Promise<Tenant> {
  if (!TENANT_NAME.test(name)) {
    throw badRequest(
      'tenant.invalid_name',
      `"${name}" is not a valid tenant name: use 1 to 63 lower-case letters, digits and inner hyphens (it becomes a sub-domain).`,
    );
  }
  if (await findTenantByName(sql, name)) throw conflict('tenant.exists', `A tenant named "${name}" already exists.`);
  return insertTenant(sql, randomUUID(), name);
}

/** The tenant of that name as stored now (no cache: the command line's), or 404 naming it. */
export async function requireTenant(sql: SqlClient, name: string): Promise<Tenant> {
  return (TENANT_NAME.test(name) ? await findTenantByName(sql, name) : undefined) ?? refuseUnknown(name);
}

/** Every tenant, by name. */
export const listTenants = (sql: SqlClient): Promise<Tenant[]> => listTenantRows(sql);
