import type { SqlClient } from '../../../platform/database/sql-client.js';
import { toBuffer } from '../../../platform/database/sql-client.js';

export async function insertApiKey(sql: SqlClient, tenantId: string, key: string, secretHash: Buffer): Promise<void> {
  await sql.query('INSERT INTO api_keys (tenant_id, key, secret_hash) VALUES ($1, $2, $3)', [tenantId, key, secretHash]);
}

/** The stored secret hash of an active key, or undefined. */
export async function findActiveSecretHash(sql: SqlClient, tenantId: string, key: string): Promise<Buffer | undefined> {
  const { rows } = await sql.query<{ secret_hash: unknown }>(
    'SELECT secret_hash FROM api_keys WHERE tenant_id = $1 AND key = $2 AND revoked_at IS NULL',
    [tenantId, key],
  );
  return rows[0] && toBuffer(rows[0].secret_hash);
}
