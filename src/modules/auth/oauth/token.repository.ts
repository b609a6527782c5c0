import { type SqlClient, toBuffer } from '../../../platform/database/sql-client.js';

export type TokenKind = 'access' | 'refresh';

export interface NewToken {
  tokenHash: Buffer;
  kind: TokenKind;
  clientId: string;
  adminId: string;
  familyId: string;
  lifetimeSeconds: number;
  /** When the admin of the authorization signed in at their identity provider; undefined: with a password. */
  signedOnAt?: Date;
}

/** A stored token as the checks need it; `expired` is judged by the database clock. */
export interface StoredToken {
  kind: TokenKind;
  clientId: string;
  adminId: string;
  familyId: string;
  expiresAt: Date;
  expired: boolean;
  used: boolean;
  revoked: boolean;
  /**
   * An authorization begun by single sign-on: when the admin signed in at the provider, and how
   * many seconds ago that is by the database clock. Undefined: begun with a password.
   */
  signedOn?: { at: Date; ageSeconds: number };
}

interface TokenRecord {
  kind: TokenKind;
  client_id: string;
  admin_id: string;
  family_id: string;
  expires_at: Date | string;
  expired: boolean;
  used: boolean;
  revoked: boolean;
  signed_on_at?: Date | string | null;
  signed_on_age?: number | string | null;
}

const SELECT_TOKEN = `SELECT kind, client_id, admin_id, family_id, expires_at, expires_at <= now() AS expired,
                             used_at IS NOT NULL AS used, revoked_at IS NOT NULL AS revoked,
                             signed_on_at, extract(epoch FROM now() - signed_on_at)::float8 AS signed_on_age
                        FROM oauth_tokens WHERE tenant_id = $1 AND token_hash = $2`;

const toStored = (row: TokenRecord | undefined): StoredToken | undefined =>
  row && {
    kind: row.kind,
    clientId: row.client_id,
    adminId: row.admin_id,
    familyId: row.family_id,
    expiresAt: new Date(row.expires_at),
    expired: row.expired,
    used: row.used,
    revoked: row.revoked,
    ...(row.signed_on_at === null || row.signed_on_at === undefined
      ? {}
      : { signedOn: { at: new Date(row.signed_on_at), ageSeconds: Number(row.signed_on_age) } }),
  };

export async function insertTokens(sql: SqlClient, tenantId: string, tokens: NewToken[]): Promise<void> {
  for (const token of tokens) {
    await sql.query(
      `INSERT INTO oauth_tokens (tenant_id, token_hash, kind, client_id, admin_id, family_id, expires_at, signed_on_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7), $8::timestamptz)`,
      [
        tenantId,
        token.tokenHash,
        token.kind,
        token.clientId,
        token.adminId,
        token.familyId,
        token.lifetimeSeconds,
        token.signedOnAt?.toISOString() ?? null,
      ],
    );
  }
}

export async function findToken(sql: SqlClient, tenantId: string, tokenHash: Buffer): Promise<StoredToken | undefined> {
  const { rows } = await sql.query<TokenRecord>(SELECT_TOKEN, [tenantId, tokenHash]);
  return toStored(rows[0]);
}

/**
 * The token with its admin's scope (the organisation entry the admin is limited to, undefined for
 * the whole tenant), read in the same primary-key lookup: the Bearer check caches both. A token
 * whose admin no longer exists is not found (the join fails closed).
 */
export async function findTokenWithScope(
  sql: SqlClient,
  tenantId: string,
  tokenHash: Buffer,
): Promise<(StoredToken & { scope?: string }) | undefined> {
  const { rows } = await sql.query<TokenRecord & { scope_organisation_id: string | null }>(
    `SELECT t.kind, t.client_id, t.admin_id, t.family_id, t.expires_at, t.expires_at <= now() AS expired,
            t.used_at IS NOT NULL AS used, t.revoked_at IS NOT NULL AS revoked, a.scope_organisation_id
       FROM oauth_tokens t JOIN admins a ON a.tenant_id = t.tenant_id AND a.id = t.admin_id
      WHERE t.tenant_id = $1 AND t.token_hash = $2`,
    [tenantId, tokenHash],
  );
  const row = rows[0];
  const stored = toStored(row);
  if (!row || !stored) return undefined;
  return row.scope_organisation_id === null ? stored : { ...stored, scope: row.scope_organisation_id };
}

/** The token, its row locked until the transaction `tx` ends: refresh rotation runs one at a time per token. */
export async function lockToken(tx: SqlClient, tenantId: string, tokenHash: Buffer): Promise<StoredToken | undefined> {
  const { rows } = await tx.query<TokenRecord>(`${SELECT_TOKEN} FOR UPDATE`, [tenantId, tokenHash]);
  return toStored(rows[0]);
}

export async function markTokenUsed(sql: SqlClient, tenantId: string, tokenHash: Buffer): Promise<void> {
  await sql.query('UPDATE oauth_tokens SET used_at = now() WHERE tenant_id = $1 AND token_hash = $2', [tenantId, tokenHash]);
}

/** Revokes one token; answers the hashes of the access tokens this newly revoked (none or it). */
export async function revokeTokenRow(sql: SqlClient, tenantId: string, tokenHash: Buffer): Promise<Buffer[]> {
  const { rows } = await sql.query<{ token_hash: unknown; kind: TokenKind }>(
    `UPDATE oauth_tokens SET revoked_at = now()
      WHERE tenant_id = $1 AND token_hash = $2 AND revoked_at IS NULL
      RETURNING token_hash, kind`,
    [tenantId, tokenHash],
  );
  return rows.filter((row) => row.kind === 'access').map((row) => toBuffer(row.token_hash));
}

/** Revokes every token issued to one admin; answers the hashes of the access tokens this newly revoked. */
export async function revokeAdminTokenRows(sql: SqlClient, tenantId: string, adminId: string): Promise<Buffer[]> {
  const { rows } = await sql.query<{ token_hash: unknown; kind: TokenKind }>(
    `UPDATE oauth_tokens SET revoked_at = now()
      WHERE tenant_id = $1 AND admin_id = $2 AND revoked_at IS NULL
      RETURNING token_hash, kind`,
    [tenantId, adminId],
  );
  return rows.filter((row) => row.kind === 'access').map((row) => toBuffer(row.token_hash));
}

/** Revokes every token of a family (one authorization); answers the hashes of the access tokens this newly revoked. */
export async function revokeFamilyRows(sql: SqlClient, tenantId: string, familyId: string): Promise<Buffer[]> {
  const { rows } = await sql.query<{ token_hash: unknown; kind: TokenKind }>(
    `UPDATE oauth_tokens SET revoked_at = now()
      WHERE tenant_id = $1 AND family_id = $2 AND revoked_at IS NULL
      RETURNING token_hash, kind`,
    [tenantId, familyId],
  );
  return rows.filter((row) => row.kind === 'access').map((row) => toBuffer(row.token_hash));
}
