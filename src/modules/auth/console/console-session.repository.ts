import { type SqlClient, toBuffer } from '../../../platform/database/sql-client.js';

/** A console session as the checks need it: whose it is and the hashes of its current tokens. */
export interface ConsoleSessionRow {
  adminId: string;
  clientId: string;
  familyId: string;
  accessHash: Buffer;
  refreshHash: Buffer;
}

/** A stored session, with when it ends unless refreshed (by the database clock, as milliseconds). */
export interface StoredSession extends ConsoleSessionRow {
  expiresAtMs: number;
}

interface SessionRecord {
  admin_id: string;
  client_id: string;
  family_id: string;
  access_hash: unknown;
  refresh_hash: unknown;
  expires_at: Date | string;
}

const toRow = (row: SessionRecord | undefined): StoredSession | undefined =>
  row && {
    expiresAtMs: new Date(row.expires_at).getTime(),
    adminId: row.admin_id,
    clientId: row.client_id,
    familyId: row.family_id,
    accessHash: toBuffer(row.access_hash),
    refreshHash: toBuffer(row.refresh_hash),
  };

const SELECT_SESSION = `SELECT admin_id, client_id, family_id, access_hash, refresh_hash, expires_at FROM console_sessions
                         WHERE tenant_id = $1 AND session_hash = $2 AND expires_at > now()`;

export async function insertSession(
  sql: SqlClient,
  tenantId: string,
  sessionHash: Buffer,
  session: ConsoleSessionRow,
  lifetimeSeconds: number,
): Promise<void> {
  await sql.query(
    `INSERT INTO console_sessions (tenant_id, session_hash, admin_id, client_id, family_id, access_hash, refresh_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
    [tenantId, sessionHash, session.adminId, session.clientId, session.familyId, session.accessHash, session.refreshHash, lifetimeSeconds],
  );
}

/** The live session (not past its expiry), or undefined. */
export async function findSession(sql: SqlClient, tenantId: string, sessionHash: Buffer): Promise<StoredSession | undefined> {
  const { rows } = await sql.query<SessionRecord>(SELECT_SESSION, [tenantId, sessionHash]);
  return toRow(rows[0]);
}

/** The live session, its row locked until `tx` ends: one refresh at a time per session, across processes. */
export async function lockSession(tx: SqlClient, tenantId: string, sessionHash: Buffer): Promise<StoredSession | undefined> {
  const { rows } = await tx.query<SessionRecord>(`${SELECT_SESSION} FOR UPDATE`, [tenantId, sessionHash]);
  return toRow(rows[0]);
}

/** The session's new pair after a refresh; it lives a refresh token's lifetime from now. */
export async function updateSessionTokens(
  tx: SqlClient,
  tenantId: string,
  sessionHash: Buffer,
  tokens: { accessHash: Buffer; refreshHash: Buffer },
  lifetimeSeconds: number,
): Promise<void> {
  await tx.query(
    `UPDATE console_sessions SET access_hash = $3, refresh_hash = $4, refreshed_at = now(), expires_at = now() + make_interval(secs => $5)
      WHERE tenant_id = $1 AND session_hash = $2`,
    [tenantId, sessionHash, tokens.accessHash, tokens.refreshHash, lifetimeSeconds],
  );
}

/** Deletes the session; answers it as it was (its family is then revoked by the caller), or undefined. */
export async function deleteSession(sql: SqlClient, tenantId: string, sessionHash: Buffer): Promise<StoredSession | undefined> {
  const { rows } = await sql.query<SessionRecord>(
    'DELETE FROM console_sessions WHERE tenant_id = $1 AND session_hash = $2 RETURNING admin_id, client_id, family_id, access_hash, refresh_hash, expires_at',
    [tenantId, sessionHash],
  );
  return toRow(rows[0]);
}

/** Sessions past their expiry, across tenants (the hourly housekeeping). */
export async function purgeExpiredSessions(sql: SqlClient): Promise<number> {
  const { rowCount } = await sql.query('DELETE FROM console_sessions WHERE expires_at <= now()', []);
  return rowCount;
}
