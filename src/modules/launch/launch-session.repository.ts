import { toBuffer, type SqlClient } from '../../platform/database/sql-client.js';

/** One launch session as the token check needs it. */
export interface StoredLaunchSession {
  id: string;
  tokenHash: Buffer;
  agentKey: string;
  activityId: string;
  registration: string;
  credentialUsername: string;
  expiresAt: Date;
  expired: boolean;
  /** The credential that launched was revoked since: its launches end with it. */
  credentialRevoked: boolean;
}

interface LaunchSessionRow {
  id: string;
  token_hash: unknown;
  agent_key: string;
  activity_id: string;
  registration: string;
  credential_username: string;
  expires_at: Date | string;
  expired: boolean;
  credential_revoked: boolean;
}

export async function insertLaunchSession(
  sql: SqlClient,
  tenantId: string,
  session: {
    id: string;
    tokenHash: Buffer;
    agentKey: string;
    activityId: string;
    registration: string;
    credentialUsername: string;
    lifetimeSeconds: number;
  },
): Promise<Date> {
  const { rows } = await sql.query<{ expires_at: Date | string }>(
    `INSERT INTO launch_sessions (tenant_id, id, token_hash, agent_key, activity_id, registration, credential_username, expires_at)
     -- A launch ends with the credential that launched it: never after the credential's expiry.
     SELECT $1, $2, $3, $4, $5, $6, $7, LEAST(now() + make_interval(secs => $8), c.expires_at)
       FROM actor_credentials c
      WHERE c.tenant_id = $1 AND c.username = $7
     RETURNING expires_at`,
    [
      tenantId,
      session.id,
      session.tokenHash,
      session.agentKey,
      session.activityId,
      session.registration,
      session.credentialUsername,
      session.lifetimeSeconds,
    ],
  );
  return new Date(rows[0]!.expires_at);
}

/**
 * A session by its id, with its expiry (its own or its credential's, whichever comes first) and its
 * credential's revocation judged by the database.
 */
export async function findLaunchSession(sql: SqlClient, tenantId: string, id: string): Promise<StoredLaunchSession | undefined> {
  const { rows } = await sql.query<LaunchSessionRow>(
    `SELECT s.id, s.token_hash, s.agent_key, s.activity_id, s.registration::text AS registration, s.credential_username,
            LEAST(s.expires_at, c.expires_at) AS expires_at, LEAST(s.expires_at, c.expires_at) <= now() AS expired,
            c.revoked_at IS NOT NULL AS credential_revoked
       FROM launch_sessions s
       JOIN actor_credentials c ON c.tenant_id = s.tenant_id AND c.username = s.credential_username
      WHERE s.tenant_id = $1 AND s.id = $2`,
    [tenantId, id],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    tokenHash: toBuffer(row.token_hash),
    agentKey: row.agent_key,
    activityId: row.activity_id,
    registration: row.registration,
    credentialUsername: row.credential_username,
    expiresAt: new Date(row.expires_at),
    expired: row.expired,
    credentialRevoked: row.credential_revoked,
  };
}
