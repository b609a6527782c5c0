import { randomBytes } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { hashSecret, newSecret, secretMatches } from '../../../platform/secrets.js';
import type { Tenant } from '../../tenancy/tenancy.service.js';
import { findActiveSecretHash, insertApiKey } from './api-key.repository.js';

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
  const key = `lb_${tenant.id.replaceAll('-', '')}_${randomBytes(8).toString('hex')}`;
  const secret = newSecret();
  await insertApiKey(sql, tenant.id, key, hashSecret(secret));
  return { key, secret };
}

/** The tenant id a key belongs to, or undefined when the text is no API key at all. */
export function tenantIdOfApiKey(key: string): string | undefined {
  const hex = API_KEY.exec(key)?.[1];
  if (!hex) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export async function verifyApiKey(sql: SqlClient, tenantId: string, key: string, secret: string): Promise<boolean> {
  const stored = await findActiveSecretHash(sql, tenantId, key);
  return stored !== undefined && secretMatches(secret, stored);
}
