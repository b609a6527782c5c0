import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError, describedOnly } from '../../../platform/http/common-schemas.js';
import { sourceOfHeader } from '../../audit/index.js';
import { tenantWidePrincipalOf } from '../../../kernel/principal.js';
import { PersonQueryProperties } from '../../actors/index.js';
import { CREDENTIAL_LIST_DEFAULT_LIMIT, type CredentialListing, type CredentialService } from './credential.service.js';

export interface CredentialRoutesOptions {
  credentials: CredentialService;
}

const Actor = Type.Object(
  {
    objectType: Type.Optional(Type.Literal('Agent')),
    name: Type.Optional(Type.String()),
    mbox: Type.Optional(Type.String()),
    mbox_sha1sum: Type.Optional(Type.String()),
    openid: Type.Optional(Type.String()),
    account: Type.Optional(Type.Object({ homePage: Type.String(), name: Type.String() })),
  },
  { additionalProperties: true, description: 'An xAPI Agent with exactly one identifier (mbox, mbox_sha1sum, openid or account).' },
);

const CreateCredentialBody = Type.Object(
  {
    username: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Random and new for every request (interface 5.3): a username once used in the tenant is refused (409), even after revocation. No ":".',
      examples: ['3f6c1e0a9b7d4c2e'],
    }),
    password: Type.String({ minLength: 8, maxLength: 1000, description: 'Random; stored only as an scrypt hash.' }),
    data: Type.Object({ actor: Actor }),
  },
  { description: 'A learner credential for an actor of the tenant (interface 4.2).' },
);

const CreatedCredential = Type.Object({
  username: Type.String(),
  actor: Type.Object({}, { additionalProperties: true, description: 'The stored actor the credential acts for.' }),
  expiresAt: Type.String({
    format: 'date-time',
    description: 'After this the credential is refused (LEARNBASE_CREDENTIAL_TTL_S, default 30 days).',
  }),
});

const SourceHeader = Type.Object(
  {
    'svc-account-source': Type.Optional(
      Type.String({ description: 'Free text recorded with the change in the audit log (interface 4.2).' }),
    ),
  },
  { additionalProperties: true },
);

const CredentialListQuery = Type.Object(
  {
    ...PersonQueryProperties,
    state: Type.Optional(
      Type.Literal('active', { description: 'Only the credentials that still authenticate: neither revoked nor expired.' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: CREDENTIAL_LIST_DEFAULT_LIMIT,
        description: 'At most this many credentials, the newest (1-1000, default 100).',
      }),
    ),
  },
  { additionalProperties: false },
);

const ListedCredential = Type.Object({
  username: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time', description: 'When it stops (or stopped) working.' }),
  revokedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When it was revoked; absent while it is not.' })),
  state: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')], {
    description: 'active: it authenticates; expired: past expiresAt; revoked: revoked (whether or not it has expired since).',
  }),
});

const listed = (credential: CredentialListing) => ({
  username: credential.username,
  createdAt: credential.createdAt.toISOString(),
  expiresAt: credential.expiresAt.toISOString(),
  ...(credential.revokedAt === undefined ? {} : { revokedAt: credential.revokedAt.toISOString() }),
  state: credential.state,
});

/**
 * `GET|POST /api/auth/basic` and `DELETE /api/auth/basic/{username}`: a person's learner
 * credentials, creating one, revoking one (tenant-wide principals).
 */
export const credentialRoutes: FastifyPluginAsyncTypebox<CredentialRoutesOptions> = async (app, { credentials }) => {
  app.post(
    '/api/auth/basic',
    {
      // parseCredentialRequest checks the body and names the field; the schema documents it.
      validatorCompiler: describedOnly,
      schema: {
        tags: ['auth'],
        operationId: 'POST:auth.basic',
        summary: 'Create a learner credential (Basic username/password acting for one actor)',
        description:
          'docs/provisioning.md walks through it. The credential may launch content and read and write xAPI data of its own actor only.',
        headers: SourceHeader,
        body: CreateCredentialBody,
        response: { 201: CreatedCredential, 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError },
      },
    },
    async (request, reply) => {
      const principal = tenantWidePrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      return reply.status(201).send(await credentials.create(principal, request.body, source));
    },
  );

  app.get(
    '/api/auth/basic',
    {
      schema: {
        tags: ['auth'],
        operationId: 'GET:auth.basic',
        summary: 'A person’s learner credentials, newest first, with their state (never a password or hash)',
        description:
          'Exactly one of `agent` and `actorId` (both or neither: 400 `actors.invalid_query`). A person the tenant does not have, or one ' +
          'outside a scoped credential’s subtree: 404 `actors.not_found`. Revoke one with DELETE /api/auth/basic/{username}. docs/provisioning.md, "Listing a person’s credentials".',
        querystring: CredentialListQuery,
        response: { 200: Type.Array(ListedCredential), 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError },
      },
    },
    async (request) => {
      const principal = tenantWidePrincipalOf(request);
      return (await credentials.list(principal, request.query)).map(listed);
    },
  );

  app.delete(
    '/api/auth/basic/:username',
    {
      schema: {
        tags: ['auth'],
        operationId: 'DELETE:auth.basic',
        summary: 'Revoke a learner credential, in every server process at once',
        headers: SourceHeader,
        params: Type.Object({ username: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          204: Type.Null({ description: 'Revoked (or already was).' }),
          400: ApiError,
          401: ApiError,
          403: ApiError,
          404: ApiError,
        },
      },
    },
    async (request, reply) => {
      const principal = tenantWidePrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      await credentials.revoke(principal, request.params.username, source);
      return reply.status(204).send(null);
    },
  );
};
