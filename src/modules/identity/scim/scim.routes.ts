import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { AppError } from '../../../platform/http/app-error.js';
import { utf8JsonParser } from '../../../platform/http/input-guards.js';
import type { Principal } from '../../../kernel/principal.js';
import type { IdentityPeople } from '../identity-person.service.js';
import { LIST_SCHEMA, schemas, serviceProviderConfig, userResourceType } from './scim-discovery.js';
import {
  createUser,
  deleteUser,
  getUser,
  listUsers,
  patchUser,
  replaceUser,
  type ScimContext,
  type ScimUserAnswer,
} from './scim-user.service.js';

/** What SCIM writes people with: identity's writing of people. */
export type ScimRoutesOptions = IdentityPeople;

const SCIM_JSON = 'application/scim+json; charset=utf-8';

const ScimErrorBody = Type.Object(
  {
    schemas: Type.Array(Type.String()),
    status: Type.String({ description: 'The HTTP status, as a string (RFC 7644 §3.12).' }),
    scimType: Type.Optional(
      Type.String({ description: 'invalidFilter, invalidSyntax, invalidPath, noTarget, invalidValue, mutability, uniqueness.' }),
    ),
    detail: Type.String(),
  },
  { description: 'RFC 7644 §3.12' },
);
const scimError = (description: string) => ({ ...ScimErrorBody, description });
/** A SCIM resource or message: its shape is the RFC's (docs/identity.md). */
const Resource = (description: string): TSchema => Type.Object({}, { additionalProperties: true, description });

const ERRORS = {
  400: scimError('The request is malformed: scimType and detail say how.'),
  401: scimError('No SCIM token, one that is not valid or revoked, or one of another tenant than the one named.'),
};

/**
 * What is not served under /scim/v2/: Groups (docs/identity.md, "Why no Groups"), Bulk, /Me, a
 * resource type or schema not listed, a method a path does not take. Answered as a SCIM error
 * (404, RFC 7644 §3.12) so that an identity provider probing for Groups reads why.
 */
const notServed = (what: string, groups: boolean) =>
  new AppError(
    'identity.scim_not_served',
    404,
    groups
      ? 'Groups are not supported: this service provider serves Users only (GET /scim/v2/ResourceTypes lists them). ' +
          'Send a person\'s unit as a User attribute (docs/identity.md, "Why no Groups").'
      : `No SCIM resource here (${what}): this service provider serves Users only; GET /scim/v2/ResourceTypes lists the resource types.`,
  );
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
/** A Group's path, resource type or schema (`Groups/…`, `Group`, `urn:…:core:2.0:Group`). */
const isGroups = (name: string) => /^groups?(\/|$)/i.test(name) || name.toLowerCase() === GROUP_SCHEMA.toLowerCase();

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'The User id (the actor id, a UUID).' }) });
const IfMatch = Type.Object(
  { 'if-match': Type.Optional(Type.String({ description: 'The version the change applies to (meta.version); 412 otherwise.' })) },
  { additionalProperties: true },
);

/**
 * The SCIM 2.0 service provider (RFC 7644) at `/scim/v2/` (docs/identity.md, "SCIM"): its own
 * bearer tokens (scim-token.service.ts), checked by auth's hook as identity's authentication
 * scheme (scim-scheme.ts); the tenant is the token's, and a tenant named by the sub-domain or
 * X-SVC-Tenant must be the same. Errors, the scheme's 401s included, are answered in SCIM's shape
 * (error-handler.ts, `errors: 'scim'`, set on every route here). The
 * routes are hidden from /openapi.json: SCIM describes itself (ServiceProviderConfig, ResourceTypes,
 * Schemas: RFC 7644 §4), and its paths (`/Users`, `/Users/{id}`) would break the operationId scheme
 * (docs/api-description.md).
 */
export const scimRoutes: FastifyPluginAsyncTypebox<ScimRoutesOptions> = async (app, options) => {
  app.addContentTypeParser('application/scim+json', { parseAs: 'buffer' }, utf8JsonParser(app));

  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, errors: 'scim' };
  });

  const contextOf = (request: FastifyRequest): ScimContext => ({
    ...options,
    principal: request.principal as Principal,
    source: 'scim',
    base: `${request.publicBaseUrl}/scim/v2`,
  });
  const base = (request: FastifyRequest) => `${request.publicBaseUrl}/scim/v2`;
  const sendUser = (reply: FastifyReply, answer: ScimUserAnswer, status = 200) =>
    reply.status(status).type(SCIM_JSON).header('ETag', answer.version).header('Location', answer.location).send(answer.resource);
  const ifMatchOf = (request: FastifyRequest) => {
    const value = request.headers['if-match'];
    return Array.isArray(value) ? value.join(',') : value;
  };

  app.get(
    '/scim/v2/ServiceProviderConfig',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'GET:scim.v2.ServiceProviderConfig',
        summary: 'SCIM: what this service provider supports',
        response: { 200: Resource('RFC 7643 §5'), ...ERRORS },
      },
    },
    async (request, reply) => reply.type(SCIM_JSON).send(serviceProviderConfig(base(request))),
  );

  app.get(
    '/scim/v2/ResourceTypes',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'GET:scim.v2.ResourceTypes',
        summary: 'SCIM: the resource types (User)',
        response: { 200: Resource('A ListResponse of RFC 7643 §6 ResourceTypes'), ...ERRORS },
      },
    },
    async (request, reply) =>
      reply
        .type(SCIM_JSON)
        .send({ schemas: [LIST_SCHEMA], totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [userResourceType(base(request))] }),
  );

  app.get(
    '/scim/v2/ResourceTypes/:id',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'GET:scim.v2.ResourceTypes',
        summary: 'SCIM: one resource type (User; Group is not served)',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'The resource type, `User`.' }) }),
        response: {
          200: Resource('An RFC 7643 §6 ResourceType'),
          ...ERRORS,
          404: scimError('No such resource type (Groups are not served).'),
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (id !== 'User') throw notServed(`resource type "${id}"`, isGroups(id));
      return reply.type(SCIM_JSON).send(userResourceType(base(request)));
    },
  );

  app.get(
    '/scim/v2/Schemas/:id',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'GET:scim.v2.Schemas',
        summary: 'SCIM: one schema, by its URN',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'The schema URN.' }) }),
        response: { 200: Resource('An RFC 7643 §7 Schema'), ...ERRORS, 404: scimError('No schema has this id.') },
      },
    },
    async (request, reply) => {
      const found = schemas(base(request)).find((schema) => String(schema.id).toLowerCase() === request.params.id.toLowerCase());
      if (!found) throw notServed(`schema "${request.params.id}"`, isGroups(request.params.id));
      return reply.type(SCIM_JSON).send(found);
    },
  );

  app.get(
    '/scim/v2/Schemas',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'GET:scim.v2.Schemas',
        summary: 'SCIM: the schemas of the attributes kept',
        response: { 200: Resource('A ListResponse of RFC 7643 §7 Schemas'), ...ERRORS },
      },
    },
    async (request, reply) => {
      const all = schemas(base(request));
      return reply
        .type(SCIM_JSON)
        .send({ schemas: [LIST_SCHEMA], totalResults: all.length, startIndex: 1, itemsPerPage: all.length, Resources: all });
    },
  );

  app.get(
    '/scim/v2/Users',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'GET:scim.v2.Users',
        summary: 'SCIM: a page of Users, optionally filtered',
        querystring: Type.Object({
          filter: Type.Optional(
            Type.String({ description: 'RFC 7644 §3.4.2.2: userName, externalId, emails.value, active, … (docs/identity.md).' }),
          ),
          startIndex: Type.Optional(Type.Integer({ description: '1-based; below 1 is 1.' })),
          count: Type.Optional(Type.Integer({ description: 'At most 1,000 (default 100); below 0 is 0.' })),
          attributes: Type.Optional(Type.String({ description: 'Accepted and ignored: every attribute is answered.' })),
          excludedAttributes: Type.Optional(Type.String({ description: 'Accepted and ignored.' })),
        }),
        response: { 200: Resource('RFC 7644 §3.4.2 ListResponse'), ...ERRORS },
      },
    },
    async (request, reply) => reply.type(SCIM_JSON).send(await listUsers(contextOf(request), request.query)),
  );

  app.post(
    '/scim/v2/Users',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'POST:scim.v2.Users',
        summary: 'SCIM: create a User (or adopt the stored person its unique values match)',
        response: {
          201: Resource('The User'),
          ...ERRORS,
          409: scimError('userName is another User’s, or the person matched already is one (uniqueness).'),
        },
      },
    },
    async (request, reply) => sendUser(reply, await createUser(contextOf(request), request.body), 201),
  );

  app.get(
    '/scim/v2/Users/:id',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'GET:scim.v2.Users',
        summary: 'SCIM: one User',
        params: IdParams,
        response: { 200: Resource('The User'), ...ERRORS, 404: scimError('No User has this id.') },
      },
    },
    async (request, reply) => sendUser(reply, await getUser(contextOf(request), request.params.id)),
  );

  const writeResponses = {
    200: Resource('The User'),
    ...ERRORS,
    404: scimError('No User has this id.'),
    409: scimError('userName is another User’s, or the unique values name another person (uniqueness).'),
    412: scimError('If-Match names another version.'),
  };

  app.put(
    '/scim/v2/Users/:id',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'PUT:scim.v2.Users',
        summary: 'SCIM: replace a User (the person’s attributes SCIM does not map stay)',
        params: IdParams,
        headers: IfMatch,
        response: writeResponses,
      },
    },
    async (request, reply) => sendUser(reply, await replaceUser(contextOf(request), request.params.id, request.body, ifMatchOf(request))),
  );

  app.patch(
    '/scim/v2/Users/:id',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'PATCH:scim.v2.Users',
        summary: 'SCIM: change a User with PatchOp operations',
        params: IdParams,
        headers: IfMatch,
        response: writeResponses,
      },
    },
    async (request, reply) => sendUser(reply, await patchUser(contextOf(request), request.params.id, request.body, ifMatchOf(request))),
  );

  app.delete(
    '/scim/v2/Users/:id',
    {
      schema: {
        tags: ['identity'],
        hide: true,
        operationId: 'DELETE:scim.v2.Users',
        summary: 'SCIM: deactivate the person and end the User (records stay)',
        params: IdParams,
        headers: IfMatch,
        response: {
          204: Type.Null({ description: 'Deactivated; the id answers 404 from now on.' }),
          ...ERRORS,
          404: scimError('No User has this id.'),
          412: scimError('If-Match names another version.'),
        },
      },
    },
    async (request, reply) => {
      await deleteUser(contextOf(request), request.params.id, ifMatchOf(request));
      return reply.status(204).send(null);
    },
  );

  // Anything else under /scim/v2/ (Groups, Bulk, /Me, PUT /Users) is a SCIM 404 after the token
  // check, not the API's: the routes above are preferred by Fastify's router to this wildcard. The
  // folder itself is a route too, so that the route list (and the route fuzz reading it) shows the
  // wildcard under it.
  for (const url of ['/scim/v2/', '/scim/v2/*']) {
    app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url,
      schema: {
        tags: ['identity'],
        hide: true,
        summary: 'SCIM: what is not served here (Groups, Bulk, …), answered as a SCIM error',
        response: { ...ERRORS, 404: scimError('Not served: Groups, Bulk, an unknown path or method.') },
      },
      handler: async (request) => {
        const path = (request.params as { '*'?: string })['*'] ?? '';
        throw notServed(`${request.method} /scim/v2/${path}`, isGroups(path));
      },
    });
  }
};
