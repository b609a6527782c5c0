import type { SqlClient } from '../../../platform/database/sql-client.js';

/** A validated authorize request waiting for its admin to sign in (oauth_authorization_requests). */
export interface PendingAuthorization {
  tenantId: string;
  id: string;
  clientId: string;
  redirectUri: string;
  state?: string;
  codeChallenge?: string;
}

interface PendingRow {
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string | null;
}

const toPending = (tenantId: string, id: string, row: PendingRow): PendingAuthorization => ({
  tenantId,
  id,
  clientId: row.client_id,
  redirectUri: row.redirect_uri,
  state: row.state ?? undefined,
  codeChallenge: row.code_challenge ?? undefined,
});

/** Stores the request with the hash of its CSRF token (expired ones go in the hourly purge). */
export async function insertPendingAuthorization(
  sql: SqlClient,
  pending: PendingAuthorization,
  csrfHash: Buffer,
  lifetimeSeconds: number,
): Promise<void> {
  await sql.query(
    `INSERT INTO oauth_authorization_requests (tenant_id, id, csrf_hash, client_id, redirect_uri, state, code_challenge, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
    [pending.tenantId, pending.id, csrfHash, pending.clientId, pending.redirectUri, pending.state ?? null, pending.codeChallenge ?? null, lifetimeSeconds],
  );
}

/** The unexpired request whose CSRF token hashes to `csrfHash`, or undefined. */
export async function findPendingAuthorization(
  sql: SqlClient,
  tenantId: string,
  id: string,
  csrfHash: Buffer,
): Promise<PendingAuthorization | undefined> {
  const { rows } = await sql.query<PendingRow>(
    `SELECT client_id, redirect_uri, state, code_challenge FROM oauth_authorization_requests
      WHERE tenant_id = $1 AND id = $2 AND csrf_hash = $3 AND expires_at > now()`,
    [tenantId, id, csrfHash],
  );
  return rows[0] && toPending(tenantId, id, rows[0]);
}

/**
 * Deletes the request and answers it, or undefined when it is gone (used, expired, or taken by a
 * concurrent submission of the same form): of two submissions exactly one gets it.
 */
export async function deletePendingAuthorization(
  sql: SqlClient,
  tenantId: string,
  id: string,
  csrfHash: Buffer,
): Promise<PendingAuthorization | undefined> {
  const { rows } = await sql.query<PendingRow>(
    `DELETE FROM oauth_authorization_requests
      WHERE tenant_id = $1 AND id = $2 AND csrf_hash = $3 AND expires_at > now()
      RETURNING client_id, redirect_uri, state, code_challenge`,
    [tenantId, id, csrfHash],
  );
  return rows[0] && toPending(tenantId, id, rows[0]);
}
