import type { SqlClient } from '../../platform/database/sql-client.js';
import type { SsoConnectionInput } from './sso-connection-rules.js';

/** A stored connection (its secret included: for the service only, never answered). */
export interface SsoConnection extends SsoConnectionInput {
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

interface ConnectionRow {
  name: string;
  issuer: string;
  client_id: string;
  client_secret: string | null;
  scopes: string;
  claims: Record<string, string>;
  created_at: Date | string;
  updated_at: Date | string;
}

const toConnection = (row: ConnectionRow): SsoConnection => ({
  name: row.name,
  issuer: row.issuer,
  clientId: row.client_id,
  ...(row.client_secret === null ? {} : { clientSecret: row.client_secret }),
  scopes: row.scopes,
  claims: row.claims,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

const COLUMNS = 'name, issuer, client_id, client_secret, scopes, claims, created_at, updated_at';

/** Creates or replaces the connection; answers it and whether it was created. */
export async function upsertConnection(
  sql: SqlClient,
  tenantId: string,
  name: string,
  input: SsoConnectionInput,
): Promise<{ connection: SsoConnection; created: boolean }> {
  const { rows } = await sql.query<ConnectionRow & { created: boolean }>(
    `INSERT INTO sso_connections AS c (tenant_id, name, issuer, client_id, client_secret, scopes, claims)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
     ON CONFLICT (tenant_id, name) DO UPDATE
        SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id, client_secret = EXCLUDED.client_secret,
            scopes = EXCLUDED.scopes, claims = EXCLUDED.claims, updated_at = clock_timestamp()
     RETURNING ${COLUMNS}, (xmax = 0) AS created`,
    [tenantId, name, input.issuer, input.clientId, input.clientSecret ?? null, input.scopes, JSON.stringify(input.claims)],
  );
  return { connection: toConnection(rows[0]!), created: rows[0]!.created };
}

export async function findConnections(sql: SqlClient, tenantId: string): Promise<SsoConnection[]> {
  const { rows } = await sql.query<ConnectionRow>(`SELECT ${COLUMNS} FROM sso_connections WHERE tenant_id = $1 ORDER BY name`, [tenantId]);
  return rows.map(toConnection);
}

export async function findConnection(sql: SqlClient, tenantId: string, name: string): Promise<SsoConnection | undefined> {
  const { rows } = await sql.query<ConnectionRow>(`SELECT ${COLUMNS} FROM sso_connections WHERE tenant_id = $1 AND name = $2`, [
    tenantId,
    name,
  ]);
  return rows[0] && toConnection(rows[0]);
}

export async function deleteConnection(sql: SqlClient, tenantId: string, name: string): Promise<boolean> {
  const { rowCount } = await sql.query('DELETE FROM sso_connections WHERE tenant_id = $1 AND name = $2', [tenantId, name]);
  return rowCount === 1;
}

/** A sign-in between the redirect to the provider and its return. */
export interface SignIn {
  tenantId: string;
  connection: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  activityId?: string;
}

export async function insertSignIn(sql: SqlClient, stateHash: Buffer, signIn: SignIn, lifetimeSeconds: number): Promise<void> {
  await sql.query(
    `INSERT INTO sso_sign_ins (state_hash, tenant_id, connection, nonce, code_verifier, redirect_uri, activity_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
    [
      stateHash,
      signIn.tenantId,
      signIn.connection,
      signIn.nonce,
      signIn.codeVerifier,
      signIn.redirectUri,
      signIn.activityId ?? null,
      lifetimeSeconds,
    ],
  );
  // The sign-ins nobody finished are of no use once expired.
  await sql.query("DELETE FROM sso_sign_ins WHERE expires_at < now() - interval '1 hour'");
}

/** Takes the sign-in of this state (deleted: it is used once); undefined when there is none, or it expired. */
export async function takeSignIn(sql: SqlClient, stateHash: Buffer): Promise<SignIn | undefined> {
  const { rows } = await sql.query<{
    tenant_id: string;
    connection: string;
    nonce: string;
    code_verifier: string;
    redirect_uri: string;
    activity_id: string | null;
    expired: boolean;
  }>(
    `DELETE FROM sso_sign_ins WHERE state_hash = $1
     RETURNING tenant_id, connection, nonce, code_verifier, redirect_uri, activity_id, expires_at <= now() AS expired`,
    [stateHash],
  );
  const row = rows[0];
  if (!row || row.expired) return undefined;
  return {
    tenantId: row.tenant_id,
    connection: row.connection,
    nonce: row.nonce,
    codeVerifier: row.code_verifier,
    redirectUri: row.redirect_uri,
    ...(row.activity_id === null ? {} : { activityId: row.activity_id }),
  };
}
