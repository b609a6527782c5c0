import type { SqlClient } from '../../../platform/database/sql-client.js';

/** One row of `actor_credentials`, mapped. */
export interface StoredCredential {
  username: string;
  passwordHash: string;
  agentKey: string;
  expiresAt: Date;
  revoked: boolean;
  expired: boolean;
}

interface CredentialRow {
  username: string;
  password_hash: string;
  agent_key: string;
  expires_at: Date | string;
  revoked: boolean;
  expired: boolean;
}

/**
 * Inserts a credential unless its username was ever used in the tenant (revoked and expired rows
 * stay). Resolves to its expiry, or undefined when the username is taken.
 */
export async function insertCredential(
  sql: SqlClient,
  tenantId: string,
  credential: { username: string; passwordHash: string; agentKey: string; lifetimeSeconds: number },
): Promise<Date | undefined> {
  const { rows } = await sql.query<{ expires_at: Date | string }>(
    `INSERT INTO actor_credentials (tenant_id, username, password_hash, agent_key, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
     ON CONFLICT (tenant_id, username) DO NOTHING
     RETURNING expires_at`,
    [tenantId, credential.username, credential.passwordHash, credential.agentKey, credential.lifetimeSeconds],
  );
  return rows[0] ? new Date(rows[0].expires_at) : undefined;
}

/** The credential under a username, with its state judged by the database clock. */
export async function findCredential(sql: SqlClient, tenantId: string, username: string): Promise<StoredCredential | undefined> {
  const { rows } = await sql.query<CredentialRow>(
    `SELECT username, password_hash, agent_key, expires_at,
            revoked_at IS NOT NULL AS revoked, expires_at <= now() AS expired
       FROM actor_credentials WHERE tenant_id = $1 AND username = $2`,
    [tenantId, username],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    username: row.username,
    passwordHash: row.password_hash,
    agentKey: row.agent_key,
    expiresAt: new Date(row.expires_at),
    revoked: row.revoked,
    expired: row.expired,
  };
}

/** Marks a credential revoked (once: a second revocation keeps the first time). Undefined when there is no such username. */
export async function revokeCredentialRow(sql: SqlClient, tenantId: string, username: string): Promise<{ agentKey: string } | undefined> {
  const { rows } = await sql.query<{ agent_key: string }>(
    `UPDATE actor_credentials SET revoked_at = coalesce(revoked_at, now())
      WHERE tenant_id = $1 AND username = $2
      RETURNING agent_key`,
    [tenantId, username],
  );
  return rows[0] ? { agentKey: rows[0].agent_key } : undefined;
}

/** Marks every unrevoked credential of some actors revoked, in one statement; answers their usernames. */
export async function revokeCredentialRowsOf(sql: SqlClient, tenantId: string, agentKeys: readonly string[]): Promise<string[]> {
  const { rows } = await sql.query<{ username: string }>(
    `UPDATE actor_credentials SET revoked_at = now()
      WHERE tenant_id = $1 AND agent_key = ANY($2::text[]) AND revoked_at IS NULL
      RETURNING username`,
    [tenantId, agentKeys],
  );
  return rows.map((row) => row.username);
}

/** A credential's state by the database clock: revoked wins over expired. */
export type CredentialState = 'active' | 'expired' | 'revoked';

/** One credential of a person as `GET /api/auth/basic` lists it: never its hash. */
export interface CredentialListing {
  username: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt?: Date;
  state: CredentialState;
}

/**
 * The credentials of the actor under `agentKey`, newest first (the username breaking a tie), at
 * most `limit`; `activeOnly`: only those neither revoked nor expired. Served by the index of a
 * person's credentials (migration 0042), however many the tenant holds.
 */
export async function findCredentialsOf(
  sql: SqlClient,
  tenantId: string,
  agentKey: string,
  options: { activeOnly: boolean; limit: number },
): Promise<CredentialListing[]> {
  const { rows } = await sql.query<{
    username: string;
    created_at: Date | string;
    expires_at: Date | string;
    revoked_at: Date | string | null;
    state: CredentialState;
  }>(
    `SELECT username, created_at, expires_at, revoked_at,
            CASE WHEN revoked_at IS NOT NULL THEN 'revoked' WHEN expires_at <= now() THEN 'expired' ELSE 'active' END AS state
       FROM actor_credentials
      WHERE tenant_id = $1 AND agent_key = $2${options.activeOnly ? ' AND revoked_at IS NULL AND expires_at > now()' : ''}
      ORDER BY created_at DESC, username DESC
      LIMIT $3`,
    [tenantId, agentKey, options.limit],
  );
  return rows.map((row) => ({
    username: row.username,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    ...(row.revoked_at === null ? {} : { revokedAt: new Date(row.revoked_at) }),
    state: row.state,
  }));
}
