import type { SqlClient } from '../platform/database/sql-client.js';
import { newSecret } from '../platform/issued-secrets.js';
import {
  createAdmin,
  createClient,
  ensureConsoleClient,
  issueApiKey,
  type IssuedApiKey,
  type IssuedClient,
} from '../modules/auth/index.js';
import { countTenants, createTenant } from '../modules/tenancy/index.js';

export interface DemoSeed {
  tenant: string;
  apiKey: IssuedApiKey;
  admin: { email: string; password: string };
  client: IssuedClient & { redirectUris: string[] };
}

export const DEMO_ADMIN_EMAIL = 'admin@example.com';

/**
 * On an empty database, creates the `demo` tenant with its console client, an API key, an admin and an OAuth client
 * whose redirect URIs are `redirectUris`, so a newcomer can call the API at once. Returns them
 * (secrets in the clear, to print once), or undefined when the database already has a tenant.
 */
export async function seedDemo(sql: SqlClient, redirectUris: string[]): Promise<DemoSeed | undefined> {
  return sql.transaction(async (tx) => {
    if ((await countTenants(tx)) > 0) return undefined;
    const tenant = await createTenant(tx, 'demo');
    await ensureConsoleClient(tx, tenant);
    const password = newSecret(12);
    await createAdmin(tx, tenant, DEMO_ADMIN_EMAIL, password);
    return {
      tenant: tenant.name,
      apiKey: await issueApiKey(tx, tenant),
      admin: { email: DEMO_ADMIN_EMAIL, password },
      client: { ...(await createClient(tx, tenant, redirectUris, 'Demo integration')), redirectUris },
    };
  });
}
