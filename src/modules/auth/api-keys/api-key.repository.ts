import { type SqlClient, toBuffer } from '../../../platform/database/sql-client.js';

/** An API key as an operator lists it (never its secret). */
export interface ApiKeyListing {
  key: string;
  createdAt: Date;
  /** When it last authenticated a request, to the minute; undefined when never. */
  lastUsedAt?: Date;
  revokedAt?: Date;
}

interface ApiKeyRow {
  key: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
}

const toListing = (row: ApiKeyRow): ApiKeyListing => ({
  key: row.key,
  createdAt: new Date(row.created_at),
  ...(row.last_used_at ? { lastUsedAt: new Date(row.last_used_at) } : {}),
  ...(row.revoked_at ? { revokedAt: new Date(row.revoked_at) } : {}),
});

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

export async function listApiKeyRows(sql: SqlClient, tenantId: string): Promise<ApiKeyListing[]> {
  const { rows } = await sql.query<ApiKeyRow>(
    'SELECT key, created_at, last_used_at, revoked_at FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, key',
    [tenantId],
  );
  return rows.map(toListing);
}

/** Revokes the key (a second revocation keeps the first date); undefined when the tenant has no such key. */
export async function revokeApiKeyRow(sql: SqlClient, tenantId: string, key: string): Promise<ApiKeyListing | undefined> {
  const { rows } = await sql.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
      WHERE tenant_id = $1 AND key = $2
      RETURNING key, created_at, last_used_at, revoked_at`,
    [tenantId, key],
  );
  return rows[0] && toListing(rows[0]);
}

/**
 * Records a use, truncated to the minute. The condition makes every process after the first one
 * in a minute write nothing: with N processes the row changes at most once a minute.
 */
export async function touchApiKeyRow(sql: SqlClient, tenantId: string, key: string): Promise<void> {
  await sql.query(
    `UPDATE api_keys SET last_used_at = date_trunc('minute', now())
      WHERE tenant_id = $1 AND key = $2 AND (last_used_at IS NULL OR last_used_at < date_trunc('minute', now()))`,
    [tenantId, key],
  );
}
