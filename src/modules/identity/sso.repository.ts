import type { SqlClient } from '../../platform/database/sql-client.js';
import type { AdminRule, SsoConnectionInput } from './sso-connection-rules.js';

/** A stored connection (its secret included: for the service only, never answered). */
export type SsoConnection = SsoConnectionInput & {
  name: string;
  createdAt: Date;
  updatedAt: Date;
};
export type OidcConnection = Extract<SsoConnection, { protocol: 'oidc' }>;
export type SamlConnection = Extract<SsoConnection, { protocol: 'saml' }>;

interface ConnectionRow {
  name: string;
  protocol: 'oidc' | 'saml';
  issuer: string;
  client_id: string;
  client_secret: string | null;
  scopes: string;
  claims: Record<string, string>;
  saml: { entryPoint: string; certificates: string[]; metadataUrl?: string } | null;
  admins: AdminRule | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A SAML connection's `issuer` is its provider's entity ID, its `client_id` this server's (migration 0037). */
function toConnection(row: ConnectionRow): SsoConnection {
  const common = {
    name: row.name,
    claims: row.claims,
    ...(row.admins === null ? {} : { admins: row.admins }),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
  if (row.protocol === 'saml' && row.saml) {
    return {
      ...common,
      protocol: 'saml',
      idpEntityId: row.issuer,
      spEntityId: row.client_id,
      entryPoint: row.saml.entryPoint,
      certificates: row.saml.certificates,
      ...(row.saml.metadataUrl === undefined ? {} : { metadataUrl: row.saml.metadataUrl }),
    };
  }
  return {
    ...common,
    protocol: 'oidc',
    issuer: row.issuer,
    clientId: row.client_id,
    ...(row.client_secret === null ? {} : { clientSecret: row.client_secret }),
    scopes: row.scopes,
  };
}

const COLUMNS = 'name, protocol, issuer, client_id, client_secret, scopes, claims, saml, admins, created_at, updated_at';

/** Creates or replaces the connection; answers it and whether it was created. */
export async function upsertConnection(
  sql: SqlClient,
  tenantId: string,
  name: string,
  input: SsoConnectionInput,
): Promise<{ connection: SsoConnection; created: boolean }> {
  const saml = input.protocol === 'saml';
  const { rows } = await sql.query<ConnectionRow & { created: boolean }>(
    `INSERT INTO sso_connections AS c (tenant_id, name, protocol, issuer, client_id, client_secret, scopes, claims, saml, admins)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb)
     ON CONFLICT (tenant_id, name) DO UPDATE
        SET protocol = EXCLUDED.protocol, issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
            client_secret = EXCLUDED.client_secret, scopes = EXCLUDED.scopes, claims = EXCLUDED.claims,
            saml = EXCLUDED.saml, admins = EXCLUDED.admins, updated_at = clock_timestamp()
     RETURNING ${COLUMNS}, (xmax = 0) AS created`,
    [
      tenantId,
      name,
      input.protocol,
      saml ? input.idpEntityId : input.issuer,
      saml ? input.spEntityId : input.clientId,
      saml ? null : (input.clientSecret ?? null),
      saml ? '' : input.scopes,
      JSON.stringify(input.claims),
      saml
        ? JSON.stringify({
            entryPoint: input.entryPoint,
            certificates: input.certificates,
            ...(input.metadataUrl === undefined ? {} : { metadataUrl: input.metadataUrl }),
          })
        : null,
      input.admins ? JSON.stringify(input.admins) : null,
    ],
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

/** What a sign-in is for: launching an activity, or an admin's pending authorize request (auth's AdminSignOn). */
export type SignInPurpose = { activityId: string } | { authorizationRequestId: string; csrfHash: Buffer };

/** A sign-in between the redirect to the provider and its return. */
export interface SignIn {
  tenantId: string;
  connection: string;
  /** OpenID Connect: the ID token's nonce and the PKCE verifier. */
  nonce?: string;
  codeVerifier?: string;
  /** SAML: the AuthnRequest's ID, until its answer is taken. */
  requestId?: string;
  /** SAML: the checked assertion's claims, once its answer was taken. */
  asserted?: Record<string, unknown>;
  redirectUri: string;
  purpose: SignInPurpose;
}

interface SignInRow {
  tenant_id: string;
  connection: string;
  nonce: string | null;
  code_verifier: string | null;
  request_id: string | null;
  asserted: Record<string, unknown> | null;
  redirect_uri: string;
  activity_id: string | null;
  authorization_request_id: string | null;
  csrf_hash: Buffer | Uint8Array | null;
  expired: boolean;
}

const SIGN_IN_COLUMNS =
  'tenant_id, connection, nonce, code_verifier, request_id, asserted, redirect_uri, activity_id, authorization_request_id, csrf_hash, expires_at <= now() AS expired';

function toSignIn(row: SignInRow | undefined): SignIn | undefined {
  if (!row || row.expired) return undefined;
  return {
    tenantId: row.tenant_id,
    connection: row.connection,
    ...(row.nonce === null ? {} : { nonce: row.nonce }),
    ...(row.code_verifier === null ? {} : { codeVerifier: row.code_verifier }),
    ...(row.request_id === null ? {} : { requestId: row.request_id }),
    ...(row.asserted === null ? {} : { asserted: row.asserted }),
    redirectUri: row.redirect_uri,
    purpose:
      row.authorization_request_id !== null && row.csrf_hash !== null
        ? { authorizationRequestId: row.authorization_request_id, csrfHash: Buffer.from(row.csrf_hash) }
        : { activityId: row.activity_id ?? '' },
  };
}

export async function insertSignIn(
  sql: SqlClient,
  stateHash: Buffer,
  signIn: Omit<SignIn, 'asserted'>,
  lifetimeSeconds: number,
): Promise<void> {
  const { purpose } = signIn;
  await sql.query(
    `INSERT INTO sso_sign_ins (state_hash, tenant_id, connection, nonce, code_verifier, request_id, redirect_uri,
                               activity_id, authorization_request_id, csrf_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + make_interval(secs => $11))`,
    [
      stateHash,
      signIn.tenantId,
      signIn.connection,
      signIn.nonce ?? null,
      signIn.codeVerifier ?? null,
      signIn.requestId ?? null,
      signIn.redirectUri,
      'activityId' in purpose ? purpose.activityId : null,
      'authorizationRequestId' in purpose ? purpose.authorizationRequestId : null,
      'csrfHash' in purpose ? purpose.csrfHash : null,
      lifetimeSeconds,
    ],
  );
  // The sign-ins nobody finished are of no use once expired.
  await sql.query("DELETE FROM sso_sign_ins WHERE expires_at < now() - interval '1 hour'");
}

/** The unexpired sign-in of this state still waiting for its SAML answer, or undefined. */
export async function findAwaitingSignIn(sql: SqlClient, stateHash: Buffer): Promise<SignIn | undefined> {
  const { rows } = await sql.query<SignInRow>(
    `SELECT ${SIGN_IN_COLUMNS} FROM sso_sign_ins WHERE state_hash = $1 AND request_id IS NOT NULL`,
    [stateHash],
  );
  return toSignIn(rows[0]);
}

/**
 * Keeps the checked assertion's claims on the sign-in and forgets its request ID, so no other
 * answer is taken for it: false when another answer was taken first (of two, exactly one is).
 */
export async function recordAssertion(
  sql: SqlClient,
  stateHash: Buffer,
  requestId: string,
  asserted: Record<string, unknown>,
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE sso_sign_ins SET asserted = $3::jsonb, request_id = NULL
      WHERE state_hash = $1 AND request_id = $2 AND expires_at > now()`,
    [stateHash, requestId, JSON.stringify(asserted)],
  );
  return rowCount === 1;
}

/** Takes the sign-in of this state (deleted: it is used once); undefined when there is none, or it expired. */
export async function takeSignIn(sql: SqlClient, stateHash: Buffer): Promise<SignIn | undefined> {
  const { rows } = await sql.query<SignInRow>(`DELETE FROM sso_sign_ins WHERE state_hash = $1 RETURNING ${SIGN_IN_COLUMNS}`, [stateHash]);
  return toSignIn(rows[0]);
}
