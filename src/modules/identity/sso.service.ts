import type { FastifyReply, FastifyRequest } from 'fastify';
import * as oidc from 'openid-client';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { AppError, notFound } from '../../platform/http/app-error.js';
import { hashSecret } from '../../platform/secrets.js';
import type { Principal, Tenant } from '../../kernel/principal.js';
import type { ActorDomains } from '../actors/actor.service.js';
import type { PeopleChanges } from '../actors/people-changes.js';
import { personRecordsByUniqueValues } from '../actors/person-record.service.js';
import { getTenantSettings } from '../actors/tenant-settings.service.js';
import type { CredentialService } from '../auth/credentials/credential.service.js';
import type { LaunchSessionService } from '../launch/launch-session.service.js';
import type { LaunchSignOn } from '../launch/launch-sign-on.js';
import type { TenancyService } from '../tenancy/tenancy.service.js';
import {
  inIdentityTransaction,
  lockedPlan,
  newPersonIfi,
  personKeys,
  writePerson,
  type IdentityWriter,
} from './identity-person.service.js';
import { attributesOfClaims, CONNECTION_NAME, isLoopback, nameOfClaims, parseSsoConnection } from './sso-connection-rules.js';
import {
  deleteConnection,
  findConnection,
  findConnections,
  insertSignIn,
  takeSignIn,
  upsertConnection,
  type SsoConnection,
} from './sso.repository.js';

/**
 * Single sign-on with OpenID Connect (docs/identity.md, "Single sign-on"): a tenant's identity
 * providers (connections), and the sign-in a launch link without `auth` starts. The browser goes to
 * the provider with `state`, `nonce` and a PKCE challenge (openid-client); on its return the code is
 * exchanged, the ID token checked (issuer, audience, expiry, nonce), and the person it names found
 * through the tenant's unique attributes, or created (just in time), their mapped attributes
 * updated at each sign-in; then the activity is launched as them.
 */

/** The callback every connection's provider returns to (its redirect URI, after the public URL). */
export const CALLBACK_PATH = '/auth/sso/callback';
/** The cookie holding the state of the sign-in in flight: the return must come to the browser that left. */
export const STATE_COOKIE = 'lb_sso_state';
/** How long a sign-in may take at the provider. */
const SIGN_IN_SECONDS = 600;
/** How long one process keeps a provider's metadata (discovery). */
const METADATA_TTL_MS = 10 * 60_000;

export const SsoErrors = {
  connectionNotFound: (tenant: Tenant, name: string) =>
    notFound('identity.connection_not_found', `Tenant "${tenant.name}" has no single sign-on connection "${name}".`, { name }),
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

/** A connection as admins read it: never its secret. */
export function connectionView(connection: SsoConnection, publicBaseUrl: string) {
  return {
    name: connection.name,
    issuer: connection.issuer,
    clientId: connection.clientId,
    clientSecret: connection.clientSecret === undefined ? null : ('(set)' as const),
    scopes: connection.scopes,
    claims: connection.claims,
    redirectUri: `${publicBaseUrl}${CALLBACK_PATH}`,
    createdAt: connection.createdAt.toISOString(),
    updatedAt: connection.updatedAt.toISOString(),
  };
}

export async function putConnection(
  sql: SqlClient,
  tenant: Tenant,
  name: string,
  body: unknown,
): Promise<{ connection: SsoConnection; created: boolean }> {
  if (!CONNECTION_NAME.test(name)) throw SsoErrors.invalidName(name);
  return upsertConnection(sql, tenant.id, name, parseSsoConnection(body));
}

export function listConnections(sql: SqlClient, tenant: Tenant): Promise<SsoConnection[]> {
  return findConnections(sql, tenant.id);
}

export async function removeConnection(sql: SqlClient, tenant: Tenant, name: string): Promise<void> {
  if (!CONNECTION_NAME.test(name) || !(await deleteConnection(sql, tenant.id, name))) throw SsoErrors.connectionNotFound(tenant, name);
}

export interface SingleSignOnOptions {
  sql: SqlClient;
  tenancy: TenancyService;
  domains: ActorDomains;
  peopleChanges: PeopleChanges;
  credentials: CredentialService;
  launches: LaunchSessionService;
}

/** The sign-in flow; the launch route begins it (LaunchSignOn), the callback route finishes it. */
export class SingleSignOn implements LaunchSignOn {
  /** Providers' metadata by tenant, connection and the connection's version. */
  private readonly configurations = new Map<string, { at: number; configuration: Promise<oidc.Configuration> }>();

  constructor(private readonly options: SingleSignOnOptions) {}

  /** The provider's configuration (discovered once per process and connection version, kept METADATA_TTL_MS). */
  private configurationOf(tenantId: string, connection: SsoConnection): Promise<oidc.Configuration> {
    const key = `${tenantId}\n${connection.name}\n${connection.updatedAt.getTime()}`;
    const cached = this.configurations.get(key);
    if (cached && Date.now() - cached.at < METADATA_TTL_MS) return cached.configuration;
    const issuer = new URL(connection.issuer);
    const configuration = oidc
      .discovery(
        issuer,
        connection.clientId,
        connection.clientSecret,
        connection.clientSecret === undefined ? oidc.None() : undefined,
        isLoopback(issuer) && issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: Error) => {
        this.configurations.delete(key);
        throw SsoErrors.providerUnreachable(connection.issuer, error.message);
      });
    this.configurations.set(key, { at: Date.now(), configuration });
    return configuration;
  }

  /**
   * LaunchSignOn: to the connection the link names (`connection=`), else the tenant's first (by
   * name), to sign in for `activityId`; undefined when the tenant has none, 404 for a name it has not.
   */
  async begin(request: FastifyRequest, reply: FastifyReply, tenant: Tenant, activityId: string): Promise<FastifyReply | undefined> {
    const named = (request.query as Record<string, unknown>).connection;
    const connections = await findConnections(this.options.sql, tenant.id);
    const connection = typeof named === 'string' ? connections.find((candidate) => candidate.name === named) : connections[0];
    if (typeof named === 'string' && !connection) throw SsoErrors.connectionNotFound(tenant, named);
    if (!connection) return undefined;
    const configuration = await this.configurationOf(tenant.id, connection);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const redirectUri = `${request.publicBaseUrl}${CALLBACK_PATH}`;
    await insertSignIn(
      this.options.sql,
      hashSecret(state),
      { tenantId: tenant.id, connection: connection.name, nonce, codeVerifier, redirectUri, activityId },
      SIGN_IN_SECONDS,
    );
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: connection.scopes,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    // The launch route is not where cookies are parsed: the one cookie it sets is written out here (the state is base64url).
    const secure = request.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
    return reply
      .status(302)
      .header('Set-Cookie', `${STATE_COOKIE}=${state}; Path=${CALLBACK_PATH}; Max-Age=${SIGN_IN_SECONDS}; HttpOnly; SameSite=Lax${secure}`)
      .header('Location', url.href)
      .header('Cache-Control', 'no-store')
      .send();
  }

  /**
   * `GET /auth/sso/callback`: the provider's return. Checks that it comes to the browser that left
   * (the state cookie) for a sign-in in flight (used once), exchanges the code, writes the person
   * and launches. Answers where to send the browser.
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
    const configuration = await this.configurationOf(tenant.id, connection);
    const returned = new URL(signIn.redirectUri);
    returned.search = new URL(request.url, 'http://return').search;
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, returned, {
        pkceCodeVerifier: signIn.codeVerifier,
        expectedNonce: signIn.nonce,
        expectedState: state,
        idTokenExpected: true,
      });
      claims = (tokens.claims() ?? {}) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw SsoErrors.tokenRefused((error as Error).message);
    }
    const anchor = await this.signedIn(tenant, connection, claims);
    const launched = await this.options.launches.startSession(tenant, anchor, signIn.activityId ?? '', new URL(signIn.redirectUri).origin);
    return launched.location;
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
      principal: { kind: 'sso', tenant, id: connection.name } satisfies Principal,
      source: `sso:${connection.name}`,
      domains,
      peopleChanges,
      credentials,
    };
    const { anchor } = await inIdentityTransaction(writer, async (tx) => {
      const settings = await getTenantSettings(tx, tenant, domains.baseDomain);
      const mapped = attributesOfClaims(claims, connection.claims);
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
      const name = nameOfClaims(claims) ?? stored?.name ?? undefined;
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
