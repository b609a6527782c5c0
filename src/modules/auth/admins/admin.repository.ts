import { toBuffer, type SqlClient } from '../../../platform/database/sql-client.js';

export interface AdminRow {
  id: string;
  email: string;
  /** Null for an admin who signs in only through single sign-on. */
  password_hash: string | null;
  /** The organisation entry the admin is limited to; null: the whole tenant. */
  scope_organisation_id: string | null;
  /** The single sign-on connection that made the admin; null: made with a password (the command line, POST /api/admins). */
  sso_connection: string | null;
}

const ADMIN_COLUMNS = 'id, email, password_hash, scope_organisation_id, sso_connection';

export async function insertAdmin(
  sql: SqlClient,
  tenantId: string,
  id: string,
  email: string,
  passwordHash: string | null,
  scope?: string,
  ssoConnection?: string,
): Promise<void> {
  await sql.query(
    'INSERT INTO admins (tenant_id, id, email, password_hash, scope_organisation_id, sso_connection) VALUES ($1, $2, $3, $4, $5, $6)',
    [tenantId, id, email, passwordHash, scope ?? null, ssoConnection ?? null],
  );
}

export async function findAdminByEmail(sql: SqlClient, tenantId: string, email: string): Promise<AdminRow | undefined> {
  const { rows } = await sql.query<AdminRow>(`SELECT ${ADMIN_COLUMNS} FROM admins WHERE tenant_id = $1 AND email = $2`, [tenantId, email]);
  return rows[0];
}

export async function findAdminById(sql: SqlClient, tenantId: string, id: string): Promise<AdminRow | undefined> {
  const { rows } = await sql.query<AdminRow>(`SELECT ${ADMIN_COLUMNS} FROM admins WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
  return rows[0];
}

/** The admins the connection made (single sign-on), by address. */
export async function findConnectionAdmins(sql: SqlClient, tenantId: string, connection: string): Promise<AdminRow[]> {
  const { rows } = await sql.query<AdminRow>(
    `SELECT ${ADMIN_COLUMNS} FROM admins WHERE tenant_id = $1 AND sso_connection = $2 ORDER BY email`,
    [tenantId, connection],
  );
  return rows;
}

/** An admin as an operator lists them (never the password hash). */
export interface AdminListing {
  id: string;
  email: string;
  createdAt: Date;
  /** Set while sign-in is refused for this account (sign-in-throttle.ts). */
  lockedUntil?: Date;
  /** The organisation entry the admin is limited to (with everything below it); undefined: the whole tenant. */
  scope?: string;
  /** Whether the admin has a password (signs in on the authorize page's form). */
  password: boolean;
  /** The single sign-on connection that made the admin, through which they sign in; undefined: none. */
  connection?: string;
}

/** The tenant's admins by address, or (`id`) the one admin of that id. */
export async function listAdminRows(sql: SqlClient, tenantId: string, id?: string): Promise<AdminListing[]> {
  const { rows } = await sql.query<{
    id: string;
    email: string;
    created_at: Date | string;
    locked_until: Date | string | null;
    scope_organisation_id: string | null;
    has_password: boolean;
    sso_connection: string | null;
  }>(
    `SELECT a.id, a.email, a.created_at, CASE WHEN f.locked_until > now() THEN f.locked_until END AS locked_until, a.scope_organisation_id,
            a.password_hash IS NOT NULL AS has_password, a.sso_connection
       FROM admins AS a
       LEFT JOIN sign_in_failures AS f ON f.tenant_id = a.tenant_id AND f.subject = 'email:' || a.email
      WHERE a.tenant_id = $1 AND ($2::uuid IS NULL OR a.id = $2::uuid)
      ORDER BY a.email`,
    [tenantId, id ?? null],
  );
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    createdAt: new Date(row.created_at),
    ...(row.locked_until ? { lockedUntil: new Date(row.locked_until) } : {}),
    ...(row.scope_organisation_id === null ? {} : { scope: row.scope_organisation_id }),
    password: row.has_password,
    ...(row.sso_connection === null ? {} : { connection: row.sso_connection }),
  }));
}

/** Sets the admin's scope (NULL: the whole tenant); answers the admin's id, or undefined for an unknown address. */
export async function updateAdminScope(sql: SqlClient, tenantId: string, email: string, scope: string | null): Promise<string | undefined> {
  const { rows } = await sql.query<{ id: string }>(
    'UPDATE admins SET scope_organisation_id = $3 WHERE tenant_id = $1 AND email = $2 RETURNING id',
    [tenantId, email, scope],
  );
  return rows[0]?.id;
}

export async function updateAdminPassword(sql: SqlClient, tenantId: string, email: string, passwordHash: string): Promise<boolean> {
  const { rowCount } = await sql.query('UPDATE admins SET password_hash = $3 WHERE tenant_id = $1 AND email = $2', [
    tenantId,
    email,
    passwordHash,
  ]);
  return rowCount > 0;
}

/**
 * Deletes the admin with their codes, tokens and sign-in failure count; run it in a transaction.
 * Answers undefined for an unknown address, else the admin's id and the hashes of their
 * still-live access tokens.
 */
export async function deleteAdminRows(
  tx: SqlClient,
  tenantId: string,
  email: string,
): Promise<{ id: string; revoked: Buffer[] } | undefined> {
  const { rows: deleted } = await tx.query<{ id: string }>('DELETE FROM admins WHERE tenant_id = $1 AND email = $2 RETURNING id', [
    tenantId,
    email,
  ]);
  const admin = deleted[0];
  if (!admin) return undefined;
  return { id: admin.id, revoked: await deleteIssuedRows(tx, tenantId, [{ id: admin.id, email }]) };
}

/**
 * Deletes the admins the connection made (single sign-on) with their codes, tokens and sign-in
 * failure counts; run it in a transaction. Answers them and the hashes of their still-live access tokens.
 */
export async function deleteConnectionAdminRows(
  tx: SqlClient,
  tenantId: string,
  connection: string,
): Promise<{ admins: Array<{ id: string; email: string }>; revoked: Buffer[] }> {
  const { rows: admins } = await tx.query<{ id: string; email: string }>(
    'DELETE FROM admins WHERE tenant_id = $1 AND sso_connection = $2 RETURNING id, email',
    [tenantId, connection],
  );
  return { admins, revoked: admins.length === 0 ? [] : await deleteIssuedRows(tx, tenantId, admins) };
}

/** Deletes the codes issued to the admin: none is exchanged for tokens any more (their tokens are revoked beside). */
export async function deleteAdminCodes(tx: SqlClient, tenantId: string, adminId: string): Promise<void> {
  await tx.query('DELETE FROM oauth_codes WHERE tenant_id = $1 AND admin_id = $2', [tenantId, adminId]);
}

/** What was issued to deleted admins: their codes, tokens and failure counts; answers their still-live access tokens' hashes. */
async function deleteIssuedRows(tx: SqlClient, tenantId: string, admins: ReadonlyArray<{ id: string; email: string }>): Promise<Buffer[]> {
  const ids = admins.map((admin) => admin.id);
  await tx.query('DELETE FROM sign_in_failures WHERE tenant_id = $1 AND subject = ANY($2::text[])', [
    tenantId,
    admins.map((admin) => `email:${admin.email}`),
  ]);
  await tx.query('DELETE FROM oauth_codes WHERE tenant_id = $1 AND admin_id = ANY($2::uuid[])', [tenantId, ids]);
  const { rows } = await tx.query<{ token_hash: unknown }>(
    `DELETE FROM oauth_tokens WHERE tenant_id = $1 AND admin_id = ANY($2::uuid[])
     RETURNING CASE WHEN kind = 'access' AND revoked_at IS NULL AND expires_at > now() THEN token_hash END AS token_hash`,
    [tenantId, ids],
  );
  return rows.filter((row) => row.token_hash !== null).map((row) => toBuffer(row.token_hash));
}

/** Forgets the account's failed sign-ins and lock; false when there was nothing to forget. */
export async function deleteAccountFailures(sql: SqlClient, tenantId: string, email: string): Promise<boolean> {
  const { rowCount } = await sql.query('DELETE FROM sign_in_failures WHERE tenant_id = $1 AND subject = $2', [tenantId, `email:${email}`]);
  return rowCount > 0;
}
