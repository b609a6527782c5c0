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

/**
 * Stores the request with the hash of its CSRF token, keeping at most `maxPerClient` unexpired
 * requests per client: the oldest beyond that, and the client's expired ones, are deleted in the
 * same statement (the rest go in the hourly purge). Answers how many unexpired ones were pushed out.
 * Pushing out rather than refusing: a flood then cannot stop an admin from opening a new form, and
 * it only ends one already open if the flood outpaces the admin's typing.
 */
export async function insertPendingAuthorization(
  sql: SqlClient,
  pending: PendingAuthorization,
  csrfHash: Buffer,
  lifetimeSeconds: number,
  maxPerClient: number,
): Promise<number> {
  // One statement: the DELETE sees the rows as they were before the INSERT, so it keeps the
  // newest maxPerClient - 1 and the new request always survives.
  const { rows } = await sql.query<{ evicted: number }>(
    `WITH pushed_out AS (
       DELETE FROM oauth_authorization_requests
        WHERE tenant_id = $1 AND client_id = $4
          AND (expires_at <= now() OR id IN (
            SELECT id FROM oauth_authorization_requests
             WHERE tenant_id = $1 AND client_id = $4 AND expires_at > now()
             ORDER BY expires_at DESC, id DESC
             OFFSET greatest($9::int - 1, 0)))
       RETURNING expires_at
     )
     INSERT INTO oauth_authorization_requests (tenant_id, id, csrf_hash, client_id, redirect_uri, state, code_challenge, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))
     RETURNING (SELECT count(*)::int FROM pushed_out WHERE expires_at > now()) AS evicted`,
    [
      pending.tenantId,
      pending.id,
      csrfHash,
      pending.clientId,
      pending.redirectUri,
      pending.state ?? null,
      pending.codeChallenge ?? null,
      lifetimeSeconds,
      maxPerClient,
    ],
  );
  return rows[0]?.evicted ?? 0;
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
