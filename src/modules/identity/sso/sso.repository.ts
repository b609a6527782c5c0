import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { AdminRule, EmailTrust, SsoConnectionInput } from './sso-connection-rules.js';

/**
 * A SAML connection's metadata URL as last read (saml-metadata.service.ts): when it was last read
 * whole, when it was last tried, and what was wrong with the last try (undefined: nothing).
 */
export interface MetadataStatus {
  readAt: Date;
  checkedAt: Date;
  problem?: string;
}

/** A stored connection (its client secret as stored, sealed: stored-secret.service.ts opens it; never answered). */
export type SsoConnection = SsoConnectionInput & {
  name: string;
  createdAt: Date;
  updatedAt: Date;
  /** A SAML connection named by its metadata URL: how its reading went. */
  metadataStatus?: MetadataStatus;
};
export type OidcConnection = Extract<SsoConnection, { protocol: 'oidc' }>;
export type SamlConnection = Extract<SsoConnection, { protocol: 'saml' }>;

/**
 * The `saml` column: where browsers go and the certificates; with a metadata URL, how its reading
 * went (ISO times). It also keeps the properties a connection of either protocol gained without a
 * migration: `displayName` (an OpenID Connect connection's column holds only that, or is null).
 */
interface SamlColumn {
  entryPoint: string;
  certificates: string[];
  displayName?: string;
  /** Kept only when true (no migration: a property of the connection, beside its certificates). */
  allowSha1?: true;
  metadataUrl?: string;
  metadataReadAt?: string;
  metadataCheckedAt?: string;
  metadataProblem?: string;
}

function statusOf(saml: SamlColumn): MetadataStatus | undefined {
  if (saml.metadataUrl === undefined || saml.metadataReadAt === undefined) return undefined;
  return {
    readAt: new Date(saml.metadataReadAt),
    checkedAt: new Date(saml.metadataCheckedAt ?? saml.metadataReadAt),
    ...(saml.metadataProblem === undefined ? {} : { problem: saml.metadataProblem }),
  };
}

interface ConnectionRow {
  name: string;
  protocol: 'oidc' | 'saml';
  issuer: string;
  client_id: string;
  client_secret: string | null;
  scopes: string;
  claims: Record<string, string>;
  saml: SamlColumn | Pick<SamlColumn, 'displayName'> | null;
  admins: AdminRule | null;
  email_trust: EmailTrust;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A SAML connection's `issuer` is its provider's entity ID, its `client_id` this server's (migration 0037). */
function toConnection(row: ConnectionRow): SsoConnection {
  const displayName = row.saml?.displayName;
  const common = {
    name: row.name,
    ...(displayName === undefined ? {} : { displayName }),
    claims: row.claims,
    ...(row.admins === null ? {} : { admins: row.admins }),
    emailTrust: row.email_trust,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
  if (row.protocol === 'saml' && row.saml && 'entryPoint' in row.saml) {
    const metadataStatus = statusOf(row.saml);
    return {
      ...common,
      protocol: 'saml',
      idpEntityId: row.issuer,
      spEntityId: row.client_id,
      entryPoint: row.saml.entryPoint,
      certificates: row.saml.certificates,
      ...(row.saml.allowSha1 === true ? { allowSha1: true } : {}),
      ...(row.saml.metadataUrl === undefined ? {} : { metadataUrl: row.saml.metadataUrl }),
      ...(metadataStatus === undefined ? {} : { metadataStatus }),
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

const COLUMNS = 'name, protocol, issuer, client_id, client_secret, scopes, claims, saml, admins, email_trust, created_at, updated_at';

/**
 * Creates or replaces the connection; answers it and whether it was created. `keepSecret`: an
 * input without a client secret replacing an OpenID Connect connection by an OpenID Connect one
 * keeps the secret the row holds (sealed for this tenant and name, so it opens as before), judged
 * in the statement that writes, so a concurrent PUT cannot slip between a read and this write.
 */
export async function upsertConnection(
  sql: SqlClient,
  tenantId: string,
  name: string,
  input: SsoConnectionInput,
  keepSecret = false,
): Promise<{ connection: SsoConnection; created: boolean }> {
  const saml = input.protocol === 'saml';
  // A metadata URL was read just now, to make this input (sso.service.ts connectionOfBody).
  const readAt = new Date().toISOString();
  const { rows } = await sql.query<ConnectionRow & { created: boolean }>(
    `INSERT INTO sso_connections AS c (tenant_id, name, protocol, issuer, client_id, client_secret, scopes, claims, saml, admins, email_trust)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb, $11)
     ON CONFLICT (tenant_id, name) DO UPDATE
        SET protocol = EXCLUDED.protocol, issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
            client_secret = CASE WHEN $12 AND c.protocol = 'oidc' AND EXCLUDED.protocol = 'oidc' AND EXCLUDED.client_secret IS NULL
                                 THEN c.client_secret ELSE EXCLUDED.client_secret END,
            scopes = EXCLUDED.scopes, claims = EXCLUDED.claims,
            saml = EXCLUDED.saml, admins = EXCLUDED.admins, email_trust = EXCLUDED.email_trust, updated_at = clock_timestamp()
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
            ...(input.displayName === undefined ? {} : { displayName: input.displayName }),
            entryPoint: input.entryPoint,
            certificates: input.certificates,
            ...(input.allowSha1 ? { allowSha1: true } : {}),
            ...(input.metadataUrl === undefined
              ? {}
              : { metadataUrl: input.metadataUrl, metadataReadAt: readAt, metadataCheckedAt: readAt }),
          } satisfies SamlColumn)
        : input.displayName === undefined
          ? null
          : JSON.stringify({ displayName: input.displayName } satisfies Pick<SamlColumn, 'displayName'>),
      input.admins ? JSON.stringify(input.admins) : null,
      input.emailTrust,
      keepSecret,
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

/** A SAML connection named by its metadata URL, as a reading of it starts from. */
export interface MetadataSource {
  tenantId: string;
  name: string;
  idpEntityId: string;
  metadataUrl: string;
  entryPoint: string;
  certificates: string[];
  /** The ISO time of the last try, as stored: a reading takes the connection by changing it. */
  checkedAt: string | null;
}

interface MetadataSourceRow {
  tenant_id: string;
  name: string;
  issuer: string;
  saml: SamlColumn;
}

const toSource = (row: MetadataSourceRow): MetadataSource => ({
  tenantId: row.tenant_id,
  name: row.name,
  idpEntityId: row.issuer,
  metadataUrl: row.saml.metadataUrl as string,
  entryPoint: row.saml.entryPoint,
  certificates: row.saml.certificates,
  checkedAt: row.saml.metadataCheckedAt ?? null,
});

/**
 * The SAML connections of every tenant whose metadata URL is due to be read again: last tried
 * before `staleBefore`, or before `retryBefore` when that try failed. At most `limit`, the longest
 * waiting first.
 */
export async function findDueMetadataSources(
  sql: SqlClient,
  staleBefore: Date,
  retryBefore: Date,
  limit: number,
): Promise<MetadataSource[]> {
  const { rows } = await sql.query<MetadataSourceRow>(
    `SELECT tenant_id, name, issuer, saml FROM sso_connections
      WHERE protocol = 'saml' AND saml ? 'metadataUrl'
        AND (COALESCE((saml ->> 'metadataCheckedAt')::timestamptz, '-infinity') < $1::timestamptz
             OR (saml ? 'metadataProblem' AND (saml ->> 'metadataCheckedAt')::timestamptz < $2::timestamptz))
      ORDER BY COALESCE((saml ->> 'metadataCheckedAt')::timestamptz, '-infinity'), tenant_id, name
      LIMIT $3`,
    [staleBefore.toISOString(), retryBefore.toISOString(), limit],
  );
  return rows.map(toSource);
}

/** The tenant's SAML connection `name`, if it is named by a metadata URL. */
export async function findMetadataSource(sql: SqlClient, tenantId: string, name: string): Promise<MetadataSource | undefined> {
  const { rows } = await sql.query<MetadataSourceRow>(
    `SELECT tenant_id, name, issuer, saml FROM sso_connections
      WHERE tenant_id = $1 AND name = $2 AND protocol = 'saml' AND saml ? 'metadataUrl'`,
    [tenantId, name],
  );
  return rows[0] && toSource(rows[0]);
}

/**
 * Takes the connection for one reading of its metadata: its last try becomes `now`, if it is still
 * `source.checkedAt` (no other process took it, no PUT replaced it). Answers whether it was taken.
 */
export async function claimMetadataSource(sql: SqlClient, source: MetadataSource, now: string): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE sso_connections SET saml = saml || jsonb_build_object('metadataCheckedAt', $5::text)
      WHERE tenant_id = $1 AND name = $2 AND protocol = 'saml' AND saml ->> 'metadataUrl' = $3
        AND saml ->> 'metadataCheckedAt' IS NOT DISTINCT FROM $4::text`,
    [source.tenantId, source.name, source.metadataUrl, source.checkedAt, now],
  );
  return rowCount === 1;
}

/**
 * Stores what the reading taken at `claimedAt` found: the provider's entry point and certificates
 * (`updated_at` moves when they changed), or the problem (the connection works on as it was).
 * Nothing when the connection was replaced or taken again meanwhile: answers the connection as
 * stored, or undefined then.
 */
export async function recordMetadataReading(
  sql: SqlClient,
  source: MetadataSource,
  claimedAt: string,
  found: { entryPoint: string; certificates: string[] } | { problem: string },
): Promise<SsoConnection | undefined> {
  const read = 'problem' in found ? null : JSON.stringify({ entryPoint: found.entryPoint, certificates: found.certificates });
  const { rows } = await sql.query<ConnectionRow>(
    `UPDATE sso_connections
        SET saml = CASE WHEN $5::jsonb IS NULL THEN saml || jsonb_build_object('metadataProblem', $6::text)
                        ELSE (saml - 'metadataProblem') || $5::jsonb || jsonb_build_object('metadataReadAt', $4::text) END,
            updated_at = CASE WHEN $5::jsonb IS NOT NULL
                               AND (saml -> 'entryPoint' IS DISTINCT FROM $5::jsonb -> 'entryPoint'
                                    OR saml -> 'certificates' IS DISTINCT FROM $5::jsonb -> 'certificates')
                              THEN clock_timestamp() ELSE updated_at END
      WHERE tenant_id = $1 AND name = $2 AND protocol = 'saml' AND saml ->> 'metadataUrl' = $3 AND saml ->> 'metadataCheckedAt' = $4::text
      RETURNING ${COLUMNS}`,
    [source.tenantId, source.name, source.metadataUrl, claimedAt, read, 'problem' in found ? found.problem : null],
  );
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
