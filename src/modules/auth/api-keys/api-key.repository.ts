import { type SqlClient, toBuffer } from '../../../platform/database/sql-client.js';

/** An API key as an operator lists it (never its secret). */
export interface ApiKeyListing {
  key: string;
  createdAt: Date;
  /** When it last authenticated a request, to the minute; undefined when never. */
  lastUsedAt?: Date;
  revokedAt?: Date;
  /** The organisation entry the key is limited to (with everything below it); undefined: the whole tenant. */
  scope?: string;
}

interface ApiKeyRow {
  key: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
  scope_organisation_id: string | null;
}

const toListing = (row: ApiKeyRow): ApiKeyListing => ({
  key: row.key,
  createdAt: new Date(row.created_at),
  ...(row.last_used_at ? { lastUsedAt: new Date(row.last_used_at) } : {}),
  ...(row.revoked_at ? { revokedAt: new Date(row.revoked_at) } : {}),
  ...(row.scope_organisation_id === null ? {} : { scope: row.scope_organisation_id }),
});

const LISTING_COLUMNS = 'key, created_at, last_used_at, revoked_at, scope_organisation_id';

export async function insertApiKey(sql: SqlClient, tenantId: string, key: string, secretHash: Buffer, scope?: string): Promise<void> {
  await sql.query('INSERT INTO api_keys (tenant_id, key, secret_hash, scope_organisation_id) VALUES ($1, $2, $3, $4)', [
    tenantId,
    key,
    secretHash,
    scope ?? null,
  ]);
}

/** The stored secret hash and scope of an active key, or undefined. */
export async function findActiveKey(
  sql: SqlClient,
  tenantId: string,
  key: string,
): Promise<{ secretHash: Buffer; scope?: string } | undefined> {
  const { rows } = await sql.query<{ secret_hash: unknown; scope_organisation_id: string | null }>(
    'SELECT secret_hash, scope_organisation_id FROM api_keys WHERE tenant_id = $1 AND key = $2 AND revoked_at IS NULL',
    [tenantId, key],
  );
  const row = rows[0];
  if (!row) return undefined;
  return { secretHash: toBuffer(row.secret_hash), ...(row.scope_organisation_id === null ? {} : { scope: row.scope_organisation_id }) };
}

export async function listApiKeyRows(sql: SqlClient, tenantId: string): Promise<ApiKeyListing[]> {
  const { rows } = await sql.query<ApiKeyRow>(`SELECT ${LISTING_COLUMNS} FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, key`, [
    tenantId,
  ]);
  return rows.map(toListing);
}

/** Revokes the key (a second revocation keeps the first date); undefined when the tenant has no such key. */
export async function revokeApiKeyRow(sql: SqlClient, tenantId: string, key: string): Promise<ApiKeyListing | undefined> {
  const { rows } = await sql.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
      WHERE tenant_id = $1 AND key = $2
      RETURNING ${LISTING_COLUMNS}`,
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
