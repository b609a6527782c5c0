import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { OutboundHttp } from '../../../platform/outbound-http.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import { type AppError, badRequest, notFound } from '../../../platform/http/app-error.js';
import { apiErrorResponse, htmlPageResponse } from '../../../platform/http/common-schemas.js';
import type { PageWording } from '../../../platform/http/error-handler.js';
import { recordAudit, sourceOfHeader } from '../../audit/index.js';
import { ADMIN_ERRORS, ADMIN_ONLY, adminPrincipalOf, SourceHeader, type AnnounceRevokedTokens } from '../../auth/index.js';
import { type TenancyService, namedTenant } from '../../tenancy/index.js';
import { SAML_ACS_PATH, SAML_METADATA_PATH } from './saml.js';
import { refreshConnection } from './saml-metadata.service.js';
import { clientSecretChangeOf, MAX_METADATA_BYTES } from './sso-connection-rules.js';
import {
  CALLBACK_PATH,
  connectionDetailView,
  connectionMetadata,
  connectionOfBody,
  connectionView,
  createOnlyOf,
  listConnections,
  putConnection,
  readConnection,
  refuseExisting,
  removeConnection,
  SSO_LAUNCH_PATH,
  STATE_COOKIE,
  type SingleSignOn,
} from './sso.service.js';

const AdminsRule = Type.Union(
  [
    Type.Object({
      claim: Type.String(),
      value: Type.Optional(Type.String({ description: 'The value of the claim that makes an admin of the whole tenant.' })),
      scopes: Type.Optional(
        Type.Record(Type.String(), Type.String(), {
          description: 'Values of the claim → the organisation entry (id) whose admin they make: an admin limited to its subtree.',
        }),
      ),
    }),
    Type.Null(),
  ],
  {
    description:
      'The claim (SAML: attribute) and its values that make a person signing in on the authorize page an admin, of the whole tenant ' +
      '(`value`) or of an organisation entry (`scopes`); null: nobody.',
  },
);

const EmailTrustBody = Type.Union([Type.Literal('unless-unverified'), Type.Literal('verified-only')], {
  description:
    'Whether the e-mail address the provider sends finds and is written to people and admins: `unless-unverified` (the default) unless ' +
    'the provider says it is not verified (`email_verified` false or "false"), `verified-only` only when it says it is (true or "true").',
});

const ConnectionBody = Type.Object({
  name: Type.String(),
  displayName: Type.String({
    description: 'What the authorize page’s button reads ("Sign in with …"); the name when none was given.',
  }),
  protocol: Type.Union([Type.Literal('oidc'), Type.Literal('saml')]),
  claims: Type.Record(Type.String(), Type.String(), { description: 'Claim (SAML: attribute) → actor attribute.' }),
  admins: AdminsRule,
  emailTrust: EmailTrustBody,
  issuer: Type.Optional(
    Type.String({ description: 'OpenID Connect: the provider’s issuer URL (its /.well-known/openid-configuration is read).' }),
  ),
  clientId: Type.Optional(Type.String({ description: 'OpenID Connect.' })),
  clientSecret: Type.Optional(
    Type.Union([Type.Literal('(set)'), Type.Null()], { description: 'OpenID Connect. Never answered: "(set)" when there is one.' }),
  ),
  scopes: Type.Optional(Type.String({ description: 'OpenID Connect.' })),
  redirectUri: Type.Optional(
    Type.String({ description: 'OpenID Connect: what to register at the provider as this client’s redirect URI.' }),
  ),
  idpEntityId: Type.Optional(Type.String({ description: 'SAML: the identity provider’s entity ID (the Issuer of its assertions).' })),
  entryPoint: Type.Optional(Type.String({ description: 'SAML: where browsers are sent with the AuthnRequest (HTTP-Redirect).' })),
  certificates: Type.Optional(Type.Integer({ description: 'SAML: how many signing certificates are kept.' })),
  allowSha1: Type.Optional(
    Type.Boolean({ description: 'SAML: whether signatures and digests using SHA-1 are taken (false: refused, the default).' }),
  ),
  metadataUrl: Type.Optional(
    Type.String({ description: 'SAML: where the metadata is read (at each PUT, once a day, and at POST …/refresh).' }),
  ),
  metadataReadAt: Type.Optional(Type.String({ format: 'date-time', description: 'SAML with metadataUrl: when it was last read whole.' })),
  metadataCheckedAt: Type.Optional(Type.String({ format: 'date-time', description: 'SAML with metadataUrl: when it was last tried.' })),
  metadataProblem: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'SAML with metadataUrl: why the last try changed nothing (unreadable, another provider); null: it went well.',
    }),
  ),
  spEntityId: Type.Optional(
    Type.String({ description: 'SAML: this server’s entity ID, the audience of the assertions: register it at the provider.' }),
  ),
  acsUrl: Type.Optional(Type.String({ description: 'SAML: the Assertion Consumer Service URL (HTTP-POST) to register at the provider.' })),
  spMetadataUrl: Type.Optional(
    Type.String({
      description: 'SAML: where this server’s metadata for the connection is published, for a provider that reads it by URL.',
    }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const CertificateDetails = Type.Object({
  subject: Type.String({ description: 'The subject’s distinguished name.', examples: ['CN=Microsoft Azure Federated SSO Certificate'] }),
  issuer: Type.String({ description: 'The issuer’s distinguished name (the subject again for a self-signed certificate).' }),
  serialNumber: Type.String({ description: 'Hexadecimal.' }),
  notBefore: Type.String({ format: 'date-time' }),
  notAfter: Type.String({ format: 'date-time', description: 'When the provider must have rolled to another key.' }),
  fingerprint: Type.String({
    description: 'SHA-256, colon-separated hex: what the provider’s console shows to compare.',
    examples: ['E6:9D:85:0D:9C:F6:B4:CC:58:5F:71:E0:8B:BC:BD:BC:ED:E4:10:CF:C1:B0:DB:78:F8:4A:0F:DE:B4:47:1A:15'],
  }),
});

/** One connection: as an element of the list, and for SAML the certificates' details. */
const ConnectionItemBody = Type.Object({
  ...ConnectionBody.properties,
  certificateDetails: Type.Optional(
    Type.Array(CertificateDetails, { description: 'SAML: each signing certificate kept, in the order `certificates` counts them.' }),
  ),
});

const SAML_BODY_LIMIT = 256 * 1024;

const NameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200, description: 'The connection’s name.' }) });

/** What a person reads when signing in failed: what happened and what to do, never a code. */
function signInWording(error: AppError): PageWording {
  switch (error.code) {
    case 'identity.person_deactivated':
      return {
        title: 'Your account is not active',
        message: 'Your organisation has deactivated your account. Ask your administrator if this is a mistake.',
      };
    case 'identity.sign_in_unknown':
      return {
        title: 'This sign-in cannot be finished',
        message: 'It took too long, was already used, or was started in another browser. Open the link you were sent again.',
      };
    case 'auth.admin_not_made_here':
      return {
        title: 'Sign in with your password',
        message:
          'An administrator account with your e-mail address exists here already, made without this sign-in service: sign in with its password, or ask an administrator to remove it first.',
      };
    case 'identity.not_admin':
    case 'identity.no_admin_email':
      return {
        title: 'You are not an administrator here',
        message: 'Your organisation’s sign-in service does not make you an administrator of this organisation. Ask your administrator.',
      };
    case 'auth.sign_in_expired':
      return {
        title: 'This sign-in has expired',
        message: 'The authorization it was for has expired or was finished already. Start again from the application.',
      };
    case 'identity.provider_refused':
      return {
        title: 'You were not signed in',
        message: 'Your organisation’s sign-in service did not sign you in. Open the link you were sent again.',
      };
    default:
      return {
        title: 'You could not be signed in',
        message: 'Something went wrong while signing you in. Try the link again later; if it keeps happening, tell your administrator.',
      };
  }
}

/**
 * `GET /api/sso/connections`, `GET|PUT|DELETE /api/sso/connections/{name}`: a tenant's admins configure
 * its identity providers; `GET /auth/sso/callback`: where the providers return the browser
 * (docs/identity.md, "Single sign-on").
 */
export const ssoRoutes: FastifyPluginAsyncTypebox<{
  sql: SqlClient;
  signOn: SingleSignOn;
  tenancy: TenancyService;
  baseDomain: string;
  /** Reads SAML metadata URLs (PUT, refresh) through the outbound guard. */
  outbound: OutboundHttp;
  /** Seals an OpenID Connect client secret as it is stored. */
  secrets: SecretBox;
  /** Tells every process of the admins' tokens a PUT or DELETE revoked (auth's). */
  announceRevokedTokens: AnnounceRevokedTokens;
}> = async (app, { sql, signOn, tenancy, baseDomain, outbound, secrets, announceRevokedTokens }) => {
  // A SAML Response with its signatures and certificates is some kilobytes; metadata sent whole is larger.
  await app.register(formbody, { bodyLimit: SAML_BODY_LIMIT });

  /** The tenant a public path names, lower-cased, and the tenant of that name if any; 400 when the Host or X-SVC-Tenant names another. */
  const tenantOfPath = async (request: FastifyRequest, pathTenant: string) => {
    const named = namedTenant(request, baseDomain);
    const wanted = pathTenant.toLowerCase();
    if (named !== undefined && named !== wanted)
      throw badRequest('tenant.mismatch', `The request names tenant "${named}" but the path names "${wanted}"; name one tenant.`);
    return { wanted, tenant: await tenancy.findByName(wanted) };
  };

  app.get(
    '/api/sso/connections',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'GET:sso.connections',
        summary: "The tenant's single sign-on connections (never a secret)",
        response: { 200: Type.Array(ConnectionBody), ...ADMIN_ERRORS },
      },
    },
    async (request) => {
      const { tenant } = adminPrincipalOf(request);
      return (await listConnections(sql, tenant)).map((connection) => connectionView(connection, tenant, request.publicBaseUrl));
    },
  );

  app.get(
    '/api/sso/connections/:name',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'GET:sso.connections.item',
        summary: 'One single sign-on connection, as the list shows it; for SAML with its certificates’ details (never a secret)',
        description:
          'The shape of an element of GET /api/sso/connections; a SAML connection adds `certificateDetails`: each signing certificate’s ' +
          'subject, issuer, serial number, validity and SHA-256 fingerprint (docs/identity.md, "Single sign-on").',
        params: NameParams,
        response: {
          200: ConnectionItemBody,
          ...ADMIN_ERRORS,
          404: apiErrorResponse('The tenant has no connection of this name (`identity.connection_not_found`).'),
        },
      },
    },
    async (request) => {
      const { tenant } = adminPrincipalOf(request);
      return connectionDetailView(await readConnection(sql, tenant, request.params.name), tenant, request.publicBaseUrl);
    },
  );

  app.put(
    '/api/sso/connections/:name',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'PUT:sso.connections',
        summary: 'Create or replace a single sign-on connection (an OpenID Connect or SAML 2.0 provider)',
        description:
          'OpenID Connect: `issuer`, `clientId`, `clientSecret`?, `scopes`?. SAML (`"protocol": "saml"`): the provider by `metadataXml`, ' +
          '`metadataUrl`, or `idpEntityId` with `entryPoint` and `certificates`; `spEntityId`? (default `urn:learnbase:<tenant>:<name>`), ' +
          '`allowSha1`? (default false). ' +
          'Both: `displayName`?, `claims`?, `admins`?, `emailTrust`?. A replacement that changes the provider, `admins` or `emailTrust` revokes ' +
          'the tokens of the admins the connection made: they sign in again under the new rule. ' +
          'Replacing an OpenID Connect connection, an absent `clientSecret` keeps the stored one and `"clientSecret": null` removes it. ' +
          '`If-None-Match: *` creates only: 412 `identity.connection_exists` when the connection exists (docs/identity.md, "OpenID Connect").',
        headers: Type.Object(
          {
            ...SourceHeader.properties,
            'if-none-match': Type.Optional(
              Type.Literal('*', {
                description: 'Create only: 412 `identity.connection_exists` when the tenant has the connection already.',
              }),
            ),
          },
          { additionalProperties: true },
        ),
        params: NameParams,
        body: Type.Object(
          {
            protocol: Type.Optional(Type.Union([Type.Literal('oidc'), Type.Literal('saml')], { default: 'oidc' })),
            displayName: Type.Optional(
              Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
                description:
                  'What the authorize page’s "Sign in with …" button reads: text of 1 to 100 characters without control characters; ' +
                  'absent or null: the connection’s name.',
                examples: ['Acme staff'],
              }),
            ),
            issuer: Type.Optional(Type.String()),
            clientId: Type.Optional(Type.String()),
            clientSecret: Type.Optional(
              Type.Union([Type.String(), Type.Null()], {
                description:
                  'OpenID Connect: a confidential client’s secret, stored encrypted and never answered. Absent: a replaced OpenID Connect ' +
                  'connection keeps the stored one; null: none (a public client, PKCE only).',
              }),
            ),
            scopes: Type.Optional(Type.String({ default: 'openid email profile' })),
            metadataXml: Type.Optional(Type.String()),
            metadataUrl: Type.Optional(Type.String()),
            idpEntityId: Type.Optional(Type.String()),
            entryPoint: Type.Optional(Type.String()),
            certificates: Type.Optional(Type.Array(Type.String())),
            spEntityId: Type.Optional(Type.String()),
            allowSha1: Type.Optional(
              Type.Boolean({ default: false, description: 'SAML: take signatures and digests using SHA-1 (refused by default).' }),
            ),
            claims: Type.Optional(Type.Record(Type.String(), Type.String())),
            admins: Type.Optional(AdminsRule),
            emailTrust: Type.Optional(EmailTrustBody),
          },
          { additionalProperties: true },
        ),
        response: {
          200: ConnectionBody,
          201: ConnectionBody,
          ...ADMIN_ERRORS,
          400: apiErrorResponse(
            'The connection is invalid (`identity.invalid_connection`, every problem in details.problems); a metadata URL that ' +
              'could not be reached or read is one (the server reaches public addresses only: docs/operations.md, "Requests the server makes"). ' +
              'An If-None-Match other than `*` (`identity.invalid_precondition`).',
          ),
          412: apiErrorResponse(
            'If-None-Match: * and the tenant has the connection already (`identity.connection_exists`); nothing changed.',
          ),
          503: apiErrorResponse(
            'The server has no key to encrypt the client secret with (`secrets.no_key`): its operator sets LEARNBASE_SECRETS_KEY.',
          ),
        },
      },
      validatorCompiler: () => () => true,
      bodyLimit: MAX_METADATA_BYTES * 2,
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const createOnly = createOnlyOf(request.headers['if-none-match']);
      // Before a metadata URL is read for nothing; the transaction checks again.
      if (createOnly) await refuseExisting(sql, principal.tenant, request.params.name);
      const input = await connectionOfBody(outbound, principal.tenant, request.params.name, request.body);
      const write = { secret: clientSecretChangeOf(request.body), createOnly };
      const { connection, created, revoked } = await sql.transaction(async (tx) => {
        const written = await putConnection(tx, secrets, principal.tenant, request.params.name, input, { principal, source }, write);
        await recordAudit(tx, {
          action: written.created ? 'sso_connection.created' : 'sso_connection.updated',
          principal,
          source,
          details: { name: request.params.name },
        });
        return written;
      });
      await announceRevokedTokens(revoked);
      return reply.status(created ? 201 : 200).send(connectionView(connection, principal.tenant, request.publicBaseUrl));
    },
  );

  app.get(
    '/api/sso/connections/:name/metadata',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'GET:sso.connections.metadata',
        summary: 'This server as a SAML service provider for one connection: the metadata document to import at the provider',
        description:
          'An EntityDescriptor with the connection’s `spEntityId`, the Assertion Consumer Service (`acsUrl`, HTTP-POST) and ' +
          '`WantAssertionsSigned`: what Entra ID ("Upload metadata file"), Okta or Keycloak (client import) read to register this server.',
        params: NameParams,
        produces: ['application/samlmetadata+xml'],
        response: {
          200: { description: 'The metadata (SAML 2.0 Metadata).', content: { 'application/samlmetadata+xml': { schema: Type.String() } } },
          ...ADMIN_ERRORS,
          404: apiErrorResponse(
            'No connection of this name (`identity.connection_not_found`), or one of OpenID Connect, which has none (`identity.not_saml`).',
          ),
        },
      },
    },
    async (request, reply) => {
      const { tenant } = adminPrincipalOf(request);
      const xml = await connectionMetadata(sql, tenant, request.params.name, request.publicBaseUrl);
      return reply
        .type('application/samlmetadata+xml; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${tenant.name}-${request.params.name}-sp-metadata.xml"`)
        .send(xml);
    },
  );

  // The same document at an address of its own, for a provider that reads it itself (AD FS's
  // "published online", Keycloak's import from a URL): metadata is public by design.
  app.get(
    SAML_METADATA_PATH,
    {
      config: { public: true },
      schema: {
        tags: ['identity'],
        operationId: 'GET:auth.sso.saml.metadata',
        summary: 'This server’s SAML service provider metadata for one tenant’s connection, without a credential',
        description:
          'The document GET /api/sso/connections/{name}/metadata answers an admin, at an address a provider can read by itself ' +
          '(AD FS "published online", Keycloak "import from URL"). A tenant named by the Host or X-SVC-Tenant must be the one in the path.',
        security: [],
        params: Type.Object({
          tenant: Type.String({ minLength: 1, maxLength: 200, description: 'The tenant’s name.' }),
          name: Type.String({ minLength: 1, maxLength: 200, description: 'The connection’s name.' }),
        }),
        produces: ['application/samlmetadata+xml'],
        response: {
          200: { description: 'The metadata (SAML 2.0 Metadata).', content: { 'application/samlmetadata+xml': { schema: Type.String() } } },
          400: apiErrorResponse('The Host or X-SVC-Tenant names another tenant (`tenant.mismatch`).'),
          404: apiErrorResponse(
            'No such tenant, or it has no SAML connection of this name (`identity.connection_not_found`, `identity.not_saml`).',
          ),
        },
      },
    },
    async (request, reply) => {
      const { wanted, tenant } = await tenantOfPath(request, request.params.tenant);
      if (!tenant)
        throw notFound('identity.connection_not_found', `No tenant "${wanted}" has a single sign-on connection "${request.params.name}".`);
      const xml = await connectionMetadata(sql, tenant, request.params.name, request.publicBaseUrl);
      return reply.type('application/samlmetadata+xml; charset=utf-8').header('Cache-Control', 'public, max-age=300').send(xml);
    },
  );

  app.post(
    '/api/sso/connections/:name/refresh',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'POST:sso.connections.refresh',
        summary: 'Read a SAML connection’s metadata URL again now (the provider rolled its key or moved)',
        description:
          'What the metadata describes now replaces the entry point and the certificates (audited `sso_connection.refreshed` when they ' +
          'changed); the server also does this once a day by itself. A document that cannot be read, or names another provider, ' +
          'changes nothing.',
        headers: SourceHeader,
        params: NameParams,
        response: {
          200: Type.Object({
            connection: ConnectionBody,
            changed: Type.Array(Type.Union([Type.Literal('entryPoint'), Type.Literal('certificates')]), {
              description: 'What the reading changed; empty: the provider describes itself as before.',
            }),
          }),
          ...ADMIN_ERRORS,
          404: apiErrorResponse('No SAML connection of this name named by a metadata URL (`identity.no_metadata_url`).'),
          409: apiErrorResponse('Another reading of this connection, or a PUT of it, is under way (`identity.metadata_busy`).'),
          502: apiErrorResponse(
            'The metadata could not be read, or describes another provider (`identity.metadata_unusable`); kept as metadataProblem.',
          ),
        },
      },
    },
    async (request) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const { connection, changed } = await refreshConnection(sql, outbound, principal, request.params.name, source);
      return { connection: connectionView(connection, principal.tenant, request.publicBaseUrl), changed };
    },
  );

  app.delete(
    '/api/sso/connections/:name',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'DELETE:sso.connections',
        summary: 'Delete a single sign-on connection, and the admins it made (their tokens refused at once, in every server process)',
        headers: SourceHeader,
        params: NameParams,
        response: {
          204: Type.Null({ description: 'Deleted.' }),
          ...ADMIN_ERRORS,
          404: apiErrorResponse('The tenant has no connection of this name (`identity.connection_not_found`).'),
        },
      },
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const revoked = await sql.transaction(async (tx) => {
        // Its audit entry comes before those of the admins it made, which go with it.
        await recordAudit(tx, { action: 'sso_connection.deleted', principal, source, details: { name: request.params.name } });
        return removeConnection(tx, principal.tenant, request.params.name, { principal, source });
      });
      await announceRevokedTokens(revoked);
      return reply.status(204).send(null);
    },
  );

  app.post(
    SAML_ACS_PATH,
    {
      config: { public: true, errors: signInWording },
      bodyLimit: SAML_BODY_LIMIT,
      schema: {
        tags: ['identity'],
        operationId: 'POST:auth.sso.saml',
        summary: 'Where a SAML identity provider posts its Response (the HTTP-POST binding); on to the callback',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object(
          { SAMLResponse: Type.Optional(Type.String()), RelayState: Type.Optional(Type.String()) },
          { additionalProperties: true },
        ),
        response: {
          303: { description: 'To the callback, where the browser’s state cookie ends the sign-in.' },
          400: htmlPageResponse('An unknown, expired or finished sign-in, or a Response without its RelayState (a page).'),
          401: htmlPageResponse(
            'The Response did not check: Destination, SHA-1, signature, issuer, audience, recipient, time, or InResponseTo (a page).',
          ),
        },
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
      const location = await signOn.acceptAssertion(text(body.SAMLResponse), text(body.RelayState));
      return reply
        .status(303)
        .header('Location', location)
        .header('Cache-Control', 'no-store')
        .header('Referrer-Policy', 'no-referrer')
        .send();
    },
  );

  // A launch link opened on another address than LEARNBASE_PUBLIC_URL's (a tenant's sub-domain)
  // begins its sign-in here, at the public address the provider returns the browser to.
  app.get(
    SSO_LAUNCH_PATH,
    {
      config: { public: true, errors: signInWording },
      // Each GET starts a sign-in: a HEAD (a link checker) must not.
      exposeHeadRoute: false,
      schema: {
        tags: ['identity'],
        operationId: 'GET:auth.sso.launch',
        summary: 'A launch link’s single sign-on, begun at the server’s public address; to the identity provider',
        description:
          'Where GET /api/activities/launch without `auth`, opened on another address than LEARNBASE_PUBLIC_URL, sends the browser ' +
          '(docs/identity.md, "Single sign-on"): the state cookie is set where the provider returns. A tenant named by the Host or ' +
          'X-SVC-Tenant must be the one in the path.',
        security: [],
        params: Type.Object({ tenant: Type.String({ minLength: 1, maxLength: 200, description: 'The tenant’s name.' }) }),
        querystring: Type.Object({
          activityId: Type.String({ minLength: 1, maxLength: 4096, description: 'The activity to launch once signed in.' }),
          connection: Type.Optional(
            Type.String({ minLength: 1, maxLength: 200, description: 'The connection to sign in with; default: the tenant’s first.' }),
          ),
        }),
        response: {
          302: { description: 'To the identity provider, with the state cookie set.' },
          400: htmlPageResponse('A parameter is missing or malformed, or the Host or X-SVC-Tenant names another tenant (a page).'),
          404: htmlPageResponse('No such tenant, or it has no such connection, or none (a page).'),
          502: htmlPageResponse('The identity provider could not be reached (`identity.provider_unreachable`, a page; the log says why).'),
        },
      },
    },
    async (request, reply) => {
      const { wanted, tenant } = await tenantOfPath(request, request.params.tenant);
      if (!tenant) throw notFound('identity.connection_not_found', `No tenant "${wanted}" has single sign-on.`);
      await signOn.beginAtPublicAddress(request, reply, tenant, request.query.activityId, request.query.connection);
      return reply;
    },
  );

  app.get(
    CALLBACK_PATH,
    {
      config: { public: true, errors: signInWording },
      exposeHeadRoute: false,
      schema: {
        tags: ['identity'],
        operationId: 'GET:auth.sso.callback',
        summary: 'Where an identity provider returns the browser after a sign-in; redirects to what the sign-in was for',
        security: [],
        querystring: Type.Object(
          {
            code: Type.Optional(Type.String()),
            state: Type.Optional(Type.String()),
            error: Type.Optional(Type.String()),
            error_description: Type.Optional(Type.String()),
          },
          { additionalProperties: true },
        ),
        response: {
          302: { description: 'To the launched content, or (an admin’s sign-in) to the application’s redirect URI with the code.' },
          400: htmlPageResponse('An unknown, expired or used sign-in, or one started in another browser (a page).'),
          401: htmlPageResponse('The provider refused, or its answer did not check (a page).'),
          403: htmlPageResponse(
            'The person is deactivated or could not be identified; or (an admin) the claims make no admin, or the admin of that ' +
              'address was not made by this connection (a page).',
          ),
          409: htmlPageResponse('The claims name two people (a page).'),
          502: htmlPageResponse('The provider’s token endpoint or keys could not be reached (`identity.provider_unreachable`, a page).'),
        },
      },
    },
    async (request, reply) => {
      const location = await signOn.finish(request, request.query, request.cookies[STATE_COOKIE]);
      return reply
        .status(302)
        .header('Set-Cookie', `${STATE_COOKIE}=; Path=${CALLBACK_PATH}; Max-Age=0; HttpOnly; SameSite=Lax`)
        .header('Location', location)
        .header('Cache-Control', 'no-store')
        .header('Referrer-Policy', 'no-referrer')
        .send();
    },
  );
};
