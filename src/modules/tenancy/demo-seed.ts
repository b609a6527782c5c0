import type { SqlClient } from '../../platform/database/sql-client.js';
import { issueApiKey, type IssuedApiKey } from '../auth/api-keys/api-key.service.js';
import { countTenants } from './tenant.repository.js';
import { TenancyService } from './tenancy.service.js';

export interface DemoSeed {
  tenant: string;
  apiKey: IssuedApiKey;
}

/**
 * On an empty database, creates the `demo` tenant and its credentials so a newcomer can call
 * the API at once. Returns them (secrets in the clear, to print once), or undefined when the
 * database already has a tenant.
 */
export async function seedDemo(sql: SqlClient): Promise<DemoSeed | undefined> {
  return sql.transaction(async (tx) => {
    if ((await countTenants(tx)) > 0) return undefined;
    const tenant = await new TenancyService(tx, 0).create('demo');
    return { tenant: tenant.name, apiKey: await issueApiKey(tx, tenant) };
  });
}
