import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { ApiError, describedOnly } from '../../platform/http/common-schemas.js';
import { PageQuery, pageOf, sendPageHeaders } from '../../platform/http/paged-list.js';
import { sourceOfHeader } from '../audit/index.js';
import { tenantWidePrincipalOf } from '../../kernel/principal.js';
import { ActorKindParameter } from './search/actor-search.schemas.js';
import { PersonItemBody, PersonItemQuery } from './actor-item.schemas.js';
import { listActors, showPerson } from './actor.service.js';
import { agentKeyRequired } from './people/person-access.service.js';
import { upsertAgent } from './agents/agent-upsert.service.js';
import type { PeopleChanges } from '../../kernel/people-changes.port.js';

export interface ActorsRoutesOptions {
  sql: SqlClient;
  /** The tenants' base domain: the default accountHomePage of the tenant settings. */
  baseDomain: string;
  /** The host of the extension keys, `http://{serviceDomain}/api/ext/agent/…` (LEARNBASE_SERVICE_DOMAIN). */
  serviceDomain: string;
  /** Told of every agent written, in the write's transaction. */
  peopleChanges: PeopleChanges;
}

const ActorsQuery = Type.Object({ ...PageQuery('actors').properties, kind: Type.Optional(ActorKindParameter) });

/** The page's response headers, one schema each (as @fastify/swagger reads a response's `headers`). */
export const ListHeaders = {
  'X-Total-Count': Type.Integer({ description: 'How many actors of this kind there are in all.' }),
  Link: Type.String({
    description:
      'When more follow this page: `<{next page}>; rel="next"` (the same query with `skip` moved on), before any other link of the answer (an API key’s rel="deprecation").',
  }),
};

const Account = Type.Object({ homePage: Type.String(), name: Type.String() });
const Identifiers = {
  mbox: Type.Optional(Type.String({ examples: ['mailto:ada@example.com'] })),
  mbox_sha1sum: Type.Optional(Type.String()),
  openid: Type.Optional(Type.String()),
  account: Type.Optional(Account),
};

const Member = Type.Object({ objectType: Type.Literal('Agent'), name: Type.Optional(Type.String()), ...Identifiers });

export const Actor = Type.Object(
  {
    objectType: Type.Union([Type.Literal('Agent'), Type.Literal('Group')]),
    name: Type.Optional(Type.String()),
    ...Identifiers,
    member: Type.Optional(Type.Array(Member, { description: 'A group’s members as a statement last gave them.' })),
    extensions: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { description: 'An actor (interface 2.6): docs/actors.md, "Listing actors", describes the groups and the extensions.' },
);

const AgentBody = Type.Object(
  {
    objectType: Type.Optional(Type.Literal('Agent')),
    name: Type.Optional(Type.String({ examples: ['Ada Lovelace'] })),
    ...Identifiers,
    extensions: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Under `http://{any host}/api/ext/agent/attributes`: the attributes, an object of string values (replacing the stored ones). Other keys are ignored.',
      }),
    ),
  },
  {
    description:
      'An xAPI Agent with exactly one identifier (mbox, mbox_sha1sum, openid or account). docs/actors.md, "Writing one agent", gives the rules and how it is matched.',
  },
);

const UpsertHeaders = Type.Object({
  'svc-account-source': Type.Optional(
    Type.String({ description: 'Free text stored with the write in the audit log (at most 200 characters).', examples: ['hr-sync'] }),
  ),
});

/**
 * `GET /api/actors`, `GET /api/actors/item` and `PUT|POST /api/actors/agents`: the tenant's actors,
 * one person, and writing one agent. (`PATCH /api/actors/item`, which deactivates and reactivates,
 * is the identity module's: it revokes learner credentials, which are auth's, above actors.)
 */
export const actorsRoutes: FastifyPluginAsyncTypebox<ActorsRoutesOptions> = async (
  app,
  { sql, baseDomain, serviceDomain, peopleChanges },
) => {
  const domains = { baseDomain, serviceDomain };

  app.get(
    '/api/actors',
    {
      schema: {
        tags: ['actors'],
        operationId: 'GET:actors',
        summary: 'The tenant’s actors, agents and groups, in a stable order, with their attributes and links',
        querystring: ActorsQuery,
        response: {
          200: { ...Type.Array(Actor), headers: ListHeaders },
          400: ApiError,
          401: ApiError,
          403: ApiError,
          404: ApiError,
        },
      },
    },
    async (request, reply) => {
      const principal = tenantWidePrincipalOf(request);
      const kind = request.query.kind ?? 'people';
      const page = pageOf(request.query);
      const { actors, total } = await listActors(sql, principal, kind, page, domains);
      // Interface 4.2, "lists all actors. No parameters": a client that follows the links gets all.
      sendPageHeaders(reply, { url: `${request.publicBaseUrl}/api/actors`, query: { kind }, page, shown: actors.length, total });
      return actors as Static<typeof Actor>[];
    },
  );

  app.get(
    '/api/actors/item',
    {
      schema: {
        tags: ['actors'],
        operationId: 'GET:actors.item',
        summary: 'One person, deactivated or not, shaped as GET /api/actors shapes them, with whether they are active',
        description:
          'Exactly one of `agent` and `actorId` (both or neither: 400 `actors.invalid_query`; a malformed one: 400 `xapi.invalid_agent`). ' +
          'A person the tenant does not have, a statement authority, or one outside a scoped credential’s subtree: 404 `actors.not_found`. ' +
          'docs/actors.md, "One person".',
        querystring: PersonItemQuery,
        response: { 200: PersonItemBody, 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError },
      },
    },
    async (request) => {
      const principal = tenantWidePrincipalOf(request);
      return (await showPerson(sql, principal, agentKeyRequired(request.query), domains)) as Static<typeof PersonItemBody>;
    },
  );

  // POST does the same as PUT: the interface's provisioning guide calls the path with POST.
  app.route({
    method: ['PUT', 'POST'],
    url: '/api/actors/agents',
    // The rules (agent-upsert.ts) check the body and name each problem as actors.invalid_agent.
    validatorCompiler: describedOnly,
    schema: {
      tags: ['actors'],
      // Without its METHOD: /openapi.json gives PUT and POST each their own (platform/http/openapi.ts).
      operationId: 'actors.agents',
      summary: 'Updates the agent matching the identifier (else a unique attribute), or creates it; answers the stored actor',
      headers: UpsertHeaders,
      body: AgentBody,
      response: { 200: Actor, 201: Actor, 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 415: ApiError },
    },
    handler: async (request, reply) => {
      const principal = tenantWidePrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const { created, actor } = await upsertAgent(sql, principal, request.body, source, domains, peopleChanges);
      return reply.status(created ? 201 : 200).send(actor as Static<typeof Actor>);
    },
  });
};
