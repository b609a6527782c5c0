import type { SqlClient } from '../../../platform/database/sql-client.js';
import { toBuffer } from '../../../platform/database/sql-client.js';

export interface ClientRow {
  clientId: string;
  secretHash: Buffer;
  name: string;
  redirectUris: string[];
}

export async function insertClient(sql: SqlClient, tenantId: string, client: ClientRow): Promise<void> {
  await sql.query(
    'INSERT INTO oauth_clients (tenant_id, client_id, secret_hash, name, redirect_uris) VALUES ($1, $2, $3, $4, $5)',
    [tenantId, client.clientId, client.secretHash, client.name, client.redirectUris],
  );
}

export async function findClientRow(sql: SqlClient, tenantId: string, clientId: string): Promise<ClientRow | undefined> {
  const { rows } = await sql.query<{ client_id: string; secret_hash: unknown; name: string; redirect_uris: string[] }>(
    'SELECT client_id, secret_hash, name, redirect_uris FROM oauth_clients WHERE tenant_id = $1 AND client_id = $2',
    [tenantId, clientId],
  );
  const row = rows[0];
  return row && { clientId: row.client_id, secretHash: toBuffer(row.secret_hash), name: row.name, redirectUris: row.redirect_uris };
}
