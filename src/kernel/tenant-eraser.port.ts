import type { SqlClient } from '../platform/database/sql-client.js';

/**
 * A port every module with tenant rows outside the tenants cascade fills (docs/architecture.md,
 * "Ports"): deletes the tenant's rows of its own tables on `tx`, the transaction that deletes the
 * tenant. Most tables follow the tenant by `ON DELETE CASCADE`; a table without that foreign key
 * (xapi's statement keys and tallies) is its module's to erase.
 */
export type TenantEraser = (tx: SqlClient, tenantId: string) => Promise<void>;
