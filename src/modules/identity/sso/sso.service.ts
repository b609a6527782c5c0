import type { FastifyReply, FastifyRequest } from 'fastify';
import * as oidc from 'openid-client';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError, badRequest, notFound, preconditionFailed } from '../../../platform/http/app-error.js';
import { type OutboundHttp, outboundProblem } from '../../../platform/outbound-http.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import { hashSecret } from '../../../platform/issued-secrets.js';
import type { Tenant } from '../../../kernel/principal.js';
import { personRecordsByUniqueValues, getTenantSettings } from '../../actors/index.js';
import { existingOrganisationIds } from '../../organisation/index.js';
import {
  endConnectionAdmins,
  endSignedOnAdmin,
  signOutConnectionAdmins,
  type AdminChangeBy,
  type AnnounceRevokedTokens,
  type FinishAdminSignOn,
} from '../../auth/index.js';
import type { AdminSignOn, PendingSignOn, SignOnConnection } from '../../../kernel/admin-sign-on.port.js';
import type { LaunchSignOn } from '../../../kernel/launch-sign-on.port.js';
import type { LaunchSessionService } from '../../launch/index.js';
import type { TenancyService } from '../../tenancy/index.js';
import {
  inIdentityTransaction,
  lockedPlan,
  newPersonIfi,
  personKeys,
  writePerson,
  type IdentityPeople,
  type IdentityWriter,
} from '../identity-person.service.js';
import { fetchMetadata } from './saml-metadata.service.js';
import { certificateSummary } from './saml-metadata-rules.js';
import { openClientSecret, sealClientSecret } from '../stored-secret.service.js';
import { authnRequestUrl, checkedAssertion, newRequestId, SAML_ACS_PATH, SAML_METADATA_PATH, serviceProviderMetadata } from './saml.js';
import {
  attributesOfClaims,
  completeSamlConnection,
  CONNECTION_NAME,
  adminScopeByClaims,
  connectionProblems,
  isLoopback,
  joinedName,
  nameOfClaims,
  parseSsoConnection,
  sameAdmission,
  trustedClaims,
  type ClientSecretChange,
  type SsoConnectionInput,
} from './sso-connection-rules.js';
import {
  deleteConnection,
  findAwaitingSignIn,
  findConnection,
  findConnections,
  insertSignIn,
  recordAssertion,
  takeSignIn,
  upsertConnection,
  type OidcConnection,
  type SamlConnection,
  type SignInPurpose,
  type SsoConnection,
} from './sso.repository.js';
import { pointerToken } from '../../../platform/json-pointer.js';
import { ssoPrincipal } from '../../auth/index.js';

/**
 * Single sign-on (docs/identity.md, "Single sign-on"): a tenant's identity providers
 * (connections, OpenID Connect or SAML 2.0), and the sign-ins a launch link without `auth` and the
 * authorize page's "Sign in with …" start. With OpenID Connect the browser goes to the provider
 * with `state`, `nonce` and a PKCE challenge (openid-client); on its return the code is exchanged
 * and the ID token checked (signature, issuer, audience, expiry, nonce). With SAML it goes with an AuthnRequest
 * and the state as RelayState, and comes back posting a Response, checked (saml.ts) and kept on
 * the sign-in until the browser, holding the state cookie, reaches the callback. There, for a
 * launch, the person the claims name is found through the tenant's unique attributes, or created
 * (just in time), their mapped attributes updated at each sign-in, and the activity launched as
 * them; for an admin, the claims must make them one, and auth issues the authorization code.
 */

/** The callback every connection's provider returns to (its redirect URI, after the public URL). */
export const CALLBACK_PATH = '/auth/sso/callback';
/** Where a launch link opened on another address than the public one begins its sign-in (SingleSignOn.begin). */
export const SSO_LAUNCH_PATH = '/auth/sso/launch/:tenant';

/**
 * The server's public address a sign-in's return address (its `redirectUri`: the callback, or
 * SAML's ACS) was built on: LEARNBASE_PUBLIC_URL with its path, or the request's scheme and host.
 */
const baseOf = (redirectUri: string): string => {
  for (const suffix of [CALLBACK_PATH, SAML_ACS_PATH]) if (redirectUri.endsWith(suffix)) return redirectUri.slice(0, -suffix.length);
  return new URL(redirectUri).origin;
};

/** The cookie holding the state of the sign-in in flight: the return must come to the browser that left. */
export const STATE_COOKIE = 'lb_sso_state';
/** How long a sign-in may take at the provider. */
const SIGN_IN_SECONDS = 600;
/** How long one process keeps a provider's metadata (discovery). */
const METADATA_TTL_MS = 10 * 60_000;

export const SsoErrors = {
  connectionNotFound: (tenant: Tenant, name: string) =>
    notFound('identity.connection_not_found', `Tenant "${tenant.name}" has no single sign-on connection "${name}".`, { name }),
  noSamlMetadata: (name: string) =>
    notFound(
      'identity.not_saml',
      `The connection "${name}" is an OpenID Connect connection: it has no SAML metadata (register its redirectUri at the provider).`,
      { name },
    ),
  connectionExists: (tenant: Tenant, name: string) =>
    preconditionFailed(
      'identity.connection_exists',
      `Tenant "${tenant.name}" has a single sign-on connection "${name}" already, and If-None-Match: * creates only: ` +
        `read it with GET /api/sso/connections/${name}, or send the PUT without If-None-Match to replace it.`,
    ),
  invalidPrecondition: () =>
    badRequest(
      'identity.invalid_precondition',
      'If-None-Match takes only "*" here (create the connection only if it does not exist): a connection has no versions to name.',
      { header: 'if-none-match' },
    ),
  invalidName: (name: string) =>
    new AppError(
      'identity.invalid_connection',
      400,
      `"${name}" is not a connection name: 1 to 40 lower-case letters, digits and inner hyphens.`,
      {
        details: { problems: [{ path: '/name', message: 'must be 1 to 40 lower-case letters, digits and hyphens' }] },
      },
    ),
  unknownSignIn: () =>
    new AppError(
      'identity.sign_in_unknown',
      400,
      'The sign-in this return belongs to is unknown, expired, was used already, or was started in another browser.',
    ),
  providerRefused: (error: string, description?: string) =>
    new AppError(
      'identity.provider_refused',
      401,
      `The identity provider refused the sign-in: ${error}${description ? ` (${description})` : ''}.`,
    ),
  tokenRefused: (message: string) => new AppError('identity.token_refused', 401, `The identity provider's answer was refused: ${message}.`),
  providerUnreachable: (issuer: string, message: string) =>
    new AppError(
      'identity.provider_unreachable',
      502,
      `The identity provider ${issuer} could not be reached or described itself wrongly: ${message}.`,
    ),
  notAdmin: (connection: string) =>
    new AppError(
      'identity.not_admin',
      403,
      `The identity provider of connection "${connection}" does not make this person an admin (the connection's admins claim).`,
    ),
  severalScopes: (connection: string, entries: readonly string[]) =>
    new AppError(
      'identity.not_admin',
      403,
      `The identity provider of connection "${connection}" makes this person an admin of several organisation entries (${entries.join(', ')}): an admin has one (the connection's admins.scopes).`,
    ),
  noAdminEmail: () =>
    new AppError(
      'identity.no_admin_email',
      403,
      'The identity provider sent no e-mail address for this admin that the connection trusts (its emailTrust: one the provider says is unverified never is).',
    ),
  noConnection: (tenant: Tenant) =>
    notFound('identity.connection_not_found', `Tenant "${tenant.name}" has no single sign-on connection to sign in with.`),
  deactivated: () =>
    new AppError('identity.person_deactivated', 403, 'This person was deactivated by an identity system: they cannot sign in.'),
  ambiguous: () => new AppError('identity.ambiguous_person', 409, 'The identity provider’s claims identify two different people.'),
  noUniqueValue: (names: readonly string[]) =>
    new AppError(
      'identity.no_unique_value',
      403,
      `Nobody matches, and the identity provider sent no value of ${names.join(', ')} (uniqueAttributes) through the connection's claims to make a person of.`,
    ),
};

/** A connection as admins read it: never its secret; with what to register at the provider. */
export function connectionView(connection: SsoConnection, tenant: Pick<Tenant, 'name'>, publicBaseUrl: string) {
  const common = {
    name: connection.name,
    displayName: connection.displayName ?? connection.name,
    protocol: connection.protocol,
    claims: connection.claims,
    admins: connection.admins ?? null,
    emailTrust: connection.emailTrust,
    createdAt: connection.createdAt.toISOString(),
    updatedAt: connection.updatedAt.toISOString(),
  };
  if (connection.protocol === 'saml') {
    return {
      ...common,
      idpEntityId: connection.idpEntityId,
      entryPoint: connection.entryPoint,
      certificates: connection.certificates.length,
      allowSha1: connection.allowSha1 === true,
      ...(connection.metadataUrl === undefined ? {} : { metadataUrl: connection.metadataUrl }),
      ...(connection.metadataStatus === undefined
        ? {}
        : {
            metadataReadAt: connection.metadataStatus.readAt.toISOString(),
            metadataCheckedAt: connection.metadataStatus.checkedAt.toISOString(),
            metadataProblem: connection.metadataStatus.problem ?? null,
          }),
      spEntityId: connection.spEntityId,
      acsUrl: `${publicBaseUrl}${SAML_ACS_PATH}`,
      spMetadataUrl: `${publicBaseUrl}${SAML_METADATA_PATH.replace(':tenant', tenant.name).replace(':name', connection.name)}`,
    };
  }
  return {
    ...common,
    issuer: connection.issuer,
    clientId: connection.clientId,
    clientSecret: connection.clientSecret === undefined ? null : ('(set)' as const),
    scopes: connection.scopes,
    redirectUri: `${publicBaseUrl}${CALLBACK_PATH}`,
  };
}

/**
 * One connection as `GET /api/sso/connections/{name}` answers it: as the list shows it, and for
 * SAML each signing certificate's subject, issuer, serial number, validity and fingerprint.
 */
export function connectionDetailView(connection: SsoConnection, tenant: Pick<Tenant, 'name'>, publicBaseUrl: string) {
  const view = connectionView(connection, tenant, publicBaseUrl);
  return connection.protocol === 'saml' ? { ...view, certificateDetails: connection.certificates.map(certificateSummary) } : view;
}

/** The tenant's connection `name`; 404 `identity.connection_not_found` for none (a name no connection can have included). */
export async function readConnection(sql: SqlClient, tenant: Tenant, name: string): Promise<SsoConnection> {
  const connection = CONNECTION_NAME.test(name) ? await findConnection(sql, tenant.id, name) : undefined;
  if (!connection) throw SsoErrors.connectionNotFound(tenant, name);
  return connection;
}

/**
 * Creates or replaces the connection the body describes; a SAML provider's metadata named by URL is
 * read first, through the outbound guard (outside any transaction: `putConnection` is then called
 * with the result). Plain http addresses only where the guard lets loopback through (the tests).
 */
export async function connectionOfBody(outbound: OutboundHttp, tenant: Tenant, name: string, body: unknown): Promise<SsoConnectionInput> {
  if (!CONNECTION_NAME.test(name)) throw SsoErrors.invalidName(name);
  const parsed = parseSsoConnection(body, { httpOnLoopback: outbound.policy.allowLoopback });
  if (parsed.protocol === 'oidc') return parsed;
  const metadata = parsed.metadata ?? (await fetchMetadata(outbound, parsed.metadataUrl!));
  return completeSamlConnection(parsed, metadata, `urn:learnbase:${tenant.name}:${name}`);
}

/**
 * `If-None-Match` of `PUT /api/sso/connections/{name}`: absent, a replacement is allowed; `*`,
 * create only (RFC 9110 §13.1.2); anything else is 400, a connection having no versions to name.
 */
export function createOnlyOf(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  if (typeof header === 'string' && header.trim() === '*') return true;
  throw SsoErrors.invalidPrecondition();
}

/** 412 `identity.connection_exists` when the tenant has the connection `name` (a create-only PUT). */
export async function refuseExisting(sql: SqlClient, tenant: Tenant, name: string): Promise<void> {
  if (CONNECTION_NAME.test(name) && (await findConnection(sql, tenant.id, name))) throw SsoErrors.connectionExists(tenant, name);
}

/** How a PUT writes: what it does to a stored client secret it does not send, and whether it may replace. */
export interface ConnectionWrite {
  /** `keep` (the HTTP PUT without `clientSecret`): an OpenID Connect connection replaced by one keeps its secret; default: the input's. */
  secret?: ClientSecretChange;
  /** `If-None-Match: *`: 412 `identity.connection_exists` rather than replace. */
  createOnly?: boolean;
}

/**
 * Creates or replaces the connection `name` in the caller's transaction `sql`, an OpenID Connect
 * client secret sealed under `secrets`' key (503 secrets.no_key without one); `write` says whether
 * a stored secret the input leaves out is kept, and whether an existing connection is refused. A
 * replacement that changes who it makes admins (sameAdmission: another provider, admins rule or
 * e-mail trust) revokes the tokens of the admins it made (audited by `by`): the caller announces
 * `revoked` once it committed.
 */
export async function putConnection(
  sql: SqlClient,
  secrets: SecretBox,
  tenant: Tenant,
  name: string,
  input: SsoConnectionInput,
  by: AdminChangeBy,
  write: ConnectionWrite = {},
): Promise<{ connection: SsoConnection; created: boolean; revoked: Buffer[] }> {
  const before = await findConnection(sql, tenant.id, name);
  if (write.createOnly && before) throw SsoErrors.connectionExists(tenant, name);
  const entries = Object.entries(input.admins?.scopes ?? {});
  if (entries.length > 0) {
    const existing = await existingOrganisationIds(sql, tenant.id, [...new Set(entries.map(([, entry]) => entry))]);
    const problems = entries
      .filter(([, entry]) => !existing.has(entry))
      .map(([value, entry]) => ({
        path: `/admins/scopes/${pointerToken(value)}`,
        message: `names the organisation entry "${entry}", which tenant "${tenant.name}" does not have (GET /api/organisation)`,
      }));
    if (problems.length > 0) throw connectionProblems(problems);
  }
  const stored =
    input.protocol === 'oidc' && input.clientSecret !== undefined
      ? { ...input, clientSecret: sealClientSecret(secrets, tenant.id, name, input.clientSecret) }
      : input;
  const written = await upsertConnection(sql, tenant.id, name, stored, write.secret === 'keep');
  // Another create-only PUT of the name committed between the read and the write: this one replaced it; the caller rolls back.
  if (write.createOnly && !written.created) throw SsoErrors.connectionExists(tenant, name);
  const revoked = before && !sameAdmission(before, input) ? await signOutConnectionAdmins(sql, tenant, name, by) : [];
  return { ...written, revoked };
}

export function listConnections(sql: SqlClient, tenant: Tenant): Promise<SsoConnection[]> {
  return findConnections(sql, tenant.id);
}

/** The SAML service provider metadata of the tenant's connection `name`; 404 for no such connection, or one of OpenID Connect. */
export async function connectionMetadata(sql: SqlClient, tenant: Tenant, name: string, publicBaseUrl: string): Promise<string> {
  const connection = CONNECTION_NAME.test(name) ? await findConnection(sql, tenant.id, name) : undefined;
  if (!connection) throw SsoErrors.connectionNotFound(tenant, name);
  if (connection.protocol !== 'saml') throw SsoErrors.noSamlMetadata(name);
  return serviceProviderMetadata(connection, `${publicBaseUrl}${SAML_ACS_PATH}`);
}

/**
 * Deletes the connection `name` in the caller's transaction `sql`, and the admins it made with it
 * (audited by `by`): the caller announces the access tokens answered once it committed.
 */
export async function removeConnection(sql: SqlClient, tenant: Tenant, name: string, by: AdminChangeBy): Promise<Buffer[]> {
  if (!CONNECTION_NAME.test(name) || !(await deleteConnection(sql, tenant.id, name))) throw SsoErrors.connectionNotFound(tenant, name);
  return endConnectionAdmins(sql, tenant, name, by);
}

export interface SingleSignOnOptions extends IdentityPeople {
  tenancy: TenancyService;
  launches: LaunchSessionService;
  /** Ends an admin's sign-in with the authorization code (auth's). */
  finishAdminSignOn: FinishAdminSignOn;
  /** Every request to a provider (discovery, token endpoint, keys) goes through its guard. */
  outbound: OutboundHttp;
  /** Opens a connection's stored client secret. */
  secrets: SecretBox;
  /** Tells every process of the access tokens revoked when a sign-in ended an admin (auth's). */
  announceRevokedTokens: AnnounceRevokedTokens;
}

/**
 * The sign-in flow; the launch route (LaunchSignOn) and the authorize page (AdminSignOn) begin it,
 * the SAML answer's route and the callback route finish it.
 */
export class SingleSignOn implements LaunchSignOn, AdminSignOn {
  /** Providers' metadata by tenant, connection and the connection's version. */
  private readonly configurations = new Map<string, { at: number; configuration: Promise<oidc.Configuration> }>();

  constructor(private readonly options: SingleSignOnOptions) {}

  /**
   * The provider's configuration (discovered once per process and connection version, kept
   * METADATA_TTL_MS). Discovery and every request after it (the token endpoint, the keys) go
   * through the outbound guard (`customFetch`), so a provider out of reach, one refused by it and
   * one that does not answer read alike.
   */
  private configurationOf(tenantId: string, connection: OidcConnection): Promise<oidc.Configuration> {
    const key = `${tenantId}\n${connection.name}\n${connection.updatedAt.getTime()}`;
    const cached = this.configurations.get(key);
    if (cached && Date.now() - cached.at < METADATA_TTL_MS) return cached.configuration;
    const issuer = new URL(connection.issuer);
    const { outbound, secrets } = this.options;
    const clientSecret =
      connection.clientSecret === undefined ? undefined : openClientSecret(secrets, tenantId, connection.name, connection.clientSecret);
    // openid-client checks an ID token's claims but not its signature unless asked (the token came
    // over TLS from the token endpoint): asked here, it is checked against a key of the provider's
    // jwks_uri (read through this configuration, so through the outbound guard; read again after
    // five minutes, or after one for a `kid` it does not hold, as a provider rolls its key). A token
    // signed by another key, unsigned (`alg: none`) or signed with a shared secret (HS256: whoever
    // holds the client secret, this server included, could have made it) is refused, whatever the
    // provider's metadata lists. Plain http only where the guard lets loopback through: the tests' providers.
    const execute = [oidc.enableNonRepudiationChecks];
    if (outbound.policy.allowLoopback && isLoopback(issuer) && issuer.protocol === 'http:') execute.push(oidc.allowInsecureRequests);
    const configuration = oidc
      .discovery(issuer, connection.clientId, clientSecret, clientSecret === undefined ? oidc.None() : undefined, {
        [oidc.customFetch]: outbound.fetch,
        execute,
      })
      .catch((error: Error) => {
        this.configurations.delete(key);
        throw SsoErrors.providerUnreachable(connection.issuer, outboundProblem(error) ?? error.message);
      });
    this.configurations.set(key, { at: Date.now(), configuration });
    return configuration;
  }

  /**
   * LaunchSignOn: to the connection the link names (`connection=`), else the tenant's first (by
   * name), to sign in for `activityId`; undefined when the tenant has none, 404 for a name it has not.
   * A link opened on another address than the server's public one (a tenant's sub-domain, with
   * LEARNBASE_PUBLIC_URL naming the server) first goes to the public address (`SSO_LAUNCH_PATH`):
   * the provider returns the browser there, and the state cookie must be set where it returns.
   */
  async begin(request: FastifyRequest, reply: FastifyReply, tenant: Tenant, activityId: string): Promise<boolean> {
    const named = (request.query as Record<string, unknown>).connection;
    const connection = await this.launchConnection(tenant, typeof named === 'string' ? named : undefined);
    if (!connection) return false;
    if (new URL(request.publicBaseUrl).origin !== `${request.protocol}://${request.host}`) {
      const hop = new URL(`${request.publicBaseUrl}${SSO_LAUNCH_PATH.replace(':tenant', tenant.name)}`);
      hop.search = new URLSearchParams({ activityId, connection: connection.name }).toString();
      reply.status(302).header('Location', hop.href).header('Cache-Control', 'no-store').send();
      return true;
    }
    await this.toProvider(request, reply, tenant, connection, { activityId });
    return true;
  }

  /**
   * `GET /auth/sso/launch/{tenant}`: a launch link's sign-in, begun at the server's public address
   * (where `begin` sends a link opened on another): to the provider, the state cookie set here.
   * Never sent on again, whatever address it is reached at.
   */
  async beginAtPublicAddress(
    request: FastifyRequest,
    reply: FastifyReply,
    tenant: Tenant,
    activityId: string,
    named: string | undefined,
  ): Promise<void> {
    const connection = await this.launchConnection(tenant, named);
    if (!connection) throw SsoErrors.noConnection(tenant);
    await this.toProvider(request, reply, tenant, connection, { activityId });
  }

  /** The connection `named`, else the tenant's first (by name); undefined when it has none, 404 for a name it has not. */
  private async launchConnection(tenant: Tenant, named: string | undefined): Promise<SsoConnection | undefined> {
    const connections = await findConnections(this.options.sql, tenant.id);
    const connection = named === undefined ? connections[0] : connections.find((candidate) => candidate.name === named);
    if (named !== undefined && !connection) throw SsoErrors.connectionNotFound(tenant, named);
    return connection;
  }

  /** AdminSignOn: the tenant's connections with an admins claim, by name, with what their buttons show. */
  async connectionsFor(tenantId: string): Promise<SignOnConnection[]> {
    return (await findConnections(this.options.sql, tenantId))
      .filter((connection) => connection.admins)
      .map(({ name, displayName }) => ({ name, displayName: displayName ?? name }));
  }

  /** AdminSignOn: to the connection's provider, for an admin's pending authorize request. */
  async beginAdmin(request: FastifyRequest, reply: FastifyReply, name: string, pending: PendingSignOn): Promise<void> {
    const connection = await findConnection(this.options.sql, pending.tenant.id, name);
    if (!connection?.admins) throw SsoErrors.connectionNotFound(pending.tenant, name);
    await this.toProvider(request, reply, pending.tenant, connection, {
      authorizationRequestId: pending.authorizationRequestId,
      csrfHash: pending.csrfHash,
    });
  }

  /**
   * Sends the browser to the connection's provider for a new sign-in, holding its state in a cookie
   * (the return must come to the browser that left).
   */
  private async toProvider(
    request: FastifyRequest,
    reply: FastifyReply,
    tenant: Tenant,
    connection: SsoConnection,
    purpose: SignInPurpose,
  ): Promise<void> {
    const state = oidc.randomState();
    const location =
      connection.protocol === 'saml'
        ? await this.samlRequest(request, tenant, connection, state, purpose)
        : await this.oidcRequest(request, tenant, connection, state, purpose);
    // The launch route is not where cookies are parsed: the one cookie it sets is written out here (the state is base64url).
    // Its path is the callback's as the browser sees it: below LEARNBASE_PUBLIC_URL's path, when it has one.
    const secure = request.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
    const path = new URL(`${request.publicBaseUrl}${CALLBACK_PATH}`).pathname;
    reply
      .status(302)
      .header('Set-Cookie', `${STATE_COOKIE}=${state}; Path=${path}; Max-Age=${SIGN_IN_SECONDS}; HttpOnly; SameSite=Lax${secure}`)
      .header('Location', location)
      .header('Cache-Control', 'no-store')
      .send();
  }

  private async oidcRequest(
    request: FastifyRequest,
    tenant: Tenant,
    connection: OidcConnection,
    state: string,
    purpose: SignInPurpose,
  ): Promise<string> {
    const configuration = await this.configurationOf(tenant.id, connection);
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const redirectUri = `${request.publicBaseUrl}${CALLBACK_PATH}`;
    await insertSignIn(
      this.options.sql,
      hashSecret(state),
      { tenantId: tenant.id, connection: connection.name, nonce, codeVerifier, redirectUri, purpose },
      SIGN_IN_SECONDS,
    );
    return oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: connection.scopes,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    }).href;
  }

  /** A SAML sign-in keeps its request's ID (the InResponseTo of the answer) and the address the answer must name. */
  private async samlRequest(
    request: FastifyRequest,
    tenant: Tenant,
    connection: SamlConnection,
    state: string,
    purpose: SignInPurpose,
  ): Promise<string> {
    const requestId = newRequestId();
    const acsUrl = `${request.publicBaseUrl}${SAML_ACS_PATH}`;
    await insertSignIn(
      this.options.sql,
      hashSecret(state),
      { tenantId: tenant.id, connection: connection.name, requestId, redirectUri: acsUrl, purpose },
      SIGN_IN_SECONDS,
    );
    return authnRequestUrl(connection, acsUrl, requestId, state);
  }

  /**
   * `POST /auth/sso/saml`: a SAML provider's answer for the sign-in of `relayState`. Checked (a
   * refused answer ends the sign-in), its claims kept on the sign-in, and the browser sent on to the
   * callback, where its state cookie is (a cross-site POST does not bring it).
   */
  async acceptAssertion(samlResponse: string | undefined, relayState: string | undefined): Promise<string> {
    if (!samlResponse || !relayState) throw SsoErrors.unknownSignIn();
    const { sql } = this.options;
    const stateHash = hashSecret(relayState);
    // A sign-in goes with its tenant (ON DELETE CASCADE): found, its tenant is there.
    const signIn = await findAwaitingSignIn(sql, stateHash);
    const connection = signIn && (await findConnection(sql, signIn.tenantId, signIn.connection));
    if (!signIn?.requestId || connection?.protocol !== 'saml') throw SsoErrors.unknownSignIn();
    let asserted: Record<string, unknown>;
    try {
      asserted = await checkedAssertion(connection, signIn.redirectUri, signIn.requestId, samlResponse);
    } catch (error) {
      await takeSignIn(sql, stateHash);
      throw SsoErrors.tokenRefused((error as Error).message);
    }
    if (!(await recordAssertion(sql, stateHash, signIn.requestId, asserted))) throw SsoErrors.unknownSignIn();
    const callback = new URL(`${baseOf(signIn.redirectUri)}${CALLBACK_PATH}`);
    callback.searchParams.set('state', relayState);
    return callback.href;
  }

  /**
   * `GET /auth/sso/callback`: the provider's return (OpenID Connect), or the browser sent on after a
   * SAML answer. Checks that it comes to the browser that left (the state cookie) for a sign-in in
   * flight (used once), takes the claims (exchanging the code, or as the answer left them), and ends
   * the sign-in: a launch, or an admin's authorization. Answers where to send the browser.
   */
  async finish(request: FastifyRequest, query: Record<string, string | undefined>, cookie: string | undefined): Promise<string> {
    const state = query.state;
    if (!state || cookie !== state) throw SsoErrors.unknownSignIn();
    const signIn = await takeSignIn(this.options.sql, hashSecret(state));
    if (!signIn) throw SsoErrors.unknownSignIn();
    if (query.error) throw SsoErrors.providerRefused(query.error, query.error_description);
    const tenant = await this.options.tenancy.findById(signIn.tenantId);
    const connection = tenant && (await findConnection(this.options.sql, tenant.id, signIn.connection));
    if (!tenant || !connection) throw SsoErrors.unknownSignIn();
    let claims: Record<string, unknown>;
    if (connection.protocol === 'saml') {
      if (!signIn.asserted) throw SsoErrors.unknownSignIn();
      claims = signIn.asserted;
    } else {
      claims = await this.exchangeCode(request, tenant, connection, signIn, state);
    }
    const { purpose } = signIn;
    if ('authorizationRequestId' in purpose) return this.adminSignedIn(tenant, connection, claims, purpose);
    const anchor = await this.signedIn(tenant, connection, claims);
    const launched = await this.options.launches.startSession(tenant, anchor, purpose.activityId, baseOf(signIn.redirectUri));
    return launched.location;
  }

  private async exchangeCode(
    request: FastifyRequest,
    tenant: Tenant,
    connection: OidcConnection,
    signIn: { redirectUri: string; codeVerifier?: string; nonce?: string },
    state: string,
  ): Promise<Record<string, unknown>> {
    const configuration = await this.configurationOf(tenant.id, connection);
    const returned = new URL(signIn.redirectUri);
    returned.search = new URL(request.url, 'http://return').search;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, returned, {
        pkceCodeVerifier: signIn.codeVerifier,
        expectedNonce: signIn.nonce,
        expectedState: state,
        idTokenExpected: true,
      });
      return (tokens.claims() ?? {}) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw SsoErrors.tokenRefused(outboundProblem(error) ?? (error as Error).message);
    }
  }

  /**
   * An admin's sign-in: the connection's admins claim must make them one, and the provider must
   * give their e-mail address, one the connection trusts (trustedClaims); auth finishes the
   * authorize request with the admin the connection made of that address (created if there is
   * none; an admin made otherwise is refused there). Claims that no longer make an admin of someone
   * the connection made end that admin: deleted, their tokens refused at once, audited.
   */
  private async adminSignedIn(
    tenant: Tenant,
    connection: SsoConnection,
    claims: Record<string, unknown>,
    pending: { authorizationRequestId: string; csrfHash: Buffer },
  ): Promise<string> {
    const trusted = trustedClaims(claims, connection);
    const email = attributesOfClaims(trusted, connection.claims).email ?? (typeof trusted.email === 'string' ? trusted.email : undefined);
    const by = { principal: ssoPrincipal(tenant, connection.name), source: `sso:${connection.name}` };
    const made = adminScopeByClaims(claims, connection.admins);
    if (!made || 'several' in made) {
      if (email) {
        const revoked = await this.options.sql.transaction((tx) => endSignedOnAdmin(tx, tenant, connection.name, email, by));
        await this.options.announceRevokedTokens(revoked);
      }
      throw made ? SsoErrors.severalScopes(connection.name, made.several) : SsoErrors.notAdmin(connection.name);
    }
    if (!email) throw SsoErrors.noAdminEmail();
    return this.options.finishAdminSignOn({ tenant, ...pending }, { email, scope: made.scope, connection: connection.name }, by);
  }

  /**
   * The person the claims name, written in one transaction under the identity lock (created just in
   * time, or their mapped attributes updated; a deactivated person is refused), with a credential
   * anchoring the launch about to start.
   */
  private async signedIn(
    tenant: Tenant,
    connection: SsoConnection,
    claims: Record<string, unknown>,
  ): Promise<{ username: string; agentKey: string }> {
    const { sql, domains, peopleChanges, credentials } = this.options;
    const writer: IdentityWriter = {
      sql,
      domains,
      peopleChanges,
      credentials,
      principal: ssoPrincipal(tenant, connection.name),
      source: `sso:${connection.name}`,
    };
    const { anchor } = await inIdentityTransaction(writer, async (tx) => {
      const settings = await getTenantSettings(tx, tenant, domains.baseDomain);
      // An e-mail address the connection does not trust is neither matched nor written.
      const mapped = attributesOfClaims(trustedClaims(claims, connection), connection.claims);
      const stored = await lockedPlan(tx, tenant.id, async () => {
        const matches = await personRecordsByUniqueValues(tx, tenant.id, settings.uniqueAttributes, mapped);
        if (new Set(matches.map((match) => match.agentKey)).size > 1) throw SsoErrors.ambiguous();
        const [found] = matches;
        return { keys: personKeys(settings, mapped, found, found ? undefined : newPersonIfi(settings, mapped)), value: found };
      });
      if (stored && !stored.active) throw SsoErrors.deactivated();
      const attributes = { ...(stored?.attributes ?? {}), ...mapped };
      const ifi = stored?.ifi ?? newPersonIfi(settings, attributes);
      if (ifi === undefined) throw SsoErrors.noUniqueValue(settings.uniqueAttributes);
      const name = nameOfClaims(claims) ?? joinedName(mapped.givenName, mapped.familyName) ?? stored?.name ?? undefined;
      const { record } = await writePerson(
        tx,
        { ...writer, sql: tx },
        settings,
        { ...(name === undefined ? {} : { name }), attributes },
        ifi,
      );
      return { anchor: await credentials.createSignOnAnchor(tx, tenant.id, record.agentKey), revoked: [] as string[] };
    });
    return anchor;
  }
}
