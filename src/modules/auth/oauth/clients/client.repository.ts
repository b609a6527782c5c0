import { type SqlClient, toBuffer } from '../../../../platform/database/sql-client.js';

export interface ClientRow {
  clientId: string;
  secretHash: Buffer;
  name: string;
  redirectUris: string[];
  /** The tenant's console client (migration 0041): its redirect URI is a path, resolved per request. */
  console?: boolean;
}

export async function insertClient(sql: SqlClient, tenantId: string, client: ClientRow): Promise<void> {
  await sql.query('INSERT INTO oauth_clients (tenant_id, client_id, secret_hash, name, redirect_uris) VALUES ($1, $2, $3, $4, $5)', [
    tenantId,
    client.clientId,
    client.secretHash,
    client.name,
    client.redirectUris,
  ]);
}

export async function findClientRow(sql: SqlClient, tenantId: string, clientId: string): Promise<ClientRow | undefined> {
  const { rows } = await sql.query<ClientRecord>(`SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE tenant_id = $1 AND client_id = $2`, [
    tenantId,
    clientId,
  ]);
  return toClientRow(rows[0]);
}

interface ClientRecord {
  client_id: string;
  secret_hash: unknown;
  name: string;
  redirect_uris: string[];
  console: boolean;
}

const CLIENT_COLUMNS = 'client_id, secret_hash, name, redirect_uris, console';

const toClientRow = (row: ClientRecord | undefined): ClientRow | undefined =>
  row && {
    clientId: row.client_id,
    secretHash: toBuffer(row.secret_hash),
    name: row.name,
    redirectUris: row.redirect_uris,
    ...(row.console ? { console: true } : {}),
  };

/** The tenant's console client, made by the first caller (ON CONFLICT: of two at once, one makes it and both read it). */
export async function insertConsoleClient(sql: SqlClient, tenantId: string, client: ClientRow): Promise<ClientRow> {
  await sql.query(
    `INSERT INTO oauth_clients (tenant_id, client_id, secret_hash, name, redirect_uris, console) VALUES ($1, $2, $3, $4, $5, true)
     ON CONFLICT (tenant_id) WHERE console DO NOTHING`,
    [tenantId, client.clientId, client.secretHash, client.name, client.redirectUris],
  );
  const found = await findConsoleClientRow(sql, tenantId);
  if (!found) throw new Error('the console client was neither made nor found');
  return found;
}

export async function findConsoleClientRow(sql: SqlClient, tenantId: string): Promise<ClientRow | undefined> {
  const { rows } = await sql.query<ClientRecord>(`SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE tenant_id = $1 AND console`, [
    tenantId,
  ]);
  return toClientRow(rows[0]);
}

/** A client as an operator lists it (never its secret); the console's own is not listed. */
export interface ClientListing {
  clientId: string;
  name: string;
  redirectUris: string[];
  createdAt: Date;
}

export async function listClientRows(sql: SqlClient, tenantId: string): Promise<ClientListing[]> {
  const { rows } = await sql.query<{ client_id: string; name: string; redirect_uris: string[]; created_at: Date | string }>(
    'SELECT client_id, name, redirect_uris, created_at FROM oauth_clients WHERE tenant_id = $1 AND NOT console ORDER BY created_at, client_id',
    [tenantId],
  );
  return rows.map((row) => ({
    clientId: row.client_id,
    name: row.name,
    redirectUris: row.redirect_uris,
    createdAt: new Date(row.created_at),
  }));
}

export async function updateClientSecret(sql: SqlClient, tenantId: string, clientId: string, secretHash: Buffer): Promise<boolean> {
  const { rowCount } = await sql.query(
    'UPDATE oauth_clients SET secret_hash = $3 WHERE tenant_id = $1 AND client_id = $2 AND NOT console',
    [tenantId, clientId, secretHash],
  );
  return rowCount > 0;
}

/**
 * Deletes the client with its pending sign-ins, codes and tokens (they name the client without a
 * foreign key); run it in a transaction. Answers undefined for an unknown client, else the hashes
 * of its access tokens that were still live, which the other processes must be told of.
 */
export async function deleteClientRows(tx: SqlClient, tenantId: string, clientId: string): Promise<Buffer[] | undefined> {
  const { rowCount } = await tx.query('DELETE FROM oauth_clients WHERE tenant_id = $1 AND client_id = $2 AND NOT console', [
    tenantId,
    clientId,
  ]);
  if (rowCount === 0) return undefined;
  await tx.query('DELETE FROM oauth_authorization_requests WHERE tenant_id = $1 AND client_id = $2', [tenantId, clientId]);
  await tx.query('DELETE FROM oauth_codes WHERE tenant_id = $1 AND client_id = $2', [tenantId, clientId]);
  const { rows } = await tx.query<{ token_hash: unknown }>(
    `DELETE FROM oauth_tokens WHERE tenant_id = $1 AND client_id = $2
     RETURNING CASE WHEN kind = 'access' AND revoked_at IS NULL AND expires_at > now() THEN token_hash END AS token_hash`,
    [tenantId, clientId],
  );
  return rows.filter((row) => row.token_hash !== null).map((row) => toBuffer(row.token_hash));
}
