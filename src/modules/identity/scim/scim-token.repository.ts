import { type SqlClient, toBuffer } from '../../../platform/database/sql-client.js';

/** A SCIM token as an admin or operator lists it (never its secret). */
export interface ScimTokenListing {
  id: string;
  createdAt: Date;
  revokedAt?: Date;
}

interface ScimTokenRow {
  id: string;
  created_at: Date | string;
  revoked_at: Date | string | null;
}

const toListing = (row: ScimTokenRow): ScimTokenListing => ({
  id: row.id,
  createdAt: new Date(row.created_at),
  ...(row.revoked_at ? { revokedAt: new Date(row.revoked_at) } : {}),
});

export async function insertScimToken(sql: SqlClient, tenantId: string, id: string, secretHash: Buffer): Promise<ScimTokenListing> {
  const { rows } = await sql.query<ScimTokenRow>(
    'INSERT INTO scim_tokens (tenant_id, id, secret_hash) VALUES ($1, $2, $3) RETURNING id, created_at, revoked_at',
    [tenantId, id, secretHash],
  );
  return toListing(rows[0]);
}

/** The secret hash of an unrevoked token, or undefined. */
export async function findActiveScimToken(sql: SqlClient, tenantId: string, id: string): Promise<Buffer | undefined> {
  const { rows } = await sql.query<{ secret_hash: unknown }>(
    'SELECT secret_hash FROM scim_tokens WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL',
    [tenantId, id],
  );
  return rows[0] && toBuffer(rows[0].secret_hash);
}

export async function listScimTokenRows(sql: SqlClient, tenantId: string): Promise<ScimTokenListing[]> {
  const { rows } = await sql.query<ScimTokenRow>(
    'SELECT id, created_at, revoked_at FROM scim_tokens WHERE tenant_id = $1 ORDER BY created_at, id',
    [tenantId],
  );
  return rows.map(toListing);
}

/** Revokes a token (once: a second revocation keeps the first time); undefined when the tenant has no such token. */
export async function revokeScimTokenRow(sql: SqlClient, tenantId: string, id: string): Promise<ScimTokenListing | undefined> {
  const { rows } = await sql.query<ScimTokenRow>(
    `UPDATE scim_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE tenant_id = $1 AND id = $2
     RETURNING id, created_at, revoked_at`,
    [tenantId, id],
  );
  return rows[0] && toListing(rows[0]);
}
