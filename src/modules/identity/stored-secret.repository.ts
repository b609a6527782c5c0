import type { SqlClient } from '../../platform/database/sql-client.js';

/** The columns holding secrets the server must present or check as issued, sealed at rest (stored-secret.service.ts). */
export type SecretTable = 'hr_webhooks' | 'sso_connections';

export interface StoredSecretRow {
  table: SecretTable;
  tenantId: string;
  /** The row's key within its tenant: the webhook's id, the connection's name. */
  row: string;
  stored: string;
}

/** Every stored secret, one row each: `hr_webhooks.secret` and the `sso_connections.client_secret` that are set. */
const ALL_SECRETS = `
  SELECT 'hr_webhooks' AS table_name, tenant_id::text AS tenant_id, id AS row_key, secret AS stored FROM hr_webhooks
  UNION ALL
  SELECT 'sso_connections', tenant_id::text, name, client_secret FROM sso_connections WHERE client_secret IS NOT NULL`;

/**
 * How the stored secrets read, counted: by the id of the key each is sealed under (`v1:<id>:…`),
 * `plain` (marked by migration 0039, not sealed yet), `unknown` (neither).
 */
export async function storedSecretForms(sql: SqlClient): Promise<Map<string, number>> {
  const { rows } = await sql.query<{ form: string; count: number }>(
    `SELECT CASE WHEN stored LIKE 'plain:%' THEN 'plain'
                 WHEN stored ~ '^v1:[0-9a-f]{16}:' THEN substr(stored, 4, 16)
                 ELSE 'unknown' END AS form,
            count(*)::int AS count
       FROM (${ALL_SECRETS}) s
      GROUP BY 1`,
  );
  return new Map(rows.map((row) => [row.form, Number(row.count)]));
}

/** The stored secrets not sealed under the key `keyId`, after `after` in (table, tenant, row) order, at most `limit`. */
export async function secretsNotSealedUnder(
  sql: SqlClient,
  keyId: string,
  after: Pick<StoredSecretRow, 'table' | 'tenantId' | 'row'> | undefined,
  limit: number,
): Promise<StoredSecretRow[]> {
  const { rows } = await sql.query<{ table_name: SecretTable; tenant_id: string; row_key: string; stored: string }>(
    `SELECT table_name, tenant_id, row_key, stored FROM (${ALL_SECRETS}) s
      WHERE left(stored, 20) <> $1 AND (table_name, tenant_id, row_key) > ($2::text, $3::text, $4::text)
      ORDER BY table_name, tenant_id, row_key
      LIMIT $5`,
    [`v1:${keyId}:`, after?.table ?? '', after?.tenantId ?? '', after?.row ?? '', limit],
  );
  return rows.map((row) => ({ table: row.table_name, tenantId: row.tenant_id, row: row.row_key, stored: row.stored }));
}

/** Replaces a stored secret by `next` if it is still `previous` (another process may have sealed it meanwhile); answers whether it did. */
export async function replaceStoredSecret(sql: SqlClient, secret: StoredSecretRow, next: string): Promise<boolean> {
  const { rowCount } = await sql.query(
    secret.table === 'hr_webhooks'
      ? 'UPDATE hr_webhooks SET secret = $4 WHERE tenant_id = $1 AND id = $2 AND secret = $3'
      : 'UPDATE sso_connections SET client_secret = $4 WHERE tenant_id = $1 AND name = $2 AND client_secret = $3',
    [secret.tenantId, secret.row, secret.stored, next],
  );
  return rowCount === 1;
}
