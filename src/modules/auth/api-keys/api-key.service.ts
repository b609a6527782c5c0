import { randomBytes } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { hashSecret, newSecret, secretMatches } from '../../../platform/secrets.js';
import type { Tenant } from '../../tenancy/tenancy.service.js';
import { findActiveSecretHash, insertApiKey } from './api-key.repository.js';
import { tenantHex, tenantIdFromHex } from '../../tenancy/tenant-credential.js';

/**
 * API keys look like `lb_<tenant id in hex>_<random>`: the key names its tenant, so a Basic
 * credential resolves to one tenant without a global index and without trusting the headers.
 */
const API_KEY = /^lb_([0-9a-f]{32})_[0-9a-f]{16}$/;

export interface IssuedApiKey {
  key: string;
  secret: string;
}

export async function issueApiKey(sql: SqlClient, tenant: Tenant): Promise<IssuedApiKey> {
  const key = `lb_${tenantHex(tenant.id)}_${randomBytes(8).toString('hex')}`;
  const secret = newSecret();
  await insertApiKey(sql, tenant.id, key, hashSecret(secret));
  return { key, secret };
}

/** The tenant id a key belongs to, or undefined when the text is no API key at all. */
export function tenantIdOfApiKey(key: string): string | undefined {
  const hex = API_KEY.exec(key)?.[1];
  if (!hex) return undefined;
  return tenantIdFromHex(hex);
}

export async function verifyApiKey(sql: SqlClient, tenantId: string, key: string, secret: string): Promise<boolean> {
  const stored = await findActiveSecretHash(sql, tenantId, key);
  return stored !== undefined && secretMatches(secret, stored);
}
